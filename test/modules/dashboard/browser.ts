// Headless Chromium for the dashboard tests (Debian's /usr/bin/chromium driven by playwright-core),
// and where screenshots go so people can look at them (test/artifacts/, git-ignored).
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

export const ARTIFACTS = resolve(import.meta.dir, "../../artifacts");

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Writes test/artifacts/dashboard-<name>.png (full page) and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `dashboard-${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Collects uncaught page errors and console errors other than the expected 401 of a signed-out load. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    if (/status of 401/.test(m.text())) return;
    errors.push(`console: ${m.text()}`);
  });
  return errors;
}
