import { describe, expect, test } from "bun:test";
import { ConfigError, applyFlags, loadConfig } from "../src/config";

describe("config", () => {
  test("defaults", () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.dbPath.endsWith("data/aivis.sqlite")).toBe(true);
    expect(c.cookieSecure).toBe(false);
    expect(c.rateLimitPerMinute).toBe(300);
  });

  test.each([
    ["PORT", "eighty"],
    ["PORT", "70000"],
    ["AIVIS_WORKER", "maybe"],
    ["AIVIS_PUBLIC_URL", "ftp://x"],
    ["OPENAI_BASE_URL", "not a url"],
    ["AIVIS_TRACKER_SCRIPT_PATH", "../etc"],
  ])("%s=%s is refused with a message naming the variable", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  test("flags override env; https public URL turns on secure cookies", () => {
    const c = loadConfig(applyFlags({ PORT: "1" }, { "--port": "8080", "--public-url": "https://aivis.example.com/" }));
    expect(c.port).toBe(8080);
    expect(c.publicUrl).toBe("https://aivis.example.com");
    expect(c.cookieSecure).toBe(true);
  });
});

test("every environment variable config.ts reads has a row in the README's configuration tables", async () => {
  const source = await Bun.file(new URL("../src/config.ts", import.meta.url)).text();
  const readme = await Bun.file(new URL("../README.md", import.meta.url)).text();
  const names = [...new Set([...source.matchAll(/"(AIVIS_[A-Z0-9_]+)"/g)].map((m) => m[1]))];
  expect(names.length).toBeGreaterThan(20);
  expect(names.filter((name) => !readme.includes(`| \`${name}\``))).toEqual([]);
});
