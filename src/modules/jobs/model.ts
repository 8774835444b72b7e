// Schemas of GET /v1/ai/generate/job/:jobId (SPEC 2.4, 4.3).
import { t } from "elysia";

/** ids are 26-char ULIDs; the bound leaves room without letting a path carry an essay */
export const jobParams = t.Object({
  jobId: t.String({ minLength: 1, maxLength: 128 }),
});

const epochMsOrNull = t.Union([t.Integer(), t.Null()]);

export const jobView = t.Object({
  jobId: t.String(),
  name: t.String(),
  state: t.String({ description: "waiting, delayed, active, completed or failed" }),
  progress: t.Number({ minimum: 0, maximum: 100 }),
  result: t.Unknown({ description: "the handler's return value once completed, else null" }),
  failedReason: t.Union([t.String(), t.Null()]),
  attemptsMade: t.Integer({ minimum: 0 }),
  processedOn: epochMsOrNull,
  finishedOn: epochMsOrNull,
  data: t.Unknown({ description: "the job input" }),
  queue: t.Union([t.Literal("aiQueue"), t.Literal("seoQueue"), t.Literal("contentQueue")]),
});

export const jobNotFound = t.Object({
  message: t.String(),
  jobId: t.String(),
  errCode: t.Literal("JOB_NOT_FOUND"),
});
