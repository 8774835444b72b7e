// Request schemas for /v1/ai/generate/seo-site-report* (SPEC 4.1) and the report schedule.
import { t } from "elysia";

/** hard bounds of the schema; the per-plan prompt cap (src/modules/users/plans.ts) is checked after */
export const MAX_PROMPTS_IN_BODY = 100;
export const MAX_PROMPT_LENGTH = 500;
export const MAX_COMPETITORS = 10;
export const MAX_URL_LENGTH = 2048;

const websiteurl = t.String({ minLength: 1, maxLength: MAX_URL_LENGTH, description: "https:// URL of the site" });
const competitors = t.Array(t.String({ minLength: 1, maxLength: 200 }), {
  maxItems: MAX_COMPETITORS,
  description: "competitor URLs, domains or brand names",
});
const prompts = t.Array(t.String({ minLength: 1, maxLength: MAX_PROMPT_LENGTH }), {
  maxItems: MAX_PROMPTS_IN_BODY,
  description: "natural-language queries; the plan caps how many",
});

export const reportBody = t.Object({
  websiteurl: t.Optional(websiteurl),
  competitors: t.Optional(competitors),
  prompts: t.Optional(prompts),
  refresh: t.Optional(t.Boolean({ description: "re-run the latest report, reusing its input unless overridden" })),
});

export const prefillBody = t.Object({
  websiteurl,
  competitors: t.Optional(competitors),
  prompts: t.Optional(prompts),
});

export const reportQuery = t.Object({
  sort: t.Optional(t.Union([t.Literal("desc"), t.Literal("asc")], { default: "desc" })),
});

export const historyQuery = t.Object({
  limit: t.Optional(t.Numeric({ minimum: 1, maximum: 1000, default: 100, description: "most recent points to return" })),
});

export const scheduleBody = t.Object({
  cron: t.String({ minLength: 9, maxLength: 100, description: "5- or 6-field cron expression (croner syntax)" }),
  timezone: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "IANA time zone; default UTC" })),
  enabled: t.Optional(t.Boolean({ default: true })),
});

export type ReportBody = typeof reportBody.static;
export type PrefillBody = typeof prefillBody.static;
export type ScheduleBody = typeof scheduleBody.static;
