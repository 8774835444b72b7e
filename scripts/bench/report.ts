// `npm run bench:report`: one 10-prompt visibility report over 3 providers (the local fake
// providers, 300 ms per answer) through a real aivis server: POST → job completed. Prints the wall
// time, the sequential sum of the provider calls measured in the same run, and their ratio
// (target ≤ 0.2 at the default AIVIS_REPORT_CONCURRENCY), then the same report with concurrency 1
// as the baseline it is compared against.
import { startFakeProviders } from "../../test/support/fake-providers";
import { startTestServer } from "../../test/support/server";

const PROMPTS = Number(process.env.BENCH_PROMPTS ?? 10);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 300);
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

interface Run {
  concurrency: string;
  calls: number;
  wallMs: number;
  sumMs: number;
}

async function runOnce(concurrency: string | undefined): Promise<Run> {
  const fake = await startFakeProviders({ delayMs: LATENCY_MS, answer: (_f, _m, _s, prompt) => `Benchsite is a fine answer to ${prompt}; Rival too.` });
  // polling every 10 ms would trip the per-key rate limit, which is not what is measured here
  const s = await startTestServer({ ...fake.env, AIVIS_AI_MAX_RETRIES: "0", AIVIS_RATE_LIMIT_PER_MINUTE: "1000000", ...(concurrency ? { AIVIS_REPORT_CONCURRENCY: concurrency } : {}) });
  try {
    // time every provider call as the report job makes it: their sum is the sequential cost
    const durations: number[] = [];
    const complete = s.ctx.ai.complete.bind(s.ctx.ai);
    s.ctx.ai.complete = async (req) => {
      const t0 = performance.now();
      try {
        return await complete(req);
      } finally {
        durations.push(performance.now() - t0);
      }
    };
    const u = await s.user("enterprise");
    const prompts = Array.from({ length: PROMPTS }, (_, i) => `Which analytics tool is best for use case ${i}?`);
    const t0 = performance.now();
    const r = await s.call("POST", "/v1/ai/generate/seo-site-report", {
      body: { websiteurl: "https://benchsite.test", competitors: ["rival.test"], prompts },
      headers: u.headers,
    });
    if (r.status !== 202) throw new Error(`report not queued: ${r.status} ${JSON.stringify(r.body)}`);
    for (;;) {
      const job = await s.call("GET", `/v1/ai/generate/job/${r.body.jobId}`, { headers: u.headers });
      if (job.body.state === "completed") break;
      if (job.status !== 200) throw new Error(`polling failed: ${job.status} ${JSON.stringify(job.body)}`);
      if (job.body.state === "failed") throw new Error(`report failed: ${job.body.failedReason}`);
      await Bun.sleep(10);
    }
    const wallMs = performance.now() - t0;
    return {
      concurrency: concurrency ?? `${s.ctx.config.ai.reportConcurrency} (default)`,
      calls: durations.length,
      wallMs,
      sumMs: durations.reduce((a, b) => a + b, 0),
    };
  } finally {
    await s.close();
    await fake.stop();
  }
}

const main = await runOnce(undefined);
const baseline = await runOnce("1");
console.log(`report: ${PROMPTS} prompts × 3 providers, ${LATENCY_MS} ms simulated provider latency`);
for (const r of [main, baseline]) {
  console.log(
    `  concurrency ${r.concurrency}: ${r.calls} calls, wall ${round(r.wallMs / 1000)} s, ` +
      `sequential sum ${round(r.sumMs / 1000)} s, ratio ${round(r.wallMs / r.sumMs, 3)}`,
  );
}
const ratio = main.wallMs / main.sumMs;
console.log(`ratio wall / sequential sum: ${round(ratio, 3)} (target ≤ 0.2) ${ratio <= 0.2 ? "OK" : "ABOVE TARGET"}`);
console.log(`speed-up over concurrency 1: ${round(baseline.wallMs / main.wallMs, 2)}×`);
