// Request schemas for the content tools (SPEC 4.2: calculate-seo-score, improve-content-*,
// process-blog-post-with-images).
import { t } from "elysia";

export const MAX_CONTENT_CHARS = 100_000;
export const DEFAULT_METRIC_TYPE = "general";
export const VALIDATION_DEFAULTS = { targetScore: 80, maxIterations: 3, improvePrompt: "Improve this content for search engines and readers." };
export const BLOG_IMAGE_DEFAULTS = { imageCount: 3, imageModel: "dall-e-3" as const, dallESize: "1792x1024", stabilityAspectRatio: "16:9" };

const content = t.String({ minLength: 1, maxLength: MAX_CONTENT_CHARS, description: "Markdown or HTML" });
const title = t.String({ minLength: 1, maxLength: 300 });
const keywords = t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 10 });
const improvePrompt = t.String({ minLength: 1, maxLength: 4000 });
const metricType = t.String({ minLength: 1, maxLength: 50, description: "label of what to optimize for; default general" });
const model = t.String({ minLength: 1, maxLength: 100, description: "text model id; default AIVIS_DEFAULT_MODEL" });

export const seoScoreBody = t.Object({
  content,
  title: t.Optional(title),
  keywords: t.Optional(keywords),
  autoExtractKeywords: t.Optional(t.Boolean({ description: "default true: extract keywords when none are given" })),
});

export const improveSimpleBody = t.Object({
  content,
  improvePrompt,
  metricType: t.Optional(metricType),
  title: t.Optional(title),
  keywords: t.Optional(keywords),
  model: t.Optional(model),
});

export const improveValidationBody = t.Object({
  content,
  improvePrompt: t.Optional(improvePrompt),
  metricType: t.Optional(metricType),
  title: t.Optional(title),
  keywords: t.Optional(keywords),
  model: t.Optional(model),
  targetScore: t.Optional(t.Integer({ minimum: 1, maximum: 100, description: "stop once the SEO score reaches this; default 80" })),
  maxIterations: t.Optional(t.Integer({ minimum: 1, maximum: 5, description: "improve → score rounds at most; default 3" })),
  useWorker: t.Optional(t.Boolean({ description: "true queues a job (202 with jobId)" })),
});

export const blogImagesBody = t.Object({
  content: t.String({ minLength: 1, maxLength: MAX_CONTENT_CHARS, description: "the blog post in Markdown" }),
  title: t.Optional(title),
  imageCount: t.Optional(t.Integer({ minimum: 1, maximum: 6, description: "default 3" })),
  imageModel: t.Optional(t.Union([t.Literal("dall-e-3"), t.Literal("stability-ultra")], { description: "default dall-e-3" })),
  size: t.Optional(t.String({ minLength: 1, maxLength: 20, description: "dall-e-3: WIDTHxHEIGHT (default 1792x1024); stability-ultra: aspect ratio (default 16:9)" })),
  style: t.Optional(t.String({ minLength: 1, maxLength: 500, description: "art direction added to every image prompt" })),
});
