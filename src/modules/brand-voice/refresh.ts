// Scheduled re-fetching of website voices: a croner tick claims the voices whose next_fetch_at has
// passed (by ctx.clock, so tests move time by hand) and enqueues one job each; the job fetches the
// page and replaces the content, or keeps it and records the error.
import { Cron } from "croner";
import type { AppContext } from "../../context";
import { NonRetryableJobError } from "../../jobs";
import type { JobContext } from "../../jobs/types";
import { claimDueVoices, fetchWebsiteVoiceText, recordRefreshFailure, recordRefreshSuccess, refreshTarget } from "./service";

export const BRAND_VOICE_REFRESH_JOB = "brand_voice_refresh";
/** every minute: claiming due voices is one indexed query, and intervals are a day or longer */
export const REFRESH_TICK_SCHEDULE = "* * * * *";

export interface RefreshJobData {
  voiceId: string;
}

export type RefreshResult = { voiceId: string; refreshed: false; reason: string } | { voiceId: string; refreshed: true; contentLength: number };

/** One tick: enqueues a refresh job for every due voice; returns the job ids. */
export function enqueueDueRefreshes(ctx: Pick<AppContext, "db" | "clock" | "jobs">): string[] {
  return claimDueVoices(ctx.db, ctx.clock.now()).map(
    (v) => ctx.jobs.enqueue<RefreshJobData>("contentQueue", BRAND_VOICE_REFRESH_JOB, v.workspaceId, { voiceId: v.id }, { attempts: 1 }).jobId,
  );
}

/** The job: fetch the page again. Failure keeps the old content, records the error and fails the job (the next period retries). */
export async function refreshBrandVoice(ctx: Pick<AppContext, "db" | "clock" | "config">, voiceId: string): Promise<RefreshResult> {
  const target = refreshTarget(ctx.db, voiceId);
  if (!target) return { voiceId, refreshed: false, reason: "the voice was deleted or has no website" };
  let text: string;
  try {
    text = (await fetchWebsiteVoiceText(ctx, target.url)).text;
    if (!text.trim()) throw new Error("the page has no readable text");
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    recordRefreshFailure(ctx.db, ctx.clock.now(), voiceId, message);
    throw new NonRetryableJobError(`brand voice refresh failed: ${message}`);
  }
  return { voiceId, refreshed: true, contentLength: recordRefreshSuccess(ctx.db, ctx.clock.now(), voiceId, text) };
}

/** The croner tick that queues due refreshes; the caller stops it. */
export function startRefreshTick(ctx: Pick<AppContext, "db" | "clock" | "jobs" | "log">, schedule = REFRESH_TICK_SCHEDULE): Cron {
  return new Cron(schedule, { protect: true, unref: true }, () => {
    try {
      const jobs = enqueueDueRefreshes(ctx);
      if (jobs.length) ctx.log("info", "brand voice refreshes queued", { count: jobs.length });
    } catch (err) {
      ctx.log("error", "brand voice refresh tick failed", { error: err instanceof Error ? err.message : String(err) });
    }
  });
}

/** Registers the job handler and, when this process runs the worker, the croner tick. */
export function setUpBrandVoiceRefresh(ctx: AppContext): void {
  ctx.jobs.register<RefreshJobData, RefreshResult>(BRAND_VOICE_REFRESH_JOB, (job: JobContext<RefreshJobData>) => refreshBrandVoice(ctx, job.data.voiceId));
  if (!ctx.config.worker.enabled) return;
  const tick = startRefreshTick(ctx);
  ctx.onShutdown(() => tick.stop());
}
