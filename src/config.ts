// Environment variables and CLI flags → one validated, typed Config. A bad value stops start-up
// with a one-line message naming the variable. Every variable here is listed in the README.
import { resolve } from "node:path";

export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

export interface ProviderConfig {
  apiKey: string | undefined;
  baseURL: string | undefined;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  dbPath: string;
  publicUrl: string | undefined;
  bodyLimitBytes: number;
  rateLimitPerMinute: number;
  trustProxy: boolean;
  logRequests: boolean;
  cookieSecure: boolean;
  fetchAllowPrivate: boolean;
  worker: {
    enabled: boolean;
    pollMs: number;
    concurrency: number;
    leaseMs: number;
    shutdownGraceMs: number;
    keepCompletedDays: number;
    keepFailedDays: number;
  };
  ai: {
    openai: ProviderConfig;
    anthropic: ProviderConfig;
    gemini: ProviderConfig;
    stability: ProviderConfig;
    timeoutMs: number;
    maxRetries: number;
    /** model used for helper calls (prefill suggestions, generated report prompts, content tools) */
    defaultModel: string;
    /** models asked for visibility reports, one per provider family */
    reportModels: string[];
    reportConcurrency: number;
  };
  traffic: {
    scriptAliasPath: string | undefined;
    collectAliasPath: string | undefined;
    flushMs: number;
    /** raw visits and page views are kept for the current UTC day and this many minus one before it */
    keepRawDays: number;
  };
  images: {
    /** generated images are served and kept this many days, then pruned */
    keepDays: number;
  };
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function url(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, "");
}

function path(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  if (!/^\/[A-Za-z0-9._~\-/]*$/.test(raw) || raw.includes("..")) {
    throw new ConfigError(`${name} must be an absolute URL path like /stats/s.js, got "${raw}"`);
  }
  return raw;
}

function provider(env: Env, prefix: string): ProviderConfig {
  return { apiKey: env[`${prefix}_API_KEY`] || undefined, baseURL: url(env, `${prefix}_BASE_URL`) };
}

function list(env: Env, name: string, fallback: string[]): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const items = raw.split(",").map((s) => s.trim()).filter(Boolean);
  for (const item of items) {
    if (!/^[A-Za-z0-9._:\-/]+$/.test(item)) throw new ConfigError(`${name} has an invalid model id "${item}"`);
  }
  return items;
}

/** CLI flags that override environment variables, e.g. `--port 8080` → PORT. */
const FLAG_TO_ENV: Record<string, string> = {
  "--port": "PORT",
  "--host": "HOST",
  "--data-dir": "AIVIS_DATA_DIR",
  "--public-url": "AIVIS_PUBLIC_URL",
};

export function applyFlags(env: Env, flags: Record<string, string>): Env {
  const out = { ...env };
  for (const [flag, value] of Object.entries(flags)) {
    const name = FLAG_TO_ENV[flag];
    if (name) out[name] = value;
  }
  return out;
}

export const CONFIG_FLAGS = Object.keys(FLAG_TO_ENV);

export function loadConfig(env: Env = process.env): Config {
  const dataDir = resolve(env.AIVIS_DATA_DIR || "./data");
  const publicUrl = url(env, "AIVIS_PUBLIC_URL");
  const host = env.HOST || "0.0.0.0";
  return {
    port: int(env, "PORT", 3000, 0, 65535),
    host,
    dataDir,
    dbPath: resolve(dataDir, "aivis.sqlite"),
    publicUrl,
    bodyLimitBytes: int(env, "AIVIS_BODY_LIMIT_BYTES", 1_048_576, 1024, 64 * 1_048_576),
    rateLimitPerMinute: int(env, "AIVIS_RATE_LIMIT_PER_MINUTE", 300, 1, 1_000_000),
    trustProxy: bool(env, "AIVIS_TRUST_PROXY", false),
    logRequests: bool(env, "AIVIS_LOG_REQUESTS", true),
    cookieSecure: bool(env, "AIVIS_COOKIE_SECURE", publicUrl?.startsWith("https://") ?? false),
    fetchAllowPrivate: bool(env, "AIVIS_FETCH_ALLOW_PRIVATE", false),
    worker: {
      enabled: bool(env, "AIVIS_WORKER", true),
      pollMs: int(env, "AIVIS_WORKER_POLL_MS", 1000, 10, 600_000),
      concurrency: int(env, "AIVIS_WORKER_CONCURRENCY", 4, 1, 256),
      leaseMs: int(env, "AIVIS_JOB_LEASE_MS", 30_000, 500, 3_600_000),
      shutdownGraceMs: int(env, "AIVIS_SHUTDOWN_GRACE_MS", 10_000, 0, 600_000),
      keepCompletedDays: int(env, "AIVIS_JOB_KEEP_COMPLETED_DAYS", 7, 0, 3650),
      keepFailedDays: int(env, "AIVIS_JOB_KEEP_FAILED_DAYS", 30, 0, 3650),
    },
    ai: {
      openai: provider(env, "OPENAI"),
      anthropic: provider(env, "ANTHROPIC"),
      gemini: provider(env, "GEMINI"),
      stability: provider(env, "STABILITY"),
      timeoutMs: int(env, "AIVIS_AI_TIMEOUT_MS", 60_000, 100, 600_000),
      maxRetries: int(env, "AIVIS_AI_MAX_RETRIES", 2, 0, 10),
      defaultModel: list(env, "AIVIS_DEFAULT_MODEL", ["gpt-4o-mini"])[0],
      reportModels: list(env, "AIVIS_REPORT_MODELS", ["gpt-4o-mini", "claude-haiku-4-5", "gemini-2.5-flash"]),
      reportConcurrency: int(env, "AIVIS_REPORT_CONCURRENCY", 8, 1, 64),
    },
    traffic: {
      scriptAliasPath: path(env, "AIVIS_TRACKER_SCRIPT_PATH"),
      collectAliasPath: path(env, "AIVIS_TRACKER_COLLECT_PATH"),
      flushMs: int(env, "AIVIS_INGEST_FLUSH_MS", 5, 0, 1000),
      // at least 2: ingestion looks back into yesterday
      keepRawDays: int(env, "AIVIS_TRAFFIC_KEEP_RAW_DAYS", 90, 2, 3650),
    },
    images: {
      keepDays: int(env, "AIVIS_IMAGE_KEEP_DAYS", 90, 1, 3650),
    },
  };
}
