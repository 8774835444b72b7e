import { beforeEach, describe, expect, test } from "bun:test";
import { migrate, openDatabase, type DB } from "../../../src/db";
import { createIngestor, type PageviewEvent } from "../../../src/modules/traffic/ingest";

let db: DB;
beforeEach(() => {
  db = openDatabase(":memory:");
  migrate(db);
  db.exec(`INSERT INTO workspaces (id, name, plan, created_at) VALUES ('w', 'w', 'business', 0);
           INSERT INTO traffic_sites (id, workspace_id, site_key, domain, name, created_at) VALUES ('s', 'w', 'aivt_k', 'example.com', 'example.com', 0)`);
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
});
