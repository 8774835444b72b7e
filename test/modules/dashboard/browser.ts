// Screenshots for the dashboard tests, written where people can look at them (test/artifacts/,
// git-ignored), and the browser launcher they share with the tracker test.
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Page } from "playwright-core";

export const ARTIFACTS = resolve(import.meta.dir, "../../artifacts");

export { launchChromium } from "../../support/chromium";

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
