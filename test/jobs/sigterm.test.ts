// SIGTERM on a real `aivis serve` process: the worker stops claiming, the running job finishes
// within the grace period and its outcome is committed, the job it had not claimed stays waiting
// for the next start, and the process exits cleanly.
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { runCli, spawnServer } from "../support/cli";
import { type FakeProviders, startFakeProviders } from "../support/fake-providers";
import { tempDir } from "../support/server";

const PROVIDER_DELAY_MS = 3000; // long enough to send SIGTERM while the first job surely runs
const dir = tempDir("aivis-sigterm-");
let fake: FakeProviders | undefined;
afterAll(async () => {
  await fake?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("SIGTERM: stop claiming, let the running job finish and commit it, exit 0", async () => {
  fake = await startFakeProviders({ delayMs: PROVIDER_DELAY_MS });
  const env = {
    ...fake.env,
    AIVIS_DATA_DIR: dir,
    AIVIS_LOG_REQUESTS: "false",
    AIVIS_WORKER_CONCURRENCY: "1",
    AIVIS_WORKER_POLL_MS: "50",
    AIVIS_SHUTDOWN_GRACE_MS: "30000",
  };
  expect(runCli(["user", "add", "jobs@example.com", "--plan", "business", "--password", "password123"], env).code).toBe(0);
  const apiKey = runCli(["key", "create", "jobs@example.com", "--json"], env).json.apiKey as string;
  const server = await spawnServer(env);
  const call = async (method: string, path: string, body?: object) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { "api-key": apiKey, "content-type": "application/json" },
      body: body && JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const jobState = async (id: string) => (await call("GET", `/v1/ai/generate/job/${id}`)).body.state as string;

  let running = "";
  let queued = "";
  try {
    const first = await call("POST", "/v1/ai/generate/text", { text: "first", model: "gpt-4o", useWorker: true });
    const second = await call("POST", "/v1/ai/generate/text", { text: "second", model: "gpt-4o", useWorker: true });
    expect([first.status, second.status]).toEqual([202, 202]);
    [running, queued] = [first.body.jobId, second.body.jobId];
    while ((await jobState(running)) === "waiting") await Bun.sleep(10);
    expect(await jobState(running)).toBe("active");
    expect(await jobState(queued)).toBe("waiting"); // concurrency 1
    server.proc.kill("SIGTERM");
    expect(await server.proc.exited).toBe(0);
  } finally {
    if (server.proc.exitCode === null) server.proc.kill(9);
  }

  const db = new Database(join(dir, "aivis.sqlite"), { readonly: true });
  const row = (id: string) =>
    db.query<{ state: string; attempts_made: number; result: string | null }, [string]>("SELECT state, attempts_made, result FROM jobs WHERE id = ?").get(id)!;
  const finished = row(running);
  const untouched = row(queued);
  db.close();
  expect(finished).toMatchObject({ state: "completed", attempts_made: 1 });
  expect(JSON.parse(finished.result!).text).toBe("Answer from openai gpt-4o: first");
  expect(untouched).toEqual({ state: "waiting", attempts_made: 0, result: null });
  expect(fake.calls.map((c) => c.user)).toEqual(["first"]);
}, 60_000);
