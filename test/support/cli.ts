// Runs the aivis CLI (bun src/main.ts, or a built binary) as a child process.
import { resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "../..");
export const MAIN = resolve(ROOT, "src/main.ts");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** the --json object printed on the last line */
  json: any;
}

export function runCli(args: string[], env: Record<string, string | undefined>, cmd: string[] = [process.execPath, MAIN]): CliResult {
  const proc = Bun.spawnSync([...cmd, ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const stdout = proc.stdout.toString();
  const last = stdout.trim().split("\n").pop() ?? "";
  let json: unknown = null;
  try {
    json = JSON.parse(last);
  } catch {}
  return { code: proc.exitCode ?? -1, stdout, stderr: proc.stderr.toString(), json };
}

/** Starts `serve` as a child and resolves once it prints its listening line. */
export async function spawnServer(env: Record<string, string>, cmd: string[] = [process.execPath, MAIN], cwd?: string) {
  const proc = Bun.spawn([...cmd, "serve"], { env: { ...process.env, PORT: "0", HOST: "127.0.0.1", ...env }, stdout: "pipe", stderr: "inherit", cwd });
  const reader = proc.stdout.getReader();
  let buffered = "";
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += new TextDecoder().decode(value);
    const line = buffered.split("\n").find((l) => l.includes('"aivis listening"'));
    if (line) {
      const url = JSON.parse(line).url as string;
      // keep reading stdout so the child never blocks on a full pipe (and output() stays current)
      (async () => {
        for (;;) {
          const next = await reader.read();
          if (next.done) break;
          buffered += new TextDecoder().decode(next.value);
        }
      })().catch(() => {});
      return { proc, url, output: () => buffered };
    }
  }
  proc.kill();
  throw new Error(`server did not start: ${buffered}`);
}
