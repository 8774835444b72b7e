// Retention of the raw traffic rows: visits and page views of UTC days older than
// AIVIS_TRAFFIC_KEEP_RAW_DAYS are deleted hourly by the process that runs the worker. Stats read the
// daily rollups, which are kept, so pruning changes no figure; ingestion only looks back a day
// (yesterday's visitor hash, a visit crossing midnight, a late engagement update).
import type { AppContext } from "../../context";
import type { DB } from "../../db";
import { scheduleMaintenance } from "../../jobs/maintenance";
import { epochDay } from "./calendar";

/** hourly, off the jobs' (17) and images' (41) prune minutes */
export const TRAFFIC_PRUNE_SCHEDULE = "29 * * * *";
/** rows per DELETE; each is its own commit, and beacon batches run in between */
const PRUNE_BATCH = 1000;

export interface PrunedTraffic {
  visits: number;
  pageviews: number;
}

const RAW_TABLES = { visits: "traffic_visits", pageviews: "traffic_pageviews" } as const;

/**
 * Deletes visits and page views of days before `beforeDay`, oldest first, PRUNE_BATCH rows per
 * statement, yielding to the event loop between statements. Row ids grow with arrival time (the
 * server's clock stamps every event), so the old rows are a prefix of the table: each round looks
 * at the next PRUNE_BATCH rows in id order and deletes those before the first of a kept day, and
 * the prune ends at that row. Only rows about to go are read, however many there are.
 */
export async function pruneRawTraffic(db: DB, beforeDay: number, shouldStop: () => boolean = () => false): Promise<PrunedTraffic> {
  const pruned: PrunedTraffic = { visits: 0, pageviews: 0 };
  for (const key of ["visits", "pageviews"] as const) {
    const table = RAW_TABLES[key];
    const nextWindow = db.query<{ firstKept: number | null; last: number | null }, { day: number }>(
      `SELECT min(CASE WHEN day >= $day THEN id END) AS firstKept, max(id) AS last
       FROM (SELECT id, day FROM ${table} ORDER BY id LIMIT ${PRUNE_BATCH})`,
    );
    const deleteBefore = db.query<never, { bound: number }>(`DELETE FROM ${table} WHERE id < $bound`);
    for (;;) {
      if (shouldStop()) return pruned;
      const { firstKept, last } = nextWindow.get({ day: beforeDay })!;
      if (last === null) break; // empty table
      pruned[key] += deleteBefore.run({ bound: firstKept ?? last + 1 }).changes;
      if (firstKept !== null) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return pruned;
}

/** Prunes the raw rows past AIVIS_TRAFFIC_KEEP_RAW_DAYS at start-up and hourly in the process that runs the worker. */
export function setUpTrafficRetention(ctx: AppContext, schedule = TRAFFIC_PRUNE_SCHEDULE): Promise<void> {
  return scheduleMaintenance(ctx, "traffic pruning", schedule, async (shouldStop) => {
    const beforeDay = epochDay(ctx.clock.now()) - ctx.config.traffic.keepRawDays + 1;
    const pruned = await pruneRawTraffic(ctx.db, beforeDay, shouldStop);
    if (pruned.visits || pruned.pageviews) ctx.log("info", "pruned raw traffic rows", { ...pruned, beforeDay });
  });
}
