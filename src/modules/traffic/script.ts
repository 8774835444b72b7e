// The tracking script as served: minified once at start-up (Bun's transpiler, so the compiled
// binary needs no build step), with the collect URL baked in, gzipped, and an ETag.
import { dirname, posix } from "node:path";
import { gzipSync } from "node:zlib";
import trackerSource from "./tracker.js" with { type: "text" };

export interface ServedScript {
  body: string;
  gzip: Buffer<ArrayBuffer>;
  etag: string;
}

/** The collect URL relative to the script's URL, so a script loaded through a proxy posts back through it. */
export function relativeCollectUrl(scriptPath: string, collectPath: string): string {
  const rel = posix.relative(dirname(scriptPath), collectPath);
  return rel.startsWith(".") ? rel : `./${rel}`;
}

const minifier = new Bun.Transpiler({ loader: "js", minify: { whitespace: true, identifiers: true, syntax: true } } as ConstructorParameters<typeof Bun.Transpiler>[0]);
let minified: string | undefined;

export function buildTrackerScript(collectRelative: string): ServedScript {
  minified ??= minifier.transformSync(trackerSource).trim();
  const body = minified.replace('"__COLLECT__"', JSON.stringify(collectRelative));
  const gzip = gzipSync(body, { level: 9 });
  const etag = `"${new Bun.CryptoHasher("sha256").update(body).digest("base64url").slice(0, 16)}"`;
  return { body, gzip, etag };
}
