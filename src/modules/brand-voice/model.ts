// Request schemas for brand-voice routes (SPEC 2.6, 4.2 brand-voice/*, 4.4, 4.6 aliases).
import { t } from "elysia";
import { FETCH_INTERVALS } from "./schedule";

export const MAX_VOICE_CONTENT_CHARS = 100_000;
const MAX_URL = 2048;

export const scope = t.Union([t.Literal("team"), t.Literal("personal")], { description: "team (default): every workspace member; personal: only its creator" });
export const fetchInterval = t.Union(FETCH_INTERVALS.map((v) => t.Literal(v)), { description: "how often a website voice is re-fetched; default once" });
const name = t.String({ minLength: 1, maxLength: 200 });

export const websiteBody = t.Object({
  websiteurl: t.String({ minLength: 1, maxLength: MAX_URL, description: "https URL of the page to learn the voice from" }),
  name: t.Optional(name),
  fetchInterval: t.Optional(fetchInterval),
  scope: t.Optional(scope),
});

export const textBody = t.Object({
  content: t.String({ minLength: 1, maxLength: MAX_VOICE_CONTENT_CHARS }),
  name: t.Optional(name),
  scope: t.Optional(scope),
});

export const fileBody = t.Object({
  file: t.String({ minLength: 1, maxLength: MAX_URL, description: "http(s) URL of a .md, .txt, .html or .json file" }),
  name: t.Optional(name),
  scope: t.Optional(scope),
});

export const updateBody = t.Object({
  name: t.Optional(name),
  content: t.Optional(t.String({ minLength: 1, maxLength: MAX_VOICE_CONTENT_CHARS })),
  url: t.Optional(t.String({ minLength: 1, maxLength: MAX_URL })),
  fetchInterval: t.Optional(fetchInterval),
});

export const voiceParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
