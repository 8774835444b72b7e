// HTML → readable text, with no I/O: parse with linkedom, keep the main content with Mozilla
// Readability (the Firefox reader view), and render block elements as paragraphs so sentences and
// headings stay apart. Also used by the SEO scorer to get a DOM from markdown-rendered HTML.
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";

export interface PageText {
  title: string;
  description: string;
  text: string;
}

const BLOCK_TAGS = new Set([
  "ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "BR", "DD", "DIV", "DL", "DT", "FIGCAPTION", "FIGURE", "FOOTER",
  "H1", "H2", "H3", "H4", "H5", "H6", "HEADER", "HR", "LI", "MAIN", "NAV", "OL", "P", "PRE", "SECTION", "TABLE",
  "TD", "TH", "TR", "UL",
]);
const SKIPPED_TAGS = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "SVG", "CANVAS", "IFRAME", "OBJECT", "HEAD"]);
// chrome around the content: removed before Readability (on short pages it keeps whatever is there)
const CHROME_SELECTOR = "nav, footer, aside, form, [role=navigation], [role=contentinfo], [aria-hidden=true]";
// a page header often holds an article's own title, so it goes only when we fall back to <body>
const HEADER_SELECTOR = "body > header, [role=banner]";
// Readability's time grows with the square of the element depth (16 000 levels take seconds);
// real pages stay far below this, hostile ones get the plain body text instead
const READABILITY_MAX_DEPTH = 400;

function removeAll(root: ParentNode, selector: string): void {
  for (const el of Array.from(root.querySelectorAll(selector))) el.remove();
}

/** A DOM document for a full page or a fragment (linkedom needs the html/body wrapper for fragments). */
export function parseHtmlDocument(html: string): Document {
  const full = /<html[\s>]|<body[\s>]|<!doctype/i.test(html.slice(0, 2000));
  const source = full ? html : `<!doctype html><html><head></head><body>${html}</body></html>`;
  return parseHTML(source).document as unknown as Document;
}

/** Text of a node with blank lines between block elements and collapsed inline whitespace. */
export function blockText(root: Node): string {
  const out: string[] = [];
  // an explicit stack, not recursion: hostile pages nest tens of thousands of elements deep
  const stack: (Node | "\n\n")[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (node === "\n\n") {
      out.push(node);
      continue;
    }
    if (node.nodeType === 3) {
      out.push((node.textContent ?? "").replace(/\s+/g, " "));
      continue;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) continue;
    const tag = (node as Element).tagName?.toUpperCase() ?? "";
    if (SKIPPED_TAGS.has(tag)) continue;
    const block = BLOCK_TAGS.has(tag);
    if (block) {
      out.push("\n\n");
      stack.push("\n\n");
    }
    const children = Array.from(node.childNodes);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out
    .join("")
    .split(/\n{2,}/)
    .map((line) => line.replace(/ +/g, " ").trim())
    .filter(Boolean)
    .join("\n\n");
}

/** Whether any element under root is nested deeper than `limit` levels (stops at the first one). */
function nestedDeeperThan(root: Node, limit: number): boolean {
  const stack: [Node, number][] = [[root, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (depth > limit) return true;
    for (const child of Array.from(node.childNodes)) if (child.nodeType === 1) stack.push([child, depth + 1]);
  }
  return false;
}

function metaContent(doc: Document, selector: string): string {
  return doc.querySelector(selector)?.getAttribute("content")?.trim() ?? "";
}

/**
 * The readable text of a page: Readability's article when it finds one (and the page is not
 * absurdly deep), otherwise the body without scripts, navigation, header and footer. Title and
 * description come from the page head.
 */
export function extractReadableText(html: string): PageText {
  const doc = parseHtmlDocument(html);
  const title = (doc.querySelector("title")?.textContent ?? metaContent(doc, 'meta[property="og:title"]')).trim();
  const description = metaContent(doc, 'meta[name="description"]') || metaContent(doc, 'meta[property="og:description"]');

  let text = "";
  try {
    if (!nestedDeeperThan(doc.documentElement, READABILITY_MAX_DEPTH)) {
      // Readability mutates the document it reads, so it gets its own copy
      const copy = parseHtmlDocument(html);
      removeAll(copy, CHROME_SELECTOR);
      const article = new Readability(copy as never).parse();
      if (article?.content) text = blockText(parseHtmlDocument(article.content));
    }
  } catch {
    text = "";
  }
  if (!text) {
    const body = doc.body ?? doc.documentElement;
    removeAll(body, CHROME_SELECTOR);
    removeAll(body, HEADER_SELECTOR);
    text = blockText(body);
  }
  return { title: title.replace(/\s+/g, " "), description: description.replace(/\s+/g, " "), text };
}
