// The tracking script in a real browser: headless Chromium (Debian's /usr/bin/chromium through
// playwright-core) loads a page from another origin with the snippet, arrives from ChatGPT,
// navigates inside the SPA, scrolls, goes back, leaves — and the stats show all of it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Server } from "bun";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../../support/chromium";
import { startTestServer, type TestServer, type TestUser } from "../../support/server";
import { BROWSER_UA, createSite } from "./support";

let s: TestServer;
let u: TestUser;
let site: { id: string; siteKey: string };
let pages: Server<unknown>;
let browser: Browser;
const aivisRequests: { method: string; path: string }[] = [];

beforeAll(async () => {
  s = await startTestServer(
    { AIVIS_LOG_REQUESTS: "true" },
    {
      log: (_level, msg, fields) => {
        if (msg === "request") aivisRequests.push({ method: String(fields?.method), path: String(fields?.path) });
      },
    },
  );
  u = await s.user();
  site = await createSite(s, u, "spa.example");
  // the customer's site: a different origin (another port) serving one SPA shell for every path
  const snippet = `<script defer src="${s.url}/v1/ai-traffic/t.js" data-site="${site.siteKey}" data-allow-local></script>`;
  pages = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () =>
      new Response(`<!doctype html><html><head><title>Landing</title>${snippet}</head><body><main style="height:5000px">AI answers sent you here</main></body></html>`, {
        headers: { "content-type": "text/html" },
      }),
  });
  // a real browser's user agent: HeadlessChrome is (rightly) dropped as a bot. Set on the browser,
  // not only the context, because keepalive requests sent while a page unloads leave with the
  // browser-wide user agent.
  // shop.example resolves to loopback, so a page can sit on a host that is not "local"
  browser = await launchChromium([`--user-agent=${BROWSER_UA}`, "--host-resolver-rules=MAP shop.example 127.0.0.1"]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  pages?.stop(true);
  await s?.close();
});

type Row = { id: number; path: string; source: string; engaged_ms: number; scroll_depth: number; visit_id: number };
const rows = () =>
  s.ctx.db.query<Row, { site: string }>("SELECT id, path, source, engaged_ms, scroll_depth, visit_id FROM traffic_pageviews WHERE site_id = $site ORDER BY id").all({ site: site.id });

const beaconResponse = (page: Page, kind: "pageview" | "engagement") =>
  page.waitForResponse((r) => {
    if (!r.url().endsWith("/v1/ai-traffic/collect") || r.request().method() !== "POST") return false;
    const body = JSON.parse(r.request().postData() ?? "{}");
    return (kind === "engagement") === ("sessionDurationMs" in body);
  });

async function until<T>(read: () => T, ok: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = read();
    if (ok(v)) return v;
    await Bun.sleep(100);
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(read())}`);
}

test("page views, SPA navigation, scroll and leave are tracked and show in the stats", async () => {
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));

  // 1. arrive from a ChatGPT link
  const firstView = beaconResponse(page, "pageview");
  await page.goto(`http://127.0.0.1:${pages.port}/landing?utm_source=chatgpt.com`);
  expect((await firstView).status()).toBe(202);
  const firstBody = JSON.parse((await firstView).request().postData()!);
  expect(firstBody).toMatchObject({ siteKey: site.siteKey, path: "/landing", utmSource: "chatgpt.com", title: "Landing", userAgent: BROWSER_UA });
  expect(firstBody.sessionId).toMatch(/^[a-z0-9]+$/);
  expect((await firstView).request().headers()["content-type"]).toContain("text/plain");
  await page.bringToFront();
  await page.waitForTimeout(1200);

  // 2. SPA navigation: the engagement of /landing goes first, then the new page view
  const leaving = beaconResponse(page, "engagement");
  const secondView = beaconResponse(page, "pageview");
  await page.evaluate(() => history.pushState({}, "", "/pricing"));
  expect((await leaving).status()).toBe(202);
  expect((await secondView).status()).toBe(202);
  expect(JSON.parse((await secondView).request().postData()!).path).toBe("/pricing");

  // 3. replaceState on the same path is not a page view
  await page.evaluate(() => history.replaceState({}, "", "/pricing?tab=2"));

  // 4. scroll to the bottom, stay a little, then go back (popstate → /landing)
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await page.waitForTimeout(700);
  const pricingEngagement = beaconResponse(page, "engagement");
  const thirdView = beaconResponse(page, "pageview");
  await page.goBack();
  expect(JSON.parse((await pricingEngagement).request().postData()!)).toMatchObject({ path: "/pricing", scrollDepth: 100 });
  expect(JSON.parse((await thirdView).request().postData()!).path).toBe("/landing");
  await page.waitForTimeout(500);

  // 5. leave: pagehide sends the last engagement with keepalive
  await page.goto("about:blank");
  const stored = await until(rows, (r) => r.length === 3 && r[2].engaged_ms > 0, "the last engagement update");
  await context.close();

  expect(errors).toEqual([]);
  expect(stored.map((r) => [r.path, r.source])).toEqual([
    ["/landing", "ChatGPT"],
    ["/pricing", "ChatGPT"],
    ["/landing", "ChatGPT"],
  ]);
  expect(new Set(stored.map((r) => r.visit_id)).size).toBe(1);
  expect(stored[0].engaged_ms).toBeGreaterThanOrEqual(1000);
  expect(stored[1].engaged_ms).toBeGreaterThanOrEqual(500);
  expect(stored[1].scroll_depth).toBe(100);
  expect(stored[0].scroll_depth).toBeGreaterThan(0);
  expect(stored[0].scroll_depth).toBeLessThan(100);

  // text/plain beacons are "simple" requests: the browser never sent a CORS preflight
  expect(aivisRequests.filter((r) => r.method === "OPTIONS")).toEqual([]);
  expect(aivisRequests.filter((r) => r.method === "POST" && r.path === "/v1/ai-traffic/collect").length).toBeGreaterThanOrEqual(6);

  const stats = await s.call("GET", `/v1/ai-traffic/stats?siteKey=${site.siteKey}&days=1`, { headers: u.headers });
  expect(stats.status).toBe(200);
  expect(stats.body.totals).toMatchObject({ pageViews: 3, visits: 1, visitors: 1, aiPageViews: 3, aiVisits: 1, aiShare: 1 });
  expect(stats.body.aiSources).toHaveLength(1);
  expect(stats.body.aiSources[0]).toMatchObject({ source: "ChatGPT", visits: 1, pageViews: 3 });
  expect(stats.body.topAiLandingPages).toEqual([{ path: "/landing", visits: 1, sources: { ChatGPT: 1 } }]);
  const engaged = stored.reduce((n, r) => n + r.engaged_ms, 0);
  expect(stats.body.engagement.ai.avgEngagedMs).toBe(engaged);
  expect(engaged).toBeGreaterThanOrEqual(1500);
  const scrolls = stored.map((r) => r.scroll_depth).filter((d) => d > 0);
  expect(stats.body.engagement.ai.avgScrollDepth).toBe(Math.round(scrolls.reduce((a, b) => a + b, 0) / scrolls.length));
}, 60_000);

/** A page with the snippet but without data-allow-local: what a customer's page looks like. */
function serveWithoutOptIn() {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () =>
      new Response(`<!doctype html><title>x</title><script defer src="${s.url}/v1/ai-traffic/t.js" data-site="${site.siteKey}"></script>`, {
        headers: { "content-type": "text/html" },
      }),
  });
}

test("without the opt-in attribute the script stays silent on localhost and under automation", async () => {
  const quiet = serveWithoutOptIn();
  const context = await browser.newContext();
  const page = await context.newPage();
  const beacons: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/collect")) beacons.push(r.url());
  });
  const script = page.waitForResponse((r) => r.url().endsWith("/t.js"));
  await page.goto(`http://127.0.0.1:${quiet.port}/`);
  expect((await script).status()).toBe(200);
  await page.evaluate(() => history.pushState({}, "", "/next"));
  await page.goto("about:blank");
  await context.close();
  quiet.stop(true);
  expect(beacons).toEqual([]);
}, 60_000);

test("engaged time counts only while visible and focused; blur and hide send it only when it grew; a bfcache restore is a new page view", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const engagements: number[] = [];
  page.on("request", (r) => {
    const body = r.url().endsWith("/v1/ai-traffic/collect") ? JSON.parse(r.postData() ?? "{}") : {};
    if ("sessionDurationMs" in body) engagements.push(body.sessionDurationMs);
  });
  // the page's clock only moves when the test moves it, so engaged time is exact
  await page.clock.install({ time: Date.UTC(2026, 0, 1) });
  await page.clock.pauseAt(Date.UTC(2026, 0, 1, 0, 0, 1));
  const firstView = beaconResponse(page, "pageview");
  await page.goto(`http://127.0.0.1:${pages.port}/focus-test`);
  const sessionId = JSON.parse((await firstView).request().postData()!).sessionId;
  await page.bringToFront();

  // 2 s visible and focused, then the window loses focus: 2000 ms are sent
  await page.clock.fastForward(2000);
  let sent = beaconResponse(page, "engagement");
  await page.evaluate(() => {
    document.hasFocus = () => false;
    window.dispatchEvent(new Event("blur"));
  });
  expect(JSON.parse((await sent).request().postData()!)).toMatchObject({ path: "/focus-test", sessionDurationMs: 2000 });

  // 5 s without focus count for nothing: another blur has nothing new to send
  await page.clock.fastForward(5000);
  await page.evaluate(() => window.dispatchEvent(new Event("blur")));

  // focus again for 1 s, then the tab is hidden: 2000 + 1000
  await page.evaluate(() => {
    delete (document as { hasFocus?: unknown }).hasFocus; // back to the real (focused) one
    window.dispatchEvent(new Event("focus"));
  });
  await page.clock.fastForward(1000);
  sent = beaconResponse(page, "engagement");
  await page.evaluate(() => {
    Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
    document.dispatchEvent(new Event("visibilitychange"));
  });
  expect(JSON.parse((await sent).request().postData()!).sessionDurationMs).toBe(3000);

  // back from the back/forward cache: the same path is viewed again
  const restored = beaconResponse(page, "pageview");
  await page.evaluate(() => {
    Object.defineProperty(document, "visibilityState", { value: "visible", configurable: true });
    window.dispatchEvent(new PageTransitionEvent("pageshow", { persisted: true }));
  });
  expect(JSON.parse((await restored).request().postData()!)).toMatchObject({ path: "/focus-test", sessionId });
  await context.close();

  expect(errors).toEqual([]);
  expect(engagements).toEqual([2000, 3000]);
  const views = rows().filter((r) => r.path === "/focus-test");
  expect(views.map((r) => r.engaged_ms)).toEqual([3000, 0]);
}, 60_000);

test("navigator.webdriver alone silences the script on a real host name; without it the same page is tracked", async () => {
  const quiet = serveWithoutOptIn();
  const visit = async (webdriver: boolean) => {
    const context = await browser.newContext();
    if (!webdriver) await context.addInitScript(() => Object.defineProperty(Navigator.prototype, "webdriver", { get: () => false }));
    const page = await context.newPage();
    const beacons: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/collect")) beacons.push(r.url());
    });
    const script = page.waitForResponse((r) => r.url().endsWith("/t.js"));
    await page.goto(`http://shop.example:${quiet.port}/webdriver-${webdriver}`);
    await script;
    if (!webdriver) await until(() => beacons.length, (n) => n > 0, "the page view beacon");
    await page.evaluate(() => history.pushState({}, "", "/next"));
    await page.goto("about:blank");
    await context.close();
    return beacons.length;
  };
  try {
    expect(await visit(true)).toBe(0);
    expect(await visit(false)).toBeGreaterThanOrEqual(2);
  } finally {
    quiet.stop(true);
  }
}, 60_000);
