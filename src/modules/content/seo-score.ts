// The SEO score of an article, deterministic and explainable, with no I/O and no AI: markdown
// (rendered with Bun's built-in CommonMark/GFM parser, which stays linear on hostile input where
// marked goes quadratic) or HTML is parsed with linkedom, measured, and scored 0–100 as a
// weighted mean of named sub-scores, each with the suggestions that would raise it. The README
// ("Brand voices and content tools") documents every threshold below.
import { blockText, parseHtmlDocument } from "../../lib/html-text";
import { assertMarkdownNesting } from "./markdown-nesting";
import { containsPhrase, countPhrase, extractKeywords, fleschReadingEase, sentences, syllableCount, words } from "./text-analysis";

export type MetricName = "keywordPlacement" | "keywordDensity" | "readability" | "contentLength" | "headingStructure" | "textStructure" | "links";

export const METRIC_WEIGHTS: Record<MetricName, number> = {
  keywordPlacement: 20,
  keywordDensity: 15,
  readability: 20,
  contentLength: 15,
  headingStructure: 10,
  textStructure: 10,
  links: 10,
};

export const SEO_THRESHOLDS = {
  densityMin: 0.5,
  densityMax: 2.5,
  /** density at and above which the density sub-score is 0 (keyword stuffing) */
  densityStuffed: 5,
  fleschEasy: 60,
  fleschHard: 30,
  minWords: 300,
  goodWords: 900,
  wordsPerSubheading: 300,
  sentenceWordsGood: 20,
  sentenceWordsBad: 35,
  paragraphWordsMax: 150,
  linksGood: 2,
};

export interface SeoInput {
  content: string;
  title?: string;
  keywords?: string[];
  /** default true: extract keywords when none are given */
  autoExtractKeywords?: boolean;
}

export interface Metric {
  /** 0–100; null when it cannot be measured (keyword metrics without keywords) */
  score: number | null;
  /** share of the overall score; 0 when excluded */
  weight: number;
  detail: string;
}

export interface Suggestion {
  metric: MetricName | "images";
  message: string;
}

export interface SeoReport {
  score: number;
  grade: "good" | "fair" | "poor";
  format: "markdown" | "html";
  keywords: string[];
  keywordsSource: "given" | "extracted" | "none";
  metrics: Record<MetricName, Metric>;
  stats: {
    words: number;
    sentences: number;
    paragraphs: number;
    headings: number;
    subheadings: number;
    links: number;
    images: number;
    syllables: number;
    fleschReadingEase: number;
    avgSentenceLength: number;
    /** primary keyword, percent of all words */
    keywordDensity: number;
    keywordOccurrences: number;
  };
  suggestions: Suggestion[];
}

interface Parsed {
  format: "markdown" | "html";
  title: string;
  h1Count: number;
  headings: { level: number; text: string }[];
  paragraphs: string[];
  proseBlocks: string[];
  text: string;
  links: number;
  imagesWithoutAlt: number;
  images: number;
}

const HTML_HINT = /<\/?(p|h[1-6]|div|article|section|main|ul|ol|li|a|br|body|html|span|strong|em|img|table|blockquote)\b[^>]*>/i;

export function detectFormat(content: string): "markdown" | "html" {
  return HTML_HINT.test(content) ? "html" : "markdown";
}

function parse(input: SeoInput): Parsed {
  const format = detectFormat(input.content);
  if (format === "markdown") assertMarkdownNesting(input.content);
  const html = format === "html" ? input.content : Bun.markdown.html(input.content, { autolinks: true });
  const doc = parseHtmlDocument(html);
  const body = doc.body ?? doc.documentElement;
  const text = (el: Element) => (el.textContent ?? "").replace(/\s+/g, " ").trim();
  const headings = Array.from(body.querySelectorAll("h1, h2, h3, h4, h5, h6")).map((h) => ({ level: Number(h.tagName[1]), text: text(h) }));
  const paragraphs = Array.from(body.querySelectorAll("p")).map(text).filter(Boolean);
  const proseBlocks = Array.from(body.querySelectorAll("p, li, blockquote, td")).map(text).filter(Boolean);
  const images = Array.from(body.querySelectorAll("img"));
  const firstH1 = headings.find((h) => h.level === 1)?.text ?? "";
  return {
    format,
    title: input.title?.trim() || firstH1,
    h1Count: headings.filter((h) => h.level === 1).length,
    headings,
    paragraphs,
    proseBlocks: proseBlocks.length ? proseBlocks : [blockText(body)],
    text: blockText(body),
    links: body.querySelectorAll("a[href]").length,
    images: images.length,
    imagesWithoutAlt: images.filter((img) => !(img.getAttribute("alt") ?? "").trim()).length,
  };
}

const clamp = (n: number) => Math.max(0, Math.min(100, Math.round(n)));
const round1 = (n: number) => Math.round(n * 10) / 10;
/** linear from (x0 → y0) to (x1 → y1), clamped to the segment */
const ramp = (x: number, x0: number, y0: number, x1: number, y1: number) => (x <= x0 ? y0 : x >= x1 ? y1 : y0 + ((x - x0) / (x1 - x0)) * (y1 - y0));

function readabilityLabel(f: number): string {
  if (f >= 70) return "easy";
  if (f >= 60) return "plain";
  if (f >= 50) return "fairly difficult";
  if (f >= 30) return "difficult";
  return "very difficult";
}

/** Scores an article; see SEO_THRESHOLDS and METRIC_WEIGHTS. */
export function scoreSeo(input: SeoInput): SeoReport {
  const T = SEO_THRESHOLDS;
  const p = parse(input);
  const tokens = words(p.text);
  const wordCount = tokens.length;
  const subheadings = p.headings.filter((h) => h.level >= 2);
  const suggestions: Suggestion[] = [];
  const suggest = (metric: Suggestion["metric"], message: string) => suggestions.push({ metric, message });

  // keywords
  const given = (input.keywords ?? []).map((k) => k.trim().toLowerCase()).filter(Boolean);
  const keywords = given.length
    ? [...new Set(given)]
    : input.autoExtractKeywords === false
      ? []
      : extractKeywords(p.text, input.title ?? "", p.headings.map((h) => h.text));
  const keywordsSource = given.length ? "given" : keywords.length ? "extracted" : "none";
  const primary = keywords[0];
  const occurrences = primary ? countPhrase(tokens, primary) : 0;
  const density = wordCount && primary ? (occurrences * words(primary).length * 100) / wordCount : 0;

  const metrics = {} as Record<MetricName, Metric>;
  const set = (name: MetricName, score: number | null, detail: string) => {
    metrics[name] = { score: score === null ? null : clamp(score), weight: score === null ? 0 : METRIC_WEIGHTS[name], detail };
  };

  // keyword placement: title 40, first paragraph 30, a subheading 30
  if (primary) {
    const inTitle = p.title !== "" && containsPhrase(p.title, primary);
    const firstParagraph = p.paragraphs[0] ?? tokens.slice(0, 100).join(" ");
    const inIntro = containsPhrase(firstParagraph, primary);
    const inSubheading = subheadings.some((h) => containsPhrase(h.text, primary));
    set("keywordPlacement", (inTitle ? 40 : 0) + (inIntro ? 30 : 0) + (inSubheading ? 30 : 0),
      `"${primary}" in title: ${inTitle ? "yes" : "no"}, in first paragraph: ${inIntro ? "yes" : "no"}, in a subheading: ${inSubheading ? "yes" : "no"}`);
    if (!inTitle) suggest("keywordPlacement", p.title ? `Put the keyword "${primary}" in the title` : `Add a title (or an H1) that contains the keyword "${primary}"`);
    if (!inIntro) suggest("keywordPlacement", `Use the keyword "${primary}" in the first paragraph`);
    if (!inSubheading) suggest("keywordPlacement", `Use the keyword "${primary}" in at least one subheading (H2/H3)`);

    const densityScore =
      density === 0 ? 0 : density < T.densityMin ? ramp(density, 0, 0, T.densityMin, 100) : density <= T.densityMax ? 100 : ramp(density, T.densityMax, 100, T.densityStuffed, 0);
    set("keywordDensity", densityScore, `"${primary}" appears ${occurrences} times: ${round1(density)}% of ${wordCount} words (aim for ${T.densityMin}–${T.densityMax}%)`);
    if (density < T.densityMin) {
      suggest("keywordDensity", `Use the keyword "${primary}" more often: it is ${round1(density)}% of the words (aim for ${T.densityMin}–${T.densityMax}%)`);
    } else if (density > T.densityMax) {
      suggest("keywordDensity", `The keyword "${primary}" is ${round1(density)}% of the words; above ${T.densityMax}% reads as keyword stuffing, so use it less and vary the wording`);
    }
  } else {
    set("keywordPlacement", null, "no keywords given or found");
    set("keywordDensity", null, "no keywords given or found");
    suggest("keywordPlacement", "Give target keywords (or enable autoExtractKeywords) so keyword use can be scored");
  }

  // readability (prose only: headings are not sentences)
  const prose = p.proseBlocks.join(" ");
  const proseTokens = words(prose);
  const sentenceList = p.proseBlocks.flatMap(sentences);
  const sentenceCount = Math.max(sentenceList.length, proseTokens.length ? 1 : 0);
  const syllables = syllableCount(proseTokens);
  const flesch = fleschReadingEase(proseTokens.length, sentenceCount, syllables);
  const readability = proseTokens.length === 0 ? 0 : flesch >= T.fleschEasy ? 100 : flesch >= T.fleschHard ? ramp(flesch, T.fleschHard, 50, T.fleschEasy, 100) : ramp(flesch, 0, 0, T.fleschHard, 50);
  set("readability", readability, `Flesch reading ease ${round1(flesch)} (${readabilityLabel(flesch)}; 60+ is plain English)`);
  if (flesch < T.fleschEasy && proseTokens.length) {
    suggest("readability", `Flesch reading ease is ${round1(flesch)} (${readabilityLabel(flesch)}); shorten sentences and prefer shorter words to reach ${T.fleschEasy} or more`);
  }

  // length
  const lengthScore = wordCount >= T.goodWords ? 100 : wordCount >= T.minWords ? ramp(wordCount, T.minWords, 60, T.goodWords, 100) : ramp(wordCount, 0, 0, T.minWords, 60);
  set("contentLength", lengthScore, `${wordCount} words (at least ${T.minWords}; ${T.goodWords}+ for a full article)`);
  if (wordCount < T.goodWords) suggest("contentLength", `The text has ${wordCount} words; expand it to at least ${wordCount < T.minWords ? T.minWords : T.goodWords} words`);

  // headings: a title/H1 30, enough subheadings 50, no skipped levels 20
  const neededSubheadings = wordCount >= T.minWords ? Math.floor(wordCount / T.wordsPerSubheading) : 0;
  const skipped = p.headings.some((h, i) => i > 0 && h.level > p.headings[i - 1].level + 1);
  const titlePoints = p.h1Count > 1 ? 15 : p.title ? 30 : 0;
  const subPoints = neededSubheadings === 0 ? 50 : Math.min(1, subheadings.length / neededSubheadings) * 50;
  set("headingStructure", titlePoints + subPoints + (skipped ? 0 : 20),
    `title: ${p.title ? "yes" : "no"}, H1s: ${p.h1Count}, subheadings: ${subheadings.length} (wanted ${neededSubheadings}), skipped levels: ${skipped ? "yes" : "no"}`);
  // without a title the keyword suggestion above already asks for one that carries the keyword
  if (!p.title && !primary) suggest("headingStructure", "Add a title (or one H1 heading)");
  if (p.h1Count > 1) suggest("headingStructure", `Use one H1 heading; found ${p.h1Count}`);
  if (subheadings.length < neededSubheadings) {
    suggest("headingStructure", `Add subheadings (H2/H3): about one per ${T.wordsPerSubheading} words, so ${neededSubheadings} for this text; found ${subheadings.length}`);
  }
  if (skipped) suggest("headingStructure", "Heading levels skip a step (e.g. H2 to H4); keep them in order");

  // paragraphs and sentences: average sentence length 50, short paragraphs 50
  const avgSentence = sentenceCount ? proseTokens.length / sentenceCount : 0;
  const longParagraphs = p.paragraphs.filter((para) => words(para).length > T.paragraphWordsMax).length;
  const shortShare = p.paragraphs.length ? 1 - longParagraphs / p.paragraphs.length : wordCount > T.paragraphWordsMax ? 0 : 1;
  set("textStructure", ramp(avgSentence, T.sentenceWordsGood, 50, T.sentenceWordsBad, 0) + shortShare * 50,
    `average sentence ${round1(avgSentence)} words, ${longParagraphs} of ${p.paragraphs.length} paragraphs over ${T.paragraphWordsMax} words`);
  if (avgSentence > T.sentenceWordsGood) suggest("textStructure", `Sentences average ${round1(avgSentence)} words; aim for ${T.sentenceWordsGood} or fewer`);
  if (longParagraphs) suggest("textStructure", `Split the ${longParagraphs} paragraph${longParagraphs > 1 ? "s" : ""} longer than ${T.paragraphWordsMax} words`);
  if (!p.paragraphs.length && wordCount > T.paragraphWordsMax) suggest("textStructure", "Break the text into paragraphs");

  // links
  set("links", p.links >= T.linksGood ? 100 : p.links === 1 ? 60 : 0, `${p.links} links`);
  if (p.links < T.linksGood) suggest("links", `Add links to sources or related pages (found ${p.links}; aim for ${T.linksGood} or more)`);

  if (p.imagesWithoutAlt) suggest("images", `Give the ${p.imagesWithoutAlt} image${p.imagesWithoutAlt > 1 ? "s" : ""} without alt text a short description`);

  let weighted = 0;
  let weights = 0;
  for (const m of Object.values(metrics)) {
    if (m.score === null) continue;
    weighted += m.score * m.weight;
    weights += m.weight;
  }
  const score = weights ? Math.round(weighted / weights) : 0;
  return {
    score,
    grade: score >= 80 ? "good" : score >= 50 ? "fair" : "poor",
    format: p.format,
    keywords,
    keywordsSource,
    metrics,
    stats: {
      words: wordCount,
      sentences: sentenceList.length,
      paragraphs: p.paragraphs.length,
      headings: p.headings.length,
      subheadings: subheadings.length,
      links: p.links,
      images: p.images,
      syllables,
      fleschReadingEase: round1(flesch),
      avgSentenceLength: round1(avgSentence),
      keywordDensity: round1(density),
      keywordOccurrences: occurrences,
    },
    suggestions,
  };
}
