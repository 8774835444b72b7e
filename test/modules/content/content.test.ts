import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { usagePeriod, PLANS } from "../../../src/modules/users/plans";
import { fakePng, startFakeProviders, type FakeProviders } from "../../support/fake-providers";
import { waitFor } from "../../support/jobs";
import { startTestServer, type TestServer, type TestUser } from "../../support/server";

const good = await Bun.file(`${import.meta.dir}/fixtures/good-article.md`).text();
const stuffed = await Bun.file(`${import.meta.dir}/fixtures/stuffed-article.md`).text();
// the good article without its title and links: a weaker "before" for the improvement flows
const weaker = good.replace(/^# .*\n/, "").replace(/\[([^\]]+)\]\([^)]+\)/g, "$1");

let fake: FakeProviders;
let s: TestServer;
beforeAll(async () => {
  fake = await startFakeProviders();
  s = await startTestServer({ ...fake.env, AIVIS_AI_MAX_RETRIES: "0", AIVIS_DEFAULT_MODEL: "gpt-4o-mini" });
});
afterAll(async () => {
  await s.close();
  await fake.stop();
});
afterEach(() => fake.reset());

const post = (u: TestUser | Record<string, string>, path: string, body: unknown) =>
  s.call("POST", `/v1/ai/generate/${path}`, { headers: "headers" in u ? (u as TestUser).headers : (u as Record<string, string>), body });
const usage = async (u: TestUser) => (await s.call("GET", "/v1/users/me", { headers: u.headers })).body.usage;

async function finishedJob(u: TestUser, jobId: string) {
  let job: any;
  await waitFor(`job ${jobId}`, () => {
    job = s.ctx.jobs.get(jobId, u.workspaceId);
    return job?.state === "completed" || job?.state === "failed";
  });
  return (await s.call("GET", `/v1/ai/generate/job/${jobId}`, { headers: u.headers })).body;
}

describe("POST /calculate-seo-score", () => {
  test("scores markdown with sub-scores and suggestions; no AI call, no credit", async () => {
    const u = await s.user();
    const r = await post(u, "calculate-seo-score", { content: stuffed, keywords: ["cheap shoes"] });
    expect(r.status).toBe(200);
    expect(typeof r.body.message).toBe("string");
    expect(r.body.score).toBeLessThan(40);
    expect(Object.keys(r.body.metrics).sort()).toEqual(["contentLength", "headingStructure", "keywordDensity", "keywordPlacement", "links", "readability", "textStructure"]);
    expect(r.body.suggestions.some((x: any) => x.message.includes("keyword stuffing"))).toBe(true);
    const g = await post(u, "calculate-seo-score", { content: good, title: "Home composting guide" });
    expect(g.body.score).toBeGreaterThan(r.body.score);
    expect(g.body.keywordsSource).toBe("extracted");
    expect(fake.calls).toEqual([]);
    expect((await usage(u)).credits.used).toBe(0);
  });

  test("hostile Markdown is a 400, not a 500", async () => {
    const u = await s.user();
    for (const path of ["calculate-seo-score", "improve-content-simple", "process-blog-post-with-images"]) {
      const r = await post(u, path, { content: "1. ".repeat(33_000), improvePrompt: "x" });
      expect(r.status).toBe(400);
      expect(r.body.errCode).toBe("CONTENT_TOO_NESTED");
    }
    expect(fake.calls).toEqual([]);
  });

  test("bounds: missing content, too many keywords → 400", async () => {
    const u = await s.user();
    expect((await post(u, "calculate-seo-score", {})).status).toBe(400);
    const many = await post(u, "calculate-seo-score", { content: "x", keywords: Array.from({ length: 11 }, (_, i) => `k${i}`) });
    expect(many.status).toBe(400);
    expect(many.body.errCode).toBe("VALIDATION_FAILED");
  });
});

describe("POST /improve-content-simple", () => {
  test("one rewrite: improved content, before/after scores, metricType default, 1 credit", async () => {
    const u = await s.user();
    fake.answer = () => "```markdown\n" + good + "\n```";
    const r = await post(u, "improve-content-simple", { content: weaker, improvePrompt: "Add a title and cite sources", keywords: ["home composting"] });
    expect(r.status).toBe(200);
    expect(r.body.content).toBe(good.trim()); // code fence removed
    expect(r.body.metricType).toBe("general");
    expect(r.body.seoScore.after).toBeGreaterThan(r.body.seoScore.before);
    expect(r.body.seoScore.change).toBe(r.body.seoScore.after - r.body.seoScore.before);
    expect(r.body.before.score).toBe(r.body.seoScore.before);
    expect(r.body.after.keywords).toEqual(["home composting"]);
    expect(r.body.creditsUsed).toBe(1);
    expect((await usage(u)).credits.used).toBe(1);
    const [call] = fake.calls;
    expect(call.model).toBe("gpt-4o-mini");
    expect(call.user).toContain("Instructions: Add a title and cite sources");
    expect(call.user).toContain("Focus: general");
    expect(call.user).toContain("Why home composting is worth the effort");
    expect(call.system).toContain("SEO");
  });

  test("metricType and model are passed through", async () => {
    const u = await s.user();
    const r = await post(u, "improve-content-simple", { content: "Short text.", improvePrompt: "Expand", metricType: "readability", model: "claude-haiku-4-5" });
    expect(r.status).toBe(200);
    expect(r.body.metricType).toBe("readability");
    expect(fake.calls[0].family).toBe("anthropic");
    expect(fake.calls[0].user).toContain("Focus: readability");
  });

  test("a provider failure is an error and the credit is given back", async () => {
    const u = await s.user();
    fake.failNext("openai", 500, 3);
    const r = await post(u, "improve-content-simple", { content: "Short text.", improvePrompt: "Expand" });
    expect(r.status).toBeGreaterThanOrEqual(500);
    expect(typeof r.body.errCode).toBe("string");
    expect((await usage(u)).credits.used).toBe(0);
  });

  test("an unknown model → 400 UNKNOWN_MODEL before any credit", async () => {
    const u = await s.user();
    const r = await post(u, "improve-content-simple", { content: "x", improvePrompt: "y", model: "llama-nope" });
    expect(r.status).toBe(400);
    expect(r.body.errCode).toBe("UNKNOWN_MODEL");
    expect(fake.calls).toEqual([]);
  });
});

describe("POST /improve-content-with-validation", () => {
  // round 1 returns a middling draft, round 2 the good article
  const scripted = () => {
    let round = 0;
    fake.answer = () => (++round === 1 ? weaker.replace("## Common problems", "# Home composting guide\n\n## Common problems") : good);
  };

  test("the free plan is refused with 403 FEATURE_RESTRICTED", async () => {
    const u = await s.user("free");
    const cookie = await s.login(u);
    const r = await post(cookie, "improve-content-with-validation", { content: weaker });
    expect(r.status).toBe(403);
    expect(r.body.errCode).toBe("FEATURE_RESTRICTED");
    expect(fake.calls).toEqual([]);
  });

  test("iterates improve → score until the target, reporting every round; 1 credit per round", async () => {
    const u = await s.user();
    scripted();
    const r = await post(u, "improve-content-with-validation", { content: weaker, keywords: ["home composting"], targetScore: 95, maxIterations: 4 });
    expect(r.status).toBe(200);
    expect(r.body.iterations.length).toBe(2);
    expect(r.body.iterations.map((i: any) => i.iteration)).toEqual([1, 2]);
    expect(r.body.iterations[1].score).toBeGreaterThanOrEqual(95);
    expect(r.body.reachedTarget).toBe(true);
    expect(r.body.stoppedBecause).toBe("targetReached");
    expect(r.body.content).toBe(good.trim());
    expect(r.body.seoScore.before).toBeLessThan(r.body.seoScore.after);
    expect(r.body.creditsUsed).toBe(2);
    expect((await usage(u)).credits.used).toBe(2);
    // the second round is told what the scorer still wants
    expect(fake.calls[1].user).toContain("An SEO review scored the current version");
    expect(fake.calls[1].user).toMatch(/Fix these points:\n- /);
  });

  test("stops at the iteration cap; a worse rewrite is reported but not kept", async () => {
    const u = await s.user();
    fake.answer = () => stuffed;
    const r = await post(u, "improve-content-with-validation", { content: weaker, keywords: ["home composting"], targetScore: 100, maxIterations: 2 });
    expect(r.status).toBe(200);
    expect(r.body.iterations.map((i: any) => i.kept)).toEqual([false, false]);
    expect(r.body.content).toBe(weaker);
    expect(r.body.reachedTarget).toBe(false);
    expect(r.body.stoppedBecause).toBe("maxIterations");
    expect(r.body.seoScore.change).toBe(0);
  });

  test("content already at the target costs nothing", async () => {
    const u = await s.user();
    const r = await post(u, "improve-content-with-validation", { content: good, keywords: ["home composting"], targetScore: 50 });
    expect(r.body.iterations).toEqual([]);
    expect(r.body.creditsUsed).toBe(0);
    expect(fake.calls).toEqual([]);
  });

  test("useWorker queues a job (202) whose result has every round", async () => {
    const u = await s.user();
    scripted();
    const r = await post(u, "improve-content-with-validation", { content: weaker, keywords: ["home composting"], targetScore: 95, useWorker: true });
    expect(r.status).toBe(202);
    expect(typeof r.body.jobId).toBe("string");
    const job = await finishedJob(u, r.body.jobId);
    expect(job.state).toBe("completed");
    expect(job.name).toBe("improve_content_with_validation");
    expect(job.queue).toBe("contentQueue");
    expect(job.progress).toBeGreaterThan(0);
    expect(job.result.iterations.length).toBe(2);
    expect(job.result.reachedTarget).toBe(true);
    expect((await usage(u)).credits.used).toBe(2);
  });
});

describe("POST /process-blog-post-with-images", () => {
  test("queues a job that plans one image per chosen section, generates and places them, and counts image usage", async () => {
    const u = await s.user();
    const r = await post(u, "process-blog-post-with-images", { content: good, imageCount: 3, style: "Watercolour" });
    expect(r.status).toBe(202);
    const job = await finishedJob(u, r.body.jobId);
    expect(job.state).toBe("completed");
    const result = job.result;
    expect(result.imageCount).toBe(3);
    expect(result.failed).toEqual([]);
    expect(result.images.map((i: any) => i.section)).toEqual(["Why home composting is worth the effort", "Keeping the heap healthy", "Common problems and quick fixes"]);
    // linked by URL under the request's origin, each image in the post once; no base64 anywhere
    for (const image of result.images) {
      expect(image.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(image.url).toBe(`${s.url}/v1/ai/generate/images/${image.id}`);
      expect(result.content.split(`](${image.url})`).length).toBe(2);
    }
    expect(result.content).toContain(`## Why home composting is worth the effort\n\n![Why home composting is worth the effort](${result.images[0].url})\n\n`);
    const polled = JSON.stringify(job);
    expect(polled).not.toContain("base64");
    expect(polled.length).toBeLessThan(good.length * 2 + 5_000); // the post (twice: escaped in content) and a little metadata
    // the URL serves exactly what the provider made for that prompt
    for (const image of result.images) {
      const served = await fetch(image.url);
      expect(served.status).toBe(200);
      expect(served.headers.get("content-type")).toBe("image/png");
      const bytes = Buffer.from(await served.arrayBuffer());
      expect(bytes.equals(fakePng(image.prompt))).toBe(true);
      expect(image).toMatchObject({ mimeType: "image/png", bytes: bytes.length });
    }
    const images = fake.callsOf("openai").filter((c) => c.kind === "image");
    expect(images.length).toBe(3);
    expect(images[0].size).toBe("1792x1024");
    expect(images[0].user).toContain("Watercolour");
    expect(images[0].user).toContain("About a third of what we throw away");
    expect((await usage(u)).images.used).toBe(3);
    expect((await usage(u)).credits.used).toBe(0);
  });

  test("stability-ultra uses an aspect ratio; one failed image is reported and the others still placed", async () => {
    const u = await s.user();
    fake.failNext("stability", 400, 1);
    const r = await post(u, "process-blog-post-with-images", { content: good, imageCount: 2, imageModel: "stability-ultra" });
    const job = await finishedJob(u, r.body.jobId);
    expect(job.state).toBe("completed");
    expect(job.result.imageCount).toBe(1);
    expect(job.result.failed.length).toBe(1);
    expect(job.result.size).toBe("16:9");
    // only the image that was made is linked
    expect(job.result.content.match(/\/v1\/ai\/generate\/images\//g)?.length).toBe(1);
    expect((await fetch(job.result.images[0].url)).status).toBe(200);
    expect((await usage(u)).images.used).toBe(1); // the failed one is refunded
  });

  test("bad size → 400 INVALID_IMAGE_SIZE; nothing to illustrate → 400", async () => {
    const u = await s.user();
    const a = await post(u, "process-blog-post-with-images", { content: good, size: "640x480" });
    expect(a.status).toBe(400);
    expect(a.body.errCode).toBe("INVALID_IMAGE_SIZE");
    const b = await post(u, "process-blog-post-with-images", { content: "# Only a title" });
    expect(b.status).toBe(400);
    expect(b.body.errCode).toBe("NOTHING_TO_ILLUSTRATE");
  });

  test("an image allowance that cannot cover the plan → 403 IMAGE_LIMIT_REACHED at once", async () => {
    const u = await s.user();
    const period = usagePeriod(PLANS.business, s.ctx.clock.now());
    s.ctx.db
      .query("INSERT INTO usage_counters (workspace_id, period, kind, used) VALUES ($w, $p, 'images', $used)")
      .run({ w: u.workspaceId, p: period, used: PLANS.business.monthlyImages! - 2 });
    const r = await post(u, "process-blog-post-with-images", { content: good, imageCount: 3 });
    expect(r.status).toBe(403);
    expect(r.body.errCode).toBe("IMAGE_LIMIT_REACHED");
    expect((await usage(u)).images.used).toBe(PLANS.business.monthlyImages! - 2);
  });
});
