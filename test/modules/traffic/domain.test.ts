import { describe, expect, test } from "bun:test";
import { isHostOf, normalizeDomain, parseReferrer } from "../../../src/modules/traffic/domain";

describe("normalizeDomain", () => {
  test.each([
    ["example.com", "example.com"],
    ["EXAMPLE.com", "example.com"],
    ["https://www.example.com/", "example.com"],
    ["http://WWW.Example.COM:8080/pricing?x=1#top", "example.com"],
    ["  shop.example.co.uk  ", "shop.example.co.uk"],
    ["example.com/some/path", "example.com"],
    ["example.com.", "example.com"],
    ["bücher.de", "xn--bcher-kva.de"],
    ["https://www.münchen.de", "xn--mnchen-3ya.de"],
    ["www2.example.com", "www2.example.com"],
  ])("%s → %s", (input, expected) => {
    expect(normalizeDomain(input)).toBe(expected);
  });

  test.each([
    [""],
    ["   "],
    ["localhost"],
    ["http://localhost:3000"],
    ["127.0.0.1"],
    ["http://[::1]/"],
    ["ftp://example.com"],
    ["javascript:alert(1)"],
    ["https://user:pass@example.com"],
    ["exa mple.com"],
    ["-bad.example.com"],
    ["a".repeat(64) + ".com"],
  ])("%p is invalid", (input) => {
    expect(normalizeDomain(input)).toBeNull();
  });

  test("over-long input is invalid", () => {
    expect(normalizeDomain(`${"x".repeat(3000)}.com`)).toBeNull();
    expect(normalizeDomain(`${"abcdefghi.".repeat(26)}com`)).toBeNull(); // 263 chars > 253
  });
});

describe("referrer parsing", () => {
  test("host without www., path kept", () => {
    expect(parseReferrer("https://www.Example.com/a/b?q=1")).toEqual({ host: "example.com", path: "/a/b" });
    expect(parseReferrer("")).toBeNull();
    expect(parseReferrer("about:blank")).toBeNull();
  });
  test("isHostOf matches the domain and subdomains only", () => {
    expect(isHostOf("example.com", "example.com")).toBe(true);
    expect(isHostOf("a.b.example.com", "example.com")).toBe(true);
    expect(isHostOf("badexample.com", "example.com")).toBe(false);
    expect(isHostOf("com", "example.com")).toBe(false);
  });
});
