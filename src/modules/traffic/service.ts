// AI traffic: the site registry, accepting beacon events, and reading stats from the daily
// rollups. Plain functions over the database; routes live in index.ts.
import { isbot } from "isbot";
import type { Config } from "../../config";
import type { DB } from "../../db";
import { tx } from "../../db";
import { AppError, badRequest, forbidden, notFound } from "../../http/errors";
import type { Clock } from "../../platform/clock";
import { newId, randomToken } from "../../platform/ids";
import type { Principal } from "../users/service";
import { epochDay } from "./calendar";
import { normalizeDomain } from "./domain";
import { type Ingestor, OTHER_LANDING_PAGES, type TrafficEvent } from "./ingest";
import { type CollectBody, MAX_SITES_PER_WORKSPACE } from "./model";
import { type DailyRow, type DayRange, type LandingRow, type ShapedStats, shapeStats, shapeSummary, type SummaryRow, type TrafficSummary } from "./stats";
import type { VisitorHasher } from "./visitors";

export const TRAFFIC_PREFIX = "/v1/ai-traffic";
export const SCRIPT_PATH = `${TRAFFIC_PREFIX}/t.js`;
export const COLLECT_PATH = `${TRAFFIC_PREFIX}/collect`;
export const SITE_KEY_PREFIX = "aivt_";

export interface SiteRow {
  id: string;
  workspace_id: string;
  site_key: string;
  domain: string;
  name: string;
  is_active: number;
  created_at: number;
}

/** Where snippets point: AIVIS_PUBLIC_URL, else the origin the request came to (forwarded headers only behind a trusted proxy). */
export function publicBase(config: Config, request: Request): string {
  if (config.publicUrl) return config.publicUrl;
  if (config.trustProxy) {
    const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim();
    const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim();
    if (host && /^[A-Za-z0-9.\-:[\]]+$/.test(host)) return `${proto === "http" ? "http" : "https"}://${host}`;
  }
  return new URL(request.url).origin;
}

export function siteView(row: SiteRow, base: string) {
  const scriptUrl = `${base}${SCRIPT_PATH}`;
  return {
    id: row.id,
    siteKey: row.site_key,
    domain: row.domain,
    name: row.name,
    isActive: row.is_active === 1,
    snippet: `<script defer src="${scriptUrl}" data-site="${row.site_key}"></script>`,
    scriptUrl,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export function listSites(db: DB, workspaceId: string): SiteRow[] {
  return db
    .query<SiteRow, { ws: string }>("SELECT * FROM traffic_sites WHERE workspace_id = $ws ORDER BY created_at, id")
    .all({ ws: workspaceId });
}

/** The workspace's oldest active site (or oldest site when none is active), the default for ensure and stats. */
function firstSite(db: DB, workspaceId: string): SiteRow | null {
  return db
    .query<SiteRow, { ws: string }>("SELECT * FROM traffic_sites WHERE workspace_id = $ws ORDER BY is_active DESC, created_at, id LIMIT 1")
    .get({ ws: workspaceId });
}

export function getSite(db: DB, workspaceId: string, id: string): SiteRow {
  const row = db.query<SiteRow, { ws: string; id: string }>("SELECT * FROM traffic_sites WHERE workspace_id = $ws AND id = $id").get({ ws: workspaceId, id });
  if (!row) throw notFound("SITE_NOT_FOUND", `no AI traffic site ${id} in this workspace`);
  return row;
}

/**
 * Adds a site to the workspace. A domain the workspace already tracks is not an error: the
 * existing site comes back with created=false (the route answers 200 instead of 201).
 */
export function createSite(db: DB, now: number, workspaceId: string, domainInput: string, name?: string): { site: SiteRow; created: boolean } {
  const domain = normalizeDomain(domainInput);
  if (!domain) throw badRequest("INVALID_DOMAIN", `"${domainInput.slice(0, 100)}" is not a valid domain (expected e.g. example.com)`);
  return tx(db, () => {
    const existing = db
      .query<SiteRow, { ws: string; domain: string }>("SELECT * FROM traffic_sites WHERE workspace_id = $ws AND domain = $domain")
      .get({ ws: workspaceId, domain });
    if (existing) return { site: existing, created: false };
    const count = db.query<{ n: number }, { ws: string }>("SELECT count(*) AS n FROM traffic_sites WHERE workspace_id = $ws").get({ ws: workspaceId })!.n;
    if (count >= MAX_SITES_PER_WORKSPACE) {
      throw forbidden("SITE_LIMIT_REACHED", `a workspace can track at most ${MAX_SITES_PER_WORKSPACE} sites`);
    }
    const site: SiteRow = {
      id: newId(now),
      workspace_id: workspaceId,
      site_key: SITE_KEY_PREFIX + randomToken(12),
      domain,
      name: name?.trim() || domain,
      is_active: 1,
      created_at: now,
    };
    db.query(
      `INSERT INTO traffic_sites (id, workspace_id, site_key, domain, name, is_active, created_at)
       VALUES ($id, $workspace_id, $site_key, $domain, $name, $is_active, $created_at)`,
    ).run({ ...site });
    return { site, created: true };
  });
}

/**
 * The workspace's site (the oldest active one), or a new one for the team's website (set when a
 * visibility report is requested), else the caller's own website; null when neither is known.
 */
export function ensureSite(db: DB, now: number, principal: Principal): { site: SiteRow; created: boolean } | null {
  const existing = firstSite(db, principal.workspaceId);
  if (existing) return { site: existing, created: false };
  const urls = db
    .query<{ team: string | null; own: string | null }, { ws: string; user: string }>(
      "SELECT (SELECT website_url FROM workspaces WHERE id = $ws) AS team, (SELECT website_url FROM users WHERE id = $user) AS own",
    )
    .get({ ws: principal.workspaceId, user: principal.userId })!;
  for (const url of [urls.team, urls.own]) {
    if (url && normalizeDomain(url)) return createSite(db, now, principal.workspaceId, url);
  }
  return null;
}

export function updateSite(db: DB, workspaceId: string, id: string, patch: { name?: string; isActive?: boolean }): SiteRow {
  const site = getSite(db, workspaceId, id);
  const next = {
    id,
    name: patch.name?.trim() || site.name,
    active: patch.isActive === undefined ? site.is_active : Number(patch.isActive),
  };
  db.query("UPDATE traffic_sites SET name = $name, is_active = $active WHERE id = $id").run(next);
  return { ...site, name: next.name, is_active: next.active };
}

/** The site a stats call is about: by key within the workspace (another workspace's key is a 404), else the workspace's first. */
export function siteForStats(db: DB, workspaceId: string, siteKey?: string): SiteRow {
  const row = siteKey
    ? db.query<SiteRow, { ws: string; key: string }>("SELECT * FROM traffic_sites WHERE workspace_id = $ws AND site_key = $key").get({ ws: workspaceId, key: siteKey })
    : firstSite(db, workspaceId);
  if (!row) {
    throw siteKey
      ? notFound("SITE_NOT_FOUND", `no AI traffic site with key ${siteKey} in this workspace`)
      : notFound("SITE_NOT_FOUND", "this workspace has no AI traffic site yet: POST /v1/ai-traffic/sites or /sites/ensure first");
  }
  return row;
}

export function dayRange(days: number, now: number): DayRange {
  const to = epochDay(now);
  return { from: to - days + 1, to };
}

/** Stats for one site from the rollups: a few hundred rows for 90 days, whatever the raw volume. */
export function trafficStats(db: DB, siteId: string, days: number, now: number): ShapedStats {
  const range = dayRange(days, now);
  const params = { site: siteId, from: range.from, to: range.to };
  const rows = db
    .query<DailyRow, typeof params>(
      `SELECT day, channel, source, pageviews, visits, visitors, engaged_ms, scroll_sum, scroll_count
       FROM traffic_daily WHERE site_id = $site AND day BETWEEN $from AND $to`,
    )
    .all(params);
  const landing = db
    .query<LandingRow, typeof params & { otherPages: string }>(
      `SELECT path, source, sum(visits) AS visits FROM traffic_daily_landing
       WHERE site_id = $site AND day BETWEEN $from AND $to AND path <> $otherPages GROUP BY path, source`,
    )
    .all({ ...params, otherPages: OTHER_LANDING_PAGES });
  return shapeStats(rows, landing, range);
}

/**
 * Totals, AI share and top AI sources over all of a workspace's sites, for the chat assistant
 * and the dashboard. Zeros when the workspace tracks no site.
 */
export function trafficSummary(db: DB, workspaceId: string, days: number, now: number): TrafficSummary {
  const range = dayRange(days, now);
  const params = { ws: workspaceId, from: range.from, to: range.to };
  const rows = db
    .query<SummaryRow, typeof params>(
      `SELECT d.channel, d.source, sum(d.pageviews) AS pageviews, sum(d.visits) AS visits, sum(d.visitors) AS visitors
       FROM traffic_daily d JOIN traffic_sites s ON s.id = d.site_id
       WHERE s.workspace_id = $ws AND d.day BETWEEN $from AND $to GROUP BY d.channel, d.source`,
    )
    .all(params);
  const sites = db.query<{ n: number }, { ws: string }>("SELECT count(*) AS n FROM traffic_sites WHERE workspace_id = $ws").get({ ws: workspaceId })!.n;
  return shapeSummary(rows, days, sites);
}

/**
 * The stats response for a workspace's site. GA4 seam: when an analytics connection exists for
 * the workspace (none can be stored yet) and the caller did not pass source=script, a GA reader
 * returning the same shape as trafficStats is called here instead, and dataSource says "ga4".
 */
export function statsFor(db: DB, workspaceId: string, query: { siteKey?: string; days?: number; source?: "script" | "auto" }, now: number) {
  const site = siteForStats(db, workspaceId, query.siteKey);
  const days = query.days ?? 30;
  return {
    message: "AI traffic stats",
    dataSource: "script" as const,
    site: { id: site.id, siteKey: site.site_key, domain: site.domain, name: site.name, isActive: site.is_active === 1 },
    ...trafficStats(db, site.id, days, now),
  };
}

// ---------------------------------------------------------------------------------------------
// The beacon

interface CachedSite {
  site: Pick<SiteRow, "id" | "domain" | "is_active"> | null;
  at: number;
}

export interface SiteKeyCache {
  get(siteKey: string): Pick<SiteRow, "id" | "domain" | "is_active"> | null;
  /** drop a key now (after a site is updated in this process) */
  forget(siteKey: string): void;
}

/** Beacon lookups by key, cached for a few seconds (including misses, so junk keys cost no query each). */
export function createSiteKeyCache(db: DB, clock: Clock, ttlMs = 10_000, maxEntries = 10_000): SiteKeyCache {
  const cache = new Map<string, CachedSite>();
  const query = db.query<Pick<SiteRow, "id" | "domain" | "is_active">, { key: string }>(
    "SELECT id, domain, is_active FROM traffic_sites WHERE site_key = $key",
  );
  return {
    get(siteKey) {
      const now = clock.now();
      const hit = cache.get(siteKey);
      if (hit && now - hit.at < ttlMs) return hit.site;
      if (cache.size >= maxEntries) cache.clear();
      const site = query.get({ key: siteKey });
      cache.set(siteKey, { site, at: now });
      return site;
    },
    forget(siteKey) {
      cache.delete(siteKey);
    },
  };
}

/** isbot with a memory: a handful of user agents make up most traffic, and its big regex costs µs per call. */
export function createBotFilter(maxEntries = 5000): { test(userAgent: string): boolean } {
  const seen = new Map<string, boolean>();
  return {
    test(userAgent) {
      let bot = seen.get(userAgent);
      if (bot === undefined) {
        if (seen.size >= maxEntries) seen.clear();
        bot = isbot(userAgent);
        seen.set(userAgent, bot);
      }
      return bot;
    },
  };
}

export interface BeaconDeps {
  clock: Clock;
  bots: ReturnType<typeof createBotFilter>;
  sites: SiteKeyCache;
  visitors: VisitorHasher;
  ingestor: Ingestor;
}

/** Why an acknowledged event was not counted (the x-aivis-dropped header), or null when it was. */
export type DropReason = "bot" | "no-pageview" | null;

/**
 * Validates the site, drops bots, and hands the event to the batcher; resolves after commit.
 * A body with sessionDurationMs or scrollDepth is an engagement update of the page view with the
 * same session and path; anything else is a page view.
 */
export async function acceptBeacon(deps: BeaconDeps, body: CollectBody, ip: string, headerUserAgent: string | null): Promise<DropReason> {
  const site = deps.sites.get(body.siteKey);
  if (!site) throw notFound("UNKNOWN_SITE_KEY", "unknown siteKey");
  if (site.is_active !== 1) throw forbidden("SITE_INACTIVE", "this site is not active");
  const userAgent = headerUserAgent || body.userAgent || "";
  if (!userAgent || deps.bots.test(userAgent) || (body.userAgent && body.userAgent !== userAgent && deps.bots.test(body.userAgent))) return "bot";

  const ts = deps.clock.now();
  const visitor = deps.visitors.idsFor(epochDay(ts), ip, userAgent, site.id);
  const base = {
    siteId: site.id,
    siteDomain: site.domain,
    ts,
    visitor,
    sessionId: body.sessionId ?? `v-${visitor.current}`,
    path: body.path ?? "/",
  };
  const isEngagement = body.sessionDurationMs !== undefined || body.scrollDepth !== undefined;
  const event: TrafficEvent = isEngagement
    ? { ...base, kind: "engagement", engagedMs: body.sessionDurationMs ?? 0, scrollDepth: body.scrollDepth ?? 0 }
    : {
        ...base,
        kind: "pageview",
        title: body.title || null,
        referrer: body.referrer || null,
        utmSource: body.utmSource || null,
        utmMedium: body.utmMedium || null,
        utmCampaign: body.utmCampaign || null,
      };
  const outcome = await deps.ingestor.submit(event).catch(() => {
    throw new AppError(503, "INGEST_UNAVAILABLE", "the event could not be stored; retry later");
  });
  return outcome === "orphan" ? "no-pageview" : null;
}
