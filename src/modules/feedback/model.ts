// Request and response schemas of POST /feedback (on /v1/ai/generate and /v1/ai/chat).
import { t } from "elysia";

const ref = (description: string) => t.Optional(t.String({ minLength: 1, maxLength: 100, description }));

export const feedbackBody = t.Object({
  rating: t.Integer({ minimum: 1, maximum: 5, description: "1 (bad) to 5 (good); a thumbs UI sends 1 or 5" }),
  comment: t.Optional(t.String({ maxLength: 2000 })),
  jobId: ref("a queued generation (POST /text with useWorker) of this workspace"),
  sessionId: ref("one of the caller's chat sessions"),
  messageId: ref("a message block id from a chat reply"),
  model: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
  text: t.Optional(t.String({ minLength: 1, maxLength: 20_000, description: "the generated text being rated (inline generations have no id)" })),
});

export const feedbackResponse = t.Object({
  message: t.String(),
  feedback: t.Object({
    id: t.String(),
    source: t.Union([t.Literal("generate"), t.Literal("chat")]),
    rating: t.Integer(),
    comment: t.Nullable(t.String()),
    jobId: t.Nullable(t.String()),
    sessionId: t.Nullable(t.String()),
    messageId: t.Nullable(t.String()),
    model: t.Nullable(t.String()),
    createdAt: t.String(),
  }),
});
