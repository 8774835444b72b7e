// Brand-voice routes under three prefixes: management (/v1/ai/brand-voice, SPEC 4.4), creation
// (/v1/ai/generate/brand-voice/*, SPEC 4.2) and the chat aliases (/v1/ai/chat, SPEC 4.6). Each is
// its own small Elysia instance so no other module's file changes.
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../http/auth";
import type { Principal } from "../users/service";
import { fileBody, textBody, updateBody, voiceParams, websiteBody } from "./model";
import { setUpBrandVoiceRefresh } from "./refresh";
import {
  createVoiceFromFile,
  createVoiceFromText,
  createVoiceFromWebsite,
  deleteBrandVoice,
  findUsableBrandVoice,
  listActiveBrandVoices,
  updateBrandVoice,
} from "./service";

const tags = ["brand voice"];

export function brandVoiceModule(ctx: AppContext, auth: AuthPlugin) {
  setUpBrandVoiceRefresh(ctx);

  // shared by the canonical routes and their chat aliases
  const fromWebsite = {
    handler: async ({ principal, body, set }: { principal: Principal; body: typeof websiteBody.static; set: { status?: number | string } }) => {
      const data = await createVoiceFromWebsite(ctx, principal, body);
      set.status = 201;
      return { message: "Brand voice created from website", data };
    },
    options: { auth: "api" as const, body: websiteBody, detail: { summary: "Create a brand voice from a website page (https); 201 with message and data" } },
  };
  const update = {
    handler: async ({ principal, params, body }: { principal: Principal; params: { id: string }; body: typeof updateBody.static }) => ({
      message: "Brand voice updated",
      data: await updateBrandVoice(ctx, principal, params.id, body),
    }),
    options: {
      auth: "api" as const,
      params: voiceParams,
      body: updateBody,
      detail: { summary: "Update a brand voice's name, content, url or fetchInterval; a new url without content is fetched now" },
    },
  };
  const remove = {
    handler: ({ principal, params }: { principal: Principal; params: { id: string } }) => {
      deleteBrandVoice(ctx, principal, params.id);
      return { message: "Brand voice deleted" };
    },
    options: { auth: "api" as const, params: voiceParams, detail: { summary: "Soft-delete a brand voice (isActive=false)" } },
  };

  const management = new Elysia({ prefix: "/v1/ai/brand-voice", tags })
    .use(auth)
    .get("/", ({ principal }) => ({ message: "Brand voices", data: listActiveBrandVoices(ctx.db, principal) }), {
      auth: "api",
      detail: { summary: "The brand voices the caller can use, newest first" },
    })
    .get("/:id", ({ principal, params }) => ({ message: "Brand voice", data: findUsableBrandVoice(ctx.db, principal, params.id) }), {
      auth: "api",
      params: voiceParams,
      detail: { summary: "One brand voice with its full content" },
    })
    .put("/:id", update.handler, update.options)
    .delete("/:id", remove.handler, remove.options);

  const creation = new Elysia({ prefix: "/v1/ai/generate/brand-voice", tags })
    .use(auth)
    .post("/website", fromWebsite.handler, fromWebsite.options)
    .post(
      "/text",
      ({ principal, body, set }) => {
        const data = createVoiceFromText(ctx, principal, body);
        set.status = 201;
        return { message: "Brand voice created from text", data };
      },
      { auth: "api", body: textBody, detail: { summary: "Create a brand voice from text; 201 with message and data" } },
    )
    .post(
      "/file",
      async ({ principal, body, set }) => {
        const data = await createVoiceFromFile(ctx, principal, body);
        set.status = 201;
        return { message: "Brand voice created from file", data };
      },
      { auth: "api", body: fileBody, detail: { summary: "Create a brand voice from a .md, .txt, .html or .json file URL; 201 with message and data" } },
    );

  const chatAliases = new Elysia({ prefix: "/v1/ai/chat", tags })
    .use(auth)
    .post("/brand-voice", fromWebsite.handler, fromWebsite.options)
    .put("/brandVoices/:id", update.handler, update.options)
    .delete("/brandVoices/:id", remove.handler, remove.options);

  return new Elysia().use(management).use(creation).use(chatAliases);
}
