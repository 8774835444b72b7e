// Web sessions with lucia over bun:sqlite (the official BunSQLiteAdapter, tables users and
// user_sessions). The cookie is HttpOnly, SameSite=Lax, Secure when AIVIS_COOKIE_SECURE is on.
import { BunSQLiteAdapter } from "@lucia-auth/adapter-sqlite";
import { Lucia, TimeSpan } from "lucia";
import type { Config } from "../../config";
import type { DB } from "../../db";

export const SESSION_COOKIE = "aivis_session";

export function createSessionAuth(db: DB, config: Config) {
  const adapter = new BunSQLiteAdapter(db, { user: "users", session: "user_sessions" });
  const lucia = new Lucia(adapter, {
    sessionExpiresIn: new TimeSpan(30, "d"),
    sessionCookie: { name: SESSION_COOKIE, attributes: { secure: config.cookieSecure, sameSite: "lax" } },
  });
  return { lucia };
}

export type SessionAuth = ReturnType<typeof createSessionAuth>;
