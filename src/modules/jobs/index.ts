// GET /v1/ai/generate/job/:jobId: poll an asynchronous job (SPEC 4.3). Another workspace's job is
// reported exactly like an unknown one, so ids leak nothing across tenants.
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../http/auth";
import { notFound } from "../../http/errors";
import { jobNotFound, jobParams, jobView } from "./model";

export function jobsModule(ctx: AppContext, auth: AuthPlugin) {
  return new Elysia({ prefix: "/v1/ai/generate", tags: ["jobs"] })
    .use(auth)
    .get(
      "/job/:jobId",
      ({ params, principal }) => {
        const job = ctx.jobs.get(params.jobId, principal.workspaceId);
        if (!job) throw notFound("JOB_NOT_FOUND", `job ${params.jobId} not found`, { jobId: params.jobId });
        return job;
      },
      {
        auth: "api",
        params: jobParams,
        response: { 200: jobView, 404: jobNotFound },
        detail: { summary: "State, progress and result of an asynchronous job" },
      },
    );
}
