import { beforeEach, describe, expect, test } from "bun:test";
import type { DB } from "../../../src/db";
import { createIngestor, MAX_LANDING_ROWS_PER_DAY, OTHER_LANDING_PAGES, type PageviewEvent } from "../../../src/modules/traffic/ingest";
import { trafficStats } from "../../../src/modules/traffic/service";
import { databaseWithSite } from "./support";

let db: DB;
beforeEach(() => {
  db = databaseWithSite();
});

const pageview = (n: number): PageviewEvent => ({
  kind: "pageview",
  siteId: "s",
  siteDomain: "example.com",
  ts: Date.UTC(2026, 0, 1) + n,
  visitor: { current: `v${n}`, previous: null },
  sessionId: `s${n}`,
  path: `/p/${n}`,
  title: null,
  referrer: null,
  utmSource: null,
  utmMedium: null,
  utmCampaign: null,
});
const rows = () => db.query<{ n: number }, []>("SELECT count(*) AS n FROM traffic_pageviews").get()!.n;

describe("the ingest batcher", () => {
  test("holds events until the flush timer, then commits them together and resolves each", async () => {
    const ingestor = createIngestor(db, { flushMs: 30 });
    const acks = [ingestor.submit(pageview(1)), ingestor.submit(pageview(2)), ingestor.submit(pageview(3))];
    expect(rows()).toBe(0); // nothing is acknowledged before the commit
    expect(await Promise.all(acks)).toEqual(["stored", "stored", "stored"]);
    expect(rows()).toBe(3);
  });

  test("a full batch commits at once, without waiting for the timer", async () => {
    const ingestor = createIngestor(db, { flushMs: 60_000, maxBatch: 2 });
    const a = ingestor.submit(pageview(1));
    const b = ingestor.submit(pageview(2));
    expect(rows()).toBe(2);
    expect(await Promise.all([a, b])).toEqual(["stored", "stored"]);
    const c = ingestor.submit(pageview(3));
    expect(rows()).toBe(2);
    ingestor.close(); // shutdown commits the rest
    expect(await c).toBe("stored");
    expect(rows()).toBe(3);
    await expect(ingestor.submit(pageview(4))).rejects.toThrow("shutting down");
  });

  test("a failed commit rejects every event of the batch and stores none of them", async () => {
    const errors: number[] = [];
    const ingestor = createIngestor(db, { flushMs: 1, onError: (_e, n) => errors.push(n) });
    db.exec("CREATE TRIGGER refuse BEFORE INSERT ON traffic_pageviews WHEN NEW.path = '/p/2' BEGIN SELECT RAISE(ABORT, 'refused'); END");
    const results = await Promise.allSettled([ingestor.submit(pageview(1)), ingestor.submit(pageview(2))]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(errors).toEqual([2]);
    expect(rows()).toBe(0);
    expect(db.query("SELECT count(*) AS n FROM traffic_daily").get()).toEqual({ n: 0 });
  });

  test("engagement: unchanged values and unknown page views are reported, not stored", async () => {
    const ingestor = createIngestor(db, { flushMs: 1 });
    await ingestor.submit(pageview(1));
    const base = { kind: "engagement" as const, siteId: "s", siteDomain: "example.com", ts: Date.UTC(2026, 0, 1) + 5, visitor: { current: "v1", previous: null } };
    expect(await ingestor.submit({ ...base, sessionId: "s1", path: "/p/1", engagedMs: 500, scrollDepth: 10 })).toBe("updated");
    expect(await ingestor.submit({ ...base, sessionId: "s1", path: "/p/1", engagedMs: 400, scrollDepth: 10 })).toBe("unchanged");
    expect(await ingestor.submit({ ...base, sessionId: "s1", path: "/other", engagedMs: 400, scrollDepth: 10 })).toBe("orphan");
    expect(db.query("SELECT engaged_ms, scroll_depth FROM traffic_pageviews").get()).toEqual({ engaged_ms: 500, scroll_depth: 10 });
  });

  test("open-ended sources fold into one rollup row per channel; the raw rows keep them", async () => {
    const ingestor = createIngestor(db, { flushMs: 1 });
    const arrivals = Array.from({ length: 40 }, (_, n) => ({
      ...pageview(n),
      // 20 different referring blogs, 10 unknown utm_source values, 10 newsletters
      ...(n < 20 ? { referrer: `https://blog${n}.example.org/post` } : n < 30 ? { utmSource: `campaign-${n}` } : { utmSource: `letter-${n}`, utmMedium: "email" }),
    }));
    await Promise.all([...arrivals, { ...pageview(99), referrer: "https://www.google.com/" }].map((e) => ingestor.submit(e)));
    await ingestor.submit({ kind: "engagement", siteId: "s", siteDomain: "example.com", ts: Date.UTC(2026, 0, 1) + 50, visitor: { current: "v3", previous: null }, sessionId: "s3", path: "/p/3", engagedMs: 700, scrollDepth: 20 });
    const rolled = db.query("SELECT channel, source, pageviews, visits, engaged_ms FROM traffic_daily ORDER BY channel, source").all();
    expect(rolled).toEqual([
      { channel: "email", source: "Email", pageviews: 10, visits: 10, engaged_ms: 0 },
      { channel: "other", source: "Other", pageviews: 10, visits: 10, engaged_ms: 0 },
      { channel: "referral", source: "Referral", pageviews: 20, visits: 20, engaged_ms: 700 },
      { channel: "search", source: "Google", pageviews: 1, visits: 1, engaged_ms: 0 },
    ]);
    const raw = db.query<{ source: string }, []>("SELECT DISTINCT source FROM traffic_pageviews").all();
    expect(raw).toHaveLength(41);
    expect(raw).toContainEqual({ source: "blog7.example.org" });
  });

  test("AI landing pages: at most MAX_LANDING_ROWS_PER_DAY rows a day, later new pages under one catch-all row", async () => {
    const ingestor = createIngestor(db, { flushMs: 1 });
    const fromChatGpt = (n: number, path = `/p/${n}`) => ingestor.submit({ ...pageview(n), path, utmSource: "chatgpt.com" });
    const extra = 5;
    await Promise.all(Array.from({ length: MAX_LANDING_ROWS_PER_DAY + extra }, (_, n) => fromChatGpt(n)));
    await fromChatGpt(1000, "/p/0"); // a page that has its row keeps counting there
    await fromChatGpt(1001, "/p/new"); // the day is full: a new page goes to the catch-all
    const rows = db.query<{ n: number }, []>("SELECT count(*) AS n FROM traffic_daily_landing").get()!.n;
    expect(rows).toBe(MAX_LANDING_ROWS_PER_DAY + 1);
    const landing = (path: string) => db.query<{ visits: number }, { path: string }>("SELECT visits FROM traffic_daily_landing WHERE path = $path").get({ path });
    expect(landing("/p/0")).toEqual({ visits: 2 });
    expect(landing(OTHER_LANDING_PAGES)).toEqual({ visits: extra + 1 });
    expect(landing("/p/new")).toBeNull();

    const stats = trafficStats(db, "s", 1, Date.UTC(2026, 0, 1, 12));
    expect(stats.totals.aiVisits).toBe(MAX_LANDING_ROWS_PER_DAY + extra + 2);
    expect(stats.topAiLandingPages[0]).toEqual({ path: "/p/0", visits: 2, sources: { ChatGPT: 2 } });
    expect(stats.topAiLandingPages.map((p) => p.path)).not.toContain(OTHER_LANDING_PAGES);
  });
});
