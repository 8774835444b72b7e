import { expect, test } from "bun:test";
import { imageMimeType } from "../../../src/modules/images/image-format";
import { fakePng } from "../../support/fake-providers";

const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...p].map((c) => c.charCodeAt(0)) : p)));

test.each([
  ["a real PNG", new Uint8Array(fakePng("x")), "image/png"],
  ["JPEG (JFIF)", bytes([0xff, 0xd8, 0xff, 0xe0, 0, 0x10], "JFIF"), "image/jpeg"],
  ["GIF89a", bytes("GIF89a", [1, 0, 1, 0]), "image/gif"],
  ["GIF87a", bytes("GIF87a", [1, 0, 1, 0]), "image/gif"],
  ["WebP", bytes("RIFF", [0x24, 0, 0, 0], "WEBPVP8 "), "image/webp"],
] as const)("%s → %s", (_name, input, type) => {
  expect(imageMimeType(input)).toBe(type);
});

test.each([
  ["SVG (could carry script)", bytes('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')],
  ["HTML", bytes("<!doctype html><p>hi")],
  ["a RIFF that is not WebP (WAV)", bytes("RIFF", [0x24, 0, 0, 0], "WAVEfmt ")],
  ["a truncated PNG signature", bytes([0x89, 0x50, 0x4e, 0x47])],
  ["nothing", new Uint8Array(0)],
] as const)("%s → null", (_name, input) => {
  expect(imageMimeType(input)).toBeNull();
});
