// Users, workspaces and API keys: creation, login checks, plan changes, bans, and turning a
// presented api-key secret into the caller it belongs to.
import type { DB } from "../../db";
import { tx } from "../../db";
import { AppError, badRequest, conflict, notFound } from "../../http/errors";
import { newId, randomToken, sha256Hex } from "../../platform/ids";
import { type Plan, type PlanId, isPlanId, planOf } from "./plans";

export const API_KEY_PREFIX = "aivis_";
export const API_KEY_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const KEY_DISPLAY_CHARS = API_KEY_PREFIX.length + 6;

export interface UserRow {
  id: string;
  email: string;
  password_hash: string | null;
  workspace_id: string;
  banned: number;
  website_url: string | null;
  created_at: number;
}

export interface WorkspaceRow {
  id: string;
  name: string;
  plan: PlanId;
  website_url: string | null;
  created_at: number;
}

/** Who is calling: resolved once per request by the auth layer and handed to services. */
export interface Principal {
  userId: string;
  email: string;
  workspaceId: string;
  plan: Plan;
  via: "apiKey" | "session";
  /** api key id or session id: what rate limits count against */
  credentialId: string;
}

export interface ApiKeyMeta {
  name: string;
  prefix: string;
  createdAt: string;
  expiresAt: string;
  expired: boolean;
  lastUsedAt: string | null;
}

const EMAIL_RE = /^[^\s@]{1,64}@[^\s@]{1,189}\.[^\s@]{2,63}$/;

export function normalizeEmail(email: string): string {
  const value = email.trim().toLowerCase();
  if (value.length > 254 || !EMAIL_RE.test(value)) throw badRequest("INVALID_EMAIL", `"${email}" is not a valid email address`);
  return value;
}

export function validatePassword(password: string): void {
  if (password.length < 8 || password.length > 256) {
    throw badRequest("INVALID_PASSWORD", "password must be 8 to 256 characters");
  }
}

export function findUserByEmail(db: DB, email: string): UserRow | null {
  return db.query<UserRow, [string]>("SELECT * FROM users WHERE email = ?").get(email.trim().toLowerCase());
}

export function getUser(db: DB, id: string): UserRow | null {
  return db.query<UserRow, [string]>("SELECT * FROM users WHERE id = ?").get(id);
}

export function getWorkspace(db: DB, id: string): WorkspaceRow | null {
  return db.query<WorkspaceRow, [string]>("SELECT * FROM workspaces WHERE id = ?").get(id);
}

export function countUsers(db: DB): number {
  return db.query<{ n: number }, []>("SELECT count(*) AS n FROM users").get()!.n;
}

export interface CreateUserInput {
  email: string;
  /** plan of the new workspace; ignored when joining an existing one */
  plan?: string;
  password?: string;
  /** join the workspace of this existing user instead of creating a new one */
  joinEmail?: string;
}

export async function createUser(db: DB, now: number, input: CreateUserInput): Promise<{ user: UserRow; workspace: WorkspaceRow }> {
  const email = normalizeEmail(input.email);
  if (!input.joinEmail && !isPlanId(input.plan ?? "")) throw badRequest("INVALID_PLAN", `plan must be one of free, startup, business, enterprise`);
  if (input.password !== undefined) validatePassword(input.password);
  const passwordHash = input.password ? await Bun.password.hash(input.password, { algorithm: "argon2id" }) : null;

  return tx(db, () => {
    if (findUserByEmail(db, email)) throw conflict("USER_EXISTS", `a user with email ${email} already exists`);
    let workspace: WorkspaceRow;
    if (input.joinEmail) {
      const owner = findUserByEmail(db, input.joinEmail);
      if (!owner) throw notFound("USER_NOT_FOUND", `no user with email ${input.joinEmail}`);
      workspace = getWorkspace(db, owner.workspace_id)!;
    } else {
      workspace = { id: newId(now), name: email, plan: input.plan as PlanId, website_url: null, created_at: now };
      db.query("INSERT INTO workspaces (id, name, plan, website_url, created_at) VALUES ($id, $name, $plan, NULL, $created_at)")
        .run({ id: workspace.id, name: workspace.name, plan: workspace.plan, created_at: now });
    }
    const user: UserRow = {
      id: newId(now), email, password_hash: passwordHash, workspace_id: workspace.id, banned: 0, website_url: null, created_at: now,
    };
    db.query(`INSERT INTO users (id, email, password_hash, workspace_id, banned, created_at)
              VALUES ($id, $email, $password_hash, $workspace_id, 0, $created_at)`)
      .run({ id: user.id, email, password_hash: passwordHash, workspace_id: workspace.id, created_at: now });
    return { user, workspace };
  });
}

function requireUser(db: DB, email: string): UserRow {
  const user = findUserByEmail(db, email);
  if (!user) throw notFound("USER_NOT_FOUND", `no user with email ${email}`);
  return user;
}

export function setBanned(db: DB, email: string, banned: boolean): UserRow {
  const user = requireUser(db, email);
  tx(db, () => {
    db.query("UPDATE users SET banned = ? WHERE id = ?").run(banned ? 1 : 0, user.id);
    // a banned user's web sessions end at once; keys are refused by the banned check
    if (banned) db.query("DELETE FROM user_sessions WHERE user_id = ?").run(user.id);
  });
  return { ...user, banned: banned ? 1 : 0 };
}

export function setPlan(db: DB, email: string, plan: string): WorkspaceRow {
  if (!isPlanId(plan)) throw badRequest("INVALID_PLAN", `plan must be one of free, startup, business, enterprise`);
  const user = requireUser(db, email);
  db.query("UPDATE workspaces SET plan = ? WHERE id = ?").run(plan, user.workspace_id);
  return getWorkspace(db, user.workspace_id)!;
}

export async function setPassword(db: DB, email: string, password: string): Promise<void> {
  validatePassword(password);
  const user = requireUser(db, email);
  const hash = await Bun.password.hash(password, { algorithm: "argon2id" });
  db.query("UPDATE users SET password_hash = ? WHERE id = ?").run(hash, user.id);
}

// A fixed argon2id hash so that a login for an unknown email costs as much as for a known one.
let dummyHash: Promise<string> | undefined;

/** The user for these credentials, or null. Banned users cannot log in. */
export async function verifyLogin(db: DB, email: string, password: string): Promise<UserRow | null> {
  const user = findUserByEmail(db, email);
  dummyHash ??= Bun.password.hash("aivis-timing-equalizer", { algorithm: "argon2id" });
  const hash = user?.password_hash ?? (await dummyHash);
  const ok = await Bun.password.verify(password, hash).catch(() => false);
  if (!user || !user.password_hash || !ok || user.banned) return null;
  return user;
}

function keyMeta(row: { name: string; prefix: string; created_at: number; expires_at: number; last_used_at: number | null }, now: number): ApiKeyMeta {
  return {
    name: row.name,
    prefix: row.prefix,
    createdAt: new Date(row.created_at).toISOString(),
    expiresAt: new Date(row.expires_at).toISOString(),
    expired: row.expires_at <= now,
    lastUsedAt: row.last_used_at ? new Date(row.last_used_at).toISOString() : null,
  };
}

/** Creates the user's key, replacing any previous one (rotation). The secret is returned once. */
export function generateApiKey(db: DB, now: number, userId: string, name: string): { secret: string; key: ApiKeyMeta } {
  const secret = API_KEY_PREFIX + randomToken(32);
  const row = {
    id: newId(now), user_id: userId, name, prefix: secret.slice(0, KEY_DISPLAY_CHARS),
    secret_hash: sha256Hex(secret), created_at: now, expires_at: now + API_KEY_TTL_MS, last_used_at: null,
  };
  tx(db, () => {
    db.query("DELETE FROM api_keys WHERE user_id = ?").run(userId);
    db.query(`INSERT INTO api_keys (id, user_id, name, prefix, secret_hash, created_at, expires_at)
              VALUES ($id, $user_id, $name, $prefix, $secret_hash, $created_at, $expires_at)`)
      .run({ id: row.id, user_id: row.user_id, name: row.name, prefix: row.prefix, secret_hash: row.secret_hash, created_at: row.created_at, expires_at: row.expires_at });
  });
  return { secret, key: keyMeta(row, now) };
}

export function getApiKeyMeta(db: DB, now: number, userId: string): ApiKeyMeta | null {
  const row = db.query<{ name: string; prefix: string; created_at: number; expires_at: number; last_used_at: number | null }, [string]>(
    "SELECT name, prefix, created_at, expires_at, last_used_at FROM api_keys WHERE user_id = ?",
  ).get(userId);
  return row ? keyMeta(row, now) : null;
}

export function revokeApiKey(db: DB, userId: string): boolean {
  return db.query("DELETE FROM api_keys WHERE user_id = ?").run(userId).changes > 0;
}

export function principalFor(db: DB, user: UserRow, via: Principal["via"], credentialId: string): Principal {
  const workspace = getWorkspace(db, user.workspace_id)!;
  return { userId: user.id, email: user.email, workspaceId: workspace.id, plan: planOf(workspace.plan), via, credentialId };
}

/** Resolves an api-key header value: 401 for missing/unknown/expired keys and banned users, 403 when the plan has no API access. */
export function authenticateApiKey(db: DB, now: number, secret: string | null | undefined): Principal {
  if (!secret) throw new AppError(401, "API_KEY_MISSING", "the api-key header is required");
  if (!secret.startsWith(API_KEY_PREFIX) || secret.length > 200) {
    throw new AppError(401, "API_KEY_INVALID", "the api key is not valid");
  }
  const key = db.query<{ id: string; user_id: string; expires_at: number; last_used_at: number | null }, [string]>(
    "SELECT id, user_id, expires_at, last_used_at FROM api_keys WHERE secret_hash = ?",
  ).get(sha256Hex(secret));
  if (!key) throw new AppError(401, "API_KEY_INVALID", "the api key is not valid");
  if (key.expires_at <= now) throw new AppError(401, "API_KEY_EXPIRED", "the api key has expired; generate a new one");
  const user = getUser(db, key.user_id)!;
  if (user.banned) throw new AppError(401, "USER_BANNED", "this account is banned");
  const principal = principalFor(db, user, "apiKey", key.id);
  if (!principal.plan.apiAccess) {
    throw new AppError(403, "PLAN_NOT_ELIGIBLE", `the ${principal.plan.label} plan does not include API access; upgrade to Business or Enterprise`);
  }
  // last-used is informative; write it at most once a minute per key to keep reads cheap
  if (!key.last_used_at || now - key.last_used_at > 60_000) {
    db.query("UPDATE api_keys SET last_used_at = ? WHERE id = ?").run(now, key.id);
  }
  return principal;
}
