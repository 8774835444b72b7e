// createAiProviders through the real SDKs against the local fake provider server.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createAiProviders } from "../../src/ai/providers";
import { loadConfig, type Env } from "../../src/config";
import { AppError } from "../../src/http/errors";
import { type FakeProviders, startFakeProviders } from "../support/fake-providers";

let fake: FakeProviders;
beforeAll(async () => {
  fake = await startFakeProviders();
});
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

function providers(env: Env = {}) {
  return createAiProviders(loadConfig({ ...fake.env, AIVIS_AI_MAX_RETRIES: "0", ...env }));
}

async function failure(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(() => null, (e) => e);
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

const ask = (model: string, extra: object = {}) => ({ model, system: "be brief", messages: [{ role: "user" as const, content: "hello" }], ...extra });

describe("routing per family through the real SDKs", () => {
  test.each([
    ["gpt-4o-mini", "openai", "/v1/chat/completions"],
    ["o3-mini", "openai", "/v1/chat/completions"],
    ["claude-haiku-4-5", "anthropic", "/v1/messages"],
    ["gemini-2.5-flash", "gemini", "/v1beta/openai/chat/completions"],
  ])("%s → %s", async (model, family, path) => {
    const r = await providers().complete(ask(model));
    expect(r).toEqual({ text: `Answer from ${family} ${model}: hello`, model, family: family as any, citations: [] });
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]).toMatchObject({ family, path, model, system: "be brief", user: "hello" });
  });

  test("conversation history reaches the provider in order; anthropic turns are made alternating", async () => {
    const messages = [
      { role: "assistant" as const, content: "stray greeting" },
      { role: "user" as const, content: "a" },
      { role: "assistant" as const, content: "b" },
      { role: "user" as const, content: "c" },
      { role: "user" as const, content: "d" },
    ];
    await providers().complete({ model: "claude-x", messages });
    expect(fake.calls[0].messages).toEqual([
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
      { role: "user", content: "c\n\nd" },
    ]);
  });

  test("the answer hook sees family, model, system and prompt", async () => {
    fake.answer = (family, model, system, prompt) => `${family}|${model}|${system}|${prompt}`;
    expect((await providers().complete(ask("gemini-pro"))).text).toBe("gemini|gemini-pro|be brief|hello");
  });

  test("webSearch on OpenAI uses the Responses API and returns the cited URLs", async () => {
    fake.answer = () => ({ text: "Try https://shoes.example and https://boots.example", citations: [{ url: "https://shoes.example" }, { url: "https://boots.example" }] });
    const r = await providers().complete(ask("gpt-4.1", { webSearch: true }));
    expect(r.citations).toEqual(["https://shoes.example", "https://boots.example"]);
    expect(r.text).toBe("Try https://shoes.example and https://boots.example");
    expect(fake.calls[0]).toMatchObject({ kind: "responses", webSearch: true, system: "be brief", user: "hello" });
  });

  test.each(["claude-sonnet-4", "gemini-2.5-pro"])("webSearch with %s → 400 WEB_SEARCH_UNSUPPORTED, no provider call", async (model) => {
    const err = await failure(providers().complete(ask(model, { webSearch: true })));
    expect([err.status, err.errCode]).toEqual([400, "WEB_SEARCH_UNSUPPORTED"]);
    expect(fake.calls).toHaveLength(0);
  });

  test("unknown model → 400 UNKNOWN_MODEL", async () => {
    const err = await failure(providers().complete(ask("llama3")));
    expect([err.status, err.errCode]).toEqual([400, "UNKNOWN_MODEL"]);
  });
});

describe("configuration", () => {
  test("a family with neither key nor base URL → PROVIDER_NOT_CONFIGURED naming the variable", async () => {
    const p = providers({ ANTHROPIC_API_KEY: "", ANTHROPIC_BASE_URL: "" });
    expect(p.isConfigured("anthropic")).toBe(false);
    expect(p.isConfigured("openai")).toBe(true);
    const err = await failure(p.complete(ask("claude-opus-4")));
    expect([err.status, err.errCode]).toEqual([503, "PROVIDER_NOT_CONFIGURED"]);
    expect(err.message).toContain("ANTHROPIC_API_KEY");
    expect(fake.calls).toHaveLength(0);
    // the other families keep working
    expect((await p.complete(ask("gpt-4o"))).family).toBe("openai");
  });

  test("stability unconfigured → the image call names STABILITY_API_KEY", async () => {
    const err = await failure(providers({ STABILITY_API_KEY: "", STABILITY_BASE_URL: "" }).image({ model: "stability-ultra", prompt: "x", size: "1:1" }));
    expect(err.errCode).toBe("PROVIDER_NOT_CONFIGURED");
    expect(err.message).toContain("STABILITY_API_KEY");
  });

  test("a base URL alone (local OpenAI-compatible server, no key) is enough", async () => {
    const open = await startFakeProviders({ requireKeys: false });
    try {
      const p = createAiProviders(loadConfig({ OPENAI_BASE_URL: open.env.OPENAI_BASE_URL }));
      expect(p.isConfigured("openai")).toBe(true);
      expect((await p.complete(ask("gpt-4o"))).text).toBe("Answer from openai gpt-4o: hello");
    } finally {
      await open.stop();
    }
  });

  test("a wrong key → 502 PROVIDER_AUTH_FAILED naming the variable, not the provider's 401", async () => {
    const err = await failure(providers({ GEMINI_API_KEY: "wrong" }).complete(ask("gemini-2.5-flash")));
    expect([err.status, err.errCode]).toEqual([502, "PROVIDER_AUTH_FAILED"]);
    expect(err.message).toContain("GEMINI_API_KEY");
  });
});

describe("failures map to our errors", () => {
  test.each(["openai", "anthropic", "gemini"] as const)("%s 500 → 502 PROVIDER_ERROR", async (family) => {
    const model = { openai: "gpt-4o", anthropic: "claude-3", gemini: "gemini-2" }[family];
    fake.failNext(family, 500);
    const err = await failure(providers().complete(ask(model)));
    expect([err.status, err.errCode]).toEqual([502, "PROVIDER_ERROR"]);
    expect(err.message).not.toContain("    at ");
  });

  test("429 after retries → 429 PROVIDER_RATE_LIMITED with retry-after", async () => {
    fake.failNext("anthropic", 429, 5);
    const err = await failure(providers({ AIVIS_AI_MAX_RETRIES: "1" }).complete(ask("claude-3")));
    expect([err.status, err.errCode]).toEqual([429, "PROVIDER_RATE_LIMITED"]);
    expect(err.headers["retry-after"]).toBeDefined();
    expect(fake.calls).toHaveLength(2);
  });

  test("provider 400 → 400 PROVIDER_REJECTED and no retry", async () => {
    fake.failNext("openai", 400, 5);
    const err = await failure(providers({ AIVIS_AI_MAX_RETRIES: "3" }).complete(ask("gpt-4o")));
    expect([err.status, err.errCode]).toEqual([400, "PROVIDER_REJECTED"]);
    expect(fake.calls).toHaveLength(1);
  });

  test.each(["openai", "anthropic", "gemini"] as const)("%s: 5xx is retried up to AIVIS_AI_MAX_RETRIES, then succeeds", async (family) => {
    const model = { openai: "gpt-4o", anthropic: "claude-3", gemini: "gemini-2" }[family];
    fake.failNext(family, 503, 2);
    const r = await providers({ AIVIS_AI_MAX_RETRIES: "2" }).complete(ask(model));
    expect(r.family).toBe(family);
    expect(fake.calls.map((c) => c.status)).toEqual([503, 503, 200]);
  });

  test("retries are bounded", async () => {
    fake.failNext("gemini", 502, 10);
    const err = await failure(providers({ AIVIS_AI_MAX_RETRIES: "2" }).complete(ask("gemini-2")));
    expect(err.errCode).toBe("PROVIDER_ERROR");
    expect(fake.calls).toHaveLength(3);
  });

  test.each([["gpt-4o"], ["claude-3"]])("%s: a slow provider → 504 PROVIDER_TIMEOUT", async (model) => {
    fake.delayMs = 3_000;
    const err = await failure(providers({ AIVIS_AI_TIMEOUT_MS: "200" }).complete(ask(model)));
    expect([err.status, err.errCode]).toEqual([504, "PROVIDER_TIMEOUT"]);
    expect(err.message).toContain("AIVIS_AI_TIMEOUT_MS");
  });

  test("an unreachable base URL → 502 PROVIDER_UNREACHABLE", async () => {
    const err = await failure(providers({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }).complete(ask("gpt-4o")));
    expect([err.status, err.errCode]).toEqual([502, "PROVIDER_UNREACHABLE"]);
    expect(err.message).toContain("OPENAI_BASE_URL");
  });

  test("an aborted signal → PROVIDER_ABORTED", async () => {
    fake.delayMs = 3_000;
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const err = await failure(providers().complete(ask("gpt-4o", { signal: ac.signal })));
    expect(err.errCode).toBe("PROVIDER_ABORTED");
  });
});

describe("images", () => {
  test("dall-e-3 through the openai SDK: base64 PNG", async () => {
    const r = await providers().image({ model: "dall-e-3", prompt: "a red bicycle", size: "1792x1024" });
    expect(r.model).toBe("dall-e-3");
    expect(r.mimeType).toBe("image/png");
    expect(Buffer.from(r.b64, "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(fake.calls[0]).toMatchObject({ family: "openai", kind: "image", size: "1792x1024", user: "a red bicycle" });
  });

  test("stability-ultra: multipart with the aspect ratio, base64 PNG back; 5xx retried", async () => {
    fake.failNext("stability", 500, 1);
    const r = await providers({ AIVIS_AI_MAX_RETRIES: "1" }).image({ model: "stability-ultra", prompt: "a lighthouse", size: "16:9" });
    expect(Buffer.from(r.b64, "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(fake.calls.map((c) => c.status)).toEqual([500, 200]);
    expect(fake.calls[1]).toMatchObject({ family: "stability", size: "16:9", user: "a lighthouse", apiKey: fake.env.STABILITY_API_KEY });
    expect(fake.calls[1].body.output_format).toBe("png");
  });

  test("stability errors and timeouts map like the SDK families", async () => {
    fake.failNext("stability", 503, 5);
    const err = await failure(providers().image({ model: "stability-ultra", prompt: "x", size: "1:1" }));
    expect([err.status, err.errCode]).toEqual([502, "PROVIDER_ERROR"]);
    fake.reset();
    fake.delayMs = 3_000;
    const slow = await failure(providers({ AIVIS_AI_TIMEOUT_MS: "200" }).image({ model: "stability-ultra", prompt: "x", size: "1:1" }));
    expect(slow.errCode).toBe("PROVIDER_TIMEOUT");
  });

  test("a size outside the model's set → 400 before any call", async () => {
    const err = await failure(providers().image({ model: "dall-e-3", prompt: "x", size: "16:9" }));
    expect([err.status, err.errCode]).toEqual([400, "INVALID_IMAGE_SIZE"]);
    expect(fake.calls).toHaveLength(0);
  });
});
