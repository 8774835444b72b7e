import { expect, test } from "bun:test";
import { encodeRandom, newId } from "../../src/platform/ids";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const decodeTime = (id: string) => [...id.slice(0, 10)].reduce((t, c) => t * 32 + CROCKFORD.indexOf(c), 0);

test("ids are 26 Crockford base32 chars whose first 10 encode the creation time", () => {
  const before = Date.now();
  const id = newId();
  expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  expect(decodeTime(id)).toBeGreaterThanOrEqual(before);
  expect(decodeTime(id)).toBeLessThanOrEqual(Date.now());
});

test("ids made in the same millisecond still sort in creation order", () => {
  const ids = Array.from({ length: 5000 }, () => newId());
  expect(ids.every((v, i) => i === 0 || v > ids[i - 1])).toBe(true);
});

test("the random part is the 80 bits in big-endian base32 (checked against a BigInt encoding)", () => {
  const reference = (bytes: Uint8Array) => {
    let n = 0n;
    for (const b of bytes) n = (n << 8n) | BigInt(b);
    let out = "";
    for (let i = 0; i < 16; i++, n >>= 5n) out = CROCKFORD[Number(n & 31n)] + out;
    return out;
  };
  for (const bytes of [new Uint8Array(10), new Uint8Array(10).fill(255), ...Array.from({ length: 500 }, () => crypto.getRandomValues(new Uint8Array(10)))]) {
    expect(encodeRandom(bytes)).toBe(reference(bytes));
  }
});
