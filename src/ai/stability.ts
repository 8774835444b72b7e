// Stability AI's stable-image "ultra" endpoint (v2beta), multipart over fetch: there is no SDK.
// Retries 429 and 5xx with exponential back-off (honouring retry-after), like the SDKs do.
import type { ProviderConfig } from "../config";
import type { ClientLimits } from "./openai-compatible";
import { type ProviderFailure, providerError, retryAfterSeconds } from "./provider-errors";
import type { ImageRequest, ImageResult } from "./types";

export const STABILITY_DEFAULT_BASE_URL = "https://api.stability.ai";
const ULTRA_PATH = "/v2beta/stable-image/generate/ultra";

function backoffMs(attempt: number, headers: Headers | undefined): number {
  const hinted = retryAfterSeconds(headers);
  if (hinted !== undefined && hinted <= 60) return hinted * 1000;
  return Math.min(500 * 2 ** attempt, 8000) * (1 - Math.random() * 0.25);
}

function errorText(body: unknown, fallback: string): string {
  const b = body as { errors?: unknown[]; message?: string; name?: string } | null;
  if (Array.isArray(b?.errors) && b.errors.length) return b.errors.map(String).join("; ");
  return b?.message ?? b?.name ?? fallback;
}

export function createStabilityClient(cfg: ProviderConfig, limits: ClientLimits) {
  const url = `${cfg.baseURL ?? STABILITY_DEFAULT_BASE_URL}${ULTRA_PATH}`;

  type Attempt = { result: ImageResult } | { failure: ProviderFailure; retryable: boolean; headers?: Headers };

  async function attempt(req: ImageRequest): Promise<Attempt> {
    const form = new FormData();
    form.set("prompt", req.prompt);
    form.set("aspect_ratio", req.size);
    form.set("output_format", "png");
    const timeout = AbortSignal.timeout(limits.timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        body: form,
        headers: { accept: "application/json", ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}) },
        signal,
      });
    } catch (err) {
      if (req.signal?.aborted) return { failure: { kind: "aborted" }, retryable: false };
      if (timeout.aborted) return { failure: { kind: "timeout" }, retryable: true };
      return { failure: { kind: "unreachable", message: (err as Error).message }, retryable: true };
    }
    const body = await res.json().catch(() => null);
    if (!res.ok) {
      const failure: ProviderFailure = { kind: "status", status: res.status, message: errorText(body, res.statusText), retryAfterSeconds: retryAfterSeconds(res.headers) };
      return { failure, retryable: res.status === 429 || res.status >= 500, headers: res.headers };
    }
    const image = (body as { image?: string; finish_reason?: string } | null)?.image;
    if ((body as { finish_reason?: string })?.finish_reason === "CONTENT_FILTERED") {
      return { failure: { kind: "status", status: 400, message: "the prompt or image was blocked by Stability's content filter" }, retryable: false };
    }
    if (!image) return { failure: { kind: "unknown", message: "the answer carried no image" }, retryable: false };
    return { result: { b64: image, mimeType: "image/png", model: req.model } };
  }

  return {
    async image(req: ImageRequest): Promise<ImageResult> {
      for (let n = 0; ; n++) {
        const r = await attempt(req);
        if ("result" in r) return r.result;
        if (!r.retryable || n >= limits.maxRetries) throw providerError("stability", r.failure, limits.timeoutMs);
        await Bun.sleep(backoffMs(n, r.headers));
      }
    },
  };
}
