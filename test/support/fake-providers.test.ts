// The fake provider server speaks each wire format well enough for the real SDKs to parse it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { type FakeProviders, startFakeProviders } from "./fake-providers";

let fake: FakeProviders;
beforeAll(async () => {
  fake = await startFakeProviders();
});
afterAll(() => fake.stop());

const openai = () => new OpenAI({ apiKey: fake.env.OPENAI_API_KEY, baseURL: fake.env.OPENAI_BASE_URL, maxRetries: 0 });

describe("fake providers through the real SDKs", () => {
  test("openai chat completion: default answer derived from the prompt, call recorded", async () => {
    fake.reset();
    const r = await openai().chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "system", content: "be brief" }, { role: "user", content: "hello there" }],
    });
    expect(r.choices[0].message.content).toBe("Answer from openai gpt-4o-mini: hello there");
    expect(fake.calls[0]).toMatchObject({ family: "openai", kind: "chat", model: "gpt-4o-mini", system: "be brief", user: "hello there", status: 200 });
  });

  test("openai streaming reassembles to the same text", async () => {
    fake.reset();
    fake.answer = () => "one two three";
    const stream = await openai().chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "x" }], stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    expect(text).toBe("one two three");
    expect(fake.calls[0].stream).toBe(true);
  });

  test("responses API with web_search returns url citations", async () => {
    fake.reset();
    fake.answer = () => ({ text: "See https://a.example/x and more.", citations: [{ url: "https://a.example/x", title: "A" }] });
    const r = await openai().responses.create({ model: "gpt-4.1", input: "who sells shoes", instructions: "sys", tools: [{ type: "web_search" }] });
    expect(r.output_text).toBe("See https://a.example/x and more.");
    const msg = r.output.find((o) => o.type === "message") as any;
    expect(msg.content[0].annotations[0]).toMatchObject({ type: "url_citation", url: "https://a.example/x", start_index: 4 });
    expect(fake.calls[0]).toMatchObject({ kind: "responses", webSearch: true, system: "sys", user: "who sells shoes" });
  });

  test("dall-e-3 image as b64_json", async () => {
    fake.reset();
    const r = await openai().images.generate({ model: "dall-e-3", prompt: "a cat", size: "1024x1024", response_format: "b64_json" });
    const png = Buffer.from(r.data![0].b64_json!, "base64");
    expect([...png.subarray(1, 4)]).toEqual([80, 78, 71]);
    expect(fake.calls[0]).toMatchObject({ family: "openai", kind: "image", size: "1024x1024", user: "a cat" });
  });

  test("anthropic messages", async () => {
    fake.reset();
    const client = new Anthropic({ apiKey: fake.env.ANTHROPIC_API_KEY, baseURL: fake.env.ANTHROPIC_BASE_URL, maxRetries: 0 });
    const r = await client.messages.create({ model: "claude-haiku-4-5", max_tokens: 100, system: "sys", messages: [{ role: "user", content: "hi" }] });
    expect(r.content[0].type === "text" && r.content[0].text).toBe("Answer from anthropic claude-haiku-4-5: hi");
    expect(fake.calls[0]).toMatchObject({ family: "anthropic", system: "sys", user: "hi" });
  });

  test("gemini via its OpenAI-compatible path", async () => {
    fake.reset();
    const client = new OpenAI({ apiKey: fake.env.GEMINI_API_KEY, baseURL: fake.env.GEMINI_BASE_URL, maxRetries: 0 });
    const r = await client.chat.completions.create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "hey" }] });
    expect(r.choices[0].message.content).toBe("Answer from gemini gemini-2.5-flash: hey");
    expect(fake.calls[0]).toMatchObject({ family: "gemini", path: "/v1beta/openai/chat/completions" });
  });

  test("stability ultra: multipart in, png bytes or JSON base64 out", async () => {
    fake.reset();
    const form = new FormData();
    form.set("prompt", "a dog");
    form.set("aspect_ratio", "16:9");
    const url = `${fake.env.STABILITY_BASE_URL}/v2beta/stable-image/generate/ultra`;
    const auth = { authorization: `Bearer ${fake.env.STABILITY_API_KEY}` };
    const bin = await fetch(url, { method: "POST", body: form, headers: { ...auth, accept: "image/*" } });
    expect(bin.headers.get("content-type")).toBe("image/png");
    const json = await (await fetch(url, { method: "POST", body: form, headers: { ...auth, accept: "application/json" } })).json();
    expect(Buffer.from(json.image, "base64").equals(Buffer.from(await bin.arrayBuffer()))).toBe(true);
    expect(fake.calls[0]).toMatchObject({ family: "stability", size: "16:9", user: "a dog" });
  });

  test("failNext answers errors in the provider's format, then recovers; wrong key → 401", async () => {
    fake.reset();
    fake.failNext("openai", 503, 2);
    const client = openai();
    for (let i = 0; i < 2; i++) {
      const err = await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect(err.status).toBe(503);
    }
    expect((await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "x" }] })).choices[0].message.content).toContain("x");
    const bad = new OpenAI({ apiKey: "wrong", baseURL: fake.env.OPENAI_BASE_URL, maxRetries: 0 });
    const err = await bad.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(err.status).toBe(401);
    expect(fake.calls.map((c) => c.status)).toEqual([503, 503, 200, 401]);
  });

  test("delayMs makes a client timeout fire", async () => {
    fake.reset();
    fake.delayMs = 2_000;
    const client = new OpenAI({ apiKey: fake.env.OPENAI_API_KEY, baseURL: fake.env.OPENAI_BASE_URL, maxRetries: 0, timeout: 100 });
    const err = await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    fake.delayMs = 0;
  });
});
