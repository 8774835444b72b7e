// `npm run bench:ingest`: the AI traffic beacon and stats.
// 1. Beacon: events/s and p99 latency of POST /v1/ai-traffic/collect on a real aivis server (child
//    process) next to a bare Bun.serve hello-world (child process) under the same load generator
//    (this process: keep-alive fetch loops), printed as a ratio (target ≥ 40 %). Every 202 must be
//    a stored row: acknowledged == stored.
// 2. Stats: stats latency over 90 days with 1M page views (plus engagement updates) seeded through
//    the real ingestion code, next to the same figures computed by scanning the raw rows, as a ratio.
// Knobs: BENCH_CONNECTIONS, BENCH_SECONDS, BENCH_ROUNDS, BENCH_SEED_PAGEVIEWS, BENCH_PART=beacon|stats.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { migrate, openDatabase, tx } from "../../src/db";
import { epochDay } from "../../src/modules/traffic/calendar";
import { DAY_MS } from "../../src/platform/clock";
import { prepareIngest, type TrafficEvent } from "../../src/modules/traffic/ingest";
import { createSite, dayRange, trafficStats } from "../../src/modules/traffic/service";
import { createUser } from "../../src/modules/users/service";
import { silentLogger } from "../../src/platform/log";
import { startAivis } from "../../src/server";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_SECONDS = 1;
const SEED_PAGEVIEWS = Number(process.env.BENCH_SEED_PAGEVIEWS ?? 1_000_000);
const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const percentile = (sorted: ArrayLike<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

// ---- load generator -------------------------------------------------------------------------

interface LoadResult {
  perSec: number;
  p50: number;
  p99: number;
  ok: number;
  failed: number;
}

async function spawnServer(mode: string, env: Record<string, string> = {}) {
  const child = Bun.spawn([process.execPath, import.meta.path, mode], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${mode} exited early`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { child, info: JSON.parse(out.trim()) as { url: string; siteKey?: string; siteId?: string } };
}

/** CONNECTIONS keep-alive loops for `seconds`; waits for every request in flight, so ok is exact. */
async function load(request: (n: number) => Promise<Response>, seconds: number, okStatus: number): Promise<LoadResult> {
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  let n = 0;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  async function loop() {
    while (performance.now() < until) {
      const t = performance.now();
      const res = await request(n++);
      await res.arrayBuffer();
      latencies.push(performance.now() - t);
      if (res.status === okStatus) ok++;
      else failed++;
    }
  }
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  const elapsed = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return { perSec: (ok + failed) / elapsed, p50: percentile(sorted, 50), p99: percentile(sorted, 99), ok, failed };
}

/**
 * Beacon n of a browsing pattern: each visitor (own IP) views 4 pages in a row; session ids are
 * what the script makes (creation time first, then random).
 */
function beaconRequest(url: string, siteKey: string, n: number, t0: number): Request {
  const visitor = Math.floor(n / 4);
  const referrers = ["https://chatgpt.com/", "https://www.google.com/", "", "https://www.perplexity.ai/", "https://news.ycombinator.com/"];
  return new Request(`${url}/v1/ai-traffic/collect`, {
    method: "POST",
    headers: { "content-type": "text/plain;charset=UTF-8", "user-agent": UA, "x-forwarded-for": `10.${(visitor >> 16) & 255}.${(visitor >> 8) & 255}.${visitor & 255}` },
    body: JSON.stringify({
      siteKey,
      path: `/page/${n % 500}`,
      referrer: referrers[visitor % referrers.length],
      title: "Bench page",
      sessionId: `${(t0 + visitor).toString(36)}${(visitor * 2_654_435_761) % 1_000_000}`,
    }),
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function medianResult(rs: LoadResult[]): LoadResult {
  return {
    perSec: median(rs.map((r) => r.perSec)),
    p50: median(rs.map((r) => r.p50)),
    p99: median(rs.map((r) => r.p99)),
    ok: rs.reduce((n, r) => n + r.ok, 0),
    failed: rs.reduce((n, r) => n + r.failed, 0),
  };
}

async function beaconBench() {
  console.log(
    `beacon: ${CONNECTIONS} keep-alive connections; ${ROUNDS} alternating rounds of ${SECONDS} s per server after ${WARMUP_SECONDS} s warm-up; ` +
      "the same POST beacons to both (load generator: this process; servers: child processes)",
  );
  const t0 = Date.now();
  const dataDir = mkdtempSync(join(tmpdir(), "aivis-bench-ingest-"));
  const bare = await spawnServer("--serve-bare");
  const aivis = await spawnServer("--serve-aivis", {
    AIVIS_DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    AIVIS_LOG_REQUESTS: "false",
    AIVIS_WORKER: "false",
    AIVIS_TRUST_PROXY: "true",
  });
  const { url, siteKey, siteId } = aivis.info;
  let sent = 0; // beacon numbers continue across rounds, so every round brings new visitors
  const hello = (n: number) => fetch(beaconRequest(bare.info.url, "aivt_bare", n, t0));
  const beacon = () => fetch(beaconRequest(url, siteKey!, sent++, t0));
  await load(hello, WARMUP_SECONDS, 200);
  const warm = await load(beacon, WARMUP_SECONDS, 202);
  const bareRounds: LoadResult[] = [];
  const aivisRounds: LoadResult[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    bareRounds.push(await load(hello, SECONDS, 200));
    aivisRounds.push(await load(beacon, SECONDS, 202));
  }
  bare.child.kill();
  const db = new Database(join(dataDir, "aivis.sqlite"), { readonly: true });
  const stored = db.query<{ n: number }, { site: string }>("SELECT count(*) AS n FROM traffic_pageviews WHERE site_id = $site").get({ site: siteId! })!.n;
  db.close();
  aivis.child.kill("SIGTERM");
  await aivis.child.exited;
  rmSync(dataDir, { recursive: true, force: true });

  const bareResult = medianResult(bareRounds);
  const aivisResult = medianResult(aivisRounds);
  const acknowledged = warm.ok + aivisResult.ok;
  const ratio = aivisResult.perSec / bareResult.perSec;
  const row = (name: string, r: LoadResult, rounds: LoadResult[]) =>
    `${name.padEnd(28)} ${String(Math.round(r.perSec)).padStart(8)} req/s   p50 ${round(r.p50, 2)} ms   p99 ${round(r.p99, 2)} ms` +
    `   (rounds: ${rounds.map((x) => Math.round(x.perSec)).join(", ")})${r.failed ? `   ${r.failed} non-2xx` : ""}`;
  console.log(row("bare Bun.serve hello-world", bareResult, bareRounds));
  console.log(row("aivis POST /collect", aivisResult, aivisRounds));
  console.log(`beacon throughput ratio aivis / bare (medians): ${round(ratio * 100)} % (target ≥ 40 %) ${ratio >= 0.4 ? "OK" : "BELOW TARGET"}`);
  console.log(`acknowledged (202) ${acknowledged}, stored rows ${stored}: ${acknowledged === stored ? "equal OK" : "MISMATCH"}`);
  return acknowledged === stored;
}

// ---- stats over seeded events ---------------------------------------------------------------

const AI_SOURCES = ["https://chatgpt.com/", "https://www.perplexity.ai/", "https://gemini.google.com/", "https://claude.ai/", "https://copilot.microsoft.com/"];
const OTHER_SOURCES = ["https://www.google.com/", "https://www.bing.com/", "https://duckduckgo.com/", "https://x.com/", "https://www.reddit.com/", "https://blog.example.org/", ""];
// the long tail a real site sees (and what junk posted to the beacon looks like): thousands of
// referring hosts and pages, which the rollups must not turn into thousands of rows per day
const LONG_TAIL_HOSTS = 5000;
const PAGES = 5000;

/**
 * SEED_PAGEVIEWS page views over 90 days through prepareIngest (the beacon's own code), 3–5 per
 * visit, half of them followed by an engagement update. Returns the number of events applied.
 */
function seed(db: Database, siteId: string, now: number): number {
  const apply = prepareIngest(db);
  const firstDay = epochDay(now) - 89;
  const perDay = Math.ceil(SEED_PAGEVIEWS / 90);
  let rng = 42;
  const rand = () => ((rng = (rng * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
  let events = 0;
  for (let d = 0; d < 90; d++) {
    const batch: TrafficEvent[] = [];
    const dayStart = (firstDay + d) * DAY_MS;
    let visitor = 0;
    let views = 0;
    while (views < perDay) {
      const id = `d${d}v${visitor++}`;
      const kind = rand();
      const referrer =
        kind < 0.3
          ? AI_SOURCES[Math.floor(rand() * AI_SOURCES.length)]
          : kind < 0.45
            ? `https://blog${Math.floor(rand() * LONG_TAIL_HOSTS)}.example.net/post`
            : OTHER_SOURCES[Math.floor(rand() * OTHER_SOURCES.length)];
      const start = dayStart + Math.floor(rand() * (DAY_MS - 3_600_000));
      const visitViews = 3 + Math.floor(rand() * 3);
      views += visitViews;
      for (let v = 0; v < visitViews; v++) {
        const base = { siteId, siteDomain: "bench.example", ts: start + v * 60_000, visitor: { current: id, previous: null }, sessionId: id, path: `/page/${Math.floor(rand() * PAGES)}` };
        batch.push({ ...base, kind: "pageview", title: "Page", referrer, utmSource: null, utmMedium: null, utmCampaign: null });
        if (rand() < 0.5) batch.push({ ...base, kind: "engagement", engagedMs: Math.floor(rand() * 120_000), scrollDepth: Math.floor(rand() * 100) });
      }
    }
    batch.sort((a, b) => a.ts - b.ts);
    tx(db, () => apply(batch));
    events += batch.length;
  }
  return events;
}

/** The same figures as the stats response, computed from the raw rows (what a rollup-less design does). */
function rawScanStats(db: Database, siteId: string, days: number, now: number) {
  const { from, to } = dayRange(days, now);
  const p = { site: siteId, from, to };
  const perSource = db
    .query(
      `SELECT channel, source, count(*) AS pageviews, count(DISTINCT visit_id) AS visits, sum(engaged_ms) AS engaged,
              sum(scroll_depth) AS scroll_sum, sum(scroll_depth > 0) AS scroll_count
       FROM traffic_pageviews WHERE site_id = $site AND day BETWEEN $from AND $to GROUP BY channel, source`,
    )
    .all(p);
  const visitors = db.query(`SELECT day, count(DISTINCT visitor_id) AS visitors FROM traffic_visits WHERE site_id = $site AND day BETWEEN $from AND $to GROUP BY day`).all(p);
  const daily = db
    .query(`SELECT day, count(*) AS pageviews, sum(channel = 'ai') AS ai FROM traffic_pageviews WHERE site_id = $site AND day BETWEEN $from AND $to GROUP BY day`)
    .all(p);
  const landing = db
    .query(
      `SELECT landing_path, source, count(*) AS visits FROM traffic_visits
       WHERE site_id = $site AND day BETWEEN $from AND $to AND channel = 'ai' GROUP BY landing_path, source ORDER BY visits DESC LIMIT 10`,
    )
    .all(p);
  return { perSource, visitors, daily, landing };
}

function time(fn: () => unknown, runs: number) {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
}

async function statsBench() {
  const dir = mkdtempSync(join(tmpdir(), "aivis-bench-stats-"));
  const db = openDatabase(join(dir, "aivis.sqlite"));
  migrate(db);
  const now = Date.now();
  const { workspace } = await createUser(db, now, { email: "stats@example.com", plan: "business", password: "correct horse battery" });
  const { site } = createSite(db, now, workspace.id, "bench.example");
  const seedStart = performance.now();
  const events = seed(db, site.id, now);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const rows = db.query<{ pv: number; rollups: number; landing: number }, { site: string }>(
    `SELECT (SELECT count(*) FROM traffic_pageviews WHERE site_id = $site) AS pv, (SELECT count(*) FROM traffic_daily WHERE site_id = $site) AS rollups,
            (SELECT count(*) FROM traffic_daily_landing WHERE site_id = $site) AS landing`,
  ).get({ site: site.id })!;
  console.log(
    `\nstats: seeded ${events} events (${rows.pv} page views over ${PAGES} pages, referrers incl. ${LONG_TAIL_HOSTS} long-tail hosts) over 90 days in ${round(seedSeconds)} s ` +
      `through the ingestion code (${Math.round(events / seedSeconds)} events/s); rollup rows: ${rows.rollups} daily, ${rows.landing} landing`,
  );

  const rollup = time(() => trafficStats(db, site.id, 90, now), 50);
  const raw = time(() => rawScanStats(db, site.id, 90, now), 3);
  const check = trafficStats(db, site.id, 90, now);
  console.log(`stats from rollups, 90 days:   p50 ${round(rollup.p50, 2)} ms   p99 ${round(rollup.p99, 2)} ms  (50 runs; ${check.totals.pageViews} page views, ${check.totals.visits} visits, AI share ${check.totals.aiShare})`);
  console.log(`raw-scan query, 90 days:       p50 ${round(raw.p50, 1)} ms   (3 runs)`);
  console.log(`stats speed-up rollups vs raw scan: ${Math.round(raw.p50 / rollup.p50)}×`);
  db.close();
  rmSync(dir, { recursive: true, force: true });
}

async function main() {
  const started = performance.now();
  const equal = process.env.BENCH_PART === "stats" ? true : await beaconBench();
  if (process.env.BENCH_PART !== "beacon") await statsBench();
  console.log(`\ningest benchmark done in ${round((performance.now() - started) / 1000)} s`);
  if (!equal) process.exit(1);
}

// ---- entry: the child-process modes, or the benchmark itself -----------------------------------

if (process.argv[2] === "--serve-bare") {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("hello") });
  console.log(JSON.stringify({ url: `http://127.0.0.1:${server.port}` }));
} else if (process.argv[2] === "--serve-aivis") {
  const running = await startAivis(loadConfig(process.env), { log: silentLogger });
  const now = Date.now();
  const { workspace } = await createUser(running.ctx.db, now, { email: `bench-${now}@example.com`, plan: "business", password: "correct horse battery" });
  const { site } = createSite(running.ctx.db, now, workspace.id, "bench.example");
  // a server past its first day holds yesterday's salt too (and looks up visits under it): measure that
  running.ctx.db.query("INSERT INTO traffic_salts (day, salt) VALUES ($day, $salt)").run({ day: epochDay(now) - 1, salt: "yesterday" });
  process.on("SIGTERM", () => running.stop().then(() => process.exit(0)));
  console.log(JSON.stringify({ url: running.url, siteKey: site.site_key, siteId: site.id }));
} else {
  await main();
}
