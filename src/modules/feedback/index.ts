// POST /feedback, mounted under both /v1/ai/generate and /v1/ai/chat (SPEC 4.2, 4.6).
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../http/auth";
import { feedbackBody, feedbackResponse } from "./model";
import { type FeedbackSource, recordFeedback } from "./service";

export function feedbackRoutes(ctx: AppContext, auth: AuthPlugin, source: FeedbackSource) {
  return new Elysia().use(auth).post(
    "/feedback",
    ({ principal, body, set }) => {
      const feedback = recordFeedback(ctx, principal, source, body);
      set.status = 201;
      return { message: "Feedback recorded", feedback };
    },
    {
      auth: "api",
      body: feedbackBody,
      response: { 201: feedbackResponse },
      detail: { summary: `Rate a ${source === "chat" ? "chat reply" : "generation"} (1–5) with an optional comment` },
    },
  );
}
