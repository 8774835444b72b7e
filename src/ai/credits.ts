// AI credits and image allowance (SPEC 8.1–8.2) on the usage_counters table: reserve before the
// provider is called (one atomic upsert, so concurrent requests cannot overdraw), give back when
// the call fails. Monthly periods for paid plans, one lifetime period for the free trial.
import type { AppContext } from "../context";
import type { DB } from "../db";
import { AppError } from "../http/errors";
import type { Principal } from "../modules/users/service";
import { type Plan, usagePeriod } from "../modules/users/plans";

export type UsageKind = "ai_credits" | "images";

/** A reservation made; JSON-serializable so queued work can carry it and refund on failure. */
export interface Reservation {
  workspaceId: string;
  period: string;
  kind: UsageKind;
  cost: number;
}

export interface UsageLine {
  used: number;
  /** null = unlimited */
  limit: number | null;
  remaining: number | null;
  /** "2026-11" (calendar month, UTC) or "lifetime" (free trial) */
  period: string;
  /** ISO time the allowance resets; null when it never does */
  resetsAt: string | null;
}

type UsageContext = Pick<AppContext, "db" | "clock">;

function limitOf(plan: Plan, kind: UsageKind): number | null {
  return kind === "ai_credits" ? plan.monthlyCredits : plan.monthlyImages;
}

function resetsAt(plan: Plan, now: number): string | null {
  if (!plan.resetsMonthly) return null;
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString();
}

function exhausted(plan: Plan, kind: UsageKind, limit: number, now: number): AppError {
  const when = plan.resetsMonthly
    ? `this month's allowance resets on ${resetsAt(plan, now)!.slice(0, 10)}`
    : "the free trial's allowance does not reset; upgrade to a paid plan for a monthly allowance";
  if (kind === "images") {
    return new AppError(403, "IMAGE_LIMIT_REACHED", `the ${plan.label} plan includes ${limit} generated images${plan.resetsMonthly ? " per month" : ""} and all are used; ${when}`);
  }
  return new AppError(403, "CREDITS_EXHAUSTED", `all ${limit} AI credits of the ${plan.label} plan${plan.resetsMonthly ? " for this month" : ""} are used; ${when}`);
}

/**
 * Takes `cost` units of `kind` from the workspace's current period, or throws 403
 * (CREDITS_EXHAUSTED / IMAGE_LIMIT_REACHED). Unlimited plans are counted but never refused.
 */
export function reserveUsage(db: DB, workspaceId: string, plan: Plan, kind: UsageKind, cost: number, now: number): Reservation {
  const period = usagePeriod(plan, now);
  const limit = limitOf(plan, kind);
  if (limit !== null && cost > limit) throw exhausted(plan, kind, limit, now);
  // one statement: the upsert only applies when the total stays within the limit, so two
  // requests can never both take the last credit
  const row = db
    .query<{ used: number }, { workspace_id: string; period: string; kind: string; cost: number; limit: number }>(
      `INSERT INTO usage_counters (workspace_id, period, kind, used) VALUES ($workspace_id, $period, $kind, $cost)
       ON CONFLICT (workspace_id, period, kind) DO UPDATE SET used = used + excluded.used
       WHERE $limit < 0 OR used + excluded.used <= $limit
       RETURNING used`,
    )
    .get({ workspace_id: workspaceId, period, kind, cost, limit: limit ?? -1 });
  if (!row) throw exhausted(plan, kind, limit!, now);
  return { workspaceId, period, kind, cost };
}

/** Gives a reservation back (the provider call failed). Never below zero. */
export function refundUsage(db: DB, r: Reservation): void {
  db.query(
    `UPDATE usage_counters SET used = max(0, used - $cost)
     WHERE workspace_id = $workspace_id AND period = $period AND kind = $kind`,
  ).run({ cost: r.cost, workspace_id: r.workspaceId, period: r.period, kind: r.kind });
}

async function withUsage<T>(ctx: UsageContext, principal: Principal, kind: UsageKind, cost: number, run: () => Promise<T>): Promise<T> {
  const reservation = reserveUsage(ctx.db, principal.workspaceId, principal.plan, kind, cost, ctx.clock.now());
  try {
    return await run();
  } catch (err) {
    refundUsage(ctx.db, reservation);
    throw err;
  }
}

/**
 * Runs `run` (the provider call) paid with `cost` AI credits: reserved before it starts (403
 * CREDITS_EXHAUSTED when there are not enough), refunded when it throws.
 */
export function withCredits<T>(ctx: UsageContext, principal: Principal, cost: number, run: () => Promise<T>): Promise<T> {
  return withUsage(ctx, principal, "ai_credits", cost, run);
}

/** Like withCredits, against the image allowance (403 IMAGE_LIMIT_REACHED). */
export function withImageUsage<T>(ctx: UsageContext, principal: Principal, count: number, run: () => Promise<T>): Promise<T> {
  return withUsage(ctx, principal, "images", count, run);
}

/** For queued work: reserve now (so the 403 is synchronous), keep the reservation in the job, refund with refundUsage if the job fails for good. */
export function reserveCredits(ctx: UsageContext, principal: Principal, cost: number): Reservation {
  return reserveUsage(ctx.db, principal.workspaceId, principal.plan, "ai_credits", cost, ctx.clock.now());
}

function usageLine(db: DB, workspaceId: string, plan: Plan, kind: UsageKind, now: number): UsageLine {
  const period = usagePeriod(plan, now);
  const used =
    db.query<{ used: number }, { workspace_id: string; period: string; kind: string }>(
      "SELECT used FROM usage_counters WHERE workspace_id = $workspace_id AND period = $period AND kind = $kind",
    ).get({ workspace_id: workspaceId, period, kind })?.used ?? 0;
  const limit = limitOf(plan, kind);
  return { used, limit, remaining: limit === null ? null : Math.max(0, limit - used), period, resetsAt: resetsAt(plan, now) };
}

/** The workspace's current AI credit and image usage (GET /v1/users/me `usage`). */
export function usageSummary(db: DB, workspaceId: string, plan: Plan, now: number): { credits: UsageLine; images: UsageLine } {
  return { credits: usageLine(db, workspaceId, plan, "ai_credits", now), images: usageLine(db, workspaceId, plan, "images", now) };
}
