import { describe, expect, test } from "bun:test";
import { defaultVoiceName, nextFetchAt } from "../../../src/modules/brand-voice/schedule";
import { fileKindOf, fileToText } from "../../../src/modules/brand-voice/sources";
import { AppError } from "../../../src/http/errors";

const at = (s: string) => Date.parse(s);

describe("nextFetchAt", () => {
  test("once never refreshes", () => expect(nextFetchAt("once", at("2026-01-01T00:00:00Z"))).toBeNull());
  test("daily and weekly add whole days", () => {
    expect(nextFetchAt("daily", at("2026-03-01T10:30:00Z"))).toBe(at("2026-03-02T10:30:00Z"));
    expect(nextFetchAt("weekly", at("2026-03-01T10:30:00Z"))).toBe(at("2026-03-08T10:30:00Z"));
  });
  test("monthly keeps the day and clamps it to the month's end", () => {
    expect(nextFetchAt("monthly", at("2026-01-15T08:00:00Z"))).toBe(at("2026-02-15T08:00:00Z"));
    expect(nextFetchAt("monthly", at("2026-01-31T08:00:00Z"))).toBe(at("2026-02-28T08:00:00Z"));
    expect(nextFetchAt("monthly", at("2026-12-31T23:59:00Z"))).toBe(at("2027-01-31T23:59:00Z"));
  });
});

test("defaultVoiceName carries the UTC date", () => {
  expect(defaultVoiceName(at("2026-07-04T23:30:00Z"))).toBe("Brand voice — 2026-07-04");
});

describe("file sources", () => {
  test.each(["https://x.test/a.md", "https://x.test/b.TXT", "https://x.test/c.html", "https://x.test/d.json?v=2"])("%s is accepted", (u) => {
    expect(() => fileKindOf(new URL(u))).not.toThrow();
  });
  test.each(["https://x.test/a.pdf", "https://x.test/a", "https://x.test/a.md/", "https://x.test/a.htm"])("%s → 400 UNSUPPORTED_FILE_TYPE", (u) => {
    let err: unknown;
    try {
      fileKindOf(new URL(u));
    } catch (e) {
      err = e;
    }
    expect((err as AppError).errCode).toBe("UNSUPPORTED_FILE_TYPE");
  });

  const enc = (s: string) => new TextEncoder().encode(s);
  test("json: a string, a known text field, or the pretty document", () => {
    expect(fileToText("json", "application/json", enc('"Be kind."'), '"Be kind."')).toBe("Be kind.");
    const obj = JSON.stringify({ name: "x", guidelines: "Short sentences." });
    expect(fileToText("json", "application/json", enc(obj), obj)).toBe("Short sentences.");
    const other = JSON.stringify({ tone: ["warm", "plain"] });
    expect(fileToText("json", "application/json", enc(other), other)).toBe('{\n  "tone": [\n    "warm",\n    "plain"\n  ]\n}');
  });
  test("json that does not parse → 422 FILE_INVALID", () => {
    expect(() => fileToText("json", "application/json", enc("{nope"), "{nope")).toThrow("not valid JSON");
  });
  test("html files become readable text", () => {
    const h = "<html><body><nav>Menu</nav><p>We are warm.</p></body></html>";
    expect(fileToText("html", "text/html", enc(h), h)).toBe("We are warm.");
  });
  test("octet-stream must still be UTF-8 text", () => {
    expect(fileToText("md", "application/octet-stream", enc("# Voice\n\nPlain."), "")).toBe("# Voice\n\nPlain.");
    expect(() => fileToText("md", "application/octet-stream", new Uint8Array([0xff, 0xfe, 0x00]), "")).toThrow();
  });
});
