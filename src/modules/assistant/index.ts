// GET /v1/ai/generate/assistant/context (SPEC 4.1): the workspace summary the chat assistant uses,
// as data and as the compact text that goes into the chat system prompt.
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../http/auth";
import { assistantContextText } from "./context";
import { buildAssistantContext } from "./service";

export { assistantContextText } from "./context";
export { buildAssistantContext } from "./service";

export function assistantModule(ctx: AppContext, auth: AuthPlugin) {
  return new Elysia({ prefix: "/v1/ai/generate", tags: ["assistant"] })
    .use(auth)
    .get(
      "/assistant/context",
      ({ principal }) => {
        const context = buildAssistantContext(ctx, principal);
        return { message: "Assistant context", context, text: assistantContextText(context) };
      },
      { auth: "api", detail: { summary: "What the chat assistant knows about the workspace: scores, recommendations, traffic, brand voices" } },
    );
}
