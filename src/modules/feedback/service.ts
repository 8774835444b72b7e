// Feedback on a generation or a chat reply: validated against what it refers to (a job of the
// workspace, a session or message of the caller), then stored for the operator to read.
import type { AppContext } from "../../context";
import { badRequest, notFound } from "../../http/errors";
import { newId } from "../../platform/ids";
import { getSession, ownsBlock } from "../chat/service";
import type { Principal } from "../users/service";

export type FeedbackSource = "generate" | "chat";

export interface FeedbackInput {
  rating: number;
  comment?: string;
  jobId?: string;
  sessionId?: string;
  messageId?: string;
  model?: string;
  text?: string;
}

export function recordFeedback(ctx: Pick<AppContext, "db" | "clock" | "jobs">, principal: Principal, source: FeedbackSource, input: FeedbackInput) {
  if (!input.jobId && !input.sessionId && !input.messageId && !input.text) {
    throw badRequest("FEEDBACK_TARGET_REQUIRED", "say what the feedback is about: jobId, sessionId, messageId, or the rated text");
  }
  if (input.jobId && !ctx.jobs.get(input.jobId, principal.workspaceId)) {
    throw notFound("JOB_NOT_FOUND", `job ${input.jobId} not found`, { jobId: input.jobId });
  }
  if (input.sessionId) getSession(ctx.db, principal, input.sessionId);
  if (input.messageId && !ownsBlock(ctx.db, principal, input.messageId, input.sessionId)) {
    throw notFound("MESSAGE_NOT_FOUND", `message ${input.messageId} not found${input.sessionId ? " in that session" : ""}`);
  }
  const now = ctx.clock.now();
  const row = {
    id: newId(now),
    workspace_id: principal.workspaceId,
    user_id: principal.userId,
    source,
    rating: input.rating,
    comment: input.comment ?? null,
    job_id: input.jobId ?? null,
    session_id: input.sessionId ?? null,
    message_id: input.messageId ?? null,
    model: input.model ?? null,
    text: input.text ?? null,
    created_at: now,
  };
  ctx.db
    .query(
      `INSERT INTO ai_feedback (id, workspace_id, user_id, source, rating, comment, job_id, session_id, message_id, model, text, created_at)
       VALUES ($id, $workspace_id, $user_id, $source, $rating, $comment, $job_id, $session_id, $message_id, $model, $text, $created_at)`,
    )
    .run(row);
  return {
    id: row.id,
    source,
    rating: row.rating,
    comment: row.comment,
    jobId: row.job_id,
    sessionId: row.session_id,
    messageId: row.message_id,
    model: row.model,
    createdAt: new Date(now).toISOString(),
  };
}
