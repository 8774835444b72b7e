// The content tools: SEO scoring (no AI, no credit), one-pass and validated improvement (1 AI
// credit per model call, like /text), and blog-post illustration (image usage per image, run as
// a job, the images stored and linked by URL). Queued work re-resolves the caller from the user id
// it carries.
import { refundUsage, reserveCredits, reserveUsage, withCredits } from "../../ai/credits";
import { assertModelAllowed, validateImageRequest } from "../../ai/models";
import { notConfigured } from "../../ai/provider-errors";
import type { ImageModel } from "../../ai/types";
import type { AppContext } from "../../context";
import { AppError } from "../../http/errors";
import { NonRetryableJobError } from "../../jobs";
import type { JobContext } from "../../jobs/types";
import { generateStoredImage } from "../images/service";
import { getUser, type Principal, principalFor } from "../users/service";
import { planBlogImages, placeImages } from "./image-plan";
import { BLOG_IMAGE_DEFAULTS, DEFAULT_METRIC_TYPE, VALIDATION_DEFAULTS } from "./model";
import { cleanModelOutput, IMPROVE_SYSTEM_PROMPT, improveUserPrompt } from "./prompts";
import { type SeoReport, scoreSeo } from "./seo-score";

export const IMPROVE_VALIDATION_JOB = "improve_content_with_validation";
export const BLOG_IMAGES_JOB = "process_blog_post_with_images";

export interface ImproveInput {
  content: string;
  improvePrompt: string;
  metricType?: string;
  title?: string;
  keywords?: string[];
  model?: string;
}

export interface ValidationInput extends Omit<ImproveInput, "improvePrompt"> {
  improvePrompt?: string;
  targetScore?: number;
  maxIterations?: number;
}

export interface BlogImagesInput {
  content: string;
  title?: string;
  imageCount?: number;
  imageModel?: ImageModel;
  size?: string;
  style?: string;
}

/** The parts of an SEO report returned by the improvement tools for "before" and "after". */
const summary = (r: SeoReport) => ({ score: r.score, grade: r.grade, keywords: r.keywords, metrics: r.metrics, suggestions: r.suggestions });

/** The text model to use (default AIVIS_DEFAULT_MODEL), checked for plan and configuration before any credit moves. */
function usableTextModel(ctx: AppContext, principal: Principal, requested: string | undefined): string {
  const model = requested ?? ctx.config.ai.defaultModel;
  const family = ctx.ai.familyOf(model);
  assertModelAllowed(model, principal.plan);
  if (!ctx.ai.isConfigured(family)) throw notConfigured(family);
  return model;
}

/** One rewrite for 1 credit (refunded when the provider fails or answers nothing). */
async function rewrite(ctx: AppContext, principal: Principal, model: string, prompt: string, signal?: AbortSignal): Promise<{ text: string; model: string }> {
  return withCredits(ctx, principal, 1, async () => {
    const r = await ctx.ai.complete({ model, system: IMPROVE_SYSTEM_PROMPT, messages: [{ role: "user", content: prompt }], signal });
    const text = cleanModelOutput(r.text);
    if (!text) throw new AppError(502, "EMPTY_AI_RESPONSE", `${r.model} returned no content`);
    return { text, model: r.model };
  });
}

/** POST /improve-content-simple: one rewrite following improvePrompt, scored before and after with the same keywords. */
export async function improveContentSimple(ctx: AppContext, principal: Principal, input: ImproveInput) {
  const model = usableTextModel(ctx, principal, input.model);
  const metricType = input.metricType ?? DEFAULT_METRIC_TYPE;
  const before = scoreSeo({ content: input.content, title: input.title, keywords: input.keywords });
  const out = await rewrite(ctx, principal, model, improveUserPrompt({ ...input, metricType, keywords: before.keywords }));
  const after = scoreSeo({ content: out.text, title: input.title, keywords: before.keywords });
  return {
    message: "Content improved",
    content: out.text,
    metricType,
    model: out.model,
    seoScore: { before: before.score, after: after.score, change: after.score - before.score },
    before: summary(before),
    after: summary(after),
    creditsUsed: 1,
  };
}

function assertPaidPlan(principal: Principal): void {
  if (!principal.plan.paid) {
    throw new AppError(403, "FEATURE_RESTRICTED", `improve-content-with-validation needs a paid plan; the ${principal.plan.label} plan does not include it`);
  }
}

/**
 * POST /improve-content-with-validation: improve → score rounds until the target score or the
 * iteration cap. Each round sends the current best version with the scorer's suggestions; a
 * rewrite that scores lower is reported but not kept. An error after the first round (credits
 * running out, a provider failure) ends the loop early with what was reached.
 */
export async function improveWithValidation(
  ctx: AppContext,
  principal: Principal,
  input: ValidationInput,
  progress: (pct: number) => void = () => {},
  signal?: AbortSignal,
) {
  assertPaidPlan(principal);
  const model = usableTextModel(ctx, principal, input.model);
  const metricType = input.metricType ?? DEFAULT_METRIC_TYPE;
  const targetScore = input.targetScore ?? VALIDATION_DEFAULTS.targetScore;
  const maxIterations = input.maxIterations ?? VALIDATION_DEFAULTS.maxIterations;
  const improvePrompt = input.improvePrompt ?? VALIDATION_DEFAULTS.improvePrompt;

  const initial = scoreSeo({ content: input.content, title: input.title, keywords: input.keywords });
  const keywords = initial.keywords;
  let best = { content: input.content, report: initial };
  let usedModel = model;
  const iterations: { iteration: number; score: number; kept: boolean; suggestions: string[] }[] = [];
  let stoppedBecause: "targetReached" | "maxIterations" | "creditsExhausted" | "providerError" = "maxIterations";
  let stopError: string | null = null;

  for (let i = 1; i <= maxIterations && best.report.score < targetScore; i++) {
    const prompt = improveUserPrompt({ content: best.content, improvePrompt, metricType, title: input.title, keywords, review: best.report });
    let out: { text: string; model: string };
    try {
      out = await rewrite(ctx, principal, model, prompt, signal);
    } catch (err) {
      // after a paid round, keep what it bought rather than failing the whole request
      if (!(err instanceof AppError) || iterations.length === 0) throw err;
      stoppedBecause = err.errCode === "CREDITS_EXHAUSTED" ? "creditsExhausted" : "providerError";
      stopError = err.message;
      break;
    }
    usedModel = out.model;
    const report = scoreSeo({ content: out.text, title: input.title, keywords });
    const kept = report.score >= best.report.score;
    iterations.push({ iteration: i, score: report.score, kept, suggestions: report.suggestions.map((s) => s.message) });
    if (kept) best = { content: out.text, report };
    progress(Math.round((i / maxIterations) * 100));
  }
  if (best.report.score >= targetScore) stoppedBecause = "targetReached";

  return {
    message: best.report.score >= targetScore ? "Content improved to the target score" : "Content improved; target score not reached",
    content: best.content,
    metricType,
    model: usedModel,
    targetScore,
    reachedTarget: best.report.score >= targetScore,
    stoppedBecause,
    error: stopError,
    seoScore: { before: initial.score, after: best.report.score, change: best.report.score - initial.score },
    iterations,
    before: summary(initial),
    after: summary(best.report),
    creditsUsed: iterations.length,
  };
}

interface QueuedWork<I> {
  userId: string;
  input: I;
}

interface QueuedBlogImages extends QueuedWork<BlogImagesInput> {
  /** the base image URLs start with, fixed when the job was queued (absent on jobs queued before images were stored) */
  publicBase?: string;
}

/** The caller of a queued job, as of now (plan changes and bans since queueing apply). */
function principalOfJob(ctx: AppContext, job: JobContext<QueuedWork<unknown>>): Principal {
  const user = getUser(ctx.db, job.data.userId);
  if (!user || user.banned) throw new NonRetryableJobError("the user who queued this job no longer exists or is banned");
  return principalFor(ctx.db, user, "apiKey", `job:${job.id}`);
}

/** Queues improve-with-validation after the checks that would fail it anyway (plan, model, at least one credit). */
export function enqueueImproveWithValidation(ctx: AppContext, principal: Principal, input: ValidationInput): { message: string; jobId: string } {
  assertPaidPlan(principal);
  usableTextModel(ctx, principal, input.model);
  // probe: the canonical 403 CREDITS_EXHAUSTED now rather than a failed job later
  refundUsage(ctx.db, reserveCredits(ctx, principal, 1));
  // one attempt: a retry would pay for the rounds again
  const { jobId } = ctx.jobs.enqueue<QueuedWork<ValidationInput>>("contentQueue", IMPROVE_VALIDATION_JOB, principal.workspaceId, { userId: principal.userId, input }, { attempts: 1 });
  return { message: "Content improvement queued", jobId };
}

function imageSettings(ctx: AppContext, input: BlogImagesInput): { model: ImageModel; size: string } {
  const requested = input.imageModel ?? BLOG_IMAGE_DEFAULTS.imageModel;
  const size = input.size ?? (requested === "dall-e-3" ? BLOG_IMAGE_DEFAULTS.dallESize : BLOG_IMAGE_DEFAULTS.stabilityAspectRatio);
  const model = validateImageRequest(requested, size);
  const configured = model === "dall-e-3" ? ctx.ai.isConfigured("openai") : Boolean(ctx.config.ai.stability.apiKey || ctx.config.ai.stability.baseURL);
  if (!configured) throw notConfigured(model === "dall-e-3" ? "openai" : "stability");
  return { model, size };
}

/**
 * Queues illustration of a blog post; 400 when the post has nothing to illustrate, 403 when the
 * image allowance cannot cover it. `publicBase` (AIVIS_PUBLIC_URL or the request's origin) is what
 * the image URLs in the result start with.
 */
export function enqueueBlogImages(ctx: AppContext, principal: Principal, input: BlogImagesInput, publicBase: string): { message: string; jobId: string } {
  imageSettings(ctx, input);
  const count = input.imageCount ?? BLOG_IMAGE_DEFAULTS.imageCount;
  if (planBlogImages(input.content, { count, title: input.title }).length === 0) {
    throw new AppError(400, "NOTHING_TO_ILLUSTRATE", "the post has no paragraphs or sections to place images in");
  }
  // probe: 403 IMAGE_LIMIT_REACHED now if the allowance cannot cover the planned images
  refundUsage(ctx.db, reserveUsage(ctx.db, principal.workspaceId, principal.plan, "images", count, ctx.clock.now()));
  const { jobId } = ctx.jobs.enqueue<QueuedBlogImages>("contentQueue", BLOG_IMAGES_JOB, principal.workspaceId, { userId: principal.userId, input, publicBase }, { attempts: 1 });
  return { message: "Blog post queued for image generation", jobId };
}

/**
 * The job: plan the images, generate and store them one by one (1 image usage each), link the
 * ones that succeeded under their sections by URL. Fails only when no image could be made.
 */
export async function processBlogPostWithImages(
  ctx: AppContext,
  principal: Principal,
  input: BlogImagesInput,
  publicBase: string,
  progress: (pct: number) => void = () => {},
  signal?: AbortSignal,
) {
  const { model, size } = imageSettings(ctx, input);
  const plan = planBlogImages(input.content, { count: input.imageCount ?? BLOG_IMAGE_DEFAULTS.imageCount, title: input.title, style: input.style });
  const images: { id: string; url: string; section: string; alt: string; prompt: string; mimeType: string; bytes: number }[] = [];
  const failed: { section: string; prompt: string; error: string }[] = [];
  const placements: { afterToken: number; alt: string; src: string }[] = [];
  for (const [i, planned] of plan.entries()) {
    try {
      const image = await generateStoredImage(ctx, principal, { model, prompt: planned.prompt, size, signal }, publicBase);
      placements.push({ afterToken: planned.afterToken, alt: planned.alt, src: image.url });
      images.push({ id: image.id, url: image.url, section: planned.section, alt: planned.alt, prompt: planned.prompt, mimeType: image.mimeType, bytes: image.bytes });
    } catch (err) {
      failed.push({ section: planned.section, prompt: planned.prompt, error: err instanceof Error ? err.message : String(err) });
    }
    progress(Math.round(((i + 1) / plan.length) * 100));
  }
  if (images.length === 0) throw new NonRetryableJobError(`no image could be generated: ${failed[0]?.error ?? "nothing planned"}`);
  return {
    message: failed.length ? "Blog post processed; some images failed" : "Blog post processed",
    content: placeImages(input.content, placements),
    imageModel: model,
    size,
    imageCount: images.length,
    images,
    failed,
  };
}

/** Registers the content tools' job handlers (contentQueue). */
export function registerContentJobs(ctx: AppContext): void {
  ctx.jobs.register<QueuedWork<ValidationInput>>(IMPROVE_VALIDATION_JOB, (job) =>
    improveWithValidation(ctx, principalOfJob(ctx, job), job.data.input, (p) => job.updateProgress(p), job.signal),
  );
  ctx.jobs.register<QueuedBlogImages>(BLOG_IMAGES_JOB, (job) =>
    processBlogPostWithImages(ctx, principalOfJob(ctx, job), job.data.input, job.data.publicBase ?? ctx.config.publicUrl ?? "", (p) => job.updateProgress(p), job.signal),
  );
}
