import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runCli, spawnServer } from "./support/cli";
import { tempDir } from "./support/server";

const dir = tempDir("aivis-cli-");
const env = { AIVIS_DATA_DIR: dir, AIVIS_LOG_REQUESTS: "false" };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("aivis CLI", () => {
  test("user add --json prints one JSON object on the last line; a generated password is shown once", () => {
    const r = runCli(["user", "add", "owner@example.com", "--plan", "business", "--json"], env);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ email: "owner@example.com", plan: "business" });
    expect(typeof r.json.password).toBe("string");
    const again = runCli(["user", "add", "owner@example.com", "--plan", "business"], env);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("already exists");
  });

  test("bad input is one line on stderr, not a stack", () => {
    const r = runCli(["user", "add", "not-an-email", "--plan", "business"], env);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n").length).toBe(1);
    const p = runCli(["user", "add", "x@example.com", "--plan", "platinum"], env);
    expect(p.stderr).toContain("plan must be one of");
    const unknown = runCli(["frobnicate"], env);
    expect(unknown.code).toBe(2);
  });

  test("a bad config value stops start-up with a message naming the variable", () => {
    const r = runCli(["migrate"], { ...env, AIVIS_RATE_LIMIT_PER_MINUTE: "lots" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("AIVIS_RATE_LIMIT_PER_MINUTE");
  });

  test("migrate is idempotent", () => {
    expect(runCli(["migrate"], env).stdout).toContain("up to date");
  });

  test("key create, user plan, user ban, backup — observed through a running server", async () => {
    runCli(["user", "add", "cli@example.com", "--plan", "startup", "--password", "password123"], env);
    const key = runCli(["key", "create", "cli@example.com", "--name", "ops", "--json"], env);
    expect(key.code).toBe(0);
    expect(key.json.apiKey.startsWith("aivis_")).toBe(true);
    expect(key.json.name).toBe("ops");
    const server = await spawnServer(env);
    try {
      const me = () => fetch(`${server.url}/v1/users/me`, { headers: { "api-key": key.json.apiKey } });
      expect((await me()).status).toBe(403); // startup has no API access
      expect(runCli(["user", "plan", "cli@example.com", "business", "--json"], env).json.plan).toBe("business");
      expect((await me()).status).toBe(200);
      expect(runCli(["user", "ban", "cli@example.com"], env).code).toBe(0);
      expect((await me()).status).toBe(401);
      runCli(["user", "unban", "cli@example.com"], env);
      expect((await me()).status).toBe(200);

      // online backup while the server runs: a consistent, openable copy
      const file = join(dir, "backup.sqlite");
      const b = runCli(["backup", file], env);
      expect(b.code).toBe(0);
      const copy = new Database(file, { readonly: true });
      expect(copy.query("SELECT email FROM users WHERE email = 'cli@example.com'").get()).toEqual({ email: "cli@example.com" });
      copy.close();
      expect(runCli(["backup", file], env).code).not.toBe(0); // never overwrites
    } finally {
      server.proc.kill("SIGTERM");
      expect(await server.proc.exited).toBe(0); // graceful shutdown exits cleanly
    }
  });

  test("serve prints how to create the first user when none exists", async () => {
    const empty = tempDir("aivis-cli-empty-");
    const server = await spawnServer({ AIVIS_DATA_DIR: empty });
    try {
      await Bun.sleep(200);
      expect(server.output()).toContain("user add");
      // the command as the binary takes it, and where to sign in afterwards
      expect(server.output()).toContain(`aivis user add you@example.com --plan business`);
      expect(server.output()).toContain(`sign in at ${server.url}/app`);
    } finally {
      server.proc.kill("SIGTERM");
      await server.proc.exited;
      rmSync(empty, { recursive: true, force: true });
    }
    expect(existsSync(empty)).toBe(false);
  });
});
