// Brand voices: creation from a website, text or a file URL, the visibility rule (team voices for
// the whole workspace, personal ones for their creator), updates and soft delete. Other features
// read voices through findUsableBrandVoice and listActiveBrandVoices.
import type { AppContext } from "../../context";
import { type DB, tx } from "../../db";
import { AppError, badRequest, notFound } from "../../http/errors";
import { fetchPageText, parseFetchUrl, safeFetch } from "../../lib/safe-fetch";
import { newId } from "../../platform/ids";
import type { Principal } from "../users/service";
import { MAX_VOICE_CONTENT_CHARS } from "./model";
import { defaultVoiceName, type FetchInterval, nextFetchAt } from "./schedule";
import { FILE_ACCEPT, fileKindOf, fileToText } from "./sources";

export type VoiceScope = "team" | "personal";
export type VoiceType = "website" | "text" | "file";

export const BRAND_VOICE_LIMITS = {
  /** stored content is cut to this many characters (website and file text; text bodies are refused above it) */
  maxContentChars: MAX_VOICE_CONTENT_CHARS,
  /** active voices per workspace */
  maxActivePerWorkspace: 200,
  /** bytes read from a website page */
  pageMaxBytes: 3 * 1024 * 1024,
  /** bytes read from a file URL */
  fileMaxBytes: 1024 * 1024,
};

interface BrandVoiceRow {
  id: string;
  workspace_id: string;
  user_id: string;
  scope: VoiceScope;
  type: VoiceType;
  name: string;
  url: string | null;
  content: string;
  fetch_interval: FetchInterval;
  next_fetch_at: number | null;
  last_fetched_at: number | null;
  last_fetch_error: string | null;
  last_fetch_error_at: number | null;
  is_active: number;
  created_at: number;
  updated_at: number;
}

/** SPEC 2.6 list item (plus scope). */
export interface BrandVoiceListItem {
  id: string;
  name: string;
  type: VoiceType;
  url: string | null;
  contentLength: number;
  scope: VoiceScope;
  createdAt: string;
  updatedAt: string;
}

/** SPEC 2.6 full record (plus scope, activity and refresh status). */
export interface BrandVoice {
  id: string;
  name: string;
  type: VoiceType;
  url: string | null;
  content: string;
  fetchInterval: FetchInterval;
  scope: VoiceScope;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
  lastFetchedAt: string | null;
  nextFetchAt: string | null;
  lastFetchError: string | null;
}

/** SPEC 2.6 create response `data` (plus scope and fetchInterval). */
export interface CreatedVoice {
  id: string;
  name: string;
  url: string | null;
  contentLength: number;
  type: VoiceType;
  scope: VoiceScope;
  fetchInterval: FetchInterval;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function toRecord(r: BrandVoiceRow): BrandVoice {
  return {
    id: r.id, name: r.name, type: r.type, url: r.url, content: r.content, fetchInterval: r.fetch_interval, scope: r.scope,
    isActive: r.is_active === 1, createdAt: iso(r.created_at)!, updatedAt: iso(r.updated_at)!,
    lastFetchedAt: iso(r.last_fetched_at), nextFetchAt: iso(r.next_fetch_at), lastFetchError: r.last_fetch_error,
  };
}

// A voice is visible when it is active, in the caller's workspace, and team-wide or the caller's own.
const VISIBLE = `workspace_id = $workspace_id AND is_active = 1 AND (scope = 'team' OR user_id = $user_id)`;

const visibleTo = (p: Principal) => ({ workspace_id: p.workspaceId, user_id: p.userId });

/** The voices the caller can use, newest first (chat assistant, GET /v1/ai/brand-voice). */
export function listActiveBrandVoices(db: DB, principal: Principal): BrandVoiceListItem[] {
  return db
    .query<Omit<BrandVoiceRow, "content"> & { content_length: number }, { workspace_id: string; user_id: string }>(
      `SELECT id, name, type, url, scope, length(content) AS content_length, created_at, updated_at
       FROM brand_voices WHERE ${VISIBLE} ORDER BY created_at DESC, id DESC`,
    )
    .all(visibleTo(principal))
    .map((r) => ({
      id: r.id, name: r.name, type: r.type, url: r.url, contentLength: r.content_length, scope: r.scope,
      createdAt: iso(r.created_at)!, updatedAt: iso(r.updated_at)!,
    }));
}

/** The voice with this id if the caller may use it; 404 BRAND_VOICE_NOT_FOUND otherwise (other workspace, someone else's personal voice, deleted). */
export function findUsableBrandVoice(db: DB, principal: Principal, id: string): BrandVoice {
  const row = db
    .query<BrandVoiceRow, { id: string; workspace_id: string; user_id: string }>(`SELECT * FROM brand_voices WHERE id = $id AND ${VISIBLE}`)
    .get({ id, ...visibleTo(principal) });
  if (!row) throw notFound("BRAND_VOICE_NOT_FOUND", `brand voice ${id} not found`);
  return toRecord(row);
}

interface NewVoice {
  type: VoiceType;
  name?: string;
  url: string | null;
  content: string;
  scope?: VoiceScope;
  fetchInterval?: FetchInterval;
}

function insertVoice(db: DB, now: number, principal: Principal, v: NewVoice): CreatedVoice {
  const content = v.content.slice(0, BRAND_VOICE_LIMITS.maxContentChars);
  if (!content.trim()) throw new AppError(422, "BRAND_VOICE_EMPTY", "no readable text was found to build the brand voice from");
  const interval = v.fetchInterval ?? "once";
  const row = {
    id: newId(now), workspace_id: principal.workspaceId, user_id: principal.userId, scope: v.scope ?? "team", type: v.type,
    name: v.name?.trim() || defaultVoiceName(now), url: v.url, content, fetch_interval: interval,
    next_fetch_at: nextFetchAt(interval, now), last_fetched_at: v.url ? now : null, created_at: now,
  };
  tx(db, () => {
    const active = db
      .query<{ n: number }, { workspace_id: string }>("SELECT count(*) AS n FROM brand_voices WHERE workspace_id = $workspace_id AND is_active = 1")
      .get({ workspace_id: principal.workspaceId })!.n;
    if (active >= BRAND_VOICE_LIMITS.maxActivePerWorkspace) {
      throw new AppError(403, "BRAND_VOICE_LIMIT_REACHED", `a workspace can keep ${BRAND_VOICE_LIMITS.maxActivePerWorkspace} active brand voices; delete one first`);
    }
    db.query(
      `INSERT INTO brand_voices (id, workspace_id, user_id, scope, type, name, url, content, fetch_interval, next_fetch_at,
                                 last_fetched_at, is_active, created_at, updated_at)
       VALUES ($id, $workspace_id, $user_id, $scope, $type, $name, $url, $content, $fetch_interval, $next_fetch_at,
               $last_fetched_at, 1, $created_at, $created_at)`,
    ).run(row);
  });
  return { id: row.id, name: row.name, url: row.url, contentLength: content.length, type: row.type, scope: row.scope, fetchInterval: interval };
}

type FetchContext = Pick<AppContext, "config">;

/** Fetches a website page (https only) and returns its readable text: the voice's content. */
export async function fetchWebsiteVoiceText(ctx: FetchContext, url: string): Promise<{ url: string; text: string }> {
  const page = await fetchPageText(url, { config: ctx.config, maxBytes: BRAND_VOICE_LIMITS.pageMaxBytes });
  return { url: page.url, text: page.text };
}

export async function createVoiceFromWebsite(
  ctx: Pick<AppContext, "config" | "db" | "clock">,
  principal: Principal,
  body: { websiteurl: string; name?: string; fetchInterval?: FetchInterval; scope?: VoiceScope },
): Promise<CreatedVoice> {
  const url = parseFetchUrl(body.websiteurl, true).toString();
  const page = await fetchWebsiteVoiceText(ctx, url);
  // the URL as sent is what refreshes fetch again; redirects are followed each time
  return insertVoice(ctx.db, ctx.clock.now(), principal, { type: "website", url, content: page.text, name: body.name, scope: body.scope, fetchInterval: body.fetchInterval });
}

export function createVoiceFromText(
  ctx: Pick<AppContext, "db" | "clock">,
  principal: Principal,
  body: { content: string; name?: string; scope?: VoiceScope },
): CreatedVoice {
  return insertVoice(ctx.db, ctx.clock.now(), principal, { type: "text", url: null, content: body.content.trim(), name: body.name, scope: body.scope });
}

/** Fetches a .md, .txt, .html or .json file URL (http or https) and returns its voice text. */
async function fetchFileVoiceText(ctx: FetchContext, url: URL): Promise<string> {
  const kind = fileKindOf(url);
  const res = await safeFetch(url.toString(), { config: ctx.config, httpsOnly: false, accept: FILE_ACCEPT[kind], maxBytes: BRAND_VOICE_LIMITS.fileMaxBytes });
  return fileToText(kind, res.mediaType, res.body, res.text());
}

export async function createVoiceFromFile(
  ctx: Pick<AppContext, "config" | "db" | "clock">,
  principal: Principal,
  body: { file: string; name?: string; scope?: VoiceScope },
): Promise<CreatedVoice> {
  const url = parseFetchUrl(body.file, false);
  const content = await fetchFileVoiceText(ctx, url);
  return insertVoice(ctx.db, ctx.clock.now(), principal, { type: "file", url: url.toString(), content, name: body.name, scope: body.scope });
}

export interface VoiceUpdate {
  name?: string;
  content?: string;
  url?: string;
  fetchInterval?: FetchInterval;
}

/** The text a new source URL of a website or file voice holds now (the creation rules apply). */
async function fetchSourceText(ctx: FetchContext, type: "website" | "file", url: URL): Promise<string> {
  const text = type === "website" ? (await fetchWebsiteVoiceText(ctx, url.toString())).text : await fetchFileVoiceText(ctx, url);
  if (!text.trim()) throw new AppError(422, "BRAND_VOICE_EMPTY", "no readable text was found at the new URL");
  return text.slice(0, BRAND_VOICE_LIMITS.maxContentChars);
}

/**
 * Applies the fields sent. A new `url` without `content` is fetched now and its text replaces
 * the content (a failed fetch changes nothing); with `content`, the text sent is stored as is.
 */
export async function updateBrandVoice(ctx: Pick<AppContext, "db" | "clock" | "config">, principal: Principal, id: string, patch: VoiceUpdate): Promise<BrandVoice> {
  const current = findUsableBrandVoice(ctx.db, principal, id);
  if (patch.url !== undefined && current.type === "text") throw badRequest("INVALID_URL", "a text brand voice has no source URL");
  if (patch.fetchInterval !== undefined && current.type !== "website") {
    throw badRequest("FETCH_INTERVAL_NOT_APPLICABLE", "fetchInterval applies to website brand voices only");
  }
  const url = patch.url === undefined ? null : parseFetchUrl(patch.url, current.type === "website");
  if (url && current.type === "file") fileKindOf(url);
  const fetched = url && patch.content === undefined ? await fetchSourceText(ctx, current.type as "website" | "file", url) : null;

  // after the await: fields not sent keep whatever the row holds now, not what was read before the fetch
  const now = ctx.clock.now();
  ctx.db
    .query(
      `UPDATE brand_voices SET name = COALESCE($name, name), content = COALESCE($content, content), url = COALESCE($url, url),
         fetch_interval = COALESCE($fetch_interval, fetch_interval),
         next_fetch_at = CASE WHEN $fetch_interval IS NULL THEN next_fetch_at ELSE $next_fetch_at END,
         last_fetched_at = CASE WHEN $fetched THEN $now ELSE last_fetched_at END,
         last_fetch_error = CASE WHEN $fetched THEN NULL ELSE last_fetch_error END,
         last_fetch_error_at = CASE WHEN $fetched THEN NULL ELSE last_fetch_error_at END,
         updated_at = $now
       WHERE id = $id AND is_active = 1`,
    )
    .run({
      id, now, url: url?.toString() ?? null, fetched: fetched === null ? 0 : 1,
      fetch_interval: patch.fetchInterval ?? null, next_fetch_at: patch.fetchInterval ? nextFetchAt(patch.fetchInterval, now) : null,
      name: patch.name?.trim() || null, content: fetched ?? patch.content ?? null,
    });
  return findUsableBrandVoice(ctx.db, principal, id);
}

/** Soft delete (SPEC 3.2): isActive=false; the voice disappears from lists, gets and generation. */
export function deleteBrandVoice(ctx: Pick<AppContext, "db" | "clock">, principal: Principal, id: string): void {
  findUsableBrandVoice(ctx.db, principal, id);
  ctx.db
    .query("UPDATE brand_voices SET is_active = 0, next_fetch_at = NULL, updated_at = $now WHERE id = $id")
    .run({ id, now: ctx.clock.now() });
}

// ---- refresh schedule (the job handler and the croner tick live in refresh.ts) ----

export interface DueVoice {
  id: string;
  workspaceId: string;
}

/** Claims the voices due at `now`: moves each one's next_fetch_at a period ahead, so one tick enqueues it once. */
export function claimDueVoices(db: DB, now: number, limit = 100): DueVoice[] {
  return tx(db, () => {
    const due = db
      .query<{ id: string; workspace_id: string; fetch_interval: FetchInterval }, { now: number; limit: number }>(
        `SELECT id, workspace_id, fetch_interval FROM brand_voices
         WHERE is_active = 1 AND next_fetch_at IS NOT NULL AND next_fetch_at <= $now ORDER BY next_fetch_at LIMIT $limit`,
      )
      .all({ now, limit });
    const move = db.query("UPDATE brand_voices SET next_fetch_at = $next WHERE id = $id");
    for (const v of due) move.run({ id: v.id, next: nextFetchAt(v.fetch_interval, now) });
    return due.map((v) => ({ id: v.id, workspaceId: v.workspace_id }));
  });
}

/** The source to fetch for a scheduled refresh, or null when the voice is gone or has no website. */
export function refreshTarget(db: DB, id: string): { url: string } | null {
  const row = db
    .query<{ url: string | null }, { id: string }>("SELECT url FROM brand_voices WHERE id = $id AND is_active = 1 AND type = 'website'")
    .get({ id });
  return row?.url ? { url: row.url } : null;
}

export function recordRefreshSuccess(db: DB, now: number, id: string, content: string): number {
  const stored = content.slice(0, BRAND_VOICE_LIMITS.maxContentChars);
  db.query(
    `UPDATE brand_voices SET content = $content, last_fetched_at = $now, last_fetch_error = NULL, last_fetch_error_at = NULL,
       updated_at = $now WHERE id = $id`,
  ).run({ id, now, content: stored });
  return stored.length;
}

/** A failed refresh keeps the content it had and records why. */
export function recordRefreshFailure(db: DB, now: number, id: string, error: string): void {
  db.query("UPDATE brand_voices SET last_fetch_error = $error, last_fetch_error_at = $now WHERE id = $id").run({ id, now, error: error.slice(0, 1000) });
}
