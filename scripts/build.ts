// Compiles the single executable dist/aivis: the server, CLI, migrations, tracking script and
// dashboard assets in one file that runs with no node_modules and no source tree beside it.
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const outfile = resolve(root, process.argv[2] ?? "dist/aivis");
mkdirSync(resolve(outfile, ".."), { recursive: true });

const proc = Bun.spawnSync([process.execPath, "build", "--compile", "--minify", resolve(root, "src/main.ts"), "--outfile", outfile], {
  cwd: root,
  stdout: "inherit",
  stderr: "inherit",
});
if (proc.exitCode !== 0) {
  console.error("build failed");
  process.exit(proc.exitCode ?? 1);
}
console.log(`built ${outfile}`);
