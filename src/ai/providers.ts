// createAiProviders: the AiProviders contract (src/ai/types.ts) over the configured families.
// Clients are built on first use, so an unconfigured family costs nothing until someone asks for
// it, and then fails with an error naming the variable to set.
import type { Config, ProviderConfig } from "../config";
import { createAnthropicClient } from "./anthropic";
import { assertWebSearchSupported, familyOfModel, validateImageRequest } from "./models";
import { createOpenAiCompatibleClient } from "./openai-compatible";
import { notConfigured, type ProviderName } from "./provider-errors";
import { createStabilityClient } from "./stability";
import type { AiProviders, CompletionRequest, CompletionResult, ImageRequest, ImageResult, ProviderFamily } from "./types";

type TextClient = { complete(req: CompletionRequest): Promise<CompletionResult> };

function configured(cfg: ProviderConfig): boolean {
  return Boolean(cfg.apiKey || cfg.baseURL);
}

export function createAiProviders(config: Config): AiProviders {
  const limits = { timeoutMs: config.ai.timeoutMs, maxRetries: config.ai.maxRetries };
  const cache = new Map<string, unknown>();

  function once<T>(name: ProviderName, build: () => T): T {
    if (!configured(config.ai[name])) throw notConfigured(name);
    if (!cache.has(name)) cache.set(name, build());
    return cache.get(name) as T;
  }

  const openai = () => once("openai", () => createOpenAiCompatibleClient("openai", config.ai.openai, limits));
  const textClient = (family: ProviderFamily): TextClient => {
    if (family === "openai") return openai();
    if (family === "gemini") return once("gemini", () => createOpenAiCompatibleClient("gemini", config.ai.gemini, limits));
    return once("anthropic", () => createAnthropicClient(config.ai.anthropic, limits));
  };

  return {
    familyOf: familyOfModel,
    isConfigured: (family) => configured(config.ai[family]),
    async complete(req) {
      const family = familyOfModel(req.model);
      if (req.webSearch) assertWebSearchSupported(req.model, family);
      return textClient(family).complete(req);
    },
    async image(req: ImageRequest): Promise<ImageResult> {
      validateImageRequest(req.model, req.size);
      if (req.model === "dall-e-3") return openai().image(req);
      return once("stability", () => createStabilityClient(config.ai.stability, limits)).image(req);
    },
  };
}
