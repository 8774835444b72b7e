// Request and response schemas of the AI traffic routes (SPEC 2.5, 4.5). Every string and number
// the public beacon accepts is bounded here; README "AI traffic" lists the same limits.
import { t } from "elysia";

/** Largest beacon body accepted, in bytes (the sum of the field limits below fits in it). */
export const BEACON_BODY_LIMIT = 8192;
export const MAX_SITES_PER_WORKSPACE = 50;

export const Site = t.Object({
  id: t.String(),
  siteKey: t.String({ description: "public key the script and the beacon use; starts with aivt_" }),
  domain: t.String({ description: "normalized: no scheme, www., port or path; IDN as punycode" }),
  name: t.String(),
  isActive: t.Boolean(),
  snippet: t.String({ description: "the <script> tag to put on the site" }),
  scriptUrl: t.String(),
  createdAt: t.String({ description: "ISO 8601 UTC" }),
});

export const CreateSiteBody = t.Object({
  domain: t.String({ minLength: 1, maxLength: 2048, description: "a domain or URL; normalized" }),
  name: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "defaults to the domain" })),
});

export const UpdateSiteBody = t.Object(
  {
    name: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    isActive: t.Optional(t.Boolean({ description: "false stops the beacon from accepting events for this site" })),
  },
  { minProperties: 1 },
);

export const SiteIdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });

export const StatsQuery = t.Object({
  siteKey: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "defaults to the workspace's first site" })),
  days: t.Optional(t.Integer({ minimum: 1, maximum: 90, default: 30 })),
  source: t.Optional(
    t.Union([t.Literal("script"), t.Literal("auto")], {
      description: "script forces the tracking-script data; auto (default) would prefer a connected analytics source",
    }),
  ),
});

export const CollectBody = t.Object({
  siteKey: t.String({ minLength: 1, maxLength: 64 }),
  path: t.Optional(t.String({ minLength: 1, maxLength: 1024, pattern: "^/" })),
  referrer: t.Optional(t.String({ maxLength: 2048 })),
  title: t.Optional(t.String({ maxLength: 512 })),
  sessionId: t.Optional(t.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" })),
  userAgent: t.Optional(t.String({ maxLength: 512 })),
  utmSource: t.Optional(t.String({ maxLength: 256 })),
  utmMedium: t.Optional(t.String({ maxLength: 256 })),
  utmCampaign: t.Optional(t.String({ maxLength: 256 })),
  sessionDurationMs: t.Optional(t.Integer({ minimum: 0, maximum: 86_400_000, description: "engagement update: engaged ms on the page view so far" })),
  scrollDepth: t.Optional(t.Integer({ minimum: 0, maximum: 100, description: "engagement update: deepest scroll so far, % of page height" })),
});
export type CollectBody = typeof CollectBody.static;
