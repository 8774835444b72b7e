// Scheduled report refreshes: a workspace's cron schedule lives in visibility_schedules; a
// once-a-minute tick claims the due ones and runs each as a normal refresh (same rules, allowance
// and credits as POST refresh=true) as the user who set it.
import { Cron } from "croner";
import type { AppContext } from "../../context";
import type { DB } from "../../db";
import { AppError, badRequest, forbidden } from "../../http/errors";
import { getUser, principalFor, type Principal } from "../users/service";
import type { ScheduleBody } from "./model";
import { completedReport, requestReport } from "./service";

interface ScheduleRow {
  workspace_id: string;
  user_id: string;
  cron: string;
  timezone: string | null;
  enabled: number;
  last_run_at: number | null;
  last_report_id: string | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface ScheduleView {
  cron: string;
  timezone: string;
  enabled: boolean;
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastReportId: string | null;
  lastError: string | null;
  updatedAt: string;
}

export interface ReportScheduler {
  get(workspaceId: string): ScheduleView | null;
  set(principal: Principal, body: ScheduleBody): ScheduleView;
  remove(workspaceId: string): boolean;
  stop(): void;
}

/**
 * How often the worker process looks for due schedules. Schedules are read from the database on
 * every tick, so one set through an API-only process (AIVIS_WORKER=false) fires in the worker.
 */
const TICK_SCHEDULE = "* * * * *";

function readSchedule(db: DB, workspaceId: string): ScheduleRow | null {
  return db.query<ScheduleRow, { ws: string }>("SELECT * FROM visibility_schedules WHERE workspace_id = $ws").get({ ws: workspaceId });
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function checkTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
  } catch {
    throw badRequest("INVALID_TIMEZONE", `"${timezone}" is not an IANA time zone (e.g. Europe/Berlin)`);
  }
}

function parseCron(expr: string, timezone: string): Cron {
  try {
    return new Cron(expr, { paused: true, timezone });
  } catch (err) {
    throw badRequest("INVALID_CRON", `"${expr}" is not a valid cron expression: ${(err as Error).message}`);
  }
}

/** When a schedule is due: its first cron time after its last run or its last edit, whichever is later; null = never. */
export function scheduleDueAt(row: Pick<ScheduleRow, "cron" | "timezone" | "last_run_at" | "updated_at">): number | null {
  const from = Math.max(row.last_run_at ?? 0, row.updated_at);
  return parseCron(row.cron, row.timezone ?? "UTC").nextRun(new Date(from))?.getTime() ?? null;
}

/** Whether the next `limit + 1` runs from `from` fall within 24 hours: more refreshes than the plan allows. */
export function exceedsDailyAllowance(cron: Cron, limit: number, from: Date): boolean {
  const runs = cron.nextRuns(limit + 1, from);
  if (runs.length <= limit) return false;
  return runs[limit].getTime() - runs[0].getTime() < 86_400_000;
}

/**
 * One scheduled refresh of a workspace, now: what the tick runs for a due schedule. A refused refresh (allowance
 * used, credits exhausted, plan downgraded) is recorded in last_error, never thrown.
 */
export function runScheduledRefresh(ctx: AppContext, workspaceId: string): { jobId: string } | { errCode: string } {
  const db = ctx.db;
  const row = readSchedule(db, workspaceId);
  if (!row) return { errCode: "SCHEDULE_NOT_FOUND" };
  const now = ctx.clock.now();
  let outcome: { jobId: string } | { errCode: string };
  let lastError: string | null = null;
  let reportId: string | null = row.last_report_id;
  try {
    const user = getUser(db, row.user_id);
    if (!user || user.banned) throw forbidden("SCHEDULE_OWNER_INACTIVE", "the user who set this schedule is banned or gone; set it again");
    const principal = principalFor(db, user, "session", `schedule:${workspaceId}`);
    const queued = requestReport(ctx, principal, { refresh: true }, "scheduled");
    outcome = { jobId: queued.jobId };
    reportId = queued.reportId;
  } catch (err) {
    const errCode = err instanceof AppError ? err.errCode : "INTERNAL_ERROR";
    lastError = `${errCode}: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500);
    outcome = { errCode };
    ctx.log("warn", "scheduled report refresh skipped", { workspaceId, error: lastError });
  }
  db.query(
    "UPDATE visibility_schedules SET last_run_at = $at, last_report_id = $report, last_error = $error WHERE workspace_id = $ws",
  ).run({ at: now, report: reportId, error: lastError, ws: workspaceId });
  return outcome;
}

/**
 * The tick: runs every enabled schedule due at the clock's now. A due schedule is claimed by
 * moving its last_run_at (compare-and-set), so it runs once however many of its times were missed
 * while the server was down, and in one process only when several share the file. Returns the
 * workspaces whose refresh was attempted.
 */
export function runDueSchedules(ctx: AppContext): string[] {
  const now = ctx.clock.now();
  const ran: string[] = [];
  for (const row of ctx.db.query<ScheduleRow, []>("SELECT * FROM visibility_schedules WHERE enabled = 1").all()) {
    let due: number | null;
    try {
      due = scheduleDueAt(row);
    } catch (err) {
      ctx.log("error", "a stored report schedule no longer parses", { workspaceId: row.workspace_id, error: String(err) });
      continue;
    }
    if (due === null || due > now) continue;
    const claimed = ctx.db
      .query(
        `UPDATE visibility_schedules SET last_run_at = $now
         WHERE workspace_id = $ws AND enabled = 1 AND last_run_at IS $last AND updated_at = $updated`,
      )
      .run({ now, ws: row.workspace_id, last: row.last_run_at, updated: row.updated_at }).changes;
    if (!claimed) continue;
    runScheduledRefresh(ctx, row.workspace_id);
    ran.push(row.workspace_id);
  }
  return ran;
}

export function createReportScheduler(ctx: AppContext): ReportScheduler {
  const db = ctx.db;
  // only the process that runs the worker ticks, so an API-only process never doubles a run
  const tick = ctx.config.worker.enabled
    ? new Cron(TICK_SCHEDULE, { protect: true, unref: true }, () => {
        try {
          const ran = runDueSchedules(ctx);
          if (ran.length) ctx.log("info", "scheduled report refreshes run", { count: ran.length });
        } catch (err) {
          ctx.log("error", "report schedule tick failed", { error: err instanceof Error ? err.message : String(err) });
        }
      })
    : null;

  function view(row: ScheduleRow): ScheduleView {
    const next = row.enabled ? parseCron(row.cron, row.timezone ?? "UTC").nextRun(new Date(ctx.clock.now())) : null;
    return {
      cron: row.cron,
      timezone: row.timezone ?? "UTC",
      enabled: !!row.enabled,
      nextRunAt: next ? next.toISOString() : null,
      lastRunAt: iso(row.last_run_at),
      lastReportId: row.last_report_id,
      lastError: row.last_error,
      updatedAt: new Date(row.updated_at).toISOString(),
    };
  }

  return {
    get(workspaceId) {
      const row = readSchedule(db, workspaceId);
      return row ? view(row) : null;
    },
    set(principal, body) {
      const { plan } = principal;
      if (plan.refreshesPer24h <= 0) throw forbidden("REFRESH_NOT_ALLOWED", `the ${plan.label} plan cannot refresh reports, so it cannot schedule them`);
      const timezone = body.timezone ?? "UTC";
      checkTimezone(timezone);
      const cron = parseCron(body.cron, timezone);
      const now = ctx.clock.now();
      if (!cron.nextRun(new Date(now))) throw badRequest("INVALID_CRON", `"${body.cron}" never runs`);
      if (exceedsDailyAllowance(cron, plan.refreshesPer24h, new Date(now))) {
        throw badRequest(
          "SCHEDULE_TOO_FREQUENT",
          `this schedule runs more than ${plan.refreshesPer24h} times in 24 hours, the ${plan.label} plan's refresh allowance`,
        );
      }
      if (!completedReport(db, principal.workspaceId)) {
        throw badRequest("NO_PRIOR_REPORT", "a schedule refreshes the latest report; request a first report before scheduling");
      }
      db.query(
        `INSERT INTO visibility_schedules (workspace_id, user_id, cron, timezone, enabled, created_at, updated_at)
         VALUES ($ws, $user, $cron, $tz, $enabled, $now, $now)
         ON CONFLICT (workspace_id) DO UPDATE SET user_id = excluded.user_id, cron = excluded.cron, timezone = excluded.timezone,
           enabled = excluded.enabled, updated_at = excluded.updated_at`,
      ).run({ ws: principal.workspaceId, user: principal.userId, cron: body.cron, tz: timezone, enabled: body.enabled === false ? 0 : 1, now });
      return view(readSchedule(db, principal.workspaceId)!);
    },
    remove(workspaceId) {
      return db.query("DELETE FROM visibility_schedules WHERE workspace_id = $ws").run({ ws: workspaceId }).changes > 0;
    },
    stop() {
      tick?.stop();
    },
  };
}
