// One handler turns every failure into { message, errCode } JSON: our AppErrors, Elysia's
// validation / parse / not-found errors, and anything unexpected (500, logged with the request id,
// never a stack trace to the client).
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { AppError, errorBody } from "./errors";
import { requestId } from "./request-meta";

function validationMessage(error: unknown): string {
  const first = (error as { all?: { path?: string; summary?: string; message?: string }[] }).all?.[0];
  if (!first) return "request validation failed";
  const where = first.path ? first.path.replace(/^\//, "").replace(/\//g, ".") : "request";
  return `${where || "body"}: ${first.summary ?? first.message ?? "is invalid"}`;
}

export function errorHandler(ctx: AppContext) {
  return new Elysia({ name: "aivis-errors" }).onError({ as: "global" }, ({ code, error, set, request }) => {
    let err: AppError;
    if (error instanceof AppError) err = error;
    else if (code === "VALIDATION") err = new AppError(400, "VALIDATION_FAILED", validationMessage(error));
    else if (code === "PARSE") err = new AppError(400, "MALFORMED_BODY", "the request body could not be parsed (malformed JSON?)");
    else if (code === "NOT_FOUND") err = new AppError(404, "NOT_FOUND", `no route for ${request.method} ${new URL(request.url).pathname}`);
    else if (code === "INVALID_COOKIE_SIGNATURE") err = new AppError(400, "INVALID_COOKIE", "invalid cookie");
    else {
      const status = (error as { status?: number }).status;
      if (typeof status === "number" && status === 413) {
        err = new AppError(413, "PAYLOAD_TOO_LARGE", "request body is too large");
      } else {
        ctx.log("error", "unhandled error", {
          requestId: requestId(request),
          method: request.method,
          path: new URL(request.url).pathname,
          error: error instanceof Error ? error.stack ?? error.message : String(error),
        });
        err = new AppError(500, "INTERNAL_ERROR", `internal error (request id ${requestId(request)})`);
      }
    }
    set.status = err.status;
    for (const [k, v] of Object.entries(err.headers)) set.headers[k] = v;
    return Response.json(errorBody(err), { status: err.status, headers: set.headers as Record<string, string> });
  });
}
