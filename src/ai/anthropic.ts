// The Anthropic family through @anthropic-ai/sdk's Messages API.
import Anthropic from "@anthropic-ai/sdk";
import type { ProviderConfig } from "../config";
import type { ClientLimits } from "./openai-compatible";
import { describeSdkError, providerError } from "./provider-errors";
import type { ChatMessage, CompletionRequest, CompletionResult } from "./types";

export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
// the Messages API requires max_tokens; this is what a caller gets when it sets none
const DEFAULT_MAX_TOKENS = 4096;

/** Anthropic wants user/assistant turns alternating and starting with the user: merge runs, drop a leading reply. */
export function alternatingTurns(messages: ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    if (!out.length && m.role === "assistant") continue;
    const last = out[out.length - 1];
    if (last && last.role === m.role) last.content = `${last.content}\n\n${m.content}`;
    else out.push({ role: m.role, content: m.content });
  }
  return out;
}

export function createAnthropicClient(cfg: ProviderConfig, limits: ClientLimits) {
  const client = new Anthropic({
    apiKey: cfg.apiKey ?? "not-needed",
    baseURL: cfg.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL,
    timeout: limits.timeoutMs,
    maxRetries: limits.maxRetries,
  });

  return {
    async complete(req: CompletionRequest): Promise<CompletionResult> {
      let message: Anthropic.Message;
      try {
        message = await client.messages.create(
          {
            model: req.model,
            max_tokens: req.maxTokens ?? DEFAULT_MAX_TOKENS,
            system: req.system || undefined,
            // no temperature: this SDK's Messages API no longer takes one
            messages: alternatingTurns(req.messages),
          },
          { signal: req.signal },
        );
      } catch (err) {
        throw providerError("anthropic", describeSdkError(Anthropic, err), limits.timeoutMs);
      }
      const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
      return { text, model: message.model || req.model, family: "anthropic", citations: [] };
    },
  };
}
