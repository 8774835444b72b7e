// Helpers for the AI traffic tests: a browser-like user agent, a beacon call, site creation, and a
// bare database with one site for the ingestion-level tests.
import { migrate, openDatabase, type DB } from "../../../src/db";
import type { TestServer, TestUser } from "../../support/server";

/** An in-memory database, migrated, with workspace "w" and its site "s" (example.com). */
export function databaseWithSite(): DB {
  const db = openDatabase(":memory:");
  migrate(db);
  db.exec(`INSERT INTO workspaces (id, name, plan, created_at) VALUES ('w', 'w', 'business', 0);
           INSERT INTO traffic_sites (id, workspace_id, site_key, domain, name, created_at) VALUES ('s', 'w', 'aivt_k', 'example.com', 'example.com', 0)`);
  return db;
}

export const BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

export async function createSite(s: TestServer, u: TestUser, domain = "example.com"): Promise<{ id: string; siteKey: string }> {
  const r = await s.call("POST", "/v1/ai-traffic/sites", { headers: u.headers, body: { domain } });
  if (r.status !== 201) throw new Error(`site creation failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** POSTs a beacon as text/plain (what the script sends) with a browser user agent unless overridden. */
export function beacon(s: TestServer, body: unknown, headers: Record<string, string> = {}) {
  return s.call("POST", "/v1/ai-traffic/collect", {
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "text/plain;charset=UTF-8", "user-agent": BROWSER_UA, ...headers },
  });
}
