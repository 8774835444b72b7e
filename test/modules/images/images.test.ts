// Stored generated images: /image returns id + url, GET /v1/ai/generate/images/:id serves the bytes
// publicly with cache and safety headers, bad ids are JSON errors, retention by an injected clock.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { usageSummary } from "../../../src/ai/credits";
import { ConfigError, loadConfig } from "../../../src/config";
import type { AppContext } from "../../../src/context";
import { MAX_IMAGE_BYTES } from "../../../src/modules/images/image-format";
import { generateStoredImage, IMAGES_PATH, pruneExpiredImages, pruneImages, setUpImageRetention, storeImage } from "../../../src/modules/images/service";
import { PLANS } from "../../../src/modules/users/plans";
import { getUser, principalFor } from "../../../src/modules/users/service";
import { ManualClock } from "../../../src/platform/clock";
import { fakePng, startFakeProviders, type FakeProviders } from "../../support/fake-providers";
import { waitFor } from "../../support/jobs";
import { startTestServer, type TestServer, type TestUser } from "../../support/server";

const DAY = 86_400_000;
const KEEP_DAYS = 2;
const clock = new ManualClock();
let fake: FakeProviders;
let s: TestServer;
beforeAll(async () => {
  fake = await startFakeProviders();
  s = await startTestServer({ ...fake.env, AIVIS_AI_MAX_RETRIES: "0", AIVIS_IMAGE_KEEP_DAYS: String(KEEP_DAYS) }, { clock });
});
afterAll(async () => {
  await s.close();
  await fake.stop();
});
afterEach(() => fake.reset());

const generate = (u: TestUser, text: string, model = "dall-e-3", size = "1024x1024") =>
  s.call("POST", "/v1/ai/generate/image", { headers: u.headers, body: { text, model, size } });
const path = (url: string) => new URL(url).pathname;
const imageRows = (workspaceId: string) =>
  s.ctx.db.query<{ id: string }, { ws: string }>("SELECT id FROM generated_images WHERE workspace_id = $ws ORDER BY created_at").all({ ws: workspaceId }).map((r) => r.id);

describe("POST /image stores the image too", () => {
  test.each([
    ["dall-e-3", "1024x1792"],
    ["stability-ultra", "16:9"],
  ])("%s: id and url beside the base64; the url serves the same bytes to anyone, with cache and safety headers", async (model, size) => {
    const u = await s.user("business");
    const r = await generate(u, "a lighthouse at dusk", model, size);
    expect(r.status).toBe(200);
    const { id, url, mimeType, b64 } = r.body.image;
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(url).toBe(`${s.url}${IMAGES_PATH}/${id}`);
    expect(mimeType).toBe("image/png");
    expect(Buffer.from(b64, "base64").equals(fakePng("a lighthouse at dusk"))).toBe(true);
    expect(usageSummary(s.ctx.db, u.workspaceId, PLANS.business, clock.now()).images.used).toBe(1);

    const served = await fetch(url); // no api-key, no cookie: the id is the capability
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(b64, "base64"))).toBe(true);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("cache-control")).toBe(`private, max-age=${KEEP_DAYS * 86_400}, immutable`);
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(served.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(served.headers.get("etag")).toBe(`"${id}"`);
    expect(served.headers.get("api-version")).toBe("v1");
    expect(imageRows(u.workspaceId)).toEqual([id]);
  });

  test("two images get different ids; a matching If-None-Match is a 304 without a body", async () => {
    const u = await s.user("business");
    const a = (await generate(u, "first")).body.image;
    const b = (await generate(u, "second")).body.image;
    expect(a.id).not.toBe(b.id);
    const again = await fetch(a.url, { headers: { "if-none-match": `W/"other", "${a.id}"` } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("etag")).toBe(`"${a.id}"`);
    expect((await fetch(a.url, { headers: { "if-none-match": `"${b.id}"` } })).status).toBe(200);
  });

  test("a provider failure stores nothing", async () => {
    const u = await s.user("business");
    fake.failNext("stability", 503, 1);
    const r = await generate(u, "x", "stability-ultra", "1:1");
    expect([r.status, r.body.errCode]).toEqual([502, "PROVIDER_ERROR"]);
    expect(imageRows(u.workspaceId)).toEqual([]);
  });
});

describe("GET /v1/ai/generate/images/:id errors are JSON", () => {
  test("a well-formed id that was never issued → 404 IMAGE_NOT_FOUND", async () => {
    const r = await s.call("GET", `${IMAGES_PATH}/${"A".repeat(22)}`);
    expect(r.status).toBe(404);
    expect(r.headers.get("content-type")).toContain("application/json");
    expect(r.body.errCode).toBe("IMAGE_NOT_FOUND");
    expect(typeof r.body.message).toBe("string");
  });

  test.each([["short"], ["A".repeat(23)], [`${"A".repeat(21)}.`], [`${"A".repeat(21)}%2F`], ["%00".repeat(22)]])("%s → 400 VALIDATION_FAILED", async (bad) => {
    const r = await s.call("GET", `${IMAGES_PATH}/${bad}`);
    expect(r.status).toBe(400);
    expect(r.headers.get("content-type")).toContain("application/json");
    expect(r.body.errCode).toBe("VALIDATION_FAILED");
  });
});

describe("storing refuses what it will not serve", () => {
  const principal = (u: TestUser) => principalFor(s.ctx.db, getUser(s.ctx.db, u.userId)!, "apiKey", "test");

  test("bytes that are not PNG, JPEG, GIF or WebP → 502 IMAGE_FORMAT_UNSUPPORTED, and the image usage is given back", async () => {
    const u = await s.user("business");
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>').toString("base64");
    // a provider (or a local model server) that labels an SVG as a PNG
    const ctx: AppContext = { ...s.ctx, ai: { ...s.ctx.ai, image: async (req) => ({ b64: svg, mimeType: "image/png", model: req.model }) } };
    const attempt = generateStoredImage(ctx, principal(u), { model: "dall-e-3", prompt: "x", size: "1024x1024" }, s.url);
    await expect(attempt).rejects.toMatchObject({ status: 502, errCode: "IMAGE_FORMAT_UNSUPPORTED" });
    expect(usageSummary(s.ctx.db, u.workspaceId, PLANS.business, clock.now()).images.used).toBe(0);
    expect(imageRows(u.workspaceId)).toEqual([]);
  });

  test("over MAX_IMAGE_BYTES → 502 IMAGE_TOO_LARGE; at the cap it is stored", async () => {
    const u = await s.user("business");
    const png = fakePng("big");
    const padded = (size: number) => Buffer.concat([png, Buffer.alloc(size - png.length)]).toString("base64");
    expect(() => storeImage(s.ctx.db, clock.now(), u.workspaceId, { b64: padded(MAX_IMAGE_BYTES + 1), model: "dall-e-3", prompt: "x" })).toThrow(
      expect.objectContaining({ status: 502, errCode: "IMAGE_TOO_LARGE" }),
    );
    const stored = storeImage(s.ctx.db, clock.now(), u.workspaceId, { b64: padded(MAX_IMAGE_BYTES), model: "dall-e-3", prompt: "x" });
    expect(stored).toMatchObject({ mimeType: "image/png", bytes: MAX_IMAGE_BYTES });
    expect(imageRows(u.workspaceId)).toEqual([stored.id]);
  });
});

describe("retention (AIVIS_IMAGE_KEEP_DAYS)", () => {
  test("served until the retention ends with max-age counting down, 404 after it even before the prune; the prune deletes only expired images", async () => {
    const u = await s.user("business");
    const old = (await generate(u, "old")).body.image;
    clock.advance(DAY);
    const young = (await generate(u, "young")).body.image;

    let r = await fetch(old.url);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe(`private, max-age=${(KEEP_DAYS - 1) * 86_400}, immutable`);

    clock.advance(DAY); // old is exactly KEEP_DAYS old now
    const gone = await s.call("GET", path(old.url));
    expect([gone.status, gone.body.errCode]).toEqual([404, "IMAGE_NOT_FOUND"]);
    expect(imageRows(u.workspaceId)).toEqual([old.id, young.id]); // not pruned yet, but no longer served
    expect((await fetch(young.url)).status).toBe(200);

    expect(pruneExpiredImages(s.ctx)).toBeGreaterThanOrEqual(1); // other tests' images may expire too
    expect(imageRows(u.workspaceId)).toEqual([young.id]);
    expect(pruneExpiredImages(s.ctx)).toBe(0);
  });

  test("pruneImages deletes past the batch size until nothing at or before the cutoff is left", async () => {
    const u = await s.user("business");
    const b64 = fakePng("many").toString("base64");
    const cutoff = clock.now() - KEEP_DAYS * DAY;
    for (let i = 0; i < 120; i++) storeImage(s.ctx.db, cutoff - i, u.workspaceId, { b64, model: "dall-e-3", prompt: "many" });
    const kept = storeImage(s.ctx.db, cutoff + 1, u.workspaceId, { b64, model: "dall-e-3", prompt: "many" });
    expect(pruneImages(s.ctx.db, cutoff)).toBeGreaterThanOrEqual(120); // with any other test's expired images
    expect(imageRows(u.workspaceId)).toEqual([kept.id]);
  });

  test("the schedule prunes by itself (a per-second schedule stands in for the hourly one)", async () => {
    const hooks: (() => unknown)[] = [];
    setUpImageRetention({ ...s.ctx, onShutdown: (hook) => void hooks.push(hook) }, "* * * * * *");
    try {
      const u = await s.user("business");
      const expired = storeImage(s.ctx.db, clock.now() - KEEP_DAYS * DAY, u.workspaceId, { b64: fakePng("e").toString("base64"), model: "dall-e-3", prompt: "e" });
      const kept = storeImage(s.ctx.db, clock.now(), u.workspaceId, { b64: fakePng("k").toString("base64"), model: "dall-e-3", prompt: "k" });
      expect(imageRows(u.workspaceId)).toEqual([expired.id, kept.id]);
      await waitFor("a tick to prune the expired image", () => imageRows(u.workspaceId).length === 1);
      expect(imageRows(u.workspaceId)).toEqual([kept.id]);
    } finally {
      for (const hook of hooks) hook();
    }
    expect(hooks.length).toBe(1);
  });

  test("AIVIS_IMAGE_KEEP_DAYS: default 90, 1–3650", () => {
    expect(loadConfig({}).images.keepDays).toBe(90);
    expect(loadConfig({ AIVIS_IMAGE_KEEP_DAYS: "7" }).images.keepDays).toBe(7);
    for (const bad of ["0", "3651", "ninety"]) expect(() => loadConfig({ AIVIS_IMAGE_KEEP_DAYS: bad })).toThrow(ConfigError);
  });
});

test("AIVIS_PUBLIC_URL is the base of image URLs", async () => {
  const other = await startTestServer({ ...fake.env, AIVIS_PUBLIC_URL: "https://aivis.example.com/" });
  try {
    const u = await other.user("business");
    const r = await other.call("POST", "/v1/ai/generate/image", { headers: u.headers, body: { text: "x", model: "dall-e-3", size: "1024x1024" } });
    expect(r.body.image.url).toBe(`https://aivis.example.com${IMAGES_PATH}/${r.body.image.id}`);
    const served = await other.call("GET", path(r.body.image.url));
    expect(served.status).toBe(200);
  } finally {
    await other.close();
  }
});
