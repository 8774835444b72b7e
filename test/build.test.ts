// Smoke test of the single executable: build dist-style binary into a temp dir, run it from another
// directory with no node_modules or sources next to it, and call /healthz and an API route.
import { expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runCli, spawnServer } from "./support/cli";
import { tempDir } from "./support/server";

test("the compiled binary runs from any directory", async () => {
  const out = tempDir("aivis-bin-");
  const bin = join(out, "aivis");
  const build = Bun.spawnSync([process.execPath, join(ROOT, "scripts/build.ts"), bin], { stdout: "pipe", stderr: "pipe" });
  expect(build.exitCode).toBe(0);

  const elsewhere = tempDir("aivis-run-");
  const env = { AIVIS_DATA_DIR: join(elsewhere, "data") };
  const user = runCli(["user", "add", "bin@example.com", "--plan", "business", "--password", "password123", "--json"], env, [bin]);
  expect(user.code).toBe(0);
  const key = runCli(["key", "create", "bin@example.com", "--json"], env, [bin]);
  const server = await spawnServer(env, [bin], elsewhere);
  try {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect((await health.json()).db).toBe("ok");
    const me = await fetch(`${server.url}/v1/users/me`, { headers: { "api-key": key.json.apiKey } });
    expect(me.status).toBe(200);
    expect(me.headers.get("api-version")).toBe("v1");
    expect((await fetch(`${server.url}/v1/users/me`)).status).toBe(401);
    // the dashboard comes out of the binary too: shell and assets, with no sources on disk next to it
    expect(await (await fetch(`${server.url}/app`)).text()).toContain('<script type="module" src="/app/assets/app.js">');
    for (const [asset, source] of [
      ["app.js", "src/modules/dashboard/client/app.js"],
      ["page-visibility.js", "src/modules/dashboard/client/page-visibility.js"],
      ["uPlot.iife.min.js", "node_modules/uplot/dist/uPlot.iife.min.js"],
    ]) {
      const r = await fetch(`${server.url}/app/assets/${asset}`);
      expect(r.status).toBe(200);
      expect(await r.text()).toBe(readFileSync(join(ROOT, source), "utf8"));
    }
  } finally {
    server.proc.kill("SIGTERM");
    await server.proc.exited;
    rmSync(out, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  }
}, 120_000);
