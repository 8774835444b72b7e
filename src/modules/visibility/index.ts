// /v1/ai/generate/seo-site-report*: request, read and refresh AI visibility reports, their history,
// prefill suggestions and the refresh schedule (SPEC 4.1). Registers the report job on aiQueue.
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../http/auth";
import { notFound } from "../../http/errors";
import { historyQuery, prefillBody, reportBody, reportQuery, scheduleBody } from "./model";
import { createReportScheduler } from "./schedule";
import { getReport, pendingReport, prefillReport, REPORT_JOB_NAME, reportHistory, reportJobFailed, requestReport, runReportJob } from "./service";

export function visibilityModule(ctx: AppContext, auth: AuthPlugin) {
  ctx.jobs.register(REPORT_JOB_NAME, (job) => runReportJob(ctx, job), { onFailed: (job) => reportJobFailed(ctx, job) });
  const scheduler = createReportScheduler(ctx);
  ctx.onShutdown(() => scheduler.stop());

  return new Elysia({ prefix: "/v1/ai/generate", tags: ["visibility"] })
    .use(auth)
    .post(
      "/seo-site-report",
      ({ body, principal, set }) => {
        const queued = requestReport(ctx, principal, body ?? {});
        set.status = 202;
        return queued;
      },
      {
        auth: "api",
        body: reportBody,
        detail: { summary: "Queue a visibility report, or refresh the latest one (refresh: true); poll GET /job/:jobId" },
      },
    )
    .get(
      "/seo-site-report",
      ({ query, principal }) => getReport(ctx.db, principal, query.sort ?? "desc", ctx.clock.now()),
      { auth: "api", query: reportQuery, detail: { summary: "The latest completed visibility report, or {message, isEmpty: true}" } },
    )
    .get(
      "/seo-site-report/history",
      ({ query, principal }) => {
        const points = reportHistory(ctx.db, principal.workspaceId, query.limit ?? 100);
        return { message: points.length ? "Visibility history" : "No visibility history yet", points };
      },
      { auth: "api", query: historyQuery, detail: { summary: "Scores of every completed report, oldest first" } },
    )
    .get(
      "/seo-site-report/pending",
      ({ principal }) => {
        const pending = pendingReport(ctx, principal.workspaceId);
        return { message: pending ? "A report is in progress" : "No report in progress", pending };
      },
      { auth: "api", detail: { summary: "The report still queued or running, if any, with the jobId to poll (beyond the SPEC)" } },
    )
    .post(
      "/seo-site-report/prefill",
      ({ body, principal }) => prefillReport(ctx, principal, body),
      { auth: "api", body: prefillBody, detail: { summary: "Suggest competitors and prompts for a site" } },
    )
    .get(
      "/seo-site-report/schedule",
      ({ principal }) => {
        const schedule = scheduler.get(principal.workspaceId);
        return { message: schedule ? "Report schedule" : "No report schedule", schedule };
      },
      { auth: "api", detail: { summary: "The workspace's scheduled report refresh, or schedule: null" } },
    )
    .put(
      "/seo-site-report/schedule",
      ({ body, principal }) => ({ message: "Report schedule saved", schedule: scheduler.set(principal, body) }),
      { auth: "api", body: scheduleBody, detail: { summary: "Set the cron schedule that refreshes the latest report" } },
    )
    .delete(
      "/seo-site-report/schedule",
      ({ principal }) => {
        if (!scheduler.remove(principal.workspaceId)) throw notFound("SCHEDULE_NOT_FOUND", "this workspace has no report schedule");
        return { message: "Report schedule removed" };
      },
      { auth: "api", detail: { summary: "Remove the scheduled refresh" } },
    );
}
