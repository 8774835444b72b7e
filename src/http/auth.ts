// Who is calling. Routes declare `{ auth: "api" }` (api-key header or session cookie) or
// `{ auth: "session" }` (session cookie only) and receive `principal`. Cookie-authenticated
// writes must come from our own origin (CSRF). Every authenticated call counts against the
// per-credential rate limit.
import { Elysia } from "elysia";
import { verifyRequestOrigin } from "lucia";
import type { AppContext } from "../context";
import { getUser, principalFor, authenticateApiKey, type Principal } from "../modules/users/service";
import type { SessionAuth } from "../modules/users/session";
import { AppError, tooMany } from "./errors";
import { createRateLimiter } from "./rate-limit";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Origins allowed to send cookie-authenticated writes: the configured public URL and the Host the request came to. */
export function checkSameOrigin(ctx: AppContext, request: Request): void {
  if (SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.get("origin");
  const allowed = [request.headers.get("host") ?? ""];
  if (ctx.config.publicUrl) allowed.push(new URL(ctx.config.publicUrl).host);
  if (!origin || !verifyRequestOrigin(origin, allowed)) {
    throw new AppError(403, "CSRF_REJECTED", "cross-site request refused: the Origin header must match this server");
  }
}

async function fromSession(
  ctx: AppContext,
  sessions: SessionAuth,
  request: Request,
  setCookie: (value: string) => void,
): Promise<Principal | null> {
  const sessionId = sessions.lucia.readSessionCookie(request.headers.get("cookie") ?? "");
  if (!sessionId) return null;
  const { session, user } = await sessions.lucia.validateSession(sessionId);
  if (!session) {
    setCookie(sessions.lucia.createBlankSessionCookie().serialize());
    return null;
  }
  if (session.fresh) setCookie(sessions.lucia.createSessionCookie(session.id).serialize());
  const row = getUser(ctx.db, user.id);
  if (!row || row.banned) return null;
  checkSameOrigin(ctx, request);
  return principalFor(ctx.db, row, "session", session.id);
}

export type AuthPlugin = ReturnType<typeof authPlugin>;

export function authPlugin(ctx: AppContext, sessions: SessionAuth) {
  const limiter = createRateLimiter(ctx.config.rateLimitPerMinute, 60_000, ctx.clock);

  function limit(principal: Principal) {
    const r = limiter.hit(principal.credentialId);
    if (!r.ok) throw tooMany("RATE_LIMITED", `rate limit of ${ctx.config.rateLimitPerMinute} requests per minute exceeded`, r.retryAfterSeconds);
  }

  return new Elysia({ name: "aivis-auth" }).macro({
    auth: (kind: "api" | "session") => ({
      async resolve({ request, set }) {
        const setCookie = (value: string) => {
          set.headers["set-cookie"] = value;
        };
        const apiKey = request.headers.get("api-key");
        let principal: Principal | null = null;
        if (kind === "api" && apiKey !== null) {
          principal = authenticateApiKey(ctx.db, ctx.clock.now(), apiKey);
        } else {
          principal = await fromSession(ctx, sessions, request, setCookie);
        }
        if (!principal) {
          throw kind === "session"
            ? new AppError(401, "SESSION_REQUIRED", "sign in first: this route uses the web session cookie, not the api key")
            : new AppError(401, "API_KEY_MISSING", "send your key in the api-key header (or sign in for a session cookie)");
        }
        limit(principal);
        return { principal };
      },
    }),
  });
}
