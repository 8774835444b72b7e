// Turns what went wrong at a provider into our error shape, so clients never see a raw SDK error,
// a stack, or a provider's 401 dressed up as ours. Pure: each client describes its failure first.
import { AppError } from "../http/errors";

export type ProviderName = "openai" | "anthropic" | "gemini" | "stability";

export type ProviderFailure =
  | { kind: "status"; status: number; message: string; retryAfterSeconds?: number }
  | { kind: "timeout" }
  | { kind: "aborted" }
  | { kind: "unreachable"; message: string }
  | { kind: "unknown"; message: string };

/** The environment variables that configure a provider, for messages that tell the operator what to set. */
function envPrefix(provider: ProviderName): string {
  return provider.toUpperCase();
}

export function notConfigured(provider: ProviderName): AppError {
  const p = envPrefix(provider);
  return new AppError(
    503,
    "PROVIDER_NOT_CONFIGURED",
    `the ${provider} provider is not configured: set ${p}_API_KEY (or ${p}_BASE_URL for a compatible local server)`,
  );
}

function clip(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

export function providerError(provider: ProviderName, failure: ProviderFailure, timeoutMs: number): AppError {
  const p = envPrefix(provider);
  switch (failure.kind) {
    case "timeout":
      return new AppError(504, "PROVIDER_TIMEOUT", `${provider} did not answer within ${timeoutMs} ms (AIVIS_AI_TIMEOUT_MS)`);
    case "aborted":
      return new AppError(503, "PROVIDER_ABORTED", `the ${provider} request was cancelled (server shutting down)`);
    case "unreachable":
      return new AppError(502, "PROVIDER_UNREACHABLE", `could not reach ${provider}: ${clip(failure.message)} (check ${p}_BASE_URL)`);
    case "unknown":
      return new AppError(502, "PROVIDER_ERROR", `${provider} failed: ${clip(failure.message)}`);
    case "status": {
      const { status } = failure;
      const said = clip(failure.message);
      if (status === 401 || status === 403) {
        return new AppError(502, "PROVIDER_AUTH_FAILED", `${provider} refused our credentials (${status}); check ${p}_API_KEY`);
      }
      if (status === 429) {
        return new AppError(429, "PROVIDER_RATE_LIMITED", `${provider} is rate limiting or out of quota; try again later (${said})`, {}, {
          "retry-after": String(Math.max(1, Math.ceil(failure.retryAfterSeconds ?? 30))),
        });
      }
      if (status >= 400 && status < 500 && status !== 408 && status !== 409) {
        return new AppError(400, "PROVIDER_REJECTED", `${provider} rejected the request (${status}): ${said}`);
      }
      return new AppError(502, "PROVIDER_ERROR", `${provider} answered ${status}: ${said}`);
    }
  }
}

/** Seconds from retry-after / retry-after-ms headers, when present. */
export function retryAfterSeconds(headers: Headers | undefined | null): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get("retry-after-ms"));
  if (Number.isFinite(ms) && ms > 0) return ms / 1000;
  const raw = headers.get("retry-after");
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, (date - Date.now()) / 1000) : undefined;
}

/** The error classes both Stainless-generated SDKs (openai, @anthropic-ai/sdk) expose statically. */
export interface SdkErrorClasses {
  APIError: abstract new (...args: any[]) => Error & { status?: number; headers?: Headers };
  APIUserAbortError: abstract new (...args: any[]) => Error;
  APIConnectionError: abstract new (...args: any[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: any[]) => Error;
}

/** What an SDK call's rejection means, in terms providerError understands. */
export function describeSdkError(sdk: SdkErrorClasses, err: unknown): ProviderFailure {
  if (err instanceof sdk.APIUserAbortError) return { kind: "aborted" };
  if (err instanceof sdk.APIConnectionTimeoutError) return { kind: "timeout" };
  if (err instanceof sdk.APIConnectionError) {
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    return { kind: "unreachable", message: cause ?? err.message };
  }
  if (err instanceof sdk.APIError) {
    const e = err as Error & { status?: number; headers?: Headers };
    return { kind: "status", status: e.status ?? 502, message: e.message, retryAfterSeconds: retryAfterSeconds(e.headers) };
  }
  return { kind: "unknown", message: err instanceof Error ? err.message : String(err) };
}
