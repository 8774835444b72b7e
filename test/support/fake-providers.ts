// One local HTTP server that speaks the AI providers' wire formats deterministically, so tests
// drive the real openai / @anthropic-ai/sdk clients (and our Stability fetch) without a network.
//
//   const fake = await startFakeProviders();
//   const s = await startTestServer({ ...fake.env });
//   fake.answer = (family, model, system, prompt) => `scripted reply to ${prompt}`;
//   fake.failNext("anthropic", 500, 2);   // the next two Anthropic calls get a 500
//   fake.delayMs = 2_000;                 // every response waits (timeouts)
//   fake.calls                            // what was asked, in order (failed attempts included)
//
// Routes (the paths the SDKs build from the base URLs in `env`):
//   openai    POST /v1/chat/completions (incl. stream: true SSE), /v1/responses (web_search tool →
//             url_citation annotations), /v1/images/generations (dall-e-3, b64_json);
//             GET /v1/fine_tuning/jobs (newest first, honours limit and metadata[k]=v) over
//             `fake.fineTuningJobs`
//   gemini    POST /v1beta/openai/chat/completions (Gemini's OpenAI-compatible endpoint), also
//             /v1beta/openai/responses and /images/generations under it
//   anthropic POST /v1/messages
//   stability POST /v2beta/stable-image/generate/ultra (multipart in; image bytes for
//             accept: image/*, JSON {image: base64} for accept: application/json)
import { deflateSync } from "node:zlib";

export type FakeFamily = "openai" | "anthropic" | "gemini" | "stability";
export type FakeKind = "chat" | "responses" | "image" | "messages" | "fine_tuning";

export interface FakeCitation {
  url: string;
  title?: string;
}

/** What the answer hook may return: plain text, or text with explicit web-search citations. */
export type FakeAnswer = string | { text: string; citations?: FakeCitation[] };

export interface FakeCall {
  family: FakeFamily;
  kind: FakeKind;
  path: string;
  model: string;
  /** the system / instructions text, joined; "" when none */
  system: string;
  /** the text of the last user message (the image prompt for image calls) */
  user: string;
  /** the full conversation as role + text */
  messages: { role: string; content: string }[];
  stream: boolean;
  webSearch: boolean;
  /** dall-e-3 size or stability aspect_ratio */
  size?: string;
  /** the key the client presented (Bearer or x-api-key) */
  apiKey: string | null;
  /** the status this fake answered with */
  status: number;
  /** parsed request body (JSON) or the multipart fields */
  body: Record<string, unknown>;
  at: number;
}

export type AnswerFn = (
  family: FakeFamily,
  model: string,
  system: string,
  prompt: string,
  call: FakeCall,
) => FakeAnswer | Promise<FakeAnswer>;

/** What a test puts in `fake.fineTuningJobs`; the rest of OpenAI's job object is filled in. */
export interface FakeFineTuningJob {
  id: string;
  model: string;
  status: "validating_files" | "queued" | "running" | "succeeded" | "failed" | "cancelled";
  /** seconds since the epoch, like OpenAI */
  created_at: number;
  metadata?: Record<string, string> | null;
  fine_tuned_model?: string | null;
  finished_at?: number | null;
  estimated_finish?: number | null;
  trained_tokens?: number | null;
  error?: { code: string; message: string; param: string | null } | null;
}

export interface FakeProvidersOptions {
  answer?: AnswerFn;
  delayMs?: number;
  /** answer 401 when the presented key differs from the one in `env` (default true) */
  requireKeys?: boolean;
}

export interface FakeProviders {
  url: string;
  /** provider variables for startTestServer / loadConfig: every family configured */
  env: {
    OPENAI_BASE_URL: string;
    OPENAI_API_KEY: string;
    ANTHROPIC_BASE_URL: string;
    ANTHROPIC_API_KEY: string;
    GEMINI_BASE_URL: string;
    GEMINI_API_KEY: string;
    STABILITY_BASE_URL: string;
    STABILITY_API_KEY: string;
  };
  calls: FakeCall[];
  /** the OpenAI account's fine-tuning jobs, in any order (listed newest first) */
  fineTuningJobs: FakeFineTuningJob[];
  /** false: the job list ignores the metadata filter, like a careless compatible server */
  fineTuningFilter: boolean;
  /** decides every reply; replace it freely. Reset with `fake.answer = defaultAnswer`. */
  answer: AnswerFn;
  /** every response waits this long first (abortable: a client timeout ends it) */
  delayMs: number;
  /** the next `times` requests of this family answer `status` in that provider's error format */
  failNext(family: FakeFamily, status: number, times?: number): void;
  /** calls of one family (convenience filter over `calls`) */
  callsOf(family: FakeFamily): FakeCall[];
  /** forget recorded calls, pending failures, delay and fine-tuning jobs, and restore the default answer */
  reset(): void;
  stop(): Promise<void>;
}

/** Deterministic, derived from the prompt: tests can predict it without scripting anything. */
export const defaultAnswer: AnswerFn = (family, model, _system, prompt) =>
  `Answer from ${family} ${model}: ${prompt.slice(0, 500)}`;

const KEYS = {
  openai: "sk-fake-openai",
  anthropic: "sk-ant-fake",
  gemini: "fake-gemini-key",
  stability: "sk-fake-stability",
} as const;

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function pngChunk(type: string, data: Uint8Array): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(Bun.hash.crc32(typed) >>> 0);
  return Buffer.concat([len, typed, crc]);
}

/** A valid 1×1 PNG whose colour is derived from the prompt, so different prompts differ. */
export function fakePng(prompt: string): Buffer {
  const h = fnv1a(prompt);
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  const raw = Buffer.from([0, h & 255, (h >> 8) & 255, (h >> 16) & 255]);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", deflateSync(raw)),
    pngChunk("IEND", new Uint8Array(0)),
  ]);
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "string" ? part : typeof part?.text === "string" ? part.text : ""))
      .filter(Boolean)
      .join("\n");
  }
  return "";
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const URL_RE = /https?:\/\/[^\s)"'<>\]]+/g;

/** Citations: the ones the hook gave, else URLs in the text, else one derived from the prompt. */
function citationsFor(answer: { text: string; citations?: FakeCitation[] }, prompt: string): { text: string; citations: FakeCitation[] } {
  if (answer.citations) return { text: answer.text, citations: answer.citations };
  const found = [...new Set(answer.text.match(URL_RE) ?? [])].map((url) => ({ url }));
  if (found.length) return { text: answer.text, citations: found };
  const url = `https://example.com/source/${fnv1a(prompt).toString(16)}`;
  return { text: `${answer.text} (source: ${url})`, citations: [{ url }] };
}

function errorResponse(family: FakeFamily, status: number, message: string): Response {
  // retry-after-ms keeps the SDKs' retry back-off short in tests (both SDKs honour it)
  const headers = { "content-type": "application/json", "retry-after-ms": "5" };
  if (family === "anthropic") {
    const type = status === 429 ? "rate_limit_error" : status === 401 ? "authentication_error" : status >= 500 ? "api_error" : "invalid_request_error";
    return new Response(JSON.stringify({ type: "error", error: { type, message } }), { status, headers });
  }
  if (family === "stability") {
    return new Response(JSON.stringify({ id: "fake-error", name: status === 429 ? "rate_limit_exceeded" : "server_error", errors: [message] }), { status, headers });
  }
  const type = status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
  return new Response(JSON.stringify({ error: { message, type, param: null, code: type } }), { status, headers });
}

function sse(events: (string | object)[]): Response {
  const body = events.map((e) => (typeof e === "string" ? e : `data: ${JSON.stringify(e)}\n\n`)).join("");
  return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

export async function startFakeProviders(opts: FakeProvidersOptions = {}): Promise<FakeProviders> {
  const failures = new Map<FakeFamily, { status: number; times: number }[]>();
  let seq = 0;

  function takeFailure(family: FakeFamily): number | null {
    const queue = failures.get(family);
    const head = queue?.[0];
    if (!head) return null;
    head.times -= 1;
    if (head.times <= 0) queue!.shift();
    return head.status;
  }

  function route(path: string): { family: FakeFamily; kind: FakeKind } | null {
    const gemini = path.startsWith("/v1beta/openai/");
    if (path.endsWith("/chat/completions")) return { family: gemini ? "gemini" : "openai", kind: "chat" };
    if (path.endsWith("/responses")) return { family: gemini ? "gemini" : "openai", kind: "responses" };
    if (path.endsWith("/images/generations")) return { family: gemini ? "gemini" : "openai", kind: "image" };
    if (path === "/v1/messages") return { family: "anthropic", kind: "messages" };
    if (path === "/v2beta/stable-image/generate/ultra") return { family: "stability", kind: "image" };
    return null;
  }

  async function parseCall(request: Request, family: FakeFamily, kind: FakeKind, path: string): Promise<FakeCall> {
    const auth = request.headers.get("authorization");
    const apiKey = request.headers.get("x-api-key") ?? (auth?.startsWith("Bearer ") ? auth.slice(7) : auth);
    let body: Record<string, unknown> = {};
    if (family === "stability") {
      const form = await request.formData();
      for (const [k, v] of form.entries()) body[k] = typeof v === "string" ? v : `[file ${(v as File).name}]`;
    } else {
      body = (await request.json().catch(() => ({}))) as Record<string, unknown>;
    }
    const messages: { role: string; content: string }[] = [];
    const system: string[] = [];
    if (kind === "chat") {
      for (const m of (body.messages as { role: string; content: unknown }[]) ?? []) {
        if (m.role === "system" || m.role === "developer") system.push(textOf(m.content));
        else messages.push({ role: m.role, content: textOf(m.content) });
      }
    } else if (kind === "messages") {
      if (body.system) system.push(textOf(body.system));
      for (const m of (body.messages as { role: string; content: unknown }[]) ?? []) messages.push({ role: m.role, content: textOf(m.content) });
    } else if (kind === "responses") {
      if (typeof body.instructions === "string") system.push(body.instructions);
      if (typeof body.input === "string") messages.push({ role: "user", content: body.input });
      else {
        for (const m of (body.input as { role: string; content: unknown }[]) ?? []) {
          if (m.role === "system" || m.role === "developer") system.push(textOf(m.content));
          else messages.push({ role: m.role, content: textOf(m.content) });
        }
      }
    } else {
      messages.push({ role: "user", content: String(body.prompt ?? "") });
    }
    const tools = (body.tools as { type?: string }[] | undefined) ?? [];
    const user = [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
    return {
      family,
      kind,
      path,
      model: family === "stability" ? "stability-ultra" : String(body.model ?? ""),
      system: system.join("\n"),
      user,
      messages,
      stream: body.stream === true,
      webSearch: tools.some((t) => typeof t.type === "string" && t.type.startsWith("web_search")),
      size: (body.size ?? body.aspect_ratio) as string | undefined,
      apiKey,
      status: 200,
      body,
      at: Date.now(),
    };
  }

  /** GET /v1/fine_tuning/jobs: OpenAI's cursor page, newest first, filtered by metadata[k]=v. */
  function fineTuningPage(url: URL): Response {
    const wanted = [...url.searchParams].flatMap(([k, v]) => {
      const key = /^metadata\[(.+)\]$/.exec(k)?.[1];
      return key ? [[key, v] as const] : [];
    });
    const limit = Number(url.searchParams.get("limit") ?? 20);
    const jobs = [...fake.fineTuningJobs]
      .sort((a, b) => b.created_at - a.created_at)
      .filter((job) => !fake.fineTuningFilter || wanted.every(([k, v]) => job.metadata?.[k] === v));
    const data = jobs.slice(0, limit).map((job) => ({
      object: "fine_tuning.job", organization_id: "org-fake", training_file: "file-fake", validation_file: null,
      result_files: [], seed: 42, hyperparameters: { n_epochs: "auto" }, fine_tuned_model: null, finished_at: null,
      trained_tokens: null, error: null, metadata: null, ...job,
    }));
    return Response.json({ object: "list", data, has_more: jobs.length > limit });
  }

  async function reply(call: FakeCall, request: Request): Promise<Response> {
    const raw = await fake.answer(call.family, call.model, call.system, call.user, call);
    const answer = typeof raw === "string" ? { text: raw } : raw;
    const id = `fake-${++seq}`;
    const created = Math.floor(Date.now() / 1000);

    if (call.family === "stability") {
      const png = fakePng(call.user);
      if ((request.headers.get("accept") ?? "").includes("application/json")) {
        return Response.json({ image: png.toString("base64"), finish_reason: "SUCCESS", seed: fnv1a(call.user) });
      }
      return new Response(new Uint8Array(png), { headers: { "content-type": "image/png", "finish-reason": "SUCCESS", seed: String(fnv1a(call.user)) } });
    }

    if (call.kind === "image") {
      return Response.json({ created, data: [{ b64_json: fakePng(call.user).toString("base64"), revised_prompt: answer.text }] });
    }

    if (call.kind === "messages") {
      return Response.json({
        id, type: "message", role: "assistant", model: call.model,
        content: [{ type: "text", text: answer.text }],
        stop_reason: "end_turn", stop_sequence: null,
        usage: { input_tokens: call.user.length, output_tokens: answer.text.length },
      });
    }

    if (call.kind === "responses") {
      const { text, citations } = call.webSearch ? citationsFor(answer, call.user) : { text: answer.text, citations: [] };
      const annotations = citations.map((c) => {
        const start = Math.max(0, text.indexOf(c.url));
        return { type: "url_citation", start_index: start, end_index: start + c.url.length, url: c.url, title: c.title ?? c.url };
      });
      const output: object[] = [];
      if (call.webSearch) output.push({ type: "web_search_call", id: `ws_${id}`, status: "completed", action: { type: "search", query: call.user } });
      output.push({
        type: "message", id: `msg_${id}`, status: "completed", role: "assistant",
        content: [{ type: "output_text", text, annotations }],
      });
      return Response.json({
        id: `resp_${id}`, object: "response", created_at: created, status: "completed", model: call.model,
        output, usage: { input_tokens: call.user.length, output_tokens: text.length, total_tokens: call.user.length + text.length },
      });
    }

    // chat completions (openai and gemini)
    if (call.stream) {
      const words = answer.text.split(/(?<=\s)/);
      const chunk = (delta: object, finish: string | null) => ({
        id, object: "chat.completion.chunk", created, model: call.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
      return sse([
        chunk({ role: "assistant", content: "" }, null),
        ...words.map((w) => chunk({ content: w }, null)),
        chunk({}, "stop"),
        "data: [DONE]\n\n",
      ]);
    }
    return Response.json({
      id, object: "chat.completion", created, model: call.model,
      choices: [{ index: 0, message: { role: "assistant", content: answer.text, refusal: null }, finish_reason: "stop", logprobs: null }],
      usage: { prompt_tokens: call.user.length, completion_tokens: answer.text.length, total_tokens: call.user.length + answer.text.length },
    });
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const path = url.pathname;
      if (request.method === "GET" && path === "/v1/fine_tuning/jobs") {
        const auth = request.headers.get("authorization");
        const call: FakeCall = {
          family: "openai", kind: "fine_tuning", path, model: "", system: "", user: "", messages: [], stream: false, webSearch: false,
          apiKey: auth?.startsWith("Bearer ") ? auth.slice(7) : auth, status: 200, body: Object.fromEntries(url.searchParams), at: Date.now(),
        };
        fake.calls.push(call);
        const status = requireKeys && call.apiKey !== KEYS.openai ? 401 : takeFailure("openai");
        if (status !== null) {
          call.status = status;
          return errorResponse("openai", status, `fake openai: ${status === 401 ? "invalid api key" : `scripted failure ${status}`}`);
        }
        return fineTuningPage(url);
      }
      const r = request.method === "POST" ? route(path) : null;
      if (!r) return new Response(JSON.stringify({ error: { message: `fake providers: no route ${request.method} ${path}` } }), { status: 404 });
      const call = await parseCall(request, r.family, r.kind, path);
      fake.calls.push(call);
      await sleep(fake.delayMs, request.signal);
      if (request.signal.aborted) {
        call.status = 499;
        return new Response(null, { status: 499 });
      }
      if (requireKeys && call.apiKey !== KEYS[r.family]) {
        call.status = 401;
        return errorResponse(r.family, 401, `fake ${r.family}: invalid api key`);
      }
      const failure = takeFailure(r.family);
      if (failure !== null) {
        call.status = failure;
        return errorResponse(r.family, failure, `fake ${r.family}: scripted failure ${failure}`);
      }
      try {
        return await reply(call, request);
      } catch (err) {
        call.status = 500;
        return errorResponse(r.family, 500, `fake ${r.family}: answer hook threw: ${(err as Error).message}`);
      }
    },
  });

  const requireKeys = opts.requireKeys ?? true;
  const url = `http://127.0.0.1:${server.port}`;
  const fake: FakeProviders = {
    url,
    env: {
      OPENAI_BASE_URL: `${url}/v1`,
      OPENAI_API_KEY: KEYS.openai,
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: KEYS.anthropic,
      GEMINI_BASE_URL: `${url}/v1beta/openai`,
      GEMINI_API_KEY: KEYS.gemini,
      STABILITY_BASE_URL: url,
      STABILITY_API_KEY: KEYS.stability,
    },
    calls: [],
    fineTuningJobs: [],
    fineTuningFilter: true,
    answer: opts.answer ?? defaultAnswer,
    delayMs: opts.delayMs ?? 0,
    failNext(family, status, times = 1) {
      const queue = failures.get(family) ?? [];
      queue.push({ status, times });
      failures.set(family, queue);
    },
    callsOf(family) {
      return fake.calls.filter((c) => c.family === family);
    },
    reset() {
      fake.calls.length = 0;
      fake.fineTuningJobs.length = 0;
      fake.fineTuningFilter = true;
      failures.clear();
      fake.delayMs = 0;
      fake.answer = opts.answer ?? defaultAnswer;
    },
    async stop() {
      await server.stop(true);
    },
  };
  return fake;
}
