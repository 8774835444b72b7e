// /v1/ai/generate: text (inline or queued), chat replies, images, and feedback (SPEC 4.2). The
// text job handlers are registered here, while the app is composed, before the worker claims.
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../http/auth";
import { feedbackRoutes } from "../feedback";
import { publicBase } from "../traffic/service";
import { chatBody, chatResponse, imageBody, imageResponse, queuedResponse, TEXT_JOB_TYPES, textBody, textResponse } from "./model";
import { enqueueText, generateChat, generateImage, generateText, refundFailedTextJob, textJobHandler } from "./service";

export function generateModule(ctx: AppContext, auth: AuthPlugin) {
  const handler = textJobHandler(ctx);
  const onFailed = refundFailedTextJob(ctx);
  for (const name of TEXT_JOB_TYPES) ctx.jobs.register(name, handler, { onFailed });

  return new Elysia({ prefix: "/v1/ai/generate", tags: ["generate"] })
    .use(auth)
    .post(
      "/text",
      async ({ principal, body, set }) => {
        if (body.useWorker) {
          set.status = 202;
          return enqueueText(ctx, principal, body);
        }
        return generateText(ctx, principal, body);
      },
      {
        auth: "api",
        body: textBody,
        response: { 200: textResponse, 202: queuedResponse },
        detail: { summary: "Generate text inline (200, 1 credit) or queued with useWorker (202 {message, jobId})" },
      },
    )
    .post("/chat", ({ principal, body }) => generateChat(ctx, principal, body), {
      auth: "api",
      body: chatBody,
      response: { 200: chatResponse },
      detail: { summary: "One chat exchange in a session (created when sessionId is new or omitted); 1 credit" },
    })
    .post("/image", ({ principal, body, request }) => generateImage(ctx, principal, body, publicBase(ctx.config, request)), {
      auth: "api",
      body: imageBody,
      response: { 200: imageResponse },
      detail: { summary: "Generate an image (dall-e-3 or stability-ultra), returned as base64 and stored with an id and URL; counts toward the image allowance" },
    })
    .use(feedbackRoutes(ctx, auth, "generate"));
}
