// Request and response schemas of /v1/ai/generate/{text,chat,image} (SPEC 4.2).
import { t } from "elysia";
import { blockSchema, sessionSchema } from "../chat/model";

/** Job names POST /text accepts as jobType; all run the same text handler, the name labels the job. */
export const TEXT_JOB_TYPES = ["ai_tool_content", "ai_tool_blog_post", "ai_tool_social_post", "ai_tool_email", "ai_tool_rewrite"] as const;
export type TextJobType = (typeof TEXT_JOB_TYPES)[number];

const model = t.String({ minLength: 1, maxLength: 100, description: "model id (README: model routing)" });
const sessionId = t.String({ minLength: 1, maxLength: 100, pattern: "^[A-Za-z0-9_.:-]+$", description: "client-generated id (a UUID works)" });
const brandVoiceId = t.String({ minLength: 1, maxLength: 100 });

export const generationOptions = t.Object(
  {
    maxTokens: t.Optional(t.Integer({ minimum: 1, maximum: 32_000 })),
    temperature: t.Optional(t.Number({ minimum: 0, maximum: 2 })),
  },
  { additionalProperties: true, maxProperties: 20, description: "maxTokens and temperature are used; other keys are kept with a queued job's data" },
);

export const textBody = t.Object({
  text: t.String({ minLength: 1, maxLength: 100_000 }),
  model,
  systemPrompt: t.Optional(t.String({ maxLength: 20_000 })),
  brandVoiceId: t.Optional(brandVoiceId),
  brandVoice: t.Optional(t.Boolean({ description: "true without brandVoiceId: apply the newest voice the caller can use (none: no voice)" })),
  file: t.Optional(t.String({ minLength: 1, maxLength: 2048, description: "https URL of a .txt/.md/.html/.json document appended to the prompt" })),
  useWorker: t.Optional(t.Boolean()),
  jobType: t.Optional(t.String({ minLength: 1, maxLength: 64, description: `one of ${TEXT_JOB_TYPES.join(", ")}` })),
  options: t.Optional(generationOptions),
});

export const chatBody = t.Object({
  text: t.String({ minLength: 1, maxLength: 50_000 }),
  model,
  sessionId: t.Optional(sessionId),
  systemPrompt: t.Optional(t.String({ maxLength: 20_000 })),
  useWorkspaceContext: t.Optional(t.Boolean({ default: true })),
  brandVoiceId: t.Optional(brandVoiceId),
  webpageContext: t.Optional(t.String({ maxLength: 200_000 })),
  webSearch: t.Optional(t.Boolean({ description: "OpenAI models only" })),
});

export const imageBody = t.Object({
  text: t.String({ minLength: 1, maxLength: 4000 }),
  model: t.String({ minLength: 1, maxLength: 40, description: "dall-e-3 or stability-ultra" }),
  size: t.String({ minLength: 1, maxLength: 20, description: "dall-e-3: 1024x1024, 1792x1024, 1024x1792; stability-ultra: 1:1, 16:9, 9:16, 21:9, 9:21, 2:3, 3:2, 4:5, 5:4" }),
});

const family = t.Union([t.Literal("openai"), t.Literal("anthropic"), t.Literal("gemini")]);

export const textResponse = t.Object({ message: t.String(), text: t.String(), model: t.String(), family });
export const queuedResponse = t.Object({ message: t.String(), jobId: t.String() });

export const chatResponse = t.Object({
  message: t.String(),
  sessionId: t.String(),
  text: t.String(),
  model: t.String(),
  family,
  citations: t.Array(t.String()),
  blocks: t.Array(blockSchema),
  session: sessionSchema,
});

export const imageResponse = t.Object({
  message: t.String(),
  model: t.String(),
  size: t.String(),
  image: t.Object({
    id: t.String({ description: "the stored image's id" }),
    url: t.String({ description: "where the stored image is served (public capability URL, kept AIVIS_IMAGE_KEEP_DAYS)" }),
    mimeType: t.String(),
    b64: t.String({ description: "base64 of the image bytes (no data: prefix)" }),
  }),
});
