// Generated images: stores the bytes of every image /image and the blog job make (so results carry
// a URL instead of megabytes of base64), finds them for the public capability URL, and prunes them
// AIVIS_IMAGE_KEEP_DAYS after they were made.
import { withImageUsage } from "../../ai/credits";
import type { ImageRequest } from "../../ai/types";
import type { AppContext } from "../../context";
import type { DB } from "../../db";
import { scheduleMaintenance } from "../../jobs/maintenance";
import { AppError } from "../../http/errors";
import { DAY_MS } from "../../platform/clock";
import { randomToken } from "../../platform/ids";
import type { Principal } from "../users/service";
import { imageMimeType, MAX_IMAGE_BYTES } from "./image-format";

/** where images are served: `${base}${IMAGES_PATH}/${id}` */
export const IMAGES_PATH = "/v1/ai/generate/images";
/** 16 random bytes as base64url: the id is the only secret guarding an image */
export const IMAGE_ID_PATTERN = "^[A-Za-z0-9_-]{22}$";
/** hourly, off the jobs' prune minute; retention is counted in days */
export const IMAGE_PRUNE_SCHEDULE = "41 * * * *";
/** rows per DELETE, so pruning months of multi-MB blobs never holds the write lock for long */
const PRUNE_BATCH = 50;

export interface StoredImage {
  id: string;
  url: string;
  mimeType: string;
  /** size in bytes */
  bytes: number;
}

export const imageUrl = (base: string, id: string) => `${base}${IMAGES_PATH}/${id}`;

/**
 * Stores one generated image for the workspace. The MIME type comes from the bytes, not the
 * provider's label; anything but PNG, JPEG, GIF or WebP, or over MAX_IMAGE_BYTES, is refused (502:
 * the provider answered with something we will not serve).
 */
export function storeImage(db: DB, now: number, workspaceId: string, image: { b64: string; model: string; prompt: string }): Omit<StoredImage, "url"> {
  const tooLarge = () => new AppError(502, "IMAGE_TOO_LARGE", `the ${image.model} image is larger than ${MAX_IMAGE_BYTES} bytes`);
  // 4 base64 chars per 3 bytes (+2 for padding): refuse a huge answer before decoding it
  if (Math.floor((image.b64.length * 3) / 4) > MAX_IMAGE_BYTES + 2) throw tooLarge();
  const bytes = Buffer.from(image.b64, "base64");
  if (bytes.length > MAX_IMAGE_BYTES) throw tooLarge();
  const mimeType = imageMimeType(bytes);
  if (!mimeType) throw new AppError(502, "IMAGE_FORMAT_UNSUPPORTED", `${image.model} answered with bytes that are not a PNG, JPEG, GIF or WebP image`);
  const id = randomToken(16);
  db.query(
    `INSERT INTO generated_images (id, workspace_id, mime_type, bytes, prompt, model, created_at)
     VALUES ($id, $workspace_id, $mime_type, $bytes, $prompt, $model, $created_at)`,
  ).run({ id, workspace_id: workspaceId, mime_type: mimeType, bytes, prompt: image.prompt, model: image.model, created_at: now });
  return { id, mimeType, bytes: bytes.length };
}

/**
 * One image on the image allowance: generated, stored, and linked under `base` (the public URL
 * or the request origin). The usage is refunded when the provider fails or the image is refused.
 */
export function generateStoredImage(ctx: AppContext, principal: Principal, req: ImageRequest, base: string): Promise<StoredImage & { b64: string }> {
  return withImageUsage(ctx, principal, 1, async () => {
    const image = await ctx.ai.image(req);
    const stored = storeImage(ctx.db, ctx.clock.now(), principal.workspaceId, { b64: image.b64, model: image.model, prompt: req.prompt });
    return { ...stored, url: imageUrl(base, stored.id), b64: image.b64 };
  });
}

export interface LiveImage {
  mimeType: string;
  /** when the retention ends and the image is gone (epoch ms) */
  expiresAt: number;
}

/**
 * The image with this id while it is within its retention (an expired one the prune has not
 * reached yet is gone too). Reads no bytes: a revalidation (304) never needs them.
 */
export function findLiveImage(db: DB, now: number, keepDays: number, id: string): LiveImage | null {
  const row = db
    .query<{ mime_type: string; created_at: number }, { id: string; cutoff: number }>(
      "SELECT mime_type, created_at FROM generated_images WHERE id = $id AND created_at > $cutoff",
    )
    .get({ id, cutoff: now - keepDays * DAY_MS });
  return row ? { mimeType: row.mime_type, expiresAt: row.created_at + keepDays * DAY_MS } : null;
}

/** The stored bytes of an image found with findLiveImage; null if the prune took it in between. */
export function imageBytes(db: DB, id: string): Uint8Array<ArrayBuffer> | null {
  return db.query<{ bytes: Uint8Array<ArrayBuffer> }, { id: string }>("SELECT bytes FROM generated_images WHERE id = $id").get({ id })?.bytes ?? null;
}

/** Deletes images made at or before `cutoff`, oldest first, in small batches; returns how many. */
export function pruneImages(db: DB, cutoff: number): number {
  const batch = db.query<never, { cutoff: number; limit: number }>(
    `DELETE FROM generated_images WHERE id IN (
       SELECT id FROM generated_images WHERE created_at <= $cutoff ORDER BY created_at LIMIT $limit)`,
  );
  let total = 0;
  for (;;) {
    const { changes } = batch.run({ cutoff, limit: PRUNE_BATCH });
    total += changes;
    if (changes < PRUNE_BATCH) return total;
  }
}

/** Prunes the images past AIVIS_IMAGE_KEEP_DAYS by ctx.clock; returns how many went. */
export function pruneExpiredImages(ctx: Pick<AppContext, "db" | "clock" | "config" | "log">): number {
  const pruned = pruneImages(ctx.db, ctx.clock.now() - ctx.config.images.keepDays * DAY_MS);
  if (pruned) ctx.log("info", "pruned generated images", { count: pruned });
  return pruned;
}

/** Prunes expired images at start-up and hourly in the process that runs the worker. */
export function setUpImageRetention(ctx: AppContext, schedule = IMAGE_PRUNE_SCHEDULE): void {
  void scheduleMaintenance(ctx, "image pruning", schedule, () => pruneExpiredImages(ctx));
}
