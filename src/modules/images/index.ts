// GET /v1/ai/generate/images/:id: the bytes of a generated image behind a capability URL (no auth:
// the unguessable id is the secret, so the Markdown renders wherever the user pastes it), and the
// schedule that prunes images past their retention.
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { notFound } from "../../http/errors";
import { imageParams } from "./model";
import { findLiveImage, imageBytes, IMAGES_PATH, setUpImageRetention } from "./service";

/** an ETag in an If-None-Match list (or `*`) */
function matchesETag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((tag) => {
    const v = tag.trim().replace(/^W\//, "");
    return v === etag || v === "*";
  });
}

export function imagesModule(ctx: AppContext) {
  setUpImageRetention(ctx);

  return new Elysia({ prefix: IMAGES_PATH, tags: ["images"] }).get(
    "/:id",
    ({ params, request }) => {
      const now = ctx.clock.now();
      const gone = () => notFound("IMAGE_NOT_FOUND", "no such image (unknown id, or past its retention)");
      const image = findLiveImage(ctx.db, now, ctx.config.images.keepDays, params.id);
      if (!image) throw gone();
      // the bytes behind an id never change, so they are cacheable until the retention ends;
      // "private": copies stay in viewers' browsers, not in shared caches the prune cannot reach
      const etag = `"${params.id}"`;
      const headers = {
        "cache-control": `private, max-age=${Math.max(0, Math.floor((image.expiresAt - now) / 1000))}, immutable`,
        etag,
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; sandbox",
        "cross-origin-resource-policy": "cross-origin",
      };
      if (matchesETag(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
      const bytes = imageBytes(ctx.db, params.id);
      if (!bytes) throw gone();
      return new Response(bytes, { headers: { ...headers, "content-type": image.mimeType } });
    },
    {
      params: imageParams,
      detail: {
        summary: "The bytes of a generated image (public: the unguessable id is the capability; 404 past AIVIS_IMAGE_KEEP_DAYS)",
        responses: {
          200: { description: "the image (image/png, image/jpeg, image/gif or image/webp)", content: { "image/*": { schema: { type: "string", format: "binary" } } } },
          304: { description: "If-None-Match matched the ETag" },
          400: { description: "VALIDATION_FAILED: the id is not 22 base64url characters" },
          404: { description: "IMAGE_NOT_FOUND" },
        },
      },
    },
  );
}
