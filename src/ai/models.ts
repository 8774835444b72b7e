// Model IDs → provider family, by pattern (SPEC 5.4): new IDs of a family work without a code
// change. Also the one list of restricted (paid-only) models and the image models' allowed sizes.
// Pure: no I/O.
import { AppError } from "../http/errors";
import type { ImageModel, ProviderFamily } from "./types";

export const IMAGE_MODELS: readonly ImageModel[] = ["dall-e-3", "stability-ultra"];

/** dall-e-3 accepts exactly these sizes */
export const DALL_E_3_SIZES = ["1024x1024", "1792x1024", "1024x1792"] as const;
/** Stability's stable-image ultra accepts these aspect ratios */
export const STABILITY_ASPECT_RATIOS = ["1:1", "16:9", "9:16", "21:9", "9:21", "2:3", "3:2", "4:5", "5:4"] as const;

// OpenAI's own naming: gpt-4o, gpt-4.1-mini, chatgpt-4o-latest, o1, o3-mini, o4-mini, and
// fine-tunes of them (ft:gpt-4o-mini:org::id).
const OPENAI_ID = /^(ft:)?(gpt-|chatgpt-|o\d+($|-))/i;

/** Models that need a paid plan (SPEC 5.3). The one place this list lives. */
export const RESTRICTED_MODEL_PATTERNS: readonly RegExp[] = [/^o1($|-)/i, /^o3-mini($|-)/i, /^gpt-5/i, /^gpt-4\.5/i];

export function isImageModel(model: string): model is ImageModel {
  return (IMAGE_MODELS as readonly string[]).includes(model);
}

/** The family of a text/chat model, or null when the id matches none. */
export function matchFamily(model: string): ProviderFamily | null {
  const id = model.trim().toLowerCase();
  if (id.includes("claude")) return "anthropic";
  if (id.includes("gemini")) return "gemini";
  if (OPENAI_ID.test(id)) return "openai";
  return null;
}

/** The family of a text/chat model; 400 UNKNOWN_MODEL otherwise (image models included). */
export function familyOfModel(model: string): ProviderFamily {
  const family = matchFamily(model);
  if (family) return family;
  if (isImageModel(model)) {
    throw new AppError(400, "UNKNOWN_MODEL", `${model} is an image model; use POST /v1/ai/generate/image, or pick a text model such as gpt-4o-mini`);
  }
  throw new AppError(
    400,
    "UNKNOWN_MODEL",
    `unknown model "${model.slice(0, 100)}": use an OpenAI id (gpt-…, o…, chatgpt-…), an id containing "claude" or one containing "gemini"`,
  );
}

export function isRestrictedModel(model: string): boolean {
  const id = model.trim().replace(/^ft:/i, "");
  return RESTRICTED_MODEL_PATTERNS.some((re) => re.test(id));
}

/** 403 MODEL_RESTRICTED when the model needs a paid plan and the caller's plan is not one. */
export function assertModelAllowed(model: string, plan: { paid: boolean; label: string }): void {
  if (isRestrictedModel(model) && !plan.paid) {
    throw new AppError(403, "MODEL_RESTRICTED", `${model} needs a paid plan (Startup or above); the ${plan.label} plan cannot use it`);
  }
}

/** 400 WEB_SEARCH_UNSUPPORTED unless the model is in the OpenAI family. */
export function assertWebSearchSupported(model: string, family: ProviderFamily): void {
  if (family !== "openai") {
    throw new AppError(400, "WEB_SEARCH_UNSUPPORTED", `webSearch works only with OpenAI models (gpt-…, o…); ${model} is a ${family} model`);
  }
}

/** Validates an image request's model and size; 400 UNKNOWN_MODEL / INVALID_IMAGE_SIZE. */
export function validateImageRequest(model: string, size: string): ImageModel {
  if (!isImageModel(model)) {
    throw new AppError(400, "UNKNOWN_MODEL", `unknown image model "${model.slice(0, 100)}": use dall-e-3 or stability-ultra`);
  }
  const allowed: readonly string[] = model === "dall-e-3" ? DALL_E_3_SIZES : STABILITY_ASPECT_RATIOS;
  if (!allowed.includes(size)) {
    const what = model === "dall-e-3" ? "a size" : "an aspect ratio";
    throw new AppError(400, "INVALID_IMAGE_SIZE", `${model} needs ${what} from: ${allowed.join(", ")}; got "${size.slice(0, 40)}"`);
  }
  return model;
}
