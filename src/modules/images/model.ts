// Schemas of the image route (GET /v1/ai/generate/images/:id).
import { t } from "elysia";
import { IMAGE_ID_PATTERN } from "./service";

export const imageParams = t.Object({
  id: t.String({ pattern: IMAGE_ID_PATTERN, description: "the image id from a generation result (22 chars base64url)" }),
});
