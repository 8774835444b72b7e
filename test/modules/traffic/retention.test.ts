import { beforeEach, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import type { AppContext } from "../../../src/context";
import type { DB } from "../../../src/db";
import { epochDay } from "../../../src/modules/traffic/calendar";
import { createIngestor, type EngagementEvent, type PageviewEvent } from "../../../src/modules/traffic/ingest";
import { pruneRawTraffic, setUpTrafficRetention } from "../../../src/modules/traffic/retention";
import { trafficStats } from "../../../src/modules/traffic/service";
import { DAY_MS, ManualClock } from "../../../src/platform/clock";
import { databaseWithSite } from "./support";

const TODAY = Date.UTC(2026, 2, 10, 12);

let db: DB;
beforeEach(() => {
  db = databaseWithSite();
});

const pageview = (ts: number, n: number, referrer: string | null = null): PageviewEvent => ({
  kind: "pageview",
  siteId: "s",
  siteDomain: "example.com",
  ts,
  visitor: { current: `v${n}`, previous: null },
  sessionId: `s${n}`,
  path: `/p/${n % 7}`,
  title: null,
  referrer,
  utmSource: null,
  utmMedium: null,
  utmCampaign: null,
});

/** page views spread over the last `days` days (oldest first, as they would arrive), a third of them from ChatGPT */
async function seed(days: number, perDay: number) {
  const ingestor = createIngestor(db, { flushMs: 0, maxBatch: 500 });
  const acks: Promise<unknown>[] = [];
  for (let d = days - 1; d >= 0; d--) {
    for (let i = 0; i < perDay; i++) {
      const n = d * perDay + i;
      acks.push(ingestor.submit(pageview(TODAY - d * DAY_MS + i, n, i % 3 === 0 ? "https://chatgpt.com/" : null)));
    }
  }
  ingestor.flush();
  await Promise.all(acks);
  ingestor.close();
}

const count = (table: string) => db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
const oldestDay = (table: string) => db.query<{ d: number }, []>(`SELECT min(day) AS d FROM ${table}`).get()!.d;

describe("pruneRawTraffic", () => {
  test("deletes visits and page views of days before the bound, keeps the rest, and no stats figure changes", async () => {
    await seed(10, 30);
    const before = trafficStats(db, "s", 30, TODAY);
    const keptFrom = epochDay(TODAY) - 3;

    const pruned = await pruneRawTraffic(db, keptFrom);

    expect(pruned).toEqual({ visits: 6 * 30, pageviews: 6 * 30 });
    expect(count("traffic_pageviews")).toBe(4 * 30);
    expect(count("traffic_visits")).toBe(4 * 30);
    expect(oldestDay("traffic_pageviews")).toBe(keptFrom);
    expect(oldestDay("traffic_visits")).toBe(keptFrom);
    expect(trafficStats(db, "s", 30, TODAY)).toEqual(before);
    // the figures really cover the pruned days
    expect(before.totals).toMatchObject({ pageViews: 300, visits: 300, aiVisits: 100 });
    expect(await pruneRawTraffic(db, keptFrom)).toEqual({ visits: 0, pageviews: 0 });
  });

  test("takes more than one batch when there is more to delete, and everything when every day is old", async () => {
    await seed(3, 1200);
    expect(await pruneRawTraffic(db, epochDay(TODAY) + 1)).toEqual({ visits: 3600, pageviews: 3600 });
    expect(count("traffic_pageviews")).toBe(0);
    expect(count("traffic_visits")).toBe(0);
  });

  test("stops between batches when asked (shutdown)", async () => {
    await seed(3, 1200);
    let batches = 0;
    const pruned = await pruneRawTraffic(db, epochDay(TODAY) + 1, () => batches++ >= 2);
    expect(pruned).toEqual({ visits: 2000, pageviews: 0 });
    expect(count("traffic_visits")).toBe(1600);
  });

  test("after the shortest retention, ingestion still finds yesterday's page view; an older one is gone", async () => {
    await seed(5, 3);
    await pruneRawTraffic(db, epochDay(TODAY) - 1);
    const ingestor = createIngestor(db, { flushMs: 0 });
    const late: EngagementEvent = {
      kind: "engagement",
      siteId: "s",
      siteDomain: "example.com",
      ts: TODAY,
      visitor: { current: "v3", previous: null },
      sessionId: "s3",
      path: "/p/3",
      engagedMs: 4000,
      scrollDepth: 60,
    };
    expect(await ingestor.submit(late)).toBe("updated"); // page view n = 3 is yesterday's
    expect(await ingestor.submit({ ...late, sessionId: "s1", path: "/p/1" })).toBe("updated"); // today's
    expect(await ingestor.submit({ ...late, sessionId: "s9", path: "/p/2" })).toBe("orphan"); // three days ago
    ingestor.close();
  });
});

describe("setUpTrafficRetention", () => {
  function context(env: Record<string, string>) {
    const hooks: (() => unknown)[] = [];
    const logs: unknown[] = [];
    const ctx = {
      config: loadConfig(env),
      db,
      clock: new ManualClock(TODAY),
      log: (_level: string, msg: string, fields?: unknown) => logs.push({ msg, fields }),
      onShutdown: (hook: () => unknown) => hooks.push(hook),
    } as unknown as AppContext;
    return { ctx, logs, shutdown: () => hooks.forEach((h) => h()) };
  }

  test("prunes at start-up by AIVIS_TRAFFIC_KEEP_RAW_DAYS: the current UTC day and N−1 before it stay", async () => {
    await seed(10, 2);
    const { ctx, logs, shutdown } = context({ AIVIS_TRAFFIC_KEEP_RAW_DAYS: "4" });
    await setUpTrafficRetention(ctx);
    shutdown();
    expect(oldestDay("traffic_pageviews")).toBe(epochDay(TODAY) - 3);
    expect(count("traffic_pageviews")).toBe(8);
    expect(logs).toEqual([{ msg: "pruned raw traffic rows", fields: { visits: 12, pageviews: 12, beforeDay: epochDay(TODAY) - 3 } }]);
  });

  test("does nothing in a process that does not run the worker", async () => {
    await seed(10, 2);
    const { ctx, shutdown } = context({ AIVIS_TRAFFIC_KEEP_RAW_DAYS: "2", AIVIS_WORKER: "false" });
    await setUpTrafficRetention(ctx);
    shutdown();
    expect(count("traffic_pageviews")).toBe(20);
  });

  test("AIVIS_TRAFFIC_KEEP_RAW_DAYS below 2 is refused: ingestion looks back into yesterday", () => {
    expect(() => loadConfig({ AIVIS_TRAFFIC_KEEP_RAW_DAYS: "1" })).toThrow("AIVIS_TRAFFIC_KEEP_RAW_DAYS");
    expect(loadConfig({}).traffic.keepRawDays).toBe(90);
  });
});
