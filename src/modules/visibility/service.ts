// Visibility reports: the request rules of SPEC 4.1 (free audit, refresh allowance, prompt cap,
// credits), the report job that asks every configured provider and stores the scored result,
// reading the latest report and its history, and prefill suggestions.
import pLimit from "p-limit";
import type { ProviderFamily } from "../../ai/types";
import { refundUsage, reserveCredits, type Reservation, withCredits } from "../../ai/credits";
import type { AppContext } from "../../context";
import { type DB, tx } from "../../db";
import { AppError, badRequest, forbidden, tooMany } from "../../http/errors";
import { NonRetryableJobError } from "../../jobs";
import type { FailedJob, JobContext } from "../../jobs/types";
import { fetchPageText, parseFetchUrl } from "../../lib/safe-fetch";
import { newId } from "../../platform/ids";
import { DAY_MS } from "../../platform/clock";
import type { Plan } from "../users/plans";
import type { Principal } from "../users/service";
import { MAX_COMPETITORS, type PrefillBody, type ReportBody } from "./model";
import { assembleReport, type CollectedAnswer, type ReportTarget, type StoredReport } from "./report";
import { analyzeAnswer, answerExcerpt, competitorEntity, trackedEntities } from "./scoring";
import {
  cleanCompetitors,
  cleanPrompts,
  fallbackPrompts,
  mergeSuggestions,
  parseSuggestions,
  type SiteFacts,
  SUGGESTION_SYSTEM_PROMPT,
  suggestionRequest,
  type Suggestions,
} from "./suggestions";

export const REPORT_JOB_NAME = "seo_site_report";
/** a report is retried once (a provider outage often passes); credits come back only after the last attempt */
export const REPORT_JOB_ATTEMPTS = 2;
const REPORT_JOB_BACKOFF_MS = 30_000;
/** prompts the job writes itself when a new report names none (capped by the plan) */
export const AUTO_PROMPTS = 5;
/** prompts cost one AI credit each, whatever the number of providers asked */
export const CREDITS_PER_PROMPT = 1;
export const PREFILL_CREDITS = 1;
const ANSWER_MAX_TOKENS = 1024;
const SITE_FETCH_TIMEOUT_MS = 10_000;
/** a row queued but never handed to the queue (crash between the two) is given up after this */
const UNQUEUED_GRACE_MS = 60_000;

export const REPORT_FOUND = "AI visibility report found";
export const REPORT_NOT_FOUND = "No AI visibility report found for this workspace";

export type ReportTrigger = "new" | "refresh" | "scheduled";
type ReportStatus = "queued" | "running" | "completed" | "failed";

export interface ReportRow {
  id: string;
  workspace_id: string;
  requested_by: string | null;
  job_id: string | null;
  trigger: ReportTrigger;
  status: ReportStatus;
  website_url: string;
  competitors: string;
  prompts: string;
  refresh_count: number;
  credits: string | null;
  score: number | null;
  result: string | null;
  error: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
}

interface ReportJobData {
  reportId: string;
  /** prompts to write when the report names none */
  autoPrompts: number;
}

// --- rows ------------------------------------------------------------------------------------

function findReport(db: DB, id: string, workspaceId: string): ReportRow | null {
  return db
    .query<ReportRow, { id: string; ws: string }>("SELECT * FROM visibility_reports WHERE id = $id AND workspace_id = $ws")
    .get({ id, ws: workspaceId });
}

/** The newest (or oldest) completed report of a workspace. */
export function completedReport(db: DB, workspaceId: string, sort: "asc" | "desc" = "desc"): ReportRow | null {
  return db
    .query<ReportRow, { ws: string }>(
      `SELECT * FROM visibility_reports WHERE workspace_id = $ws AND status = 'completed'
       ORDER BY created_at ${sort === "asc" ? "ASC" : "DESC"}, id ${sort === "asc" ? "ASC" : "DESC"} LIMIT 1`,
    )
    .get({ ws: workspaceId });
}

function setStatus(db: DB, id: string, status: ReportStatus, fields: { error?: string | null; at?: number } = {}) {
  db.query(
    `UPDATE visibility_reports SET status = $status, error = $error,
       started_at = CASE WHEN $status = 'running' THEN $at ELSE started_at END,
       finished_at = CASE WHEN $status IN ('completed', 'failed') THEN $at ELSE finished_at END
     WHERE id = $id`,
  ).run({ id, status, error: fields.error ?? null, at: fields.at ?? null });
}

/** Marks a report failed and gives its credits back, once (a second call finds it failed already). */
function failReport(db: DB, row: Pick<ReportRow, "id">, error: string, now: number): void {
  tx(db, () => {
    const current = db.query<ReportRow, { id: string }>("SELECT * FROM visibility_reports WHERE id = $id").get({ id: row.id });
    if (!current || current.status === "failed" || current.status === "completed") return;
    setStatus(db, row.id, "failed", { error: error.slice(0, 2000), at: now });
    if (current.credits) refundUsage(db, JSON.parse(current.credits) as Reservation);
  });
}

/**
 * Stores the prompts the job wrote, so a retry asks the same ones it was charged for, and gives
 * back the credits of any it could not write (fewer than were paid for).
 */
function keepWrittenPrompts(db: DB, reportId: string, prompts: string[]): void {
  const cost = prompts.length * CREDITS_PER_PROMPT;
  tx(db, () => {
    db.query("UPDATE visibility_reports SET prompts = $prompts WHERE id = $id").run({ id: reportId, prompts: JSON.stringify(prompts) });
    const row = db.query<Pick<ReportRow, "credits">, { id: string }>("SELECT credits FROM visibility_reports WHERE id = $id").get({ id: reportId });
    const reservation = row?.credits ? (JSON.parse(row.credits) as Reservation) : null;
    if (!reservation || reservation.cost <= cost) return;
    refundUsage(db, { ...reservation, cost: reservation.cost - cost });
    db.query("UPDATE visibility_reports SET credits = $credits WHERE id = $id").run({ id: reportId, credits: JSON.stringify({ ...reservation, cost }) });
  });
}

/**
 * Reports whose job is gone (pruned) or failed without the report following (its onFailed hook
 * threw and was rolled back), or that never reached the queue: failed and refunded, so they stop
 * counting against the free audit and the refresh allowance.
 */
function reconcileUnfinished(ctx: AppContext, workspaceId: string): void {
  const now = ctx.clock.now();
  const open = ctx.db
    .query<ReportRow, { ws: string }>("SELECT * FROM visibility_reports WHERE workspace_id = $ws AND status IN ('queued', 'running')")
    .all({ ws: workspaceId });
  for (const row of open) {
    if (!row.job_id) {
      if (now - row.created_at > UNQUEUED_GRACE_MS) failReport(ctx.db, row, "the report was never queued", now);
      continue;
    }
    const job = ctx.jobs.get(row.job_id, workspaceId);
    if (!job) failReport(ctx.db, row, "the report job no longer exists", now);
    else if (job.state === "failed") failReport(ctx.db, row, job.failedReason ?? "the report job failed", now);
  }
}

// --- allowances ------------------------------------------------------------------------------

export interface RefreshAllowance {
  /** refreshes counted in the last 24 hours (failed ones are not counted) */
  used: number;
  limit: number;
  remaining: number;
  /** seconds until the oldest counted refresh leaves the window; 0 when one is available */
  retryAfterSeconds: number;
}

export function refreshAllowance(db: DB, workspaceId: string, plan: Plan, now: number): RefreshAllowance {
  const rows = db
    .query<{ created_at: number }, { ws: string; since: number }>(
      `SELECT created_at FROM visibility_reports
       WHERE workspace_id = $ws AND trigger IN ('refresh', 'scheduled') AND status != 'failed' AND created_at > $since
       ORDER BY created_at`,
    )
    .all({ ws: workspaceId, since: now - DAY_MS });
  const limit = plan.refreshesPer24h;
  const remaining = Math.max(0, limit - rows.length);
  // full: a slot frees when the oldest refreshes beyond the limit have left the 24-hour window
  const freesAt = remaining > 0 || !rows.length ? now : rows[rows.length - Math.max(limit, 1)].created_at + DAY_MS;
  return { used: rows.length, limit, remaining, retryAfterSeconds: Math.max(0, Math.ceil((freesAt - now) / 1000)) };
}

/**
 * Refreshes counted so far in the line of `previous`: its own count, or more when refreshes of it
 * are still queued or running (two quick refreshes must count 1 and 2, not 1 and 1).
 */
function refreshesSince(db: DB, workspaceId: string, previous: ReportRow): number {
  const inFlight = db
    .query<{ n: number | null }, { ws: string; since: number }>(
      `SELECT max(refresh_count) AS n FROM visibility_reports
       WHERE workspace_id = $ws AND trigger != 'new' AND status != 'failed' AND created_at >= $since`,
    )
    .get({ ws: workspaceId, since: previous.created_at })!.n;
  return Math.max(previous.refresh_count, inFlight ?? 0);
}

function auditsUsed(db: DB, workspaceId: string): number {
  return db
    .query<{ n: number }, { ws: string }>("SELECT count(*) AS n FROM visibility_reports WHERE workspace_id = $ws AND status != 'failed'")
    .get({ ws: workspaceId })!.n;
}

// --- input -----------------------------------------------------------------------------------

function websiteUrl(input: string | undefined): string {
  if (input === undefined || input.trim() === "") throw badRequest("INVALID_URL", "websiteurl is required: the https:// URL of the site to analyse");
  const url = parseFetchUrl(input.trim(), true);
  return url.href;
}

function checkPrompts(prompts: string[], plan: Plan): string[] {
  const clean = cleanPrompts(prompts);
  if (clean.length > plan.promptsPerReport) {
    throw badRequest(
      "TOO_MANY_PROMPTS",
      `the ${plan.label} plan allows ${plan.promptsPerReport} prompts per report; ${clean.length} were sent`,
      { promptLimit: plan.promptsPerReport },
    );
  }
  return clean;
}

function checkCompetitors(competitors: string[], url: string): string[] {
  for (const c of competitors) {
    if (!competitorEntity(c)) throw badRequest("INVALID_COMPETITOR", `"${c.slice(0, 100)}" is neither a URL, a domain nor a brand name`);
  }
  return cleanCompetitors(competitors, url).slice(0, MAX_COMPETITORS);
}

/** The models a report asks: AIVIS_REPORT_MODELS, each with whether its family is configured. */
export function reportTargets(ctx: Pick<AppContext, "ai" | "config" | "log">): ReportTarget[] {
  const targets: ReportTarget[] = [];
  for (const model of ctx.config.ai.reportModels) {
    try {
      const family = ctx.ai.familyOf(model);
      targets.push({ family, model, configured: ctx.ai.isConfigured(family) });
    } catch {
      ctx.log("warn", "AIVIS_REPORT_MODELS names a model of no known family; skipped", { model });
    }
  }
  return targets;
}

// --- requesting a report ---------------------------------------------------------------------

export interface QueuedReport {
  message: string;
  jobId: string;
  reportId: string;
}

/**
 * SPEC 4.1 POST /seo-site-report. Checks, credit reservation and the report row happen in one
 * transaction, so two concurrent requests cannot both take the last refresh or free audit.
 */
export function requestReport(ctx: AppContext, principal: Principal, body: ReportBody, trigger: "api" | "scheduled" = "api"): QueuedReport {
  const { plan } = principal;
  const now = ctx.clock.now();
  const refresh = body.refresh === true || trigger === "scheduled";
  if (refresh && plan.refreshesPer24h <= 0) {
    throw forbidden("REFRESH_NOT_ALLOWED", `the ${plan.label} plan cannot refresh a report; upgrade to a paid plan`);
  }
  if (!refresh || body.websiteurl !== undefined) websiteUrl(body.websiteurl);
  if (body.prompts) checkPrompts(body.prompts, plan);
  if (!reportTargets(ctx).some((t) => t.configured)) {
    throw new AppError(503, "NO_PROVIDER_CONFIGURED", "no AI provider of AIVIS_REPORT_MODELS is configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY (or their _BASE_URL)");
  }
  reconcileUnfinished(ctx, principal.workspaceId);

  const row = tx(ctx.db, () => {
    let url: string;
    let competitors: string[];
    let prompts: string[];
    let refreshCount = 0;
    if (refresh) {
      const previous = completedReport(ctx.db, principal.workspaceId);
      if (!previous) throw badRequest("NO_PRIOR_REPORT", "there is no report to refresh yet; request one with websiteurl first");
      const allowance = refreshAllowance(ctx.db, principal.workspaceId, plan, now);
      if (allowance.remaining <= 0) {
        throw tooMany(
          "REFRESH_LIMIT_REACHED",
          `the ${plan.label} plan allows ${plan.refreshesPer24h} report refreshes per 24 hours; all are used`,
          allowance.retryAfterSeconds,
        );
      }
      url = body.websiteurl !== undefined ? websiteUrl(body.websiteurl) : previous.website_url;
      competitors = body.competitors ?? (JSON.parse(previous.competitors) as string[]);
      prompts = body.prompts ?? (JSON.parse(previous.prompts) as string[]);
      refreshCount = refreshesSince(ctx.db, principal.workspaceId, previous) + 1;
    } else {
      if (plan.freeAudits !== null && auditsUsed(ctx.db, principal.workspaceId) >= plan.freeAudits) {
        throw forbidden("FREE_AUDIT_USED", `the ${plan.label} plan includes ${plan.freeAudits} report and it has been used; upgrade to run more`);
      }
      url = websiteUrl(body.websiteurl);
      competitors = body.competitors ?? [];
      prompts = body.prompts ?? [];
    }
    competitors = checkCompetitors(competitors, url);
    prompts = checkPrompts(prompts, plan);
    const promptCount = prompts.length || Math.min(AUTO_PROMPTS, plan.promptsPerReport);
    const reservation = reserveCredits(ctx, principal, promptCount * CREDITS_PER_PROMPT);
    const id = newId(now);
    ctx.db
      .query(
        `INSERT INTO visibility_reports (id, workspace_id, requested_by, trigger, status, website_url, competitors, prompts, refresh_count, credits, created_at)
         VALUES ($id, $ws, $user, $trigger, 'queued', $url, $competitors, $prompts, $refresh_count, $credits, $now)`,
      )
      .run({
        id,
        ws: principal.workspaceId,
        user: principal.userId,
        trigger: trigger === "scheduled" ? "scheduled" : refresh ? "refresh" : "new",
        url,
        competitors: JSON.stringify(competitors),
        prompts: JSON.stringify(prompts),
        refresh_count: refreshCount,
        credits: JSON.stringify(reservation),
        now,
      });
    // the traffic feature's /sites/ensure creates the tracking site from this
    ctx.db.query("UPDATE workspaces SET website_url = $url WHERE id = $id").run({ url, id: principal.workspaceId });
    return { id, autoPrompts: promptCount };
  });

  let jobId: string;
  try {
    const data: ReportJobData = { reportId: row.id, autoPrompts: row.autoPrompts };
    jobId = ctx.jobs.enqueue("aiQueue", REPORT_JOB_NAME, principal.workspaceId, data, {
      attempts: REPORT_JOB_ATTEMPTS,
      backoffMs: REPORT_JOB_BACKOFF_MS,
    }).jobId;
  } catch (err) {
    ctx.log("error", "could not queue a visibility report", { reportId: row.id, error: String(err) });
    failReport(ctx.db, row, "the report could not be queued", ctx.clock.now());
    throw new AppError(500, "QUEUE_FAILED", "the report could not be queued; no credits were used, try again");
  }
  ctx.db.query("UPDATE visibility_reports SET job_id = $job WHERE id = $id").run({ job: jobId, id: row.id });
  return { message: refresh ? "Report refresh queued" : "Report queued", jobId, reportId: row.id };
}

// --- the report job --------------------------------------------------------------------------

async function siteFacts(ctx: AppContext, url: string, signal?: AbortSignal): Promise<SiteFacts> {
  try {
    const page = await fetchPageText(url, { config: ctx.config, timeoutMs: SITE_FETCH_TIMEOUT_MS, signal });
    return { url, title: page.title || null, description: page.description || null };
  } catch {
    // the report still works from the domain alone
    return { url, title: null, description: null };
  }
}

/** The model that writes suggestions: the default model when its family is configured, else the first configured report model. */
function suggestionModel(ctx: AppContext): string | null {
  try {
    if (ctx.ai.isConfigured(ctx.ai.familyOf(ctx.config.ai.defaultModel))) return ctx.config.ai.defaultModel;
  } catch {}
  return reportTargets(ctx).find((t) => t.configured)?.model ?? null;
}

async function askForSuggestions(ctx: AppContext, model: string, site: SiteFacts, seeds: Suggestions, want: { competitors: number; prompts: number }, signal?: AbortSignal) {
  const reply = await ctx.ai.complete({
    model,
    system: SUGGESTION_SYSTEM_PROMPT,
    messages: [{ role: "user", content: suggestionRequest(site, want, seeds) }],
    maxTokens: 800,
    signal,
  });
  return parseSuggestions(reply.text);
}

function errorText(err: unknown): string {
  if (err instanceof AppError) return `${err.errCode}: ${err.message}`.slice(0, 300);
  return (err instanceof Error ? err.message : String(err)).slice(0, 300);
}

async function collectAnswers(
  ctx: AppContext,
  job: JobContext<ReportJobData>,
  prompts: string[],
  targets: ReportTarget[],
  entities: ReturnType<typeof trackedEntities>,
): Promise<CollectedAnswer[]> {
  const asked = targets.filter((t) => t.configured);
  const limit = pLimit(ctx.config.ai.reportConcurrency);
  const total = prompts.length * asked.length;
  let done = 0;
  const tasks = prompts.flatMap((prompt, promptIndex) =>
    asked.map((target) =>
      limit(async (): Promise<CollectedAnswer> => {
        const base = { promptIndex, family: target.family as ProviderFamily, model: target.model };
        try {
          if (job.signal.aborted) throw new Error("the worker is shutting down");
          const res = await ctx.ai.complete({ model: target.model, messages: [{ role: "user", content: prompt }], maxTokens: ANSWER_MAX_TOKENS, signal: job.signal });
          const analysis = analyzeAnswer(res.text, entities, res.citations);
          const selfMention = analysis.mentions.find((m) => m.entity === "self");
          return { ...base, analysis, error: null, excerpt: answerExcerpt(res.text, selfMention && selfMention.offset < res.text.length ? selfMention.offset : null) };
        } catch (err) {
          return { ...base, analysis: null, error: errorText(err), excerpt: null };
        } finally {
          done++;
          job.updateProgress(Math.round(10 + (85 * done) / total));
        }
      }),
    ),
  );
  return Promise.all(tasks);
}

async function buildReport(ctx: AppContext, job: JobContext<ReportJobData>, row: ReportRow): Promise<{ stored: StoredReport; prompts: string[] }> {
  const targets = reportTargets(ctx);
  if (!targets.some((t) => t.configured)) throw new NonRetryableJobError("no AI provider of AIVIS_REPORT_MODELS is configured");
  const competitors = JSON.parse(row.competitors) as string[];
  let prompts = JSON.parse(row.prompts) as string[];
  const site = await siteFacts(ctx, row.website_url, job.signal);
  job.updateProgress(5);
  if (!prompts.length) {
    const want = { competitors: 0, prompts: job.data.autoPrompts };
    const model = suggestionModel(ctx);
    const none: Suggestions = { competitors: [], prompts: [] };
    const suggested = model ? await askForSuggestions(ctx, model, site, { competitors, prompts: [] }, want, job.signal).catch(() => none) : none;
    // the model's questions first; generic ones fill up to the count the report was charged for
    prompts = mergeSuggestions(row.website_url, suggested, { competitors: [], prompts: fallbackPrompts(site) }, want).prompts;
    keepWrittenPrompts(ctx.db, row.id, prompts);
  }
  job.updateProgress(10);
  const entities = trackedEntities(row.website_url, competitors, site.title);
  const answers = await collectAnswers(ctx, job, prompts, targets, entities);
  if (job.signal.aborted) throw new Error("the worker stopped while the report was running");
  if (!answers.some((a) => a.analysis)) {
    const reasons = [...new Set(answers.map((a) => a.error).filter(Boolean))].slice(0, 3).join("; ");
    throw new Error(`no AI provider answered any prompt (${reasons || "no calls made"})`);
  }
  return { stored: assembleReport({ websiteUrl: row.website_url, prompts, entities, targets, answers }), prompts };
}

/** The aiQueue handler for seo_site_report jobs. */
export async function runReportJob(ctx: AppContext, job: JobContext<ReportJobData>): Promise<{ reportId: string; score: number }> {
  const row = findReport(ctx.db, job.data.reportId, job.workspaceId);
  if (!row) throw new NonRetryableJobError(`report ${job.data.reportId} does not exist`);
  if (row.status === "completed") return { reportId: row.id, score: row.score ?? 0 };
  if (row.status === "failed") throw new NonRetryableJobError(row.error ?? "the report failed");
  setStatus(ctx.db, row.id, "running", { at: ctx.clock.now() });
  try {
    const { stored, prompts } = await buildReport(ctx, job, row);
    const score = stored.scores.aiVisibility.score;
    ctx.db
      .query(
        `UPDATE visibility_reports SET status = 'completed', score = $score, result = $result, prompts = $prompts, error = NULL, finished_at = $at
         WHERE id = $id`,
      )
      .run({ id: row.id, score, result: JSON.stringify(stored), prompts: JSON.stringify(prompts), at: ctx.clock.now() });
    return { reportId: row.id, score };
  } catch (err) {
    const lastAttempt = err instanceof NonRetryableJobError || job.attemptsMade + 1 >= REPORT_JOB_ATTEMPTS;
    if (lastAttempt) failReport(ctx.db, row, errorText(err), ctx.clock.now());
    else setStatus(ctx.db, row.id, "queued", { error: errorText(err) });
    throw err;
  }
}

/**
 * The report job's onFailed hook, for failures the handler never sees: its worker died on the last
 * attempt (the sweeper fails the job, possibly in another process). The report is failed and its
 * credits refunded in the transaction that records the failure. One the handler failed already
 * stays as it is.
 */
export function reportJobFailed(ctx: AppContext, job: FailedJob<ReportJobData>): void {
  failReport(ctx.db, { id: job.data.reportId }, job.reason, ctx.clock.now());
}

// --- reading ---------------------------------------------------------------------------------

export interface ReportInput {
  websiteurl: string;
  competitors: string[];
  prompts: string[];
}

export function reportInput(row: ReportRow): ReportInput {
  return { websiteurl: row.website_url, competitors: JSON.parse(row.competitors), prompts: JSON.parse(row.prompts) };
}

/** SPEC 2.1: the latest (sort=desc) or first (asc) completed report, or the exact empty form. */
export function getReport(db: DB, principal: Principal, sort: "asc" | "desc", now: number) {
  const row = completedReport(db, principal.workspaceId, sort);
  if (!row) return { message: REPORT_NOT_FOUND, isEmpty: true as const };
  const stored = JSON.parse(row.result!) as StoredReport;
  const allowance = refreshAllowance(db, principal.workspaceId, principal.plan, now);
  return {
    message: REPORT_FOUND,
    isEmpty: false as const,
    reportId: row.id,
    jobId: row.job_id,
    createdAt: new Date(row.created_at).toISOString(),
    completedAt: row.finished_at ? new Date(row.finished_at).toISOString() : null,
    input: reportInput(row),
    scores: stored.scores,
    report: stored.report,
    recommendations: stored.recommendations,
    refreshMeta: {
      count: row.refresh_count,
      usedLast24h: allowance.used,
      limitPer24h: allowance.limit,
      remaining: allowance.remaining,
    },
  };
}

export interface PendingReport {
  reportId: string;
  /** poll GET /v1/ai/generate/job/:jobId for progress */
  jobId: string;
  status: "queued" | "running";
  trigger: ReportTrigger;
  websiteurl: string;
  createdAt: string;
}

/**
 * The newest report of the workspace still queued or running, wherever it was started (API,
 * schedule, another browser tab), so a client can follow it. Lost jobs are reconciled first, so
 * a report whose job is gone is never shown as in progress.
 */
export function pendingReport(ctx: AppContext, workspaceId: string): PendingReport | null {
  reconcileUnfinished(ctx, workspaceId);
  const row = ctx.db
    .query<ReportRow, { ws: string }>(
      `SELECT * FROM visibility_reports WHERE workspace_id = $ws AND status IN ('queued', 'running') AND job_id IS NOT NULL
       ORDER BY created_at DESC, id DESC LIMIT 1`,
    )
    .get({ ws: workspaceId });
  if (!row) return null;
  return {
    reportId: row.id,
    jobId: row.job_id!,
    status: row.status as PendingReport["status"],
    trigger: row.trigger,
    websiteurl: row.website_url,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export interface HistoryPoint {
  timestamp: string;
  time: string;
  overall: number;
  self: number;
  reportId: string;
  competitors: { name: string; domain: string | null; score: number | null; shareOfVoice: number }[];
}

/** SPEC 2.2: completed reports, oldest first (the most recent `limit` of them). */
export function reportHistory(db: DB, workspaceId: string, limit: number): HistoryPoint[] {
  const rows = db
    .query<Pick<ReportRow, "id" | "created_at" | "score" | "result">, { ws: string; limit: number }>(
      `SELECT id, created_at, score, result FROM visibility_reports
       WHERE workspace_id = $ws AND status = 'completed' ORDER BY created_at DESC, id DESC LIMIT $limit`,
    )
    .all({ ws: workspaceId, limit });
  return rows.reverse().map((r) => {
    const stored = JSON.parse(r.result!) as StoredReport;
    const at = new Date(r.created_at).toISOString();
    const self = stored.report.comparison.find((e) => e.isSelf);
    return {
      timestamp: at,
      time: at,
      overall: stored.scores.aiVisibility.score,
      self: self?.score ?? stored.scores.aiVisibility.score,
      reportId: r.id,
      competitors: stored.report.comparison
        .filter((e) => !e.isSelf)
        .map((e) => ({ name: e.name, domain: e.domain, score: e.score, shareOfVoice: e.shareOfVoice })),
    };
  });
}

// --- prefill ---------------------------------------------------------------------------------

/** SPEC 4.1 POST /seo-site-report/prefill → SPEC 2.3. Asking the model costs PREFILL_CREDITS. */
export async function prefillReport(ctx: AppContext, principal: Principal, body: PrefillBody) {
  const { plan } = principal;
  const url = websiteUrl(body.websiteurl);
  const seedPrompts = checkPrompts(body.prompts ?? [], plan);
  const seedCompetitors = checkCompetitors(body.competitors ?? [], url);
  const seeds = { competitors: seedCompetitors, prompts: seedPrompts };
  const site = await siteFacts(ctx, url);
  const model = suggestionModel(ctx);
  const want = { competitors: MAX_COMPETITORS, prompts: plan.promptsPerReport };
  let suggested: Suggestions = { competitors: [], prompts: [] };
  let source: "model" | "fallback" = "fallback";
  if (model) {
    try {
      suggested = await withCredits(ctx, principal, PREFILL_CREDITS, () => askForSuggestions(ctx, model, site, seeds, want));
      source = "model";
    } catch (err) {
      if (err instanceof AppError && err.errCode === "CREDITS_EXHAUSTED") throw err;
      ctx.log("warn", "prefill suggestions failed; using fallback prompts", { error: errorText(err) });
    }
  }
  const cleaned = {
    competitors: cleanCompetitors(suggested.competitors, url).slice(0, MAX_COMPETITORS),
    prompts: cleanPrompts(suggested.prompts.length ? suggested.prompts : fallbackPrompts(site)).slice(0, plan.promptsPerReport),
  };
  const merged = mergeSuggestions(url, seeds, cleaned, { competitors: MAX_COMPETITORS, prompts: plan.promptsPerReport });
  return {
    message: source === "model" ? "Suggestions ready" : "Suggestions ready (no AI model answered; generic prompts used)",
    promptLimit: plan.promptsPerReport,
    input: { websiteurl: url, competitors: body.competitors ?? [], prompts: body.prompts ?? [] },
    suggestions: cleaned,
    prefill: merged,
    site: { title: site.title, description: site.description },
    source,
  };
}
