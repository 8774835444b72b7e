// Content tools under /v1/ai/generate (SPEC 4.2): calculate-seo-score, improve-content-simple,
// improve-content-with-validation (paid plans; inline or queued) and process-blog-post-with-images
// (always queued).
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../http/auth";
import { publicBase } from "../traffic/service";
import { blogImagesBody, improveSimpleBody, improveValidationBody, seoScoreBody } from "./model";
import { scoreSeo } from "./seo-score";
import {
  enqueueBlogImages,
  enqueueImproveWithValidation,
  improveContentSimple,
  improveWithValidation,
  registerContentJobs,
} from "./service";

export function contentModule(ctx: AppContext, auth: AuthPlugin) {
  registerContentJobs(ctx);

  return new Elysia({ prefix: "/v1/ai/generate", tags: ["content"] })
    .use(auth)
    .post("/calculate-seo-score", ({ body }) => ({ message: "SEO score calculated", ...scoreSeo(body) }), {
      auth: "api",
      body: seoScoreBody,
      detail: { summary: "Deterministic SEO score with sub-scores and suggestions (no AI, no credit)" },
    })
    .post("/improve-content-simple", ({ principal, body }) => improveContentSimple(ctx, principal, body), {
      auth: "api",
      body: improveSimpleBody,
      detail: { summary: "One AI rewrite following improvePrompt, with SEO scores before and after (1 credit)" },
    })
    .post(
      "/improve-content-with-validation",
      ({ principal, body, set }) => {
        const { useWorker, ...input } = body;
        if (!useWorker) return improveWithValidation(ctx, principal, input);
        set.status = 202;
        return enqueueImproveWithValidation(ctx, principal, input);
      },
      {
        auth: "api",
        body: improveValidationBody,
        detail: { summary: "Improve → score rounds until a target score (paid plans; 1 credit per round; useWorker queues it)" },
      },
    )
    .post(
      "/process-blog-post-with-images",
      ({ principal, body, set, request }) => {
        set.status = 202;
        return enqueueBlogImages(ctx, principal, body, publicBase(ctx.config, request));
      },
      {
        auth: "api",
        body: blogImagesBody,
        detail: { summary: "Queue a job that plans, generates, stores and links images in a Markdown blog post (image usage per image)" },
      },
    );
}
