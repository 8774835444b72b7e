// AI traffic routes (SPEC 4.5): sites and stats for the workspace (api key or session), the public
// tracking script and collect beacon (CORS for any origin), their first-party alias paths, and
// the stats alias GET /v1/ai/generate/ai-traffic.
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../http/auth";
import { AppError } from "../../http/errors";
import { clientIp } from "../../http/request-meta";
import { createIngestor } from "./ingest";
import { setUpTrafficRetention } from "./retention";
import { BEACON_BODY_LIMIT, CollectBody, CreateSiteBody, Site, SiteIdParams, StatsQuery, UpdateSiteBody } from "./model";
import { buildTrackerScript, relativeCollectUrl, type ServedScript } from "./script";
import {
  COLLECT_PATH,
  SCRIPT_PATH,
  TRAFFIC_PREFIX,
  acceptBeacon,
  createBotFilter,
  createSite,
  createSiteKeyCache,
  ensureSite,
  listSites,
  publicBase,
  siteView,
  statsFor,
  updateSite,
} from "./service";
import { createVisitorHasher } from "./visitors";

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "x-aivis-dropped",
};

const PREFLIGHT = {
  ...CORS,
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "content-type",
  "access-control-max-age": "86400",
};

function scriptResponse(script: ServedScript, request: Request): Response {
  const headers: Record<string, string> = {
    "content-type": "text/javascript; charset=utf-8",
    "cache-control": "public, max-age=86400, must-revalidate",
    etag: script.etag,
    vary: "accept-encoding",
    "access-control-allow-origin": "*",
    "cross-origin-resource-policy": "cross-origin",
    "x-content-type-options": "nosniff",
  };
  if (request.headers.get("if-none-match") === script.etag) return new Response(null, { status: 304, headers });
  if (/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) {
    return new Response(script.gzip, { headers: { ...headers, "content-encoding": "gzip" } });
  }
  return new Response(script.body, { headers });
}

/** A beacon body refused while parsing; rethrown by the transform hook because Elysia wraps parser errors as a plain 400. */
class RefusedBody {
  constructor(readonly error: AppError) {}
}

/**
 * The beacon's body parser: text/plain (what sendBeacon and a string fetch send, no preflight)
 * and application/json, at most BEACON_BODY_LIMIT bytes. It also sets the CORS headers, so even
 * an error answer is readable cross-origin.
 */
async function parseBeacon({ request, set }: { request: Request; set: { headers: Record<string, unknown> } }): Promise<unknown> {
  Object.assign(set.headers, CORS);
  const type = (request.headers.get("content-type") ?? "text/plain").split(";")[0].trim().toLowerCase();
  if (type !== "text/plain" && type !== "application/json") {
    return new RefusedBody(new AppError(415, "UNSUPPORTED_MEDIA_TYPE", "send the event as text/plain or application/json"));
  }
  const tooLarge = () => new RefusedBody(new AppError(413, "PAYLOAD_TOO_LARGE", `a beacon body is at most ${BEACON_BODY_LIMIT} bytes`));
  if (Number(request.headers.get("content-length") ?? 0) > BEACON_BODY_LIMIT) return tooLarge();
  const text = await request.text();
  if (Buffer.byteLength(text) > BEACON_BODY_LIMIT) return tooLarge();
  try {
    return JSON.parse(text);
  } catch {
    return new RefusedBody(new AppError(400, "MALFORMED_BODY", "the beacon body must be a JSON object"));
  }
}

function rethrowRefusal({ body }: { body: unknown }) {
  if (body instanceof RefusedBody) throw body.error;
}

export function trafficModule(ctx: AppContext, auth: AuthPlugin) {
  const { db, clock, config } = ctx;
  const ingestor = createIngestor(db, {
    flushMs: config.traffic.flushMs,
    onError: (err, events) => ctx.log("error", "traffic batch failed", { events, error: err instanceof Error ? err.message : String(err) }),
  });
  ctx.onShutdown(() => ingestor.close());
  void setUpTrafficRetention(ctx);
  const sites = createSiteKeyCache(db, clock);
  const beacon = { clock, sites, bots: createBotFilter(), visitors: createVisitorHasher(db), ingestor };

  const canonicalScript = buildTrackerScript(relativeCollectUrl(SCRIPT_PATH, COLLECT_PATH));

  const collect = async ({ body, request }: { body: CollectBody; request: Request }) => {
    const dropped = await acceptBeacon(beacon, body, clientIp(request), request.headers.get("user-agent"));
    return new Response(null, { status: 202, headers: dropped ? { ...CORS, "x-aivis-dropped": dropped } : CORS });
  };
  const collectOptions = {
    parse: parseBeacon,
    transform: rethrowRefusal,
    body: CollectBody,
    detail: {
      summary: "Beacon: a page view or an engagement update (public, CORS *)",
      description: "202 once stored; 202 with x-aivis-dropped: bot | no-pageview when not counted. text/plain or application/json, at most 8 KB.",
    },
  };
  const preflight = () => new Response(null, { status: 204, headers: PREFLIGHT });
  const stats = ({ principal, query }: { principal: { workspaceId: string }; query: typeof StatsQuery.static }) =>
    statsFor(db, principal.workspaceId, query, clock.now());

  const api = new Elysia({ prefix: TRAFFIC_PREFIX, tags: ["AI traffic"] })
    .use(auth)
    .get(
      "/sites",
      ({ principal, request }) => {
        const base = publicBase(config, request);
        return { sites: listSites(db, principal.workspaceId).map((s) => siteView(s, base)) };
      },
      { auth: "api", detail: { summary: "Sites of the workspace" } },
    )
    .post(
      "/sites",
      ({ principal, body, request, set }) => {
        const { site, created } = createSite(db, clock.now(), principal.workspaceId, body.domain, body.name);
        set.status = created ? 201 : 200;
        return siteView(site, publicBase(config, request));
      },
      {
        auth: "api",
        body: CreateSiteBody,
        response: { 200: Site, 201: Site },
        detail: { summary: "Add a site (201); a domain the workspace already tracks returns that site with 200" },
      },
    )
    .post(
      "/sites/ensure",
      ({ principal, request, set }) => {
        const ensured = ensureSite(db, clock.now(), principal);
        if (!ensured) return { site: null, needsDomain: true };
        set.status = ensured.created ? 201 : 200;
        return { site: siteView(ensured.site, publicBase(config, request)), needsDomain: false, created: ensured.created };
      },
      { auth: "api", detail: { summary: "The workspace's site, or one created from the team's or user's website" } },
    )
    .patch(
      "/sites/:id",
      ({ principal, params, body, request }) => {
        const site = updateSite(db, principal.workspaceId, params.id, body);
        sites.forget(site.site_key); // the beacon sees isActive at once, not after the cache ttl
        return siteView(site, publicBase(config, request));
      },
      { auth: "api", params: SiteIdParams, body: UpdateSiteBody, response: Site, detail: { summary: "Rename or (de)activate a site" } },
    )
    .get("/stats", stats, { auth: "api", query: StatsQuery, detail: { summary: "AI traffic stats from the daily rollups" } })
    .get("/t.js", ({ request }) => scriptResponse(canonicalScript, request), {
      detail: { summary: "The tracking script (public)" },
    })
    .post("/collect", collect, collectOptions)
    .options("/collect", preflight, { detail: { summary: "CORS preflight for the beacon" } });

  const generateAlias = new Elysia({ prefix: "/v1/ai/generate", tags: ["AI traffic"] })
    .use(auth)
    .get("/ai-traffic", stats, { auth: "api", query: StatsQuery, detail: { summary: "Alias of GET /v1/ai-traffic/stats" } });

  // first-party paths an operator's proxy can forward from the customer's own domain
  const { scriptAliasPath, collectAliasPath } = config.traffic;
  const firstParty = new Elysia({ tags: ["AI traffic"] });
  if (scriptAliasPath) {
    const aliasScript = buildTrackerScript(relativeCollectUrl(scriptAliasPath, collectAliasPath ?? COLLECT_PATH));
    firstParty.get(scriptAliasPath, ({ request }) => scriptResponse(aliasScript, request), { detail: { summary: "Tracking script alias" } });
  }
  if (collectAliasPath) {
    firstParty.post(collectAliasPath, collect, collectOptions).options(collectAliasPath, preflight, { detail: { summary: "Beacon alias preflight" } });
  }

  return new Elysia().use(api).use(generateAlias).use(firstParty);
}
