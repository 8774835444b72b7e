// Planning and placing a blog post's images, with no I/O and no AI: the post (markdown) is split
// into sections with marked's block lexer (so headings inside code blocks don't count), N sections are
// picked evenly from first to last, each gets an image prompt built from its heading and opening
// words, and generated images are inserted under their section's heading.
import { Lexer, type Token } from "marked";
import { assertMarkdownNesting } from "./markdown-nesting";

export interface PlannedImage {
  /** index of the lexer token the image goes after (a heading, or the block before a chunk) */
  afterToken: number;
  /** the section's heading, or the post title / opening words for posts without headings */
  section: string;
  alt: string;
  prompt: string;
}

export interface PlanOptions {
  count: number;
  title?: string;
  style?: string;
}

const MAX_PROMPT_CHARS = 900;
const SUMMARY_WORDS = 40;
const DEFAULT_STYLE = "Clean, modern editorial illustration";

function plainText(tokens: Token[]): string {
  return tokens
    .filter((t) => t.type !== "code" && t.type !== "html" && t.type !== "space")
    .map((t) => ("text" in t && typeof t.text === "string" ? t.text : ""))
    .join(" ")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links and images → their text
    .replace(/[*_`#>~|]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

const firstWords = (text: string, n: number) => text.split(" ").slice(0, n).join(" ");

/**
 * The post's block tokens (what `marked.lexer` gives, without its inline pass: sections and
 * paragraphs need none, and that pass is quadratic on runs of unmatched `_` / `*`).
 */
function blockTokens(markdown: string): Token[] {
  return new Lexer().blockTokens(markdown.replace(/\r\n|\r/g, "\n"));
}

/** n indices spread evenly over 0..total-1, first and last included (n ≤ total). */
export function spread(total: number, n: number): number[] {
  if (n <= 0 || total <= 0) return [];
  if (n >= total) return Array.from({ length: total }, (_, i) => i);
  if (n === 1) return [0];
  return Array.from({ length: n }, (_, i) => Math.round((i * (total - 1)) / (n - 1)));
}

function promptFor(section: string, summary: string, opts: PlanOptions): string {
  const about = opts.title ? `a blog post titled "${opts.title}"` : "a blog post";
  const prompt = `${opts.style?.trim() || DEFAULT_STYLE} for ${about}, section "${section}": ${summary.replace(/[.!?…:;,\s]+$/, "")}. No text, letters or logos in the image.`;
  return prompt.length > MAX_PROMPT_CHARS ? `${prompt.slice(0, MAX_PROMPT_CHARS - 1)}…` : prompt;
}

interface Section {
  headingToken: number;
  heading: string;
  body: Token[];
}

/** Sections under the top-most heading level used below H1 (H2 in most posts). */
function sectionsOf(tokens: Token[]): Section[] {
  const headings = tokens.map((t, i) => ({ t, i })).filter((x): x is { t: Token & { depth: number; text: string }; i: number } => x.t.type === "heading");
  const levels = headings.map((h) => h.t.depth).filter((d) => d > 1);
  if (levels.length === 0) return [];
  const level = Math.min(...levels);
  const chosen = headings.filter((h) => h.t.depth === level);
  return chosen.map((h, k) => {
    const end = k + 1 < chosen.length ? chosen[k + 1].i : tokens.length;
    return { headingToken: h.i, heading: plainText([h.t]), body: tokens.slice(h.i + 1, end) };
  });
}

/** Plans `count` images (fewer when the post has fewer sections or paragraphs). */
export function planBlogImages(markdown: string, opts: PlanOptions): PlannedImage[] {
  assertMarkdownNesting(markdown);
  const tokens = blockTokens(markdown);
  const sections = sectionsOf(tokens);
  if (sections.length) {
    return spread(sections.length, opts.count).map((k) => {
      const s = sections[k];
      const summary = firstWords(plainText(s.body), SUMMARY_WORDS) || s.heading;
      return { afterToken: s.headingToken, section: s.heading, alt: s.heading, prompt: promptFor(s.heading, summary, opts) };
    });
  }
  // no subheadings: images go before evenly spread paragraphs (the first one after an H1, if any)
  const paragraphs = tokens.map((t, i) => ({ t, i })).filter((x) => x.t.type === "paragraph");
  return spread(paragraphs.length, opts.count).map((k) => {
    const p = paragraphs[k];
    const summary = firstWords(plainText([p.t]), SUMMARY_WORDS);
    const section = opts.title?.trim() || firstWords(summary, 8);
    return { afterToken: p.i - 1, section, alt: firstWords(summary, 12), prompt: promptFor(section, summary, opts) };
  });
}

export interface Placement {
  afterToken: number;
  alt: string;
  src: string;
}

/** The post with each image inserted after its token (afterToken -1 = at the very top). */
export function placeImages(markdown: string, placements: Placement[]): string {
  const tokens = blockTokens(markdown);
  const byToken = new Map<number, Placement[]>();
  for (const p of placements) byToken.set(p.afterToken, [...(byToken.get(p.afterToken) ?? []), p]);
  const image = (p: Placement) => `![${p.alt.replace(/[[\]]/g, "")}](${p.src})\n\n`;
  let out = (byToken.get(-1) ?? []).map(image).join("");
  let afterImage = out !== "";
  tokens.forEach((t, i) => {
    // the images already end in a blank line; the next block's leading newlines would add more
    out += afterImage ? t.raw.replace(/^\n+/, "") : t.raw;
    afterImage = false;
    const here = byToken.get(i);
    if (!here) return;
    if (!out.endsWith("\n")) out += "\n";
    if (!out.endsWith("\n\n")) out += "\n";
    out += here.map(image).join("");
    afterImage = true;
  });
  return out;
}
