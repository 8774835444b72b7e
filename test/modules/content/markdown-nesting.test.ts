import { describe, expect, test } from "bun:test";
import { assertMarkdownNesting, MAX_MARKDOWN_NESTING, nestsDeeperThan } from "../../../src/modules/content/markdown-nesting";

describe("nestsDeeperThan counts the blockquote and list markers one line stacks", () => {
  test.each([
    ["> quote", 1],
    ["> > - 1. item", 4],
    [">>>> x", 4],
    ["- - - x", 3],
    ["1) 2) x", 2],
    ["   > > x", 2],
  ])("%p opens %i", (line, depth) => {
    expect(nestsDeeperThan(line, depth)).toBe(false);
    expect(nestsDeeperThan(line, depth - 1)).toBe(true);
  });

  test.each(["-x", "*emphasis*", "1.5 litres", "2024 was a year", "plain text"])("%p opens nothing", (line) => {
    expect(nestsDeeperThan(line, 0)).toBe(false);
  });

  test("thematic breaks are not lists, however long", () => {
    expect(nestsDeeperThan("- ".repeat(100), 3)).toBe(false);
    expect(nestsDeeperThan("* ".repeat(100), 3)).toBe(false);
  });

  test("the deepest line decides; a 100 000-marker line is judged without scanning it all", () => {
    expect(nestsDeeperThan("# Title\n\n> one\n> > > > two\n", 3)).toBe(true);
    expect(nestsDeeperThan(">".repeat(100_000), MAX_MARKDOWN_NESTING)).toBe(true);
  });
});

test("assertMarkdownNesting: an article passes; past the limit is 400 CONTENT_TOO_NESTED", () => {
  expect(() => assertMarkdownNesting("# Post\n\n> quote\n\n- a\n  - b\n    - c\n")).not.toThrow();
  expect(() => assertMarkdownNesting(`${"> ".repeat(MAX_MARKDOWN_NESTING)}ok`)).not.toThrow();
  expect(() => assertMarkdownNesting(`${"> ".repeat(MAX_MARKDOWN_NESTING + 1)}too deep`)).toThrow(
    expect.objectContaining({ status: 400, errCode: "CONTENT_TOO_NESTED" }),
  );
});
