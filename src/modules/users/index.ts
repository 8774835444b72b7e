// /v1/users: sign in and out (web session cookie), who am I, and API key management (SPEC 4.7),
// which accepts only the session cookie.
import { Elysia } from "elysia";
import { usageSummary } from "../../ai/credits";
import type { AppContext } from "../../context";
import { type AuthPlugin, checkSameOrigin } from "../../http/auth";
import { AppError, notFound, tooMany } from "../../http/errors";
import { createRateLimiter } from "../../http/rate-limit";
import { clientIp } from "../../http/request-meta";
import { generateKeyBody, loginBody } from "./model";
import { generateApiKey, getApiKeyMeta, getWorkspace, revokeApiKey, verifyLogin } from "./service";
import type { SessionAuth } from "./session";

const LOGIN_ATTEMPTS_PER_MINUTE = 10;

export function usersModule(ctx: AppContext, auth: AuthPlugin, sessions: SessionAuth) {
  const loginLimiter = createRateLimiter(LOGIN_ATTEMPTS_PER_MINUTE, 60_000, ctx.clock);
  const { lucia } = sessions;

  return new Elysia({ prefix: "/v1/users", tags: ["users"] })
    .use(auth)
    .post(
      "/login",
      async ({ body, request, set }) => {
        // login has no session yet, but a cross-site form must not sign a browser in (login CSRF)
        if (request.headers.get("origin")) checkSameOrigin(ctx, request);
        const r = loginLimiter.hit(clientIp(request));
        if (!r.ok) throw tooMany("RATE_LIMITED", "too many sign-in attempts; wait a minute", r.retryAfterSeconds);
        const user = await verifyLogin(ctx.db, body.email, body.password);
        if (!user) throw new AppError(401, "INVALID_CREDENTIALS", "email or password is wrong");
        const session = await lucia.createSession(user.id, {});
        set.headers["set-cookie"] = lucia.createSessionCookie(session.id).serialize();
        const workspace = getWorkspace(ctx.db, user.workspace_id)!;
        return { message: "Signed in", user: { id: user.id, email: user.email, workspaceId: workspace.id, plan: workspace.plan } };
      },
      { body: loginBody, detail: { summary: "Sign in; sets the session cookie" } },
    )
    .post(
      "/logout",
      async ({ principal, set }) => {
        await lucia.invalidateSession(principal.credentialId);
        set.headers["set-cookie"] = lucia.createBlankSessionCookie().serialize();
        return { message: "Signed out" };
      },
      { auth: "session", detail: { summary: "Sign out; clears the session cookie" } },
    )
    .get(
      "/me",
      ({ principal }) => ({
        message: "Current user",
        user: { id: principal.userId, email: principal.email, workspaceId: principal.workspaceId },
        plan: principal.plan,
        usage: usageSummary(ctx.db, principal.workspaceId, principal.plan, ctx.clock.now()),
      }),
      { auth: "api", detail: { summary: "The signed-in user, workspace, plan and this period's usage" } },
    )
    .get(
      "/api-key",
      ({ principal }) => {
        const key = getApiKeyMeta(ctx.db, ctx.clock.now(), principal.userId);
        return { message: key ? "API key found" : "No API key", apiKey: key };
      },
      { auth: "session", detail: { summary: "Metadata of the current API key (never the secret)" } },
    )
    .post(
      "/generateApiKey",
      ({ principal, body, set }) => {
        const { secret, key } = generateApiKey(ctx.db, ctx.clock.now(), principal.userId, body?.name ?? "default");
        set.status = 201;
        return { message: "API key created; copy it now, it is shown only once", apiKey: secret, key };
      },
      { auth: "session", body: generateKeyBody, detail: { summary: "Create or rotate the API key; the secret is shown once" } },
    )
    .delete(
      "/api-key",
      ({ principal }) => {
        if (!revokeApiKey(ctx.db, principal.userId)) throw notFound("API_KEY_NOT_FOUND", "there is no API key to revoke");
        return { message: "API key revoked" };
      },
      { auth: "session", detail: { summary: "Revoke the current API key" } },
    );
}
