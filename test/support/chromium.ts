// Headless Chromium for browser tests: Debian's /usr/bin/chromium (or CHROMIUM_PATH) driven by
// playwright-core, with the flags this sandbox needs (no background networking to closed hosts).
import { type Browser, chromium } from "playwright-core";

export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
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
      ...extraArgs,
    ],
  });
}
