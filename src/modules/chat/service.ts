// Chat sessions and their message blocks (SPEC 2.7, 4.6): owned by one user, listed 10 at a time,
// blocks paged 3 at a time newest first. Another user's session reads as "not found". Also the
// workspace's fine-tuning status that /v1/ai/chat reports.
import type { FineTuningJobs, FineTuningJobView } from "../../ai/fine-tuning";
import type { DB } from "../../db";
import { tx } from "../../db";
import { notFound } from "../../http/errors";
import { newId } from "../../platform/ids";
import type { Principal } from "../users/service";

export const SESSIONS_PER_PAGE = 10;
export const BLOCKS_PER_PAGE = 3;
const TITLE_CHARS = 80;

export interface SessionView {
  sessionId: string;
  title: string | null;
  model: string | null;
  blockCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface BlockView {
  id: string;
  role: "user" | "assistant";
  content: string;
  model: string | null;
  citations: string[];
  createdAt: string;
}

interface SessionRow {
  pk: number;
  session_id: string;
  title: string | null;
  model: string | null;
  created_at: number;
  updated_at: number;
  block_count: number;
}

interface BlockRow {
  id: string;
  role: "user" | "assistant";
  content: string;
  model: string | null;
  citations: string;
  created_at: number;
}

const SESSION_COLUMNS = `s.pk, s.session_id, s.title, s.model, s.created_at, s.updated_at,
  (SELECT count(*) FROM chat_blocks b WHERE b.session_pk = s.pk) AS block_count`;

function sessionView(r: SessionRow): SessionView {
  return {
    sessionId: r.session_id,
    title: r.title,
    model: r.model,
    blockCount: r.block_count,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

function blockView(r: BlockRow): BlockView {
  return {
    id: r.id,
    role: r.role,
    content: r.content,
    model: r.model,
    citations: JSON.parse(r.citations) as string[],
    createdAt: new Date(r.created_at).toISOString(),
  };
}

export const sessionNotFound = (sessionId: string) =>
  notFound("SESSION_NOT_FOUND", `chat session ${sessionId.slice(0, 100)} not found`, { sessionId });

function findSession(db: DB, userId: string, sessionId: string): SessionRow | null {
  return db
    .query<SessionRow, { user_id: string; session_id: string }>(
      `SELECT ${SESSION_COLUMNS} FROM chat_sessions s WHERE s.user_id = $user_id AND s.session_id = $session_id`,
    )
    .get({ user_id: userId, session_id: sessionId });
}

/** The caller's session, or 404 SESSION_NOT_FOUND (also for another user's session). */
export function getSession(db: DB, principal: Principal, sessionId: string): SessionView {
  const row = findSession(db, principal.userId, sessionId);
  if (!row) throw sessionNotFound(sessionId);
  return sessionView(row);
}

export function listSessions(db: DB, principal: Principal, skip: number): { sessions: SessionView[]; hasMore: boolean } {
  const rows = db
    .query<SessionRow, { user_id: string; limit: number; skip: number }>(
      `SELECT ${SESSION_COLUMNS} FROM chat_sessions s WHERE s.user_id = $user_id
       ORDER BY s.updated_at DESC, s.pk DESC LIMIT $limit OFFSET $skip`,
    )
    .all({ user_id: principal.userId, limit: SESSIONS_PER_PAGE + 1, skip });
  return { sessions: rows.slice(0, SESSIONS_PER_PAGE).map(sessionView), hasMore: rows.length > SESSIONS_PER_PAGE };
}

/** The most recently active session of the caller, or null when there is none. */
export function latestSession(db: DB, principal: Principal): SessionView | null {
  const row = db
    .query<SessionRow, { user_id: string }>(
      `SELECT ${SESSION_COLUMNS} FROM chat_sessions s WHERE s.user_id = $user_id ORDER BY s.updated_at DESC, s.pk DESC LIMIT 1`,
    )
    .get({ user_id: principal.userId });
  return row ? sessionView(row) : null;
}

/** One page of a session's blocks, newest first; skip counts blocks from the newest. */
export function sessionBlocks(db: DB, principal: Principal, sessionId: string, skip: number, limit = BLOCKS_PER_PAGE): { blocks: BlockView[]; hasMore: boolean } {
  const session = findSession(db, principal.userId, sessionId);
  if (!session) throw sessionNotFound(sessionId);
  const rows = db
    .query<BlockRow, { pk: number; limit: number; skip: number }>(
      `SELECT id, role, content, model, citations, created_at FROM chat_blocks WHERE session_pk = $pk
       ORDER BY created_at DESC, id DESC LIMIT $limit OFFSET $skip`,
    )
    .all({ pk: session.pk, limit: limit + 1, skip });
  return { blocks: rows.slice(0, limit).map(blockView), hasMore: rows.length > limit };
}

/** Creates the caller's session with this id (generated when absent); an existing one of theirs is returned as is. */
export function createSession(db: DB, now: number, principal: Principal, sessionId: string | undefined): { session: SessionView; created: boolean } {
  const id = sessionId ?? crypto.randomUUID();
  const changes = db
    .query(
      `INSERT INTO chat_sessions (session_id, user_id, workspace_id, created_at, updated_at)
       VALUES ($session_id, $user_id, $workspace_id, $now, $now) ON CONFLICT (user_id, session_id) DO NOTHING`,
    )
    .run({ session_id: id, user_id: principal.userId, workspace_id: principal.workspaceId, now }).changes;
  return { session: getSession(db, principal, id), created: changes > 0 };
}

export function deleteSession(db: DB, principal: Principal, sessionId: string): void {
  const changes = db
    .query("DELETE FROM chat_sessions WHERE user_id = $user_id AND session_id = $session_id")
    .run({ user_id: principal.userId, session_id: sessionId }).changes;
  if (!changes) throw sessionNotFound(sessionId);
}

/** The last `limit` messages of a session in chronological order, as conversation history. */
export function recentHistory(db: DB, principal: Principal, sessionId: string, limit: number): { role: "user" | "assistant"; content: string }[] {
  const session = findSession(db, principal.userId, sessionId);
  if (!session) return [];
  return db
    .query<{ role: "user" | "assistant"; content: string }, { pk: number; limit: number }>(
      `SELECT role, content FROM (
         SELECT role, content, created_at, id FROM chat_blocks WHERE session_pk = $pk ORDER BY created_at DESC, id DESC LIMIT $limit
       ) ORDER BY created_at ASC, id ASC`,
    )
    .all({ pk: session.pk, limit });
}

export interface ExchangeInput {
  sessionId: string;
  userText: string;
  reply: { text: string; model: string; citations: string[] };
}

/**
 * Stores one exchange (the user's message and the reply) in the session, creating the session
 * when it does not exist yet. One transaction, after the provider answered: a failed call leaves
 * nothing behind.
 */
export function recordExchange(db: DB, now: number, principal: Principal, input: ExchangeInput): { session: SessionView; blocks: BlockView[] } {
  return tx(db, () => {
    db.query(
      `INSERT INTO chat_sessions (session_id, user_id, workspace_id, title, model, created_at, updated_at)
       VALUES ($session_id, $user_id, $workspace_id, $title, $model, $now, $now)
       ON CONFLICT (user_id, session_id) DO UPDATE SET
         updated_at = max(updated_at, excluded.updated_at), model = excluded.model, title = coalesce(title, excluded.title)`,
    ).run({
      session_id: input.sessionId,
      user_id: principal.userId,
      workspace_id: principal.workspaceId,
      title: input.userText.replace(/\s+/g, " ").trim().slice(0, TITLE_CHARS),
      model: input.reply.model,
      now,
    });
    const session = findSession(db, principal.userId, input.sessionId)!;
    const insert = db.query(
      `INSERT INTO chat_blocks (id, session_pk, role, content, model, citations, created_at)
       VALUES ($id, $session_pk, $role, $content, $model, $citations, $created_at)`,
    );
    const blocks: BlockRow[] = [
      { id: newId(now), role: "user", content: input.userText, model: null, citations: "[]", created_at: now },
      { id: newId(now), role: "assistant", content: input.reply.text, model: input.reply.model, citations: JSON.stringify(input.reply.citations), created_at: now },
    ];
    for (const b of blocks) insert.run({ ...b, session_pk: session.pk });
    return { session: sessionView(findSession(db, principal.userId, input.sessionId)!), blocks: blocks.map(blockView) };
  });
}

/** Whether a message block belongs to one of the caller's sessions (and to `sessionId` when given). */
export function ownsBlock(db: DB, principal: Principal, blockId: string, sessionId?: string): boolean {
  const row = db
    .query<{ session_id: string }, { id: string; user_id: string }>(
      `SELECT s.session_id FROM chat_blocks b JOIN chat_sessions s ON s.pk = b.session_pk WHERE b.id = $id AND s.user_id = $user_id`,
    )
    .get({ id: blockId, user_id: principal.userId });
  return row !== null && (sessionId === undefined || row.session_id === sessionId);
}

const NO_FINE_TUNING_JOB = {
  none: "No fine-tuning job",
  not_configured: "No fine-tuning job: the openai provider is not configured (set OPENAI_API_KEY)",
  unsupported: "No fine-tuning job: the server at OPENAI_BASE_URL has no fine-tuning API",
} as const;

/** GET /getFineTuningJob: the workspace's current fine-tuning job at OpenAI, or none and why. */
export async function currentFineTuningJob(fineTuning: FineTuningJobs, principal: Principal): Promise<{ message: string; job: FineTuningJobView | null }> {
  const found = await fineTuning.latest(principal.workspaceId);
  if (found.job) return { message: "Current fine-tuning job", job: found.job };
  return { message: NO_FINE_TUNING_JOB[found.reason], job: null };
}
