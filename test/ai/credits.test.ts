// Credits and image allowance over a real SQLite file: reservation, refund, periods, summary.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { refundUsage, reserveUsage, usageSummary, withCredits, withImageUsage } from "../../src/ai/credits";
import { AppError } from "../../src/http/errors";
import { ManualClock } from "../../src/platform/clock";
import { setPlan } from "../../src/modules/users/service";
import { PLANS } from "../../src/modules/users/plans";
import type { Principal } from "../../src/modules/users/service";
import { startTestServer, type TestServer } from "../support/server";

const clock = new ManualClock(Date.UTC(2026, 10, 20, 12));
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({}, { clock });
});
afterAll(() => s.close());

async function principal(plan: keyof typeof PLANS): Promise<Principal> {
  const u = await s.user(plan);
  return { userId: u.userId, email: u.email, workspaceId: u.workspaceId, plan: PLANS[plan], via: "apiKey", credentialId: "k" };
}

const ctx = () => ({ db: s.ctx.db, clock });

async function code(p: Promise<unknown>): Promise<string | null> {
  return p.then(() => null, (e) => (e instanceof AppError ? `${e.status} ${e.errCode}` : String(e)));
}

describe("withCredits", () => {
  test("charges once per successful call and refuses past the limit with a plan-specific message", async () => {
    const p = await principal("free");
    for (let i = 0; i < 10; i++) expect(await withCredits(ctx(), p, 1, async () => i)).toBe(i);
    const err = await withCredits(ctx(), p, 1, async () => "never").catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect([err.status, err.errCode]).toEqual([403, "CREDITS_EXHAUSTED"]);
    expect(err.message).toContain("10 AI credits of the Free trial");
    expect(usageSummary(s.ctx.db, p.workspaceId, p.plan, clock.now()).credits).toEqual({ used: 10, limit: 10, remaining: 0, period: "lifetime", resetsAt: null });
  });

  test("a failing run is refunded and its error passes through unchanged", async () => {
    const p = await principal("business");
    const boom = new AppError(502, "PROVIDER_ERROR", "x");
    expect(await withCredits(ctx(), p, 1, async () => { throw boom; }).catch((e) => e)).toBe(boom);
    expect(usageSummary(s.ctx.db, p.workspaceId, p.plan, clock.now()).credits.used).toBe(0);
  });

  test("run is never called when credits are exhausted", async () => {
    const p = await principal("free");
    reserveUsage(s.ctx.db, p.workspaceId, p.plan, "ai_credits", 10, clock.now());
    let called = false;
    expect(await code(withCredits(ctx(), p, 1, async () => { called = true; }))).toBe("403 CREDITS_EXHAUSTED");
    expect(called).toBe(false);
  });

  test("a cost larger than what is left is refused whole; what is left stays usable", async () => {
    const p = await principal("free");
    reserveUsage(s.ctx.db, p.workspaceId, p.plan, "ai_credits", 8, clock.now());
    expect(await code(withCredits(ctx(), p, 3, async () => 1))).toBe("403 CREDITS_EXHAUSTED");
    expect(await code(withCredits(ctx(), p, 11, async () => 1))).toBe("403 CREDITS_EXHAUSTED");
    expect(await code(withCredits(ctx(), p, 2, async () => 1))).toBeNull();
  });

  test("enterprise is unlimited but still counted", async () => {
    const p = await principal("enterprise");
    for (let i = 0; i < 1200; i++) reserveUsage(s.ctx.db, p.workspaceId, p.plan, "ai_credits", 1, clock.now());
    expect(await code(withCredits(ctx(), p, 1, async () => 1))).toBeNull();
    expect(usageSummary(s.ctx.db, p.workspaceId, p.plan, clock.now()).credits).toMatchObject({ used: 1201, limit: null, remaining: null });
  });

  test("paid plans reset monthly (UTC calendar month); the free trial never does", async () => {
    const paid = await principal("startup");
    const free = await principal("free");
    const c = new ManualClock(Date.UTC(2026, 0, 31, 23, 59));
    reserveUsage(s.ctx.db, paid.workspaceId, paid.plan, "ai_credits", 300, c.now());
    reserveUsage(s.ctx.db, free.workspaceId, free.plan, "ai_credits", 10, c.now());
    expect(await code(withCredits({ db: s.ctx.db, clock: c }, paid, 1, async () => 1))).toBe("403 CREDITS_EXHAUSTED");
    const err = await withCredits({ db: s.ctx.db, clock: c }, paid, 1, async () => 1).catch((e) => e);
    expect(err.message).toContain("resets on 2026-02-01");
    c.advance(60_000);
    expect(await code(withCredits({ db: s.ctx.db, clock: c }, paid, 1, async () => 1))).toBeNull();
    expect(usageSummary(s.ctx.db, paid.workspaceId, paid.plan, c.now()).credits).toEqual({
      used: 1, limit: 300, remaining: 299, period: "2026-02", resetsAt: "2026-03-01T00:00:00.000Z",
    });
    expect(await code(withCredits({ db: s.ctx.db, clock: c }, free, 1, async () => 1))).toBe("403 CREDITS_EXHAUSTED");
  });

  test("a refund goes back to the period it was taken from", async () => {
    const p = await principal("business");
    const r = reserveUsage(s.ctx.db, p.workspaceId, p.plan, "ai_credits", 1, Date.UTC(2026, 4, 31, 23));
    reserveUsage(s.ctx.db, p.workspaceId, p.plan, "ai_credits", 1, Date.UTC(2026, 5, 1, 1));
    refundUsage(s.ctx.db, r);
    expect(usageSummary(s.ctx.db, p.workspaceId, p.plan, Date.UTC(2026, 4, 15)).credits.used).toBe(0);
    expect(usageSummary(s.ctx.db, p.workspaceId, p.plan, Date.UTC(2026, 5, 15)).credits.used).toBe(1);
  });
});

describe("reservation is atomic across processes", () => {
  test("4 processes on one file contending for the last credit never push the counter past the limit", async () => {
    const u = await s.user("business");
    reserveUsage(s.ctx.db, u.workspaceId, PLANS.business, "ai_credits", 499, clock.now());
    const goFile = join(s.dataDir, "go");
    const script = join(import.meta.dir, "../support/credit-reserver-process.ts");
    const procs = Array.from({ length: 4 }, () =>
      Bun.spawn([process.execPath, script, s.ctx.config.dbPath, u.workspaceId, String(clock.now()), goFile, "3000"], { stdout: "pipe", stderr: "inherit" }),
    );
    await Bun.write(goFile, "go");
    const results = await Promise.all(
      procs.map(async (p) => {
        const out = await new Response(p.stdout).text();
        expect(await p.exited).toBe(0);
        return JSON.parse(out) as { won: number; overdrawn: number };
      }),
    );
    // each process got the credit at times, and nobody ever saw 501
    for (const r of results) expect(r.won).toBeGreaterThan(0);
    expect(results.map((r) => r.overdrawn)).toEqual([0, 0, 0, 0]);
    expect(usageSummary(s.ctx.db, u.workspaceId, PLANS.business, clock.now()).credits.used).toBe(499);
  }, 60_000);
});

describe("withImageUsage", () => {
  test("has its own counter and allowance (403 IMAGE_LIMIT_REACHED)", async () => {
    const p = await principal("free");
    for (let i = 0; i < 3; i++) await withImageUsage(ctx(), p, 1, async () => 1);
    const err = await withImageUsage(ctx(), p, 1, async () => 1).catch((e) => e);
    expect([err.status, err.errCode]).toEqual([403, "IMAGE_LIMIT_REACHED"]);
    const summary = usageSummary(s.ctx.db, p.workspaceId, p.plan, clock.now());
    expect(summary.images).toMatchObject({ used: 3, limit: 3, remaining: 0 });
    expect(summary.credits.used).toBe(0);
  });
});

describe("GET /v1/users/me carries usage", () => {
  test("current period's credits and images", async () => {
    const u = await s.user("business");
    const p = { userId: u.userId, email: u.email, workspaceId: u.workspaceId, plan: PLANS.business, via: "apiKey" as const, credentialId: "k" };
    await withCredits(ctx(), p, 2, async () => 1);
    await withImageUsage(ctx(), p, 1, async () => 1);
    const r = await s.call("GET", "/v1/users/me", { headers: u.headers });
    expect(r.status).toBe(200);
    expect(r.body.usage).toEqual({
      credits: { used: 2, limit: 500, remaining: 498, period: "2026-11", resetsAt: "2026-12-01T00:00:00.000Z" },
      images: { used: 1, limit: 200, remaining: 199, period: "2026-11", resetsAt: "2026-12-01T00:00:00.000Z" },
    });
    setPlan(s.ctx.db, u.email, "enterprise");
    const e = await s.call("GET", "/v1/users/me", { headers: u.headers });
    expect(e.body.usage.credits).toMatchObject({ used: 2, limit: null, remaining: null });
  });
});
