// The dashboard in real headless Chromium against a real server: sign in through the form, the
// overview, the API key page (generate → shown once → copy → works → rotate → revoke), the traffic
// and visibility pages, phone width, sign out. A screenshot of each page lands in test/artifacts/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { reserveUsage } from "../../../src/ai/credits";
import { planOf } from "../../../src/modules/users/plans";
import { startTestServer, type TestServer, type TestUser } from "../../support/server";
import { launchChromium, screenshot, watchErrors } from "./browser";

let s: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: TestUser;
let errors: string[];

beforeAll(async () => {
  s = await startTestServer();
  user = await s.user("business");
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-US", timezoneId: "UTC" });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: s.url });
  page = await context.newPage();
  errors = watchErrors(page);
});

afterAll(async () => {
  await browser?.close();
  await s?.close();
});

const heading = (name: string) => page.getByRole("heading", { level: 1, name });

describe("dashboard in Chromium", () => {
  test("signed out, / lands on the sign-in page with the CLI hint", async () => {
    await page.goto(`${s.url}/`);
    await heading("Sign in to aivis").waitFor();
    expect(new URL(page.url()).pathname).toBe("/app/login");
    await expect(page.getByText("aivis user add you@example.com --plan business").isVisible()).resolves.toBe(true);
    expect(await page.locator("#nav").isHidden()).toBe(true);
    await screenshot(page, "sign-in");
  });

  test("a wrong password shows the error and keeps the user on the form", async () => {
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
    const plan = page.locator("#plan");
    expect(await plan.getByText("Business", { exact: true }).isVisible()).toBe(true);
    const credits = page.locator("#credits");
    expect(await credits.locator(".big").textContent()).toBe("0 of 500 used");
    expect(await page.locator("#account-email").textContent()).toBe(user.email);
    expect(await page.locator('#nav a[aria-current="page"]').textContent()).toBe("Overview");
    // the session cookie is HttpOnly: the page itself cannot read it
    expect(await page.evaluate(() => document.cookie)).not.toContain("aivis_session");
    await screenshot(page, "overview");
  });

  test("credits used this month show up on the overview", async () => {
    // spend 3 credits through the real usage counter, as a text generation would
    reserveUsage(s.ctx.db, user.workspaceId, planOf("business"), "ai_credits", 3, s.ctx.clock.now());
    await page.reload();
    await heading("Overview").waitFor();
    expect(await page.locator("#credits .big").textContent()).toBe("3 of 500 used");
    const period = new Date(s.ctx.clock.now()).toLocaleString("en-US", { month: "long", year: "numeric", timeZone: "UTC" });
    expect(await page.locator("#credits .muted").textContent()).toStartWith(`497 credits left · ${period} · resets `);
    expect(await page.locator("#credits progress").getAttribute("value")).toBe("1");
  });

  test("API key: generate shows the secret once, copy works, the key authenticates", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API key" }).click();
    await heading("API key").waitFor();
    expect(new URL(page.url()).pathname).toBe("/app/api-key");
    // the test user already has a key from the CLI-style helper: metadata, never the secret
    const meta = page.locator("#key-meta");
    expect(await meta.textContent()).toContain(user.apiKey.slice(0, 12));
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
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

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

  test("phone width (375 px): no horizontal scrolling, navigation reachable", async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    for (const [path, title, shot] of [
      ["/app", "Overview", "overview-phone"],
      ["/app/api-key", "API key", "api-key-phone"],
    ] as const) {
      await page.goto(`${s.url}${path}`);
      await heading(title).waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      expect(await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Visibility" }).isVisible()).toBe(true);
      await screenshot(page, shot);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test("sign out ends the session and returns to the sign-in page", async () => {
    await page.goto(`${s.url}/app`);
    await heading("Overview").waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await heading("Sign in to aivis").waitFor();
    // a deep link while signed out comes back to it after signing in
    await page.goto(`${s.url}/app/api-key`);
    await heading("Sign in to aivis").waitFor();
    expect(new URL(page.url()).search).toBe(`?next=${encodeURIComponent("/app/api-key")}`);
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await heading("API key").waitFor();
  });

  test("no script errors and no CSP violations along the way", () => {
    expect(errors).toEqual([]);
  });
});
