// The dashboard in real headless Chromium against a real server (fake AI providers on loopback):
// sign in through the form, the overview, the API key page (generate → shown once → copy → works
// → revoke), AI traffic (add a site, snippet, beacon data, days selector), visibility (empty
// state, first report and a refresh with live job progress, history chart), phone width, sign
// out. A screenshot of each page lands in test/artifacts/dashboard-*.png.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { reserveUsage } from "../../../src/ai/credits";
import { planOf } from "../../../src/modules/users/plans";
import { type FakeProviders, startFakeProviders } from "../../support/fake-providers";
import { startTestServer, type TestServer, type TestUser } from "../../support/server";
import { launchChromium, screenshot, watchErrors } from "./browser";

// bun's default is 5 s per test (bunfig's [test] timeout is not read); browser steps on a busy 2-core machine need more
setDefaultTimeout(60_000);

const DAY = 86_400_000;
const CHROME_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";

/** real time plus an offset the test moves while nothing time-sensitive is running */
let offset = 0;
const clock = { now: () => Date.now() + offset };

let fake: FakeProviders;
let s: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: TestUser;
let errors: string[];
/** every request the page made to anywhere but this server (the dashboard must work offline) */
const offsite: string[] = [];

beforeAll(async () => {
  fake = await startFakeProviders();
  // each family answers differently, so the report has a score spread and a competitor ahead
  fake.answer = (family, _model, _system, prompt) =>
    family === "openai"
      ? `For "${prompt}": Acme (acme.test) is a solid pick, Globex is fine too. Details: https://acme.test/pricing`
      : family === "anthropic"
        ? "Globex leads this market, followed by Initech."
        : "Try Globex first, then Acme or Initech.";
  s = await startTestServer({ ...fake.env, AIVIS_TRUST_PROXY: "true" }, { clock });
  user = await s.user("business");
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-US", timezoneId: "UTC" });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: s.url });
  page = await context.newPage();
  errors = watchErrors(page);
  page.on("request", (r) => {
    if (!r.url().startsWith(`${s.url}/`) && !r.url().startsWith("data:")) offsite.push(r.url());
  });
});

afterAll(async () => {
  await browser?.close();
  await s?.close();
  await fake?.stop();
});

const heading = (name: string) => page.getByRole("heading", { level: 1, name });
const navLink = (name: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name });
const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

describe("dashboard in Chromium", () => {
  test("signed out, / lands on the sign-in page with the CLI hint", async () => {
    await page.goto(`${s.url}/`);
    await heading("Sign in to aivis").waitFor();
    expect(new URL(page.url()).pathname).toBe("/app/login");
    expect(await page.getByText("aivis user add you@example.com --plan business").isVisible()).toBe(true);
    expect(await page.locator("#nav").isHidden()).toBe(true);
    await screenshot(page, "sign-in");
  });

  test("a wrong password shows the error and stays on the form", async () => {
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toBe("Email or password is wrong.");
    expect(new URL(page.url()).pathname).toBe("/app/login");
  });

  test("signing in through the form shows the overview with plan and credits", async () => {
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await heading("Overview").waitFor();
    expect(new URL(page.url()).pathname).toBe("/app");
    expect(await page.locator("#plan").getByText("Business", { exact: true }).isVisible()).toBe(true);
    expect(await page.locator("#credits .big").textContent()).toBe("0 of 500 used");
    expect(await page.locator("#account-email").textContent()).toBe(user.email);
    expect(await page.locator('#nav a[aria-current="page"]').textContent()).toBe("Overview");
    // the session cookie is HttpOnly: scripts on the page cannot read it
    expect(await page.evaluate(() => document.cookie)).not.toContain("aivis_session");
  });

  test("credits used this month show up on the overview", async () => {
    // spend 3 credits through the real usage counter, as a text generation would
    reserveUsage(s.ctx.db, user.workspaceId, planOf("business"), "ai_credits", 3, clock.now());
    await page.reload();
    await heading("Overview").waitFor();
    expect(await page.locator("#credits .big").textContent()).toBe("3 of 500 used");
    const period = new Date(clock.now()).toLocaleString("en-US", { month: "long", year: "numeric", timeZone: "UTC" });
    expect(await page.locator("#credits .muted").textContent()).toStartWith(`497 credits left · ${period} · resets `);
    expect(await page.locator("#credits progress").getAttribute("value")).toBe("1");
    await screenshot(page, "overview");
  });

  test("API key: generate shows the secret once, copy works, the key authenticates", async () => {
    await navLink("API key").click();
    await heading("API key").waitFor();
    expect(new URL(page.url()).pathname).toBe("/app/api-key");
    // the user already has a key: metadata only, never the secret
    expect(await page.locator("#key-meta").textContent()).toContain(user.apiKey.slice(0, 12));
    expect(await page.content()).not.toContain(user.apiKey);

    await page.getByLabel("Key name").fill("dashboard key");
    await page.getByRole("button", { name: "Rotate key" }).click();
    const secretField = page.getByRole("textbox", { name: "New API key" });
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^aivis_[A-Za-z0-9_-]{20,}$/);
    await expect(page.locator("#key-meta").textContent()).resolves.toContain("dashboard key");
    await screenshot(page, "api-key");

    await page.getByRole("button", { name: "Copy key" }).click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    expect(await clipboard()).toBe(secret);

    // the new key works, the old one no longer does
    expect((await s.call("GET", "/v1/users/me", { headers: { "api-key": secret } })).status).toBe(200);
    expect((await s.call("GET", "/v1/users/me", { headers: user.headers })).status).toBe(401);
    user.headers = { "api-key": secret };

    // shown once: after a reload the page has only the metadata
    await page.reload();
    await heading("API key").waitFor();
    expect(await page.getByRole("textbox", { name: "New API key" }).count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
  });

  test("API key: revoke asks first, then the key stops working", async () => {
    await page.getByRole("button", { name: "Revoke key" }).click();
    await page.getByRole("button", { name: "Cancel" }).click();
    expect(await page.locator("#key-meta").isVisible()).toBe(true);

    await page.getByRole("button", { name: "Revoke key" }).click();
    await page.getByRole("button", { name: "Yes, revoke it" }).click();
    await page.locator("#no-key").waitFor();
    expect((await s.call("GET", "/v1/users/me", { headers: user.headers })).status).toBe(401);

    await page.getByRole("button", { name: "Generate key" }).click();
    const secret = await page.getByRole("textbox", { name: "New API key" }).inputValue();
    expect((await s.call("GET", "/v1/users/me", { headers: { "api-key": secret } })).status).toBe(200);
    user.headers = { "api-key": secret };
  });

  let siteKey = "";

  test("AI traffic: with no website known yet, the page asks for a domain; adding one shows its snippet", async () => {
    await navLink("AI traffic").click();
    await heading("AI traffic").waitFor();
    expect(await page.getByText("No site yet.").isVisible()).toBe(true);
    await page.getByLabel("Domain").fill("https://www.Shop.example.com/landing");
    await page.getByLabel("Name (optional)").fill("Shop");
    await page.getByRole("button", { name: "Add site" }).click();
    const item = page.locator("#sites li.site");
    await item.waitFor();

    const { body } = await s.call("GET", "/v1/ai-traffic/sites", { headers: user.headers });
    expect(body.sites).toHaveLength(1);
    const site = body.sites[0];
    expect(site.domain).toBe("shop.example.com");
    siteKey = site.siteKey;
    expect(await item.locator("pre").textContent()).toBe(site.snippet);
    expect(site.snippet).toContain(`data-site="${siteKey}"`);

    await item.getByRole("button", { name: "Copy snippet" }).click();
    await item.getByRole("button", { name: "Copied" }).waitFor();
    expect(await clipboard()).toBe(site.snippet);
    expect(await page.locator(".chart-empty").textContent()).toContain("No visits in this period yet");
  });

  test("AI traffic: beacon data shows as AI share, stacked daily chart, sources and landing pages; days selector", async () => {
    // 12 days of visits through the real public beacon, one visitor address per visit
    const referrers = ["https://chatgpt.com/", "https://www.perplexity.ai/", "https://www.google.com/", "", "https://chatgpt.com/", "https://claude.ai/"];
    const paths = ["/", "/pricing", "/blog/ai-visibility"];
    const start = offset;
    for (let d = 11; d >= 0; d--) {
      offset = start - d * DAY;
      for (let i = 0; i < 2 + (d % 3); i++) {
        const r = await s.call("POST", "/v1/ai-traffic/collect", {
          body: { siteKey, path: paths[(i + d) % paths.length], referrer: referrers[(i + d) % referrers.length], userAgent: CHROME_UA },
          headers: { "user-agent": CHROME_UA, "x-forwarded-for": `198.51.100.${d * 10 + i}` },
        });
        expect(r.status).toBe(202);
        expect(r.headers.get("x-aivis-dropped")).toBeNull();
      }
    }
    offset = start;
    const api30 = (await s.call("GET", `/v1/ai-traffic/stats?siteKey=${siteKey}&days=30`, { headers: user.headers })).body;
    expect(api30.totals.aiVisits).toBeGreaterThan(0);
    expect(api30.totals.aiVisits).toBeLessThan(api30.totals.visits);

    await page.reload();
    await page.getByRole("heading", { name: "Shop: last 30 days" }).waitFor();
    expect(new URL(page.url()).search).toBe(`?site=${siteKey}&days=30`);
    expect(await page.locator("#ai-visits .big").textContent()).toBe(String(api30.totals.aiVisits));
    expect(await page.locator("#all-visits .big").textContent()).toBe(String(api30.totals.visits));
    expect(await page.locator("#ai-share .big").textContent()).toBe(`${Math.round(api30.totals.aiShare * 1000) / 10}%`);
    const sources = await page.locator("#ai-sources tbody th").allTextContents();
    expect(sources).toEqual(api30.aiSources.map((x: { source: string }) => x.source));
    expect(sources).toContain("ChatGPT");
    const pages = await page.locator("#landing-pages tbody th").allTextContents();
    expect(pages).toEqual(api30.topAiLandingPages.map((x: { path: string }) => x.path));
    await page.locator("#traffic-chart canvas").first().waitFor();
    // the chart's data table: one row per day, AI and other visits adding up to the day's visits
    const rows = await page.locator("#traffic-chart details tbody tr").count();
    expect(rows).toBe(30);
    await screenshot(page, "traffic");

    await page.getByText("7 days", { exact: true }).click();
    await page.getByRole("heading", { name: "Shop: last 7 days" }).waitFor();
    expect(new URL(page.url()).search).toBe(`?site=${siteKey}&days=7`);
    const api7 = (await s.call("GET", `/v1/ai-traffic/stats?siteKey=${siteKey}&days=7`, { headers: user.headers })).body;
    expect(await page.locator("#ai-visits .big").textContent()).toBe(String(api7.totals.aiVisits));
    expect(api7.totals.visits).toBeLessThan(api30.totals.visits);
    expect(await page.locator("#traffic-chart details tbody tr").count()).toBe(7);
    expect(await page.locator('#days input[value="7"]').isChecked()).toBe(true);

    // one stacked layer per AI source (the 7-day window's sources), then the non-AI layer, which can be hidden
    const sources7 = api7.aiSources.map((x: { source: string }) => x.source);
    expect(sources7.length).toBeGreaterThan(0);
    expect(await page.locator("#traffic-chart details thead th").allTextContents()).toEqual(["Day", ...sources7, "Other visits"]);
    await page.getByLabel("Include non-AI visits").uncheck();
    expect(await page.locator("#traffic-chart details thead th").allTextContents()).toEqual(["Day", ...sources7]);
  });

  test("visibility: no report yet shows a friendly empty state with a first-report form", async () => {
    expect((await s.call("GET", "/v1/ai/generate/seo-site-report", { headers: user.headers })).body.isEmpty).toBe(true);
    await navLink("Visibility").click();
    await heading("Visibility").waitFor();
    await page.getByRole("heading", { name: "No report yet" }).waitFor();
    expect(await page.getByLabel("Website (https://)").isVisible()).toBe(true);
    expect(await page.getByText("up to 25 on your plan").isVisible()).toBe(true);
    await screenshot(page, "visibility-empty");
  });

  test("visibility: running the first report shows progress, then the report without a reload", async () => {
    fake.delayMs = 200; // long enough to see the job in progress
    await page.getByLabel("Website (https://)").fill("https://acme.test");
    await page.getByLabel(/^Competitors/).fill("globex.test\nInitech");
    await page.getByLabel(/^Prompts/).fill("best widget maker\ncheap widgets online\nwidget reviews");
    // a marker that survives only if the page is not reloaded
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    await page.getByRole("button", { name: "Run the report" }).click();
    await page.locator("#report-job progress").waitFor();
    await screenshot(page, "visibility-progress");

    await page.locator("#score").waitFor({ timeout: 60_000 });
    expect(await page.evaluate(() => (window as unknown as { marker: number }).marker)).toBe(42);
    fake.delayMs = 0;
    const report = (await s.call("GET", "/v1/ai/generate/seo-site-report", { headers: user.headers })).body;
    expect(report.isEmpty).toBe(false);
    expect(await page.locator("#score .score").textContent()).toBe(`${Math.round(report.scores.aiVisibility.score)} / 100`);
    expect(await page.locator("#report-job").textContent()).toBe("Report ready.");

    const providerRows = await page.locator("#providers tbody tr").allTextContents();
    expect(providerRows).toHaveLength(3);
    expect(providerRows[0]).toContain("ChatGPT (OpenAI)");
    expect(providerRows[1]).toContain("Claude (Anthropic)");
    const claude = report.scores.aiVisibility.providers.anthropic;
    expect(await page.locator("#providers tbody tr").nth(1).locator("td.num").first().textContent()).toBe(String(Math.round(claude.score)));

    const brands = await page.locator("#comparison tbody th").allTextContents();
    expect(brands).toHaveLength(report.report.comparison.length);
    expect(brands.some((b) => b.includes("you"))).toBe(true);
    expect(brands.some((b) => b.startsWith("Initech"))).toBe(true);

    const recs = page.locator("#recommendations li");
    expect(await recs.count()).toBe(report.recommendations.length);
    expect(await recs.first().textContent()).toContain(`${report.recommendations[0].difficulty} to do`);
    expect(await page.locator("#history .chart-empty").isVisible()).toBe(true);
  });

  test("visibility: refresh a day later runs a job, updates in place and draws the history", async () => {
    offset += DAY; // a day later, so the history has two distinct points
    await page.reload();
    await page.locator("#score").waitFor();
    expect(await page.locator("#refresh-allowance").textContent()).toBe("10 of 10 refreshes left in the last 24 hours.");
    await page.getByRole("button", { name: "Refresh report" }).click();
    await page.getByText("Refreshed 1 time so far.", { exact: false }).waitFor({ timeout: 60_000 });
    expect(await page.locator("#refresh-allowance").textContent()).toBe("9 of 10 refreshes left in the last 24 hours. Refreshed 1 time so far.");
    await page.locator("#history-chart canvas").first().waitFor();
    const history = (await s.call("GET", "/v1/ai/generate/seo-site-report/history", { headers: user.headers })).body;
    expect(history.points).toHaveLength(2);
    expect(await page.locator("#history details tbody tr").count()).toBe(2);
    await screenshot(page, "visibility");
  });

  /** Makes the fake providers hold every answer until the returned function is called. */
  function holdAnswers(): () => void {
    const answer = fake.answer;
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    fake.answer = async (family, model, system, prompt, call) => {
      await held;
      return answer(family, model, system, prompt, call);
    };
    return () => {
      release();
      fake.answer = answer;
    };
  }

  test("visibility: a report started elsewhere (the API) shows its progress here and lands without a reload", async () => {
    // the providers hold their answers until the page has shown the running job
    const release = holdAnswers();
    try {
      const queued = await s.call("POST", "/v1/ai/generate/seo-site-report", { body: { refresh: true }, headers: user.headers });
      expect(queued.status).toBe(202);
      await navLink("Overview").click();
      await heading("Overview").waitFor();
      await page.evaluate(() => ((window as unknown as { marker: number }).marker = 43));
      await navLink("Visibility").click();
      await page.getByText(/^Asking the AI models… \d+%$/).waitFor();
      expect(await page.locator("#report-job progress").isVisible()).toBe(true);
      expect(await page.getByRole("button", { name: "Refresh report" }).isDisabled()).toBe(true);
    } finally {
      release();
    }
    await page.getByText("Refreshed 2 times so far.", { exact: false }).waitFor({ timeout: 60_000 });
    expect(await page.evaluate(() => (window as unknown as { marker: number }).marker)).toBe(43);
    expect(await page.locator("#report-job").textContent()).toBe("Report ready.");
    expect(await page.locator("#history details tbody tr").count()).toBe(3);
  });

  test("visibility: a rate-limited job poll waits the retry-after and goes on polling", async () => {
    const release = holdAnswers();
    let polls = 0;
    try {
      const queued = await s.call("POST", "/v1/ai/generate/seo-site-report", { body: { refresh: true }, headers: user.headers });
      expect(queued.status).toBe(202);
      // the first poll of the job is refused with a 429, as the server's rate limit would
      await page.route(`**/v1/ai/generate/job/${queued.body.jobId}`, async (route) => {
        if (polls++ > 0) return route.fallback();
        await route.fulfill({
          status: 429,
          headers: { "content-type": "application/json", "retry-after": "1" },
          body: JSON.stringify({ message: "rate limit exceeded", errCode: "RATE_LIMITED" }),
        });
      });
      await page.reload();
      // progress can only come from a poll after the 429
      await page.getByText(/^Asking the AI models… \d+%$/).waitFor();
      expect(await page.locator("#report-job [role=alert]").count()).toBe(0);
    } finally {
      release();
    }
    await page.getByText("Refreshed 3 times so far.", { exact: false }).waitFor({ timeout: 60_000 });
    await page.unrouteAll();
    expect(polls).toBeGreaterThan(1);
    expect(await page.locator("#report-job").textContent()).toBe("Report ready.");
    // the browser logs the refused poll: this test's doing, not a page error
    const refused = errors.findIndex((e) => /status of 429/.test(e));
    expect(refused).toBeGreaterThanOrEqual(0);
    errors.splice(refused, 1);
  });

  test("phone width (375 px): every page fits without horizontal scrolling", async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    for (const [path, title, shot] of [
      ["/app", "Overview", "overview-phone"],
      ["/app/api-key", "API key", "api-key-phone"],
      ["/app/traffic", "AI traffic", "traffic-phone"],
      ["/app/visibility", "Visibility", "visibility-phone"],
    ] as const) {
      await page.goto(`${s.url}${path}`);
      await heading(title).waitFor();
      await page.locator("main .card").first().waitFor();
      if (path === "/app/traffic") await page.locator("#traffic-chart canvas").first().waitFor();
      if (path === "/app/visibility") {
        await page.locator("#history-chart canvas").first().waitFor();
        // the per-provider table fits without scrolling sideways in its card
        expect(await page.locator("#providers .table-wrap").evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
      }
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      // the navigation fits too: no link hidden behind a sideways scroll inside the bar
      expect(await page.evaluate(() => document.querySelector("#nav ul")!.scrollWidth - document.querySelector("#nav ul")!.clientWidth)).toBeLessThanOrEqual(0);
      // every control has an accessible name (a label, aria-label(ledby) or, for buttons, text)
      const unnamed = await page.evaluate(() =>
        Array.from(document.querySelectorAll<HTMLElement>("input, select, textarea, button"))
          .filter((el) => {
            const labels = (el as HTMLInputElement).labels;
            const named = (labels && labels.length > 0) || el.getAttribute("aria-label") || el.getAttribute("aria-labelledby");
            return !named && !(el.tagName === "BUTTON" && el.textContent!.trim());
          })
          .map((el) => el.outerHTML.slice(0, 100)),
      );
      expect(unnamed).toEqual([]);
      expect(await navLink("Visibility").isVisible()).toBe(true);
      await screenshot(page, shot);
    }
    await page.goto(`${s.url}/app/login`); // signed in: goes on to the overview
    await heading("Overview").waitFor();
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test("keyboard: skip link and navigation work without a mouse", async () => {
    await page.goto(`${s.url}/app`);
    await heading("Overview").waitFor();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
    await navLink("API key").focus();
    await page.keyboard.press("Enter");
    await heading("API key").waitFor();
    // after client-side navigation focus moves to the new page's heading
    expect(await page.evaluate(() => document.activeElement?.tagName + ":" + document.activeElement?.textContent)).toBe("H1:API key");
  });

  test("sign out ends the session; a deep link comes back after signing in", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await heading("Sign in to aivis").waitFor();
    expect((await page.context().cookies()).find((c) => c.name === "aivis_session")?.value ?? "").toBe("");
    await page.goto(`${s.url}/app/api-key`);
    await heading("Sign in to aivis").waitFor();
    expect(new URL(page.url()).search).toBe(`?next=${encodeURIComponent("/app/api-key")}`);
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await heading("API key").waitFor();
  });

  test("no script errors, no CSP violations and no request off this server along the way", () => {
    expect(errors).toEqual([]);
    expect(offsite).toEqual([]);
  });
});
