// Composes the Elysia app from the feature plugins. The HTTP wrapper around it (version headers,
// request log, body limit) lives in server.ts so it also covers errors Elysia never sees.
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import type { AppContext } from "./context";
import { authPlugin } from "./http/auth";
import { errorHandler } from "./http/error-handler";
import { AppError } from "./http/errors";
import { chatModule } from "./modules/chat";
import { brandVoiceModule } from "./modules/brand-voice";
import { contentModule } from "./modules/content";
import { dashboardModule } from "./modules/dashboard";
import { docsModule } from "./modules/docs";
import { generateModule } from "./modules/generate";
import { imagesModule } from "./modules/images";
import { jobsModule } from "./modules/jobs";
import { trafficModule } from "./modules/traffic";
import { usersModule } from "./modules/users";
import { createSessionAuth } from "./modules/users/session";
import { visibilityModule } from "./modules/visibility";
import { assistantModule } from "./modules/assistant";

export const VERSION = "0.1.0";

export function createApp(ctx: AppContext) {
  const sessions = createSessionAuth(ctx.db, ctx.config);
  // one auth plugin instance for every module, so the rate limit counts a key across all routes
  const auth = authPlugin(ctx, sessions);
  return new Elysia()
    .use(errorHandler(ctx))
    .use(
      openapi({
        path: "/docs",
        specPath: "/openapi.json",
        // no CDN: the on-prem build must work offline, so only the JSON document is served
        provider: null,
        documentation: {
          info: { title: "aivis API", version: VERSION, description: "AI visibility, generation and AI traffic. See README." },
          components: {
            securitySchemes: {
              apiKey: { type: "apiKey", in: "header", name: "api-key" },
              session: { type: "apiKey", in: "cookie", name: "aivis_session" },
            },
          },
        },
      }),
    )
    .use(docsModule())
    .use(dashboardModule(VERSION))
    .get(
      "/healthz",
      () => {
        try {
          ctx.db.query("SELECT 1").get();
        } catch {
          throw new AppError(503, "DB_UNAVAILABLE", "the database is not reachable");
        }
        return { status: "ok", version: VERSION, db: "ok" };
      },
      { detail: { summary: "Liveness and database check" } },
    )
    .use(jobsModule(ctx, auth))
    .use(trafficModule(ctx, auth))
    .use(generateModule(ctx, auth))
    .use(chatModule(ctx, auth))
    .use(visibilityModule(ctx, auth))
    .use(assistantModule(ctx, auth))
    .use(brandVoiceModule(ctx, auth))
    .use(contentModule(ctx, auth))
    .use(imagesModule(ctx))
    .use(usersModule(ctx, auth, sessions));
}

export type App = ReturnType<typeof createApp>;
