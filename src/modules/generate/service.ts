// Text, chat and image generation (SPEC 4.2): checks the model and plan, builds the prompts,
// pays with credits (reserved before the provider is called, refunded when it fails), and for
// queued text runs the same work in the contentQueue worker.
import { refundUsage, reserveCredits, type Reservation, withCredits } from "../../ai/credits";
import { assertModelAllowed, assertWebSearchSupported, validateImageRequest } from "../../ai/models";
import { notConfigured } from "../../ai/provider-errors";
import type { CompletionRequest, ProviderFamily } from "../../ai/types";
import type { AppContext } from "../../context";
import { AppError, badRequest } from "../../http/errors";
import { NonRetryableJobError } from "../../jobs";
import type { FailedJob, JobContext } from "../../jobs/types";
import { extractReadableText } from "../../lib/html-text";
import { safeFetch } from "../../lib/safe-fetch";
import { assistantContextText } from "../assistant/context";
import { buildAssistantContext } from "../assistant/service";
import { findUsableBrandVoice, listActiveBrandVoices } from "../brand-voice/service";
import { recentHistory, recordExchange } from "../chat/service";
import { generateStoredImage } from "../images/service";
import type { Principal } from "../users/service";
import { TEXT_JOB_TYPES, type TextJobType } from "./model";
import { type BrandVoiceStyle, CHAT_BASE_PROMPT, composeSystemPrompt, withAttachment } from "./prompt";

/** A queued text job: one try plus one retry on top of the provider SDK's own retries. */
export const TEXT_JOB_ATTEMPTS = 2;
/** Messages of a session sent back to the model as history (the newest ones). */
export const CHAT_HISTORY_MESSAGES = 20;
const ATTACHMENT_TYPES = ["text/*", "application/json", "application/xhtml+xml"];
const ATTACHMENT_MAX_BYTES = 2 * 1024 * 1024;

export interface TextInput {
  text: string;
  model: string;
  systemPrompt?: string;
  brandVoiceId?: string;
  brandVoice?: boolean;
  file?: string;
  useWorker?: boolean;
  jobType?: string;
  options?: { maxTokens?: number; temperature?: number; [key: string]: unknown };
}

export interface ChatInput {
  text: string;
  model: string;
  sessionId?: string;
  systemPrompt?: string;
  useWorkspaceContext?: boolean;
  brandVoiceId?: string;
  webpageContext?: string;
  webSearch?: boolean;
}

interface TextJobData {
  input: Omit<TextInput, "useWorker">;
  /** the composed system prompt (brand voice resolved when the job was queued) */
  system: string;
  reservation: Reservation;
}

/** The family of a text model the caller may use, with its provider configured; throws 400/403/503. */
function checkTextModel(ctx: AppContext, principal: Principal, model: string, webSearch = false): ProviderFamily {
  const family = ctx.ai.familyOf(model);
  assertModelAllowed(model, principal.plan);
  if (webSearch) assertWebSearchSupported(model, family);
  // before any credit moves: a request that cannot reach a provider should not even reserve one
  if (!ctx.ai.isConfigured(family)) throw notConfigured(family);
  return family;
}

/** The brand voice to write in: the one named, else (brandVoice: true) the newest the caller can use, else none. */
function brandVoiceFor(ctx: AppContext, principal: Principal, brandVoiceId: string | undefined, enabled: boolean | undefined): BrandVoiceStyle | null {
  if (brandVoiceId) return findUsableBrandVoice(ctx.db, principal, brandVoiceId);
  if (!enabled) return null;
  const newest = listActiveBrandVoices(ctx.db, principal)[0];
  return newest ? findUsableBrandVoice(ctx.db, principal, newest.id) : null;
}

/** Fetches an attached document (https, public address, text types) and returns its readable text. */
async function fetchAttachment(ctx: AppContext, url: string, signal?: AbortSignal): Promise<{ url: string; text: string }> {
  const doc = await safeFetch(url, { config: ctx.config, accept: ATTACHMENT_TYPES, maxBytes: ATTACHMENT_MAX_BYTES, signal });
  const raw = doc.text();
  const text = doc.mediaType.includes("html") ? extractReadableText(raw).text : raw;
  return { url: doc.url, text };
}

function completionRequest(input: Pick<TextInput, "model" | "options">, system: string, prompt: string, signal?: AbortSignal): CompletionRequest {
  return {
    model: input.model,
    system: system || undefined,
    messages: [{ role: "user", content: prompt }],
    maxTokens: input.options?.maxTokens,
    temperature: input.options?.temperature,
    signal,
  };
}

/** POST /text inline: the text, paid with one credit. */
export async function generateText(ctx: AppContext, principal: Principal, input: TextInput) {
  checkTextModel(ctx, principal, input.model);
  const voice = brandVoiceFor(ctx, principal, input.brandVoiceId, input.brandVoice);
  const system = composeSystemPrompt({ systemPrompt: input.systemPrompt, brandVoice: voice });
  // fetched before paying: a bad attachment costs nothing
  const attachment = input.file ? await fetchAttachment(ctx, input.file) : null;
  const result = await withCredits(ctx, principal, 1, () => ctx.ai.complete(completionRequest(input, system, withAttachment(input.text, attachment))));
  return { message: "Text generated", text: result.text, model: result.model, family: result.family };
}

function jobTypeOf(input: TextInput): TextJobType {
  const name = input.jobType ?? "ai_tool_content";
  if (!(TEXT_JOB_TYPES as readonly string[]).includes(name)) {
    throw badRequest("UNKNOWN_JOB_TYPE", `jobType must be one of ${TEXT_JOB_TYPES.join(", ")}`);
  }
  return name as TextJobType;
}

/** POST /text with useWorker: validates and reserves the credit now, generates in the contentQueue worker. */
export async function enqueueText(ctx: AppContext, principal: Principal, input: TextInput): Promise<{ message: string; jobId: string }> {
  const name = jobTypeOf(input);
  checkTextModel(ctx, principal, input.model);
  const voice = brandVoiceFor(ctx, principal, input.brandVoiceId, input.brandVoice);
  const system = composeSystemPrompt({ systemPrompt: input.systemPrompt, brandVoice: voice });
  const { useWorker: _, ...rest } = input;
  const reservation = reserveCredits(ctx, principal, 1);
  try {
    const data: TextJobData = { input: rest, system, reservation };
    const { jobId } = ctx.jobs.enqueue("contentQueue", name, principal.workspaceId, data, { attempts: TEXT_JOB_ATTEMPTS });
    return { message: "Text generation queued; poll GET /v1/ai/generate/job/:jobId", jobId };
  } catch (err) {
    refundUsage(ctx.db, reservation);
    ctx.log("error", "could not queue a text job", { error: err instanceof Error ? err.message : String(err) });
    throw new AppError(500, "QUEUE_FAILED", "the generation could not be queued; nothing was charged");
  }
}

/** Whether another attempt could succeed: provider outages and timeouts yes, bad input or configuration no. */
function worthRetrying(err: unknown): boolean {
  if (!(err instanceof AppError)) return true;
  return err.status === 429 || err.status === 502 || err.status === 504 || err.errCode === "PROVIDER_ABORTED";
}

/** The contentQueue handler for every TEXT_JOB_TYPES name. */
export function textJobHandler(ctx: AppContext) {
  return async (job: JobContext<TextJobData>) => {
    const { input, system } = job.data;
    try {
      const attachment = input.file ? await fetchAttachment(ctx, input.file, job.signal) : null;
      const result = await ctx.ai.complete(completionRequest(input, system, withAttachment(input.text, attachment), job.signal));
      return { text: result.text, model: result.model, family: result.family };
    } catch (err) {
      if (worthRetrying(err)) throw err;
      throw new NonRetryableJobError(err instanceof Error ? err.message : String(err));
    }
  };
}

/**
 * The text jobs' onFailed hook: a job that failed for good gives its credit back, in the
 * transaction that fails it, whether its last attempt threw or its worker died on it.
 */
export function refundFailedTextJob(ctx: AppContext) {
  return (job: FailedJob<TextJobData>) => refundUsage(ctx.db, job.data.reservation);
}

/** POST /chat: one exchange in a session (created when new), paid with one credit. */
export async function generateChat(ctx: AppContext, principal: Principal, input: ChatInput) {
  checkTextModel(ctx, principal, input.model, input.webSearch);
  const voice = brandVoiceFor(ctx, principal, input.brandVoiceId, undefined);
  const workspaceContext = input.useWorkspaceContext === false ? null : assistantContextText(buildAssistantContext(ctx, principal));
  const system = composeSystemPrompt({
    base: CHAT_BASE_PROMPT,
    systemPrompt: input.systemPrompt,
    brandVoice: voice,
    workspaceContext,
    webpageContext: input.webpageContext,
  });
  const sessionId = input.sessionId ?? crypto.randomUUID();
  const history = recentHistory(ctx.db, principal, sessionId, CHAT_HISTORY_MESSAGES);
  const reply = await withCredits(ctx, principal, 1, () =>
    ctx.ai.complete({ model: input.model, system, messages: [...history, { role: "user", content: input.text }], webSearch: input.webSearch }),
  );
  const { session, blocks } = recordExchange(ctx.db, ctx.clock.now(), principal, {
    sessionId,
    userText: input.text,
    reply: { text: reply.text, model: reply.model, citations: reply.citations },
  });
  return { message: "Reply generated", sessionId, text: reply.text, model: reply.model, family: reply.family, citations: reply.citations, blocks, session };
}

/** POST /image: one image on the image allowance, returned as base64 and also stored, linked under `publicBase`. */
export async function generateImage(ctx: AppContext, principal: Principal, input: { text: string; model: string; size: string }, publicBase: string) {
  const model = validateImageRequest(input.model, input.size);
  const image = await generateStoredImage(ctx, principal, { model, prompt: input.text, size: input.size }, publicBase);
  return { message: "Image generated", model, size: input.size, image: { id: image.id, url: image.url, mimeType: image.mimeType, b64: image.b64 } };
}
