// Turning a fetched file into brand-voice text, with no I/O: which file kinds are accepted (by the
// URL's extension), which content types each may arrive with, and how each becomes plain text.
import { AppError } from "../../http/errors";
import { extractReadableText } from "../../lib/html-text";
import { HTML_TYPES } from "../../lib/safe-fetch";

export type FileKind = "md" | "txt" | "html" | "json";

// Object storage often serves .md/.json as application/octet-stream; the bytes must then still
// decode as UTF-8 text (checked in fileToText).
const OCTET = "application/octet-stream";
export const FILE_ACCEPT: Record<FileKind, string[]> = {
  md: ["text/*", OCTET],
  txt: ["text/*", OCTET],
  html: [...HTML_TYPES, OCTET],
  json: ["application/json", "text/*", OCTET],
};

// Fields tried, in order, when a .json file is an object: the first string one is the voice.
const JSON_TEXT_FIELDS = ["content", "text", "brandVoice", "voice", "guidelines", "description"];

/** The file kind from the URL path's extension; 400 UNSUPPORTED_FILE_TYPE for anything else. */
export function fileKindOf(url: URL): FileKind {
  const ext = /\.([a-z0-9]+)$/i.exec(url.pathname)?.[1]?.toLowerCase();
  if (ext === "md" || ext === "txt" || ext === "html" || ext === "json") return ext;
  throw new AppError(400, "UNSUPPORTED_FILE_TYPE", "the file URL must end in .md, .txt, .html or .json");
}

function strictUtf8(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError(422, "FILE_NOT_TEXT", "the file is not UTF-8 text");
  }
  if (text.includes("\u0000")) throw new AppError(422, "FILE_NOT_TEXT", "the file contains binary data");
  return text;
}

function jsonToText(source: string): string {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch {
    throw new AppError(422, "FILE_INVALID", "the .json file is not valid JSON");
  }
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const field of JSON_TEXT_FIELDS) {
      const v = (value as Record<string, unknown>)[field];
      if (typeof v === "string" && v.trim()) return v;
    }
  }
  return JSON.stringify(value, null, 2);
}

/**
 * The voice text of a fetched file. `decoded` is the body decoded with its declared charset;
 * octet-stream bodies are re-checked as strict UTF-8.
 */
export function fileToText(kind: FileKind, mediaType: string, body: Uint8Array, decoded: string): string {
  const source = mediaType === OCTET ? strictUtf8(body) : decoded;
  switch (kind) {
    case "md":
    case "txt":
      return source.trim();
    case "html":
      return extractReadableText(source).text;
    case "json":
      return jsonToText(source).trim();
  }
}
