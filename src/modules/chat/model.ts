// Schemas of the chat-session routes (SPEC 2.7, 4.6) and of the session and block objects, which
// POST /v1/ai/generate/chat returns too.
import { t } from "elysia";

export const blockSchema = t.Object({
  id: t.String(),
  role: t.Union([t.Literal("user"), t.Literal("assistant")]),
  content: t.String(),
  model: t.Nullable(t.String()),
  citations: t.Array(t.String()),
  createdAt: t.String(),
});

export const sessionSchema = t.Object({
  sessionId: t.String(),
  title: t.Nullable(t.String()),
  model: t.Nullable(t.String()),
  blockCount: t.Integer(),
  createdAt: t.String(),
  updatedAt: t.String(),
});

export const sessionIdParams = t.Object({
  sessionId: t.String({ minLength: 1, maxLength: 100 }),
});

export const skipQuery = t.Object({
  skip: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
});

export const createSessionBody = t.Optional(
  t.Object({
    sessionId: t.Optional(t.String({ minLength: 1, maxLength: 100, pattern: "^[A-Za-z0-9_.:-]+$", description: "client-generated id (a UUID works)" })),
  }),
);

export const sessionListResponse = t.Object({
  message: t.String(),
  chatHistory: t.Array(sessionSchema),
  skip: t.Integer(),
  hasMore: t.Boolean(),
});

export const sessionWithBlocksResponse = t.Object({
  message: t.String(),
  sessionId: t.Nullable(t.String()),
  session: t.Nullable(sessionSchema),
  blocks: t.Array(blockSchema),
  skip: t.Integer(),
  hasMore: t.Boolean(),
});

export const createSessionResponse = t.Object({ message: t.String(), sessionId: t.String(), session: sessionSchema });

export const deleteSessionResponse = t.Object({ message: t.String(), sessionId: t.String() });

export const fineTuningJobResponse = t.Object({
  message: t.String(),
  job: t.Nullable(
    t.Object({
      id: t.String(),
      status: t.String({ description: "validating_files, queued, running, succeeded, failed or cancelled" }),
      baseModel: t.String(),
      fineTunedModel: t.Nullable(t.String({ description: "the ft:… model id once it succeeded" })),
      createdAt: t.String(),
      finishedAt: t.Nullable(t.String()),
      estimatedFinishAt: t.Nullable(t.String()),
      trainedTokens: t.Nullable(t.Integer()),
      error: t.Nullable(t.String()),
    }),
    { description: "the newest OpenAI fine-tuning job tagged with metadata aivis_workspace = this workspace's id; null when there is none (README)" },
  ),
});
