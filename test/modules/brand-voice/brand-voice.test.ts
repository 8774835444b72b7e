import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/platform/clock";
import { BRAND_VOICE_REFRESH_JOB, enqueueDueRefreshes, startRefreshTick } from "../../../src/modules/brand-voice/refresh";
import { html, startSite, trustTestCertificate, type TestSite } from "../../support/https-site";
import { waitFor } from "../../support/jobs";
import { startTestServer, type TestServer, type TestUser } from "../../support/server";

const DAY = 86_400_000;
const clock = new ManualClock(Date.parse("2026-03-14T09:00:00Z"));
let s: TestServer;
let site: TestSite;
let aboutText = "We speak plainly and warmly to small businesses. We never oversell, and we explain why each widget matters.";

const page = (body: string) => html(`<html><head><title>Acme</title></head><body><nav>Home Shop</nav><article><h1>About Acme</h1><p>${body}</p></article></body></html>`);

beforeAll(async () => {
  trustTestCertificate();
  site = startSite({
    "/about": () => page(aboutText),
    "/voice.md": () => new Response("# Our voice\n\nShort sentences. Warm words.", { headers: { "content-type": "text/markdown" } }),
    "/voice.json": () => Response.json({ name: "ignored", content: "Confident, never smug." }),
    "/voice.html": () => page("Friendly and exact."),
    "/voice.txt": () => new Response(new Uint8Array([0x00, 0x01, 0xff, 0xfe]), { headers: { "content-type": "application/octet-stream" } }),
    "/huge.md": () => new Response("a".repeat(1_100_000), { headers: { "content-type": "text/plain" } }),
    "/image.png": () => new Response("png", { headers: { "content-type": "image/png" } }),
  });
  s = await startTestServer({}, { clock });
});
afterAll(async () => {
  await s.close();
  site.close();
});

const create = (u: TestUser, kind: string, body: Record<string, unknown>) => s.call("POST", `/v1/ai/generate/brand-voice/${kind}`, { headers: u.headers, body });

describe("create from website (SPEC 4.2)", () => {
  test("fetches the page, stores its readable text, answers 201 with message and data", async () => {
    const u = await s.user();
    const r = await create(u, "website", { websiteurl: `${site.origin}/about` });
    expect(r.status).toBe(201);
    expect(typeof r.body.message).toBe("string");
    expect(r.body.data).toMatchObject({ name: "Brand voice — 2026-03-14", url: `${site.origin}/about`, type: "website", scope: "team", fetchInterval: "once" });
    const got = await s.call("GET", `/v1/ai/brand-voice/${r.body.data.id}`, { headers: u.headers });
    expect(got.status).toBe(200);
    expect(got.body.data.content).toContain("We speak plainly and warmly");
    expect(got.body.data.content).toContain("About Acme");
    expect(got.body.data.content).not.toContain("Shop");
    expect(r.body.data.contentLength).toBe(got.body.data.content.length);
  });

  test("a given name is kept", async () => {
    const u = await s.user();
    const r = await create(u, "website", { websiteurl: `${site.origin}/about`, name: "House style" });
    expect(r.body.data.name).toBe("House style");
  });

  test.each([
    ["http://example.com/", "INVALID_URL"],
    ["not a url", "INVALID_URL"],
  ])("%s → 400 %s", async (websiteurl, code) => {
    const u = await s.user();
    const r = await create(u, "website", { websiteurl });
    expect(r.status).toBe(400);
    expect(r.body.errCode).toBe(code);
  });

  test("missing websiteurl → 400 VALIDATION_FAILED", async () => {
    const u = await s.user();
    const r = await create(u, "website", {});
    expect(r.status).toBe(400);
    expect(r.body.errCode).toBe("VALIDATION_FAILED");
  });

  test("a page that is not HTML → 422 FETCH_CONTENT_TYPE", async () => {
    const u = await s.user();
    const r = await create(u, "website", { websiteurl: `${site.origin}/image.png` });
    expect(r.status).toBe(422);
    expect(r.body.errCode).toBe("FETCH_CONTENT_TYPE");
  });

  test("private addresses are refused when AIVIS_FETCH_ALLOW_PRIVATE is off", async () => {
    const strict = await startTestServer({ AIVIS_FETCH_ALLOW_PRIVATE: "false" });
    try {
      const u = await strict.user();
      for (const websiteurl of [`${site.origin}/about`, "https://169.254.169.254/latest/meta-data/", "https://[::1]/"]) {
        const r = await strict.call("POST", "/v1/ai/generate/brand-voice/website", { headers: u.headers, body: { websiteurl } });
        expect(r.status).toBe(400);
        expect(r.body.errCode).toBe("URL_NOT_ALLOWED");
      }
    } finally {
      await strict.close();
    }
  });
});

describe("create from text and file", () => {
  test("text: 201 with type text and no url", async () => {
    const u = await s.user();
    const r = await create(u, "text", { content: "  Dry wit, short sentences.  ", name: "Wit" });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ name: "Wit", type: "text", url: null, contentLength: "Dry wit, short sentences.".length });
  });

  test("text over 100 000 characters → 400", async () => {
    const u = await s.user();
    const r = await create(u, "text", { content: "a".repeat(100_001) });
    expect(r.status).toBe(400);
  });

  test.each([
    ["/voice.md", "# Our voice\n\nShort sentences. Warm words."],
    ["/voice.json", "Confident, never smug."],
    ["/voice.html", "Friendly and exact."],
  ])("file %s → content", async (path, expected) => {
    const u = await s.user();
    const r = await create(u, "file", { file: `${site.origin}${path}`, scope: "personal" });
    expect(r.status).toBe(201);
    expect(r.body.data.type).toBe("file");
    const got = await s.call("GET", `/v1/ai/brand-voice/${r.body.data.id}`, { headers: u.headers });
    expect(got.body.data.content).toContain(expected);
    expect(got.body.data.scope).toBe("personal");
  });

  test.each([
    ["/image.png", 400, "UNSUPPORTED_FILE_TYPE"],
    ["/voice.txt", 422, "FILE_NOT_TEXT"],
    ["/huge.md", 422, "FETCH_TOO_LARGE"],
    ["/missing.md", 422, "FETCH_FAILED"],
  ])("file %s → %i %s", async (path, status, code) => {
    const u = await s.user();
    const r = await create(u, "file", { file: `${site.origin}${path}` });
    expect(r.status).toBe(status);
    expect(r.body.errCode).toBe(code);
  });
});

describe("management (SPEC 4.4), scope and soft delete", () => {
  let owner: TestUser;
  let teammate: TestUser;
  let outsider: TestUser;
  let teamId: string;
  let personalId: string;

  beforeAll(async () => {
    owner = await s.user();
    teammate = await s.user("business", { join: owner.email });
    outsider = await s.user();
    teamId = (await create(owner, "text", { content: "Team voice", name: "Team" })).body.data.id;
    clock.advance(1000);
    personalId = (await create(owner, "text", { content: "Owner only", name: "Mine", scope: "personal" })).body.data.id;
  });

  test("the list has SPEC 2.6 items, newest first; the creator sees both scopes", async () => {
    const r = await s.call("GET", "/v1/ai/brand-voice", { headers: owner.headers });
    expect(r.status).toBe(200);
    expect(typeof r.body.message).toBe("string");
    expect(r.body.data.map((v: any) => v.id)).toEqual([personalId, teamId]);
    const item = r.body.data[1];
    expect(Object.keys(item).sort()).toEqual(["contentLength", "createdAt", "id", "name", "scope", "type", "updatedAt", "url"]);
    expect(item).toMatchObject({ name: "Team", type: "text", url: null, contentLength: 10 });
    expect(item.content).toBeUndefined();
  });

  test("a teammate sees team voices only; someone else's personal voice is a 404", async () => {
    const r = await s.call("GET", "/v1/ai/brand-voice/", { headers: teammate.headers });
    expect(r.body.data.map((v: any) => v.id)).toEqual([teamId]);
    const hidden = await s.call("GET", `/v1/ai/brand-voice/${personalId}`, { headers: teammate.headers });
    expect(hidden.status).toBe(404);
    expect(hidden.body.errCode).toBe("BRAND_VOICE_NOT_FOUND");
    expect((await s.call("PUT", `/v1/ai/brand-voice/${personalId}`, { headers: teammate.headers, body: { name: "x" } })).status).toBe(404);
    expect((await s.call("DELETE", `/v1/ai/brand-voice/${personalId}`, { headers: teammate.headers })).status).toBe(404);
  });

  test("another workspace sees nothing", async () => {
    expect((await s.call("GET", "/v1/ai/brand-voice", { headers: outsider.headers })).body.data).toEqual([]);
    const r = await s.call("GET", `/v1/ai/brand-voice/${teamId}`, { headers: outsider.headers });
    expect(r.status).toBe(404);
    expect(r.body.errCode).toBe("BRAND_VOICE_NOT_FOUND");
  });

  test("the full record has the SPEC 2.6 fields", async () => {
    const r = await s.call("GET", `/v1/ai/brand-voice/${teamId}`, { headers: teammate.headers });
    expect(r.body.data).toMatchObject({ id: teamId, name: "Team", type: "text", url: null, content: "Team voice", fetchInterval: "once", isActive: true });
    expect(Date.parse(r.body.data.createdAt)).toBe(Date.parse("2026-03-14T09:00:00Z") + 0 * DAY);
  });

  test("PUT updates name and content (teammates may edit team voices) and returns the record", async () => {
    clock.advance(60_000);
    const r = await s.call("PUT", `/v1/ai/brand-voice/${teamId}`, { headers: teammate.headers, body: { name: "Team v2", content: "Warmer now" } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: "Team v2", content: "Warmer now" });
    expect(Date.parse(r.body.data.updatedAt)).toBeGreaterThan(Date.parse(r.body.data.createdAt));
  });

  test("PUT of fetchInterval or url on a text voice → 400", async () => {
    const a = await s.call("PUT", `/v1/ai/brand-voice/${teamId}`, { headers: owner.headers, body: { fetchInterval: "daily" } });
    expect(a.status).toBe(400);
    expect(a.body.errCode).toBe("FETCH_INTERVAL_NOT_APPLICABLE");
    const b = await s.call("PUT", `/v1/ai/brand-voice/${teamId}`, { headers: owner.headers, body: { url: "https://example.com/" } });
    expect(b.status).toBe(400);
    const c = await s.call("PUT", `/v1/ai/brand-voice/${teamId}`, { headers: owner.headers, body: { fetchInterval: "hourly" } });
    expect(c.body.errCode).toBe("VALIDATION_FAILED");
  });

  test("DELETE is a soft delete: success message, gone from list and get, row kept with is_active=0", async () => {
    const id = (await create(owner, "text", { content: "Short-lived" })).body.data.id;
    const r = await s.call("DELETE", `/v1/ai/brand-voice/${id}`, { headers: owner.headers });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: "Brand voice deleted" });
    expect((await s.call("GET", `/v1/ai/brand-voice/${id}`, { headers: owner.headers })).status).toBe(404);
    const list = await s.call("GET", "/v1/ai/brand-voice", { headers: owner.headers });
    expect(list.body.data.map((v: any) => v.id)).not.toContain(id);
    const row = s.ctx.db.query<{ is_active: number }, any>("SELECT is_active FROM brand_voices WHERE id = $id").get({ id });
    expect(row).toEqual({ is_active: 0 });
    expect((await s.call("DELETE", `/v1/ai/brand-voice/${id}`, { headers: owner.headers })).status).toBe(404);
  });

  test("unknown id → 404; no key → 401", async () => {
    expect((await s.call("GET", "/v1/ai/brand-voice/01NOPE", { headers: owner.headers })).status).toBe(404);
    expect((await s.call("GET", "/v1/ai/brand-voice")).status).toBe(401);
  });
});

describe("PUT with a new url fetches it", () => {
  test("a website voice: the new page's text replaces the content and lastFetchedAt moves", async () => {
    const u = await s.user();
    const id = (await create(u, "website", { websiteurl: `${site.origin}/about` })).body.data.id;
    site.route("/careers", () => page("Join a team that writes like it talks."));
    clock.advance(60_000);
    const r = await s.call("PUT", `/v1/ai/brand-voice/${id}`, { headers: u.headers, body: { url: `${site.origin}/careers` } });
    expect(r.status).toBe(200);
    expect(r.body.data.url).toBe(`${site.origin}/careers`);
    expect(r.body.data.content).toContain("Join a team that writes like it talks.");
    expect(r.body.data.content).not.toContain("small businesses");
    expect(r.body.data.lastFetchedAt).toBe(new Date(clock.now()).toISOString());
  });

  test("url with content: the content sent is stored and nothing is fetched", async () => {
    const u = await s.user();
    const id = (await create(u, "website", { websiteurl: `${site.origin}/about` })).body.data.id;
    site.route("/press", () => page("Press page text."));
    const r = await s.call("PUT", `/v1/ai/brand-voice/${id}`, { headers: u.headers, body: { url: `${site.origin}/press`, content: "Hand-written voice." } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ url: `${site.origin}/press`, content: "Hand-written voice." });
    expect(site.hits).not.toContain("/press");
  });

  test("a failed fetch of the new url is the error and changes nothing", async () => {
    const u = await s.user();
    const before = (await create(u, "website", { websiteurl: `${site.origin}/about`, name: "Keep me" })).body.data;
    const r = await s.call("PUT", `/v1/ai/brand-voice/${before.id}`, { headers: u.headers, body: { url: `${site.origin}/gone`, name: "New name" } });
    expect(r.status).toBe(422);
    expect(r.body.errCode).toBe("FETCH_FAILED");
    const after = (await s.call("GET", `/v1/ai/brand-voice/${before.id}`, { headers: u.headers })).body.data;
    expect(after).toMatchObject({ name: "Keep me", url: `${site.origin}/about` });
    expect(after.content).toContain("small businesses");
  });

  test("a file voice: the new file is fetched by its kind; an unsupported extension is a 400", async () => {
    const u = await s.user();
    const id = (await create(u, "file", { file: `${site.origin}/voice.md` })).body.data.id;
    const bad = await s.call("PUT", `/v1/ai/brand-voice/${id}`, { headers: u.headers, body: { url: `${site.origin}/voice.pdf`, content: "x" } });
    expect(bad.status).toBe(400);
    expect(bad.body.errCode).toBe("UNSUPPORTED_FILE_TYPE");
    const r = await s.call("PUT", `/v1/ai/brand-voice/${id}`, { headers: u.headers, body: { url: `${site.origin}/voice.json` } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ type: "file", url: `${site.origin}/voice.json`, content: "Confident, never smug." });
  });

  test("a website voice's new url must be https", async () => {
    const u = await s.user();
    const id = (await create(u, "website", { websiteurl: `${site.origin}/about` })).body.data.id;
    const r = await s.call("PUT", `/v1/ai/brand-voice/${id}`, { headers: u.headers, body: { url: "http://example.com/" } });
    expect(r.status).toBe(400);
    expect(r.body.errCode).toBe("INVALID_URL");
  });
});

describe("chat-route aliases (SPEC 4.6)", () => {
  test("POST /v1/ai/chat/brand-voice creates from a website; PUT and DELETE /brandVoices/:id manage it", async () => {
    const u = await s.user();
    const c = await s.call("POST", "/v1/ai/chat/brand-voice", { headers: u.headers, body: { websiteurl: `${site.origin}/about`, scope: "personal" } });
    expect(c.status).toBe(201);
    expect(c.body.data).toMatchObject({ type: "website", scope: "personal" });
    const id = c.body.data.id;
    const p = await s.call("PUT", `/v1/ai/chat/brandVoices/${id}`, { headers: u.headers, body: { name: "Renamed", fetchInterval: "weekly" } });
    expect(p.status).toBe(200);
    expect(p.body.data).toMatchObject({ name: "Renamed", fetchInterval: "weekly", nextFetchAt: new Date(clock.now() + 7 * DAY).toISOString() });
    const d = await s.call("DELETE", `/v1/ai/chat/brandVoices/${id}`, { headers: u.headers });
    expect(d.status).toBe(200);
    expect((await s.call("GET", `/v1/ai/brand-voice/${id}`, { headers: u.headers })).status).toBe(404);
  });
});

describe("refresh schedule (injected clock)", () => {
  const voice = async (u: TestUser, id: string) => (await s.call("GET", `/v1/ai/brand-voice/${id}`, { headers: u.headers })).body.data;
  const finished = (jobId: string, ws: string) => {
    const state = s.ctx.jobs.get(jobId, ws)?.state;
    return state === "completed" || state === "failed";
  };

  test("a daily voice is re-fetched once a day; a failure keeps the content and records the error; a later success clears it", async () => {
    const u = await s.user();
    aboutText = "Version one of our voice, plain and warm.";
    const id = (await create(u, "website", { websiteurl: `${site.origin}/about`, fetchInterval: "daily" })).body.data.id;
    const once = (await create(u, "website", { websiteurl: `${site.origin}/about` })).body.data.id;
    expect((await voice(u, id)).nextFetchAt).toBe(new Date(clock.now() + DAY).toISOString());

    aboutText = "Version two of our voice, bolder.";
    clock.advance(DAY - 60_000);
    expect(enqueueDueRefreshes(s.ctx)).toEqual([]); // not due yet

    clock.advance(60_000);
    const [jobId, ...more] = enqueueDueRefreshes(s.ctx);
    expect(more).toEqual([]); // the `once` voice is never scheduled
    expect(enqueueDueRefreshes(s.ctx)).toEqual([]); // claimed: a second tick does not queue it again
    await waitFor("refresh job", () => finished(jobId, u.workspaceId));
    expect(s.ctx.jobs.get(jobId, u.workspaceId)!.state).toBe("completed");
    let v = await voice(u, id);
    expect(v.content).toContain("Version two");
    expect(v.lastFetchedAt).toBe(new Date(clock.now()).toISOString());
    expect(v.nextFetchAt).toBe(new Date(clock.now() + DAY).toISOString());
    expect((await voice(u, once)).content).toContain("Version one");

    site.route("/about", () => new Response("down", { status: 503, headers: { "content-type": "text/html" } }));
    clock.advance(DAY);
    const [failedJob] = enqueueDueRefreshes(s.ctx);
    await waitFor("failing refresh job", () => finished(failedJob, u.workspaceId));
    const job = s.ctx.jobs.get(failedJob, u.workspaceId)!;
    expect(job.state).toBe("failed");
    expect(job.failedReason).toContain("503");
    v = await voice(u, id);
    expect(v.content).toContain("Version two");
    expect(v.lastFetchError).toContain("503");

    site.route("/about", () => page("Version three."));
    clock.advance(DAY);
    const [okJob] = enqueueDueRefreshes(s.ctx);
    await waitFor("recovered refresh job", () => finished(okJob, u.workspaceId));
    v = await voice(u, id);
    expect(v.content).toContain("Version three.");
    expect(v.lastFetchError).toBeNull();

    // a deleted voice leaves the schedule
    await s.call("DELETE", `/v1/ai/brand-voice/${id}`, { headers: u.headers });
    clock.advance(DAY);
    expect(enqueueDueRefreshes(s.ctx)).toEqual([]);
    site.route("/about", () => page(aboutText));
  });
});

test("the croner tick queues due voices by itself (a per-second schedule stands in for the minute)", async () => {
  // no worker here: its own minute tick is off, so whatever gets queued came from this tick
  const idle = await startTestServer({ AIVIS_WORKER: "false" }, { clock });
  const tick = startRefreshTick(idle.ctx, "* * * * * *");
  try {
    const u = await idle.user();
    const id = (await idle.call("POST", "/v1/ai/generate/brand-voice/website", { headers: u.headers, body: { websiteurl: `${site.origin}/about`, fetchInterval: "weekly" } })).body.data.id;
    const queued = () =>
      idle.ctx.db
        .query<{ data: string }, { name: string; ws: string }>("SELECT data FROM jobs WHERE name = $name AND workspace_id = $ws")
        .all({ name: BRAND_VOICE_REFRESH_JOB, ws: u.workspaceId });
    await Bun.sleep(1500); // ticks happen; nothing is due yet
    expect(queued()).toEqual([]);
    clock.advance(7 * DAY);
    await waitFor("a tick to queue the refresh", () => queued().length > 0);
    expect(queued().map((j) => JSON.parse(j.data))).toEqual([{ voiceId: id }]);
  } finally {
    tick.stop();
    await idle.close();
  }
});
