// Beacon events into the database: page views open or continue a visit, engagement updates grow
// their page view, and the daily rollups move in the same transaction. The batcher groups the
// events of a few milliseconds (AIVIS_INGEST_FLUSH_MS, or FULL_BATCH_EVENTS) into one transaction
// and resolves each caller only after commit, so an acknowledged event survives a kill -9.
import type { DB } from "../../db";
import { tx } from "../../db";
import { type Channel, classifySource, rollupSource } from "./classify";
import { epochDay } from "./calendar";
import { parseReferrer } from "./domain";
import type { VisitorIds } from "./visitors";

/** A visit ends after 30 minutes without activity. */
export const VISIT_TIMEOUT_MS = 30 * 60_000;

interface EventBase {
  siteId: string;
  siteDomain: string;
  ts: number;
  visitor: VisitorIds;
  /** the script's per-tab id, or one derived from the visitor when the sender has none */
  sessionId: string;
  path: string;
}

export interface PageviewEvent extends EventBase {
  kind: "pageview";
  title: string | null;
  referrer: string | null;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
}

export interface EngagementEvent extends EventBase {
  kind: "engagement";
  engagedMs: number;
  scrollDepth: number;
}

export type TrafficEvent = PageviewEvent | EngagementEvent;

/** stored: a new page view; updated: engagement grew; unchanged: nothing grew; orphan: no page view to attach to */
export type IngestOutcome = "stored" | "updated" | "unchanged" | "orphan";

interface LiveVisit {
  id: number;
  channel: Channel;
  source: string;
}

interface PageviewRef {
  id: number;
  visit_id: number;
  day: number;
  channel: Channel;
  source: string;
  engaged_ms: number;
  scroll_depth: number;
}

/** Landing-page rows (path × AI source) kept per site and UTC day. */
export const MAX_LANDING_ROWS_PER_DAY = 200;
/** Where AI visits landing on a new page count once the day has MAX_LANDING_ROWS_PER_DAY rows (no leading "/": never a real path). */
export const OTHER_LANDING_PAGES = "(other pages)";

/** Prepares the statements once; the returned function must run inside a transaction. */
export function prepareIngest(db: DB): (events: TrafficEvent[]) => IngestOutcome[] {
  // a visitor id has at most one live visit (a new one opens only when none is live), so no
  // ORDER BY: with one, SQLite builds a temporary b-tree per lookup and ingestion halves
  const findLiveVisit = db.query<LiveVisit, { site: string; visitor: string; since: number }>(
    "SELECT id, channel, source FROM traffic_visits WHERE site_id = $site AND visitor_id = $visitor AND last_seen_at >= $since LIMIT 1",
  );
  const visitorSeen = db.query<{ one: number }, { site: string; visitor: string }>(
    "SELECT 1 AS one FROM traffic_visits WHERE site_id = $site AND visitor_id = $visitor LIMIT 1",
  );
  const insertVisit = db.query(
    `INSERT INTO traffic_visits (site_id, visitor_id, day, started_at, last_seen_at, channel, source, landing_path, pageviews)
     VALUES ($site, $visitor, $day, $ts, $ts, $channel, $source, $path, 1)`,
  );
  const touchVisit = db.query(
    "UPDATE traffic_visits SET last_seen_at = max(last_seen_at, $ts), pageviews = pageviews + $pageviews WHERE id = $id",
  );
  const insertPageview = db.query(
    `INSERT INTO traffic_pageviews (site_id, visit_id, session_id, ts, day, path, title, referrer_host, utm_source, utm_medium, utm_campaign, channel, source)
     VALUES ($site, $visit, $session, $ts, $day, $path, $title, $referrerHost, $utmSource, $utmMedium, $utmCampaign, $channel, $source)`,
  );
  const findPageview = db.query<PageviewRef, { site: string; session: string; path: string }>(
    `SELECT id, visit_id, day, channel, source, engaged_ms, scroll_depth FROM traffic_pageviews
     WHERE site_id = $site AND session_id = $session AND path = $path ORDER BY id DESC LIMIT 1`,
  );
  const updatePageview = db.query("UPDATE traffic_pageviews SET engaged_ms = $engaged, scroll_depth = $scroll WHERE id = $id");
  const bumpDaily = db.query(
    `INSERT INTO traffic_daily (site_id, day, channel, source, pageviews, visits, visitors, engaged_ms, scroll_sum, scroll_count)
     VALUES ($site, $day, $channel, $source, $pageviews, $visits, $visitors, $engaged, $scrollSum, $scrollCount)
     ON CONFLICT (site_id, day, channel, source) DO UPDATE SET
       pageviews = pageviews + excluded.pageviews, visits = visits + excluded.visits, visitors = visitors + excluded.visitors,
       engaged_ms = engaged_ms + excluded.engaged_ms, scroll_sum = scroll_sum + excluded.scroll_sum,
       scroll_count = scroll_count + excluded.scroll_count`,
  );
  const bumpLanding = db.query(
    "UPDATE traffic_daily_landing SET visits = visits + 1 WHERE site_id = $site AND day = $day AND path = $path AND source = $source",
  );
  const landingRowsOfDay = db.query<{ n: number }, { site: string; day: number }>(
    "SELECT count(*) AS n FROM traffic_daily_landing WHERE site_id = $site AND day = $day",
  );
  const insertLanding = db.query(
    `INSERT INTO traffic_daily_landing (site_id, day, path, source, visits) VALUES ($site, $day, $path, $source, 1)
     ON CONFLICT (site_id, day, path, source) DO UPDATE SET visits = visits + 1`,
  );

  // paths are unbounded (a big site, or junk posted to the public beacon): past the day's cap a
  // new landing page counts under OTHER_LANDING_PAGES, so stats never read more than days × cap rows
  function countLanding(site: string, day: number, path: string, source: string) {
    if (bumpLanding.run({ site, day, path, source }).changes > 0) return;
    const full = landingRowsOfDay.get({ site, day })!.n >= MAX_LANDING_ROWS_PER_DAY;
    insertLanding.run({ site, day, path: full ? OTHER_LANDING_PAGES : path, source });
  }

  function pageview(e: PageviewEvent): IngestOutcome {
    const day = epochDay(e.ts);
    const since = e.ts - VISIT_TIMEOUT_MS;
    const live =
      findLiveVisit.get({ site: e.siteId, visitor: e.visitor.current, since }) ??
      (e.visitor.previous === null ? null : findLiveVisit.get({ site: e.siteId, visitor: e.visitor.previous, since }));
    let visitId: number;
    let channel: Channel;
    let source: string;
    let referrerHost: string | null;
    let newVisits = 0;
    let newVisitors = 0;
    if (live) {
      ({ id: visitId, channel, source } = live);
      referrerHost = parseReferrer(e.referrer ?? undefined)?.host ?? null;
      touchVisit.run({ id: visitId, ts: e.ts, pageviews: 1 });
    } else {
      const c = classifySource({
        referrer: e.referrer ?? undefined,
        utmSource: e.utmSource ?? undefined,
        utmMedium: e.utmMedium ?? undefined,
        siteDomain: e.siteDomain,
      });
      ({ channel, source, referrerHost } = c);
      // the current-salt hash exists only today, so "never seen" means "first visit today"
      newVisitors = visitorSeen.get({ site: e.siteId, visitor: e.visitor.current }) ? 0 : 1;
      newVisits = 1;
      visitId = Number(
        insertVisit.run({ site: e.siteId, visitor: e.visitor.current, day, ts: e.ts, channel, source, path: e.path }).lastInsertRowid,
      );
      if (channel === "ai") countLanding(e.siteId, day, e.path, source);
    }
    insertPageview.run({
      site: e.siteId,
      visit: visitId,
      session: e.sessionId,
      ts: e.ts,
      day,
      path: e.path,
      title: e.title,
      referrerHost,
      utmSource: e.utmSource,
      utmMedium: e.utmMedium,
      utmCampaign: e.utmCampaign,
      channel,
      source,
    });
    addToDaily(e.siteId, day, channel, rollupSource(channel, source), 1, newVisits, newVisitors, 0, 0, 0);
    return "stored";
  }

  // values are cumulative per page view, so a repeated or reordered update never double counts
  function engagement(e: EngagementEvent): IngestOutcome {
    const pv = findPageview.get({ site: e.siteId, session: e.sessionId, path: e.path });
    if (!pv) return "orphan";
    const engaged = Math.max(pv.engaged_ms, e.engagedMs);
    const scroll = Math.max(pv.scroll_depth, e.scrollDepth);
    if (engaged === pv.engaged_ms && scroll === pv.scroll_depth) return "unchanged";
    updatePageview.run({ id: pv.id, engaged, scroll });
    touchVisit.run({ id: pv.visit_id, ts: e.ts, pageviews: 0 });
    addToDaily(
      e.siteId, pv.day, pv.channel, rollupSource(pv.channel, pv.source),
      0, 0, 0, engaged - pv.engaged_ms, scroll - pv.scroll_depth, pv.scroll_depth === 0 && scroll > 0 ? 1 : 0,
    );
    return "updated";
  }

  // a batch's rollup deltas are summed per (site, day, channel, source) and written once each at
  // its end, in the same transaction: under load most events of a batch share a few rows
  type DailyDelta = { site: string; day: number; channel: Channel; source: string; pageviews: number; visits: number; visitors: number; engaged: number; scrollSum: number; scrollCount: number };
  let daily = new Map<string, DailyDelta>();

  function addToDaily(site: string, day: number, channel: Channel, source: string, pageviews: number, visits: number, visitors: number, engaged: number, scrollSum: number, scrollCount: number) {
    const key = `${site}\u0000${day}\u0000${channel}\u0000${source}`;
    const d = daily.get(key);
    if (!d) {
      daily.set(key, { site, day, channel, source, pageviews, visits, visitors, engaged, scrollSum, scrollCount });
      return;
    }
    d.pageviews += pageviews;
    d.visits += visits;
    d.visitors += visitors;
    d.engaged += engaged;
    d.scrollSum += scrollSum;
    d.scrollCount += scrollCount;
  }

  return (events) => {
    daily = new Map();
    const outcomes = events.map((e) => (e.kind === "pageview" ? pageview(e) : engagement(e)));
    for (const d of daily.values()) bumpDaily.run(d);
    return outcomes;
  };
}

/**
 * A batch commits after flushMs, or at once when this many events wait: under load the wait
 * shrinks to what it takes to gather a batch, instead of every beacon idling a full flushMs.
 */
export const FULL_BATCH_EVENTS = 32;

export interface Ingestor {
  /** queues the event; resolves once the transaction holding it has committed */
  submit(event: TrafficEvent): Promise<IngestOutcome>;
  /** commits whatever is queued now */
  flush(): void;
  /** stops accepting and commits what is queued (server shutdown) */
  close(): void;
}

class IngestClosedError extends Error {}

export function createIngestor(db: DB, opts: { flushMs: number; maxBatch?: number; onError?: (err: unknown, events: number) => void }): Ingestor {
  const apply = prepareIngest(db);
  const maxBatch = opts.maxBatch ?? FULL_BATCH_EVENTS;
  type Pending = { event: TrafficEvent; resolve: (o: IngestOutcome) => void; reject: (e: unknown) => void };
  let pending: Pending[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  let closed = false;

  function flush() {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    let outcomes: IngestOutcome[];
    try {
      outcomes = tx(db, () => apply(batch.map((p) => p.event)));
    } catch (err) {
      opts.onError?.(err, batch.length);
      for (const p of batch) p.reject(err);
      return;
    }
    batch.forEach((p, i) => p.resolve(outcomes[i]));
  }

  return {
    submit(event) {
      if (closed) return Promise.reject(new IngestClosedError("the server is shutting down"));
      return new Promise((resolve, reject) => {
        pending.push({ event, resolve, reject });
        if (pending.length >= maxBatch) flush();
        else timer ??= setTimeout(flush, opts.flushMs);
      });
    },
    flush,
    close() {
      closed = true;
      flush();
    },
  };
}
