// How deep a Markdown document stacks blockquotes and lists, with no I/O. Markdown parsers recurse
// once per level (marked runs out of stack near ten thousand and spends seconds getting there), so
// the content tools refuse documents nested deeper than any real article.
import { AppError } from "../../http/errors";

export const MAX_MARKDOWN_NESTING = 16;

// one container marker where the previous one ended: `>`, or a bullet / number followed by a blank
const CONTAINER_MARKER = /[ \t]*(?:>|(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$))/y;
// `- - -` and `* * *` are rules, not lists
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;

/** Whether some line opens more than `limit` blockquote/list levels at once (`> > - 1. text` opens 4). */
export function nestsDeeperThan(markdown: string, limit: number): boolean {
  for (const line of markdown.split("\n")) {
    let depth = 0;
    CONTAINER_MARKER.lastIndex = 0;
    while (depth <= limit && CONTAINER_MARKER.test(line)) depth++;
    if (depth > limit && !THEMATIC_BREAK.test(line)) return true;
  }
  return false;
}

/** 400 CONTENT_TOO_NESTED for Markdown nested deeper than MAX_MARKDOWN_NESTING levels. */
export function assertMarkdownNesting(markdown: string): void {
  if (nestsDeeperThan(markdown, MAX_MARKDOWN_NESTING)) {
    throw new AppError(400, "CONTENT_TOO_NESTED", `the Markdown nests blockquotes or lists more than ${MAX_MARKDOWN_NESTING} levels deep`);
  }
}
