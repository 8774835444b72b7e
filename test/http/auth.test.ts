import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { ManualClock } from "../../src/platform/clock";
import { setBanned } from "../../src/modules/users/service";
import { startTestServer, type TestServer } from "../support/server";

const clock = new ManualClock(Date.now());
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({}, { clock });
});
afterAll(() => s.close());

describe("api-key authentication (SPEC 5.1)", () => {
  test("missing key → 401 with errCode", async () => {
    const r = await s.call("GET", "/v1/users/me");
    expect(r.status).toBe(401);
    expect(r.body.errCode).toBe("API_KEY_MISSING");
    expect(typeof r.body.message).toBe("string");
  });

  test("unknown key → 401", async () => {
    const r = await s.call("GET", "/v1/users/me", { headers: { "api-key": "aivis_notarealkeyatall" } });
    expect(r.status).toBe(401);
    expect(r.body.errCode).toBe("API_KEY_INVALID");
  });

  test("key without the prefix → 401", async () => {
    const r = await s.call("GET", "/v1/users/me", { headers: { "api-key": "sk-whatever" } });
    expect(r.status).toBe(401);
  });

  test("valid key on a plan with API access → 200", async () => {
    const u = await s.user("business");
    const r = await s.call("GET", "/v1/users/me", { headers: u.headers });
    expect(r.status).toBe(200);
    expect(r.body.user.email).toBe(u.email);
    expect(r.body.plan.id).toBe("business");
  });

  test("enterprise has API access too", async () => {
    const u = await s.user("enterprise");
    expect((await s.call("GET", "/v1/users/me", { headers: u.headers })).status).toBe(200);
  });

  test.each(["free", "startup"])("valid key on %s (no API access) → 403 PLAN_NOT_ELIGIBLE", async (plan) => {
    const u = await s.user(plan);
    const r = await s.call("GET", "/v1/users/me", { headers: u.headers });
    expect(r.status).toBe(403);
    expect(r.body.errCode).toBe("PLAN_NOT_ELIGIBLE");
  });

  test("expired key (30 days after generation) → 401 API_KEY_EXPIRED", async () => {
    const u = await s.user("business");
    clock.advance(29 * 86_400_000);
    expect((await s.call("GET", "/v1/users/me", { headers: u.headers })).status).toBe(200);
    clock.advance(1 * 86_400_000 + 1);
    const r = await s.call("GET", "/v1/users/me", { headers: u.headers });
    expect(r.status).toBe(401);
    expect(r.body.errCode).toBe("API_KEY_EXPIRED");
  });

  test("banned user → 401 USER_BANNED", async () => {
    const u = await s.user("business");
    setBanned(s.ctx.db, u.email, true);
    const r = await s.call("GET", "/v1/users/me", { headers: u.headers });
    expect(r.status).toBe(401);
    expect(r.body.errCode).toBe("USER_BANNED");
  });

  test("the secret is never stored: only its hash is in the database file", async () => {
    const u = await s.user("business");
    s.ctx.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const bytes = readFileSync(s.ctx.config.dbPath).toString("latin1");
    expect(bytes.includes(u.apiKey)).toBe(false);
    expect(bytes.includes(new Bun.CryptoHasher("sha256").update(u.apiKey).digest("hex"))).toBe(true);
  });
});

describe("web session (lucia)", () => {
  test("login sets an HttpOnly cookie; the cookie works on API routes regardless of plan", async () => {
    const u = await s.user("free");
    const res = await fetch(`${s.url}/v1/users/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: u.email, password: u.password }),
    });
    expect(res.status).toBe(200);
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toContain("aivis_session=");
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    const me = await s.call("GET", "/v1/users/me", { headers: { cookie: cookie.split(";")[0] } });
    expect(me.status).toBe(200); // plan API-eligibility applies to api-key access only
    expect(me.body.plan.id).toBe("free");
  });

  test("wrong password → 401 INVALID_CREDENTIALS; unknown email the same", async () => {
    const u = await s.user("business");
    const a = await s.call("POST", "/v1/users/login", { body: { email: u.email, password: "wrong password" } });
    const b = await s.call("POST", "/v1/users/login", { body: { email: "nobody@example.com", password: "whatever1" } });
    expect(a.status).toBe(401);
    expect(b.status).toBe(401);
    expect(a.body.errCode).toBe("INVALID_CREDENTIALS");
    expect(b.body).toEqual(a.body);
  });

  test("logout clears the cookie and ends the session", async () => {
    const u = await s.user("business");
    const h = await s.login(u);
    const out = await s.call("POST", "/v1/users/logout", { headers: h });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    expect((await s.call("GET", "/v1/users/me", { headers: { cookie: h.cookie } })).status).toBe(401);
  });

  test("banning a user ends their sessions", async () => {
    const u = await s.user("business");
    const h = await s.login(u);
    setBanned(s.ctx.db, u.email, true);
    expect((await s.call("GET", "/v1/users/me", { headers: h })).status).toBe(401);
    expect((await s.call("POST", "/v1/users/login", { body: { email: u.email, password: u.password } })).status).toBe(401);
  });
});

describe("API key management (SPEC 4.7) uses only the session cookie", () => {
  test("api-key header is refused on key management routes", async () => {
    const u = await s.user("business");
    for (const [m, p] of [["GET", "/v1/users/api-key"], ["POST", "/v1/users/generateApiKey"], ["DELETE", "/v1/users/api-key"]]) {
      const r = await s.call(m, p, { headers: u.headers, body: m === "POST" ? { name: "x" } : undefined });
      expect(r.status).toBe(401);
      expect(r.body.errCode).toBe("SESSION_REQUIRED");
    }
  });

  test("generate shows the secret once, rotates the old key, metadata never has the secret, revoke works", async () => {
    const u = await s.user("business");
    const h = await s.login(u);
    const gen = await s.call("POST", "/v1/users/generateApiKey", { headers: h, body: { name: "ci" } });
    expect(gen.status).toBe(201);
    const secret: string = gen.body.apiKey;
    expect(secret.startsWith("aivis_")).toBe(true);
    expect(secret.length).toBeGreaterThan(40);
    expect(gen.body.key.name).toBe("ci");
    // the old key stops working: one current key per user
    expect((await s.call("GET", "/v1/users/me", { headers: u.headers })).status).toBe(401);
    expect((await s.call("GET", "/v1/users/me", { headers: { "api-key": secret } })).status).toBe(200);

    const meta = await s.call("GET", "/v1/users/api-key", { headers: h });
    expect(meta.status).toBe(200);
    expect(meta.body.apiKey.prefix).toBe(secret.slice(0, meta.body.apiKey.prefix.length));
    expect(meta.body.apiKey.name).toBe("ci");
    expect(Date.parse(meta.body.apiKey.expiresAt) - Date.parse(meta.body.apiKey.createdAt)).toBe(30 * 86_400_000);
    expect(JSON.stringify(meta.body)).not.toContain(secret);

    expect((await s.call("DELETE", "/v1/users/api-key", { headers: h })).status).toBe(200);
    expect((await s.call("GET", "/v1/users/me", { headers: { "api-key": secret } })).status).toBe(401);
    expect((await s.call("GET", "/v1/users/api-key", { headers: h })).body.apiKey).toBeNull();
    expect((await s.call("DELETE", "/v1/users/api-key", { headers: h })).status).toBe(404);
  });

  test("cookie writes without a matching Origin are refused (CSRF)", async () => {
    const u = await s.user("business");
    const h = await s.login(u);
    const none = await s.call("POST", "/v1/users/generateApiKey", { headers: { cookie: h.cookie }, body: {} });
    expect(none.status).toBe(403);
    expect(none.body.errCode).toBe("CSRF_REJECTED");
    const evil = await s.call("POST", "/v1/users/generateApiKey", { headers: { cookie: h.cookie, origin: "https://evil.example" }, body: {} });
    expect(evil.status).toBe(403);
    // reads are fine without Origin
    expect((await s.call("GET", "/v1/users/api-key", { headers: { cookie: h.cookie } })).status).toBe(200);
  });
});

describe("rate limit", () => {
  test("per key, 429 with retry-after once the limit is passed", async () => {
    const r = await startTestServer({ AIVIS_RATE_LIMIT_PER_MINUTE: "5" });
    try {
      const a = await r.user("business");
      const b = await r.user("business");
      for (let i = 0; i < 5; i++) expect((await r.call("GET", "/v1/users/me", { headers: a.headers })).status).toBe(200);
      const over = await r.call("GET", "/v1/users/me", { headers: a.headers });
      expect(over.status).toBe(429);
      expect(over.body.errCode).toBe("RATE_LIMITED");
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
      // another key is counted separately
      expect((await r.call("GET", "/v1/users/me", { headers: b.headers })).status).toBe(200);
    } finally {
      await r.close();
    }
  });
});
