// Starts a real aivis server on loopback over a real SQLite file in a temp dir, and makes users,
// keys and session cookies for tests.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Env, loadConfig } from "../../src/config";
import { type Clock } from "../../src/platform/clock";
import type { Logger } from "../../src/platform/log";
import { createUser, generateApiKey } from "../../src/modules/users/service";
import { type Running, startAivis } from "../../src/server";

export function tempDir(prefix = "aivis-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function testEnv(overrides: Env = {}): Env {
  return {
    AIVIS_DATA_DIR: tempDir(),
    PORT: "0",
    HOST: "127.0.0.1",
    AIVIS_LOG_REQUESTS: "false",
    AIVIS_FETCH_ALLOW_PRIVATE: "true",
    AIVIS_WORKER_POLL_MS: "50",
    ...overrides,
  };
}

export interface TestUser {
  email: string;
  userId: string;
  workspaceId: string;
  password: string;
  apiKey: string;
  /** headers for api-key calls */
  headers: Record<string, string>;
}

export interface TestServer extends Running {
  dataDir: string;
  /** creates a user (own workspace unless join is given) with an API key */
  user(plan?: string, opts?: { join?: string; email?: string }): Promise<TestUser>;
  /** signs in and returns headers carrying the session cookie and a same-origin Origin */
  login(user: TestUser): Promise<Record<string, string>>;
  /** fetch relative to the server, JSON in and out */
  call(method: string, path: string, opts?: { body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

let counter = 0;

export async function startTestServer(env: Env = {}, opts: { clock?: Clock; log?: Logger } = {}): Promise<TestServer> {
  const fullEnv = testEnv(env);
  const config = loadConfig(fullEnv);
  const running = await startAivis(config, { log: opts.log ?? (() => {}), clock: opts.clock });
  const ts: TestServer = {
    ...running,
    dataDir: config.dataDir,
    async user(plan = "business", o = {}) {
      const email = o.email ?? `user${++counter}-${Date.now()}@example.com`;
      const password = "correct horse battery";
      const now = running.ctx.clock.now();
      const { user, workspace } = await createUser(running.ctx.db, now, { email, plan, password, joinEmail: o.join });
      const { secret } = generateApiKey(running.ctx.db, now, user.id, "test");
      return { email, userId: user.id, workspaceId: workspace.id, password, apiKey: secret, headers: { "api-key": secret } };
    },
    async login(user) {
      const origin = running.url;
      const res = await fetch(`${running.url}/v1/users/login`, {
        method: "POST",
        headers: { "content-type": "application/json", origin },
        body: JSON.stringify({ email: user.email, password: user.password }),
      });
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
      const cookie = res.headers.get("set-cookie")!.split(";")[0];
      return { cookie, origin };
    },
    async call(method, path, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      let body: string | undefined;
      if (o.body !== undefined) {
        headers["content-type"] ??= "application/json";
        body = typeof o.body === "string" ? o.body : JSON.stringify(o.body);
      }
      const res = await fetch(`${running.url}${path}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {}
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async close() {
      await running.stop();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
  return ts;
}
