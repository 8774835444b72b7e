// `bun scripts/bench/images.ts`: what polling a finished blog-image job costs now that images are
// stored and linked, against the same job's result rewritten to the data-URL form it had before
// (baseline, same run, same server): response bytes and median GET /job/:id time. Also the time
// to serve one stored image and to revalidate it (304). The images come from a local fake
// OpenAI images endpoint that answers with a PNG of BENCH_IMAGE_MB (default 3, like a
// 1792×1024 dall-e-3 PNG); nothing leaves loopback.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { createUser, generateApiKey } from "../../src/modules/users/service";
import { startAivis } from "../../src/server";

const IMAGE_BYTES = Math.round(Number(process.env.BENCH_IMAGE_MB ?? 3) * 1024 * 1024);
const IMAGES = 6;
const POLLS = Number(process.env.BENCH_POLLS ?? 20);

// a valid PNG signature and IHDR, padded to size: enough for the format check, and incompressible enough
const png = Buffer.alloc(IMAGE_BYTES);
Buffer.from("89504e470d0a1a0a0000000d49484452", "hex").copy(png);
for (let i = 16; i < png.length; i++) png[i] = (i * 2654435761) >>> 24;
const pngB64 = png.toString("base64");
const provider = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () => Response.json({ created: Math.floor(Date.now() / 1000), data: [{ b64_json: pngB64 }] }),
});

const dataDir = mkdtempSync(join(tmpdir(), "aivis-bench-images-"));
const config = loadConfig({ AIVIS_DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", AIVIS_LOG_REQUESTS: "false", OPENAI_BASE_URL: `http://127.0.0.1:${provider.port}/v1`, OPENAI_API_KEY: "bench", AIVIS_WORKER_POLL_MS: "20" });
const aivis = await startAivis(config, { log: () => {} });
const now = Date.now();
const { user } = await createUser(aivis.ctx.db, now, { email: "bench@example.com", plan: "enterprise", password: "correct horse battery" });
const headers = { "api-key": generateApiKey(aivis.ctx.db, now, user.id, "bench").secret, "content-type": "application/json" };

const post = ["# Composting at home", ...Array.from({ length: IMAGES }, (_, i) => `## Step ${i + 1}\n\n${"Turn the heap and keep it moist. ".repeat(20)}`)].join("\n\n");
const queued = await (await fetch(`${aivis.url}/v1/ai/generate/process-blog-post-with-images`, { method: "POST", headers, body: JSON.stringify({ content: post, imageCount: IMAGES }) })).json();
let job: any;
do {
  await Bun.sleep(50);
  job = await (await fetch(`${aivis.url}/v1/ai/generate/job/${queued.jobId}`, { headers })).json();
} while (job.state !== "completed" && job.state !== "failed");
if (job.state !== "completed" || job.result.imageCount !== IMAGES) throw new Error(`the job did not make ${IMAGES} images: ${JSON.stringify(job).slice(0, 500)}`);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function pollCost(): Promise<{ bytes: number; ms: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < POLLS; i++) {
    const start = performance.now();
    bytes = (await (await fetch(`${aivis.url}/v1/ai/generate/job/${queued.jobId}`, { headers })).arrayBuffer()).byteLength;
    times.push(performance.now() - start);
  }
  return { bytes, ms: median(times) };
}

const linked = await pollCost();
// baseline: the same result as the data-URL version made it (each URL replaced by its image inline)
const inline = structuredClone(job.result);
for (const image of inline.images) inline.content = inline.content.replace(image.url, `data:image/png;base64,${pngB64}`);
aivis.ctx.db.query("UPDATE jobs SET result = $result WHERE id = $id").run({ result: JSON.stringify(inline), id: queued.jobId });
const embedded = await pollCost();

const imageUrl = job.result.images[0].url;
const serveTimes: number[] = [];
const revalidateTimes: number[] = [];
for (let i = 0; i < POLLS; i++) {
  let start = performance.now();
  const body = await (await fetch(imageUrl)).arrayBuffer();
  serveTimes.push(performance.now() - start);
  if (body.byteLength !== IMAGE_BYTES) throw new Error("served the wrong bytes");
  start = performance.now();
  const r = await fetch(imageUrl, { headers: { "if-none-match": `"${job.result.images[0].id}"` } });
  await r.arrayBuffer();
  revalidateTimes.push(performance.now() - start);
  if (r.status !== 304) throw new Error(`revalidation gave ${r.status}`);
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MB`;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
console.log(`blog job, ${IMAGES} images of ${mb(IMAGE_BYTES)}, median of ${POLLS} GET /job/:id polls`);
console.log(`  linked (now)          ${kb(linked.bytes).padStart(10)}  ${linked.ms.toFixed(2)} ms`);
console.log(`  data URLs (baseline)  ${mb(embedded.bytes).padStart(10)}  ${embedded.ms.toFixed(2)} ms`);
console.log(`  ratio                 ${(embedded.bytes / linked.bytes).toFixed(0)}x fewer bytes, ${(embedded.ms / linked.ms).toFixed(0)}x faster`);
console.log(`GET /v1/ai/generate/images/:id (${mb(IMAGE_BYTES)}): median ${median(serveTimes).toFixed(2)} ms; 304 revalidation ${median(revalidateTimes).toFixed(2)} ms`);

await aivis.stop();
provider.stop(true);
rmSync(dataDir, { recursive: true, force: true });
