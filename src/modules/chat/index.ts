// /v1/ai/chat: the caller's chat sessions and their message blocks, feedback, and the fine-tuning
// status (SPEC 4.6). Messages themselves are sent with POST /v1/ai/generate/chat.
import { Elysia } from "elysia";
import { createFineTuningJobs } from "../../ai/fine-tuning";
import type { AppContext } from "../../context";
import type { AuthPlugin } from "../../http/auth";
import { feedbackRoutes } from "../feedback";
import {
  createSessionBody,
  createSessionResponse,
  deleteSessionResponse,
  fineTuningJobResponse,
  sessionIdParams,
  sessionListResponse,
  sessionWithBlocksResponse,
  skipQuery,
} from "./model";
import { createSession, currentFineTuningJob, deleteSession, getSession, latestSession, listSessions, sessionBlocks } from "./service";

export function chatModule(ctx: AppContext, auth: AuthPlugin) {
  const fineTuning = createFineTuningJobs(ctx.config);
  const remove = ({ principal, params }: { principal: Parameters<typeof deleteSession>[1]; params: { sessionId: string } }) => {
    deleteSession(ctx.db, principal, params.sessionId);
    return { message: "Session deleted", sessionId: params.sessionId };
  };
  const deleteOptions = {
    auth: "api" as const,
    params: sessionIdParams,
    response: { 200: deleteSessionResponse },
    detail: { summary: "Delete one of your chat sessions and its messages" },
  };

  return new Elysia({ prefix: "/v1/ai/chat", tags: ["chat"] })
    .use(auth)
    .get(
      "/sessions",
      ({ principal, query }) => {
        const skip = query.skip ?? 0;
        const { sessions, hasMore } = listSessions(ctx.db, principal, skip);
        return { message: sessions.length ? "Chat sessions" : "No chat sessions", chatHistory: sessions, skip, hasMore };
      },
      { auth: "api", query: skipQuery, response: { 200: sessionListResponse }, detail: { summary: "Your chat sessions, most recent first, 10 per call" } },
    )
    .get(
      "/session",
      ({ principal, query }) => {
        const skip = query.skip ?? 0;
        const session = latestSession(ctx.db, principal);
        if (!session) return { message: "No chat sessions yet", sessionId: null, session: null, blocks: [], skip, hasMore: false };
        const { blocks, hasMore } = sessionBlocks(ctx.db, principal, session.sessionId, skip);
        return { message: "Latest chat session", sessionId: session.sessionId, session, blocks, skip, hasMore };
      },
      {
        auth: "api",
        query: skipQuery,
        response: { 200: sessionWithBlocksResponse },
        detail: { summary: "Your most recent session with its message blocks, newest first, 3 per call" },
      },
    )
    .post(
      "/session",
      ({ principal, body, set }) => {
        const { session, created } = createSession(ctx.db, ctx.clock.now(), principal, body?.sessionId);
        set.status = created ? 201 : 200;
        return { message: created ? "Session created" : "Session already exists", sessionId: session.sessionId, session };
      },
      {
        auth: "api",
        body: createSessionBody,
        response: { 200: createSessionResponse, 201: createSessionResponse },
        detail: { summary: "Create a session (your sessionId is kept); an existing one of yours is returned with 200" },
      },
    )
    .get(
      "/session/:sessionId",
      ({ principal, params, query }) => {
        const skip = query.skip ?? 0;
        const session = getSession(ctx.db, principal, params.sessionId);
        const { blocks, hasMore } = sessionBlocks(ctx.db, principal, params.sessionId, skip);
        return { message: "Chat session", sessionId: session.sessionId, session, blocks, skip, hasMore };
      },
      {
        auth: "api",
        params: sessionIdParams,
        query: skipQuery,
        response: { 200: sessionWithBlocksResponse },
        detail: { summary: "One of your sessions with its message blocks, newest first, 3 per call" },
      },
    )
    .delete("/session/:sessionId", remove, deleteOptions)
    .delete("/chatSession/:sessionId", remove, deleteOptions)
    .get("/getFineTuningJob", ({ principal }) => currentFineTuningJob(fineTuning, principal), {
      auth: "api",
      response: { 200: fineTuningJobResponse },
      detail: { summary: "The workspace's current fine-tuning job at OpenAI (tagged with metadata aivis_workspace), or job: null" },
    })
    .use(feedbackRoutes(ctx, auth, "chat"));
}
