// `npm run bench`: runs every benchmark in turn (each prints its own figures and ratios).
import { resolve } from "node:path";

const benches = ["jobs.ts", "report.ts", "ingest.ts", "seo-score.ts", "images.ts"];
let failed = 0;
for (const file of benches) {
  console.log(`\n=== ${file} ===`);
  const proc = Bun.spawnSync([process.execPath, resolve(import.meta.dir, file)], { stdout: "inherit", stderr: "inherit" });
  if (proc.exitCode !== 0) {
    failed++;
    console.error(`${file} exited with ${proc.exitCode}`);
  }
}
process.exit(failed ? 1 : 0);
