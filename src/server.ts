// Boots aivis in this process: opens and migrates the database, composes the app, serves it with
// Bun.serve behind a thin wrapper (version headers, request id, body limit, one JSON log line per
// request), and knows how to shut all of it down in order.
import type { Server } from "bun";
import { createApp } from "./app";
import { createAiProviders } from "./ai/providers";
import type { Config } from "./config";
import type { AppContext } from "./context";
import { migrate, openDatabase } from "./db";
import { createJobQueue } from "./jobs";
import { AppError, errorBody } from "./http/errors";
import { setRequestMeta } from "./http/request-meta";
import { type Clock, systemClock } from "./platform/clock";
import { randomToken } from "./platform/ids";
import { createLogger, type Logger } from "./platform/log";

export interface Running {
  ctx: AppContext;
  server: Server<unknown>;
  url: string;
  /** stop accepting, finish in-flight requests and background work, close the database */
  stop(): Promise<void>;
}

export interface StartOptions {
  log?: Logger;
  clock?: Clock;
}

function clientAddress(config: Config, request: Request, server: Server<unknown>): string {
  if (config.trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  return server.requestIP(request)?.address ?? "0.0.0.0";
}

/**
 * The request itself when its declared length is within the limit; a buffered copy when it came
 * chunked with no length (read up to the limit); null when it is too large.
 */
async function boundBody(request: Request, limit: number): Promise<Request | null> {
  const declared = request.headers.get("content-length");
  if (declared !== null) return Number(declared) > limit ? null : request;
  if (!request.body) return request;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return new Request(request.url, { method: request.method, headers: request.headers, body: Buffer.concat(chunks) });
}

export async function startAivis(config: Config, opts: StartOptions = {}): Promise<Running> {
  const log = opts.log ?? createLogger();
  const db = openDatabase(config.dbPath);
  migrate(db);
  const shutdownHooks: (() => Promise<void> | void)[] = [];
  // before createApp: modules register their job handlers while the app is composed
  const clock = opts.clock ?? systemClock;
  const jobs = createJobQueue(db, clock, log, config.worker);
  const ctx: AppContext = { config, db, clock, log, ai: createAiProviders(config), jobs, onShutdown: (hook) => shutdownHooks.push(hook) };
  // the first hook: the worker stops while everything its handlers use is still open
  ctx.onShutdown(() => jobs.stop());
  const app = createApp(ctx);

  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    // a hard ceiling Bun enforces itself (bare 413); below it our own check answers in JSON
    maxRequestBodySize: config.bodyLimitBytes * 2 + 1_048_576,
    async fetch(request, srv) {
      const started = performance.now();
      const id = randomToken(9);
      const ip = clientAddress(config, request, srv);
      setRequestMeta(request, ip, id);
      const path = new URL(request.url).pathname;
      let response: Response;
      const bounded = await boundBody(request, config.bodyLimitBytes);
      if (!bounded) {
        const err = new AppError(413, "PAYLOAD_TOO_LARGE", `request body is larger than ${config.bodyLimitBytes} bytes`);
        response = Response.json(errorBody(err), { status: 413 });
      } else {
        if (bounded !== request) setRequestMeta(bounded, ip, id);
        response = await app.handle(bounded);
      }
      response.headers.set("x-request-id", id);
      if (path === "/v1" || path.startsWith("/v1/")) {
        response.headers.set("api-version", "v1");
        response.headers.set("deprecated", "false");
      }
      if (config.logRequests) {
        log("info", "request", {
          requestId: id,
          method: request.method,
          path,
          status: response.status,
          ms: Math.round((performance.now() - started) * 10) / 10,
        });
      }
      return response;
    },
  });

  if (config.worker.enabled) jobs.start();

  let stopping: Promise<void> | undefined;
  return {
    ctx,
    server,
    url: `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${server.port}`,
    stop() {
      stopping ??= (async () => {
        await server.stop(false); // stop accepting; in-flight requests finish
        for (const hook of shutdownHooks) await hook();
        db.close();
      })();
      return stopping;
    },
  };
}
