// The OpenAI SDK client for the two families that speak OpenAI's wire format: OpenAI itself
// (chat completions; the Responses API with its web-search tool; dall-e-3 images) and Gemini
// through Google's OpenAI-compatible endpoint. Any OpenAI-compatible server (Ollama, vLLM,
// llama.cpp) can stand in through the base URL.
import OpenAI from "openai";
import type { ProviderConfig } from "../config";
import { describeSdkError, providerError } from "./provider-errors";
import type { CompletionRequest, CompletionResult, ImageRequest, ImageResult } from "./types";

export const DEFAULT_BASE_URLS = {
  openai: "https://api.openai.com/v1",
  gemini: "https://generativelanguage.googleapis.com/v1beta/openai",
} as const;

export interface ClientLimits {
  timeoutMs: number;
  maxRetries: number;
}

// Reasoning models refuse a temperature other than the default.
const FIXED_TEMPERATURE = /^(ft:)?(o\d|gpt-5)/i;

/** The SDK client for a family's configured key, base URL, timeout and retries. */
export function openAiSdk(family: "openai" | "gemini", cfg: ProviderConfig, limits: ClientLimits): OpenAI {
  return new OpenAI({
    // a local server may need no key, but the SDK insists on one
    apiKey: cfg.apiKey ?? "not-needed",
    // always explicit, so the SDK never falls back to process.env behind our config's back
    baseURL: cfg.baseURL ?? DEFAULT_BASE_URLS[family],
    timeout: limits.timeoutMs,
    maxRetries: limits.maxRetries,
  });
}

export function createOpenAiCompatibleClient(family: "openai" | "gemini", cfg: ProviderConfig, limits: ClientLimits) {
  const client = openAiSdk(family, cfg, limits);

  async function call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw providerError(family, describeSdkError(OpenAI, err), limits.timeoutMs);
    }
  }

  async function withWebSearch(req: CompletionRequest): Promise<CompletionResult> {
    const response = await call(() =>
      client.responses.create(
        {
          model: req.model,
          instructions: req.system || undefined,
          input: req.messages.map((m) => ({ role: m.role, content: m.content })),
          tools: [{ type: "web_search" }],
          max_output_tokens: req.maxTokens,
          temperature: FIXED_TEMPERATURE.test(req.model) ? undefined : req.temperature,
        },
        { signal: req.signal },
      ),
    );
    const citations = new Set<string>();
    for (const item of response.output ?? []) {
      if (item.type !== "message") continue;
      for (const part of item.content) {
        if (part.type !== "output_text") continue;
        for (const a of part.annotations ?? []) if (a.type === "url_citation") citations.add(a.url);
      }
    }
    return { text: response.output_text ?? "", model: response.model || req.model, family, citations: [...citations] };
  }

  return {
    async complete(req: CompletionRequest): Promise<CompletionResult> {
      if (req.webSearch) return withWebSearch(req);
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [];
      if (req.system) messages.push({ role: "system", content: req.system });
      for (const m of req.messages) messages.push({ role: m.role, content: m.content });
      const completion = await call(() =>
        client.chat.completions.create(
          {
            model: req.model,
            messages,
            // OpenAI wants max_completion_tokens (reasoning models refuse max_tokens); Gemini's
            // compatibility layer documents max_tokens
            ...(req.maxTokens === undefined ? {} : family === "openai" ? { max_completion_tokens: req.maxTokens } : { max_tokens: req.maxTokens }),
            temperature: FIXED_TEMPERATURE.test(req.model) ? undefined : req.temperature,
          },
          { signal: req.signal },
        ),
      );
      const text = completion.choices?.[0]?.message?.content;
      if (typeof text !== "string") {
        throw providerError(family, { kind: "unknown", message: "the answer had no text content" }, limits.timeoutMs);
      }
      return { text, model: completion.model || req.model, family, citations: [] };
    },

    async image(req: ImageRequest): Promise<ImageResult> {
      const result = await call(() =>
        client.images.generate(
          { model: req.model, prompt: req.prompt, size: req.size as "1024x1024", n: 1, response_format: "b64_json" },
          { signal: req.signal },
        ),
      );
      const b64 = result.data?.[0]?.b64_json;
      if (!b64) throw providerError(family, { kind: "unknown", message: "the answer carried no image" }, limits.timeoutMs);
      return { b64, mimeType: "image/png", model: req.model };
    },
  };
}
