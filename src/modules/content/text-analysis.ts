// Word-level text analysis for the SEO score, with no I/O: tokens, sentences, syllables and the
// Flesch reading ease, keyword counting (whole words, plural-tolerant) and keyword extraction.
import { syllable } from "syllable";

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;

// Function words that never make a keyword (English; other languages fall back to frequency).
const STOPWORDS = new Set(
  (
    "a about above after again against all also am an and any are aren't as at be because been before being below between both but by " +
    "can can't cannot could couldn't did didn't do does doesn't doing don't down during each even every few for from further get gets " +
    "got had hadn't has hasn't have haven't having he her here hers herself him himself his how however i if in into is isn't it it's its " +
    "itself just let's like made make makes many may me more most much must my myself new no nor not now of off often on once one only or " +
    "other our ours ourselves out over own per same she should shouldn't so some such than that that's the their theirs them themselves " +
    "then there there's these they they're this those through to too two under until up upon us use used using very via was wasn't we " +
    "we're were weren't what what's when where which while who whom why will with within without won't would wouldn't yes yet you " +
    "you're your yours yourself yourselves"
  ).split(" "),
);

export function words(text: string): string[] {
  return (text.match(WORD) ?? []).map((w) => w.replace(/’/g, "'"));
}

/** Sentences of one block of text (a paragraph, a list item): split after . ! ? followed by space. */
export function sentences(block: string): string[] {
  return block
    .split(/(?<=[.!?…]["'”’)\]]*)\s+/u)
    .map((s) => s.trim())
    .filter((s) => words(s).length > 0);
}

export function syllableCount(tokens: string[]): number {
  // `syllable` dominates scoring time on long texts; words repeat, so count each distinct one once
  const seen = new Map<string, number>();
  let total = 0;
  for (const token of tokens) {
    const w = token.toLowerCase();
    let n = seen.get(w);
    if (n === undefined) {
      n = /^\d/.test(w) ? 1 : Math.max(1, syllable(w));
      seen.set(w, n);
    }
    total += n;
  }
  return total;
}

/** Flesch reading ease: 206.835 − 1.015 · words/sentences − 84.6 · syllables/words (higher is easier). */
export function fleschReadingEase(wordCount: number, sentenceCount: number, syllables: number): number {
  if (wordCount === 0 || sentenceCount === 0) return 0;
  return 206.835 - 1.015 * (wordCount / sentenceCount) - 84.6 * (syllables / wordCount);
}

const norm = (w: string) => w.toLowerCase();
const sameWord = (token: string, key: string) => token === key || token === `${key}s` || `${token}s` === key;

/** Whole-word occurrences of a (multi-word) keyword in a token list; "widget" also matches "widgets". */
export function countPhrase(tokens: string[], phrase: string): number {
  const keys = words(phrase).map(norm);
  if (keys.length === 0) return 0;
  const lower = tokens.map(norm);
  let count = 0;
  for (let i = 0; i + keys.length <= lower.length; i++) {
    if (keys.every((k, j) => sameWord(lower[i + j], k))) count++;
  }
  return count;
}

export function containsPhrase(text: string, phrase: string): boolean {
  return countPhrase(words(text), phrase) > 0;
}

const isCandidate = (w: string) => w.length >= 3 && !STOPWORDS.has(w) && !/^\d/.test(w);

/**
 * Up to `max` keywords: the most frequent content words and two-word phrases, where a phrase
 * must occur at least twice and counts double (it is more specific), and the title and headings
 * weigh extra (×3, ×2). Ties go to the
 * earlier first use. A word already inside a chosen phrase is not chosen again.
 */
export function extractKeywords(body: string, title: string, headings: string[], max = 3): string[] {
  const scores = new Map<string, { score: number; count: number; first: number }>();
  let position = 0;
  const add = (term: string, weight: number) => {
    const entry = scores.get(term) ?? { score: 0, count: 0, first: position };
    entry.score += weight;
    entry.count += 1;
    scores.set(term, entry);
  };
  const scan = (text: string, weight: number) => {
    const tokens = words(text).map(norm);
    for (let i = 0; i < tokens.length; i++, position++) {
      if (!isCandidate(tokens[i])) continue;
      add(tokens[i], weight);
      if (i + 1 < tokens.length && isCandidate(tokens[i + 1])) add(`${tokens[i]} ${tokens[i + 1]}`, weight * 2);
    }
  };
  scan(title, 3);
  for (const h of headings) scan(h, 2);
  scan(body, 1);

  const ranked = [...scores.entries()]
    .filter(([term, e]) => (term.includes(" ") ? e.count >= 2 : e.count >= 1))
    .sort((a, b) => b[1].score - a[1].score || a[1].first - b[1].first);
  const chosen: string[] = [];
  for (const [term] of ranked) {
    if (chosen.length >= max) break;
    if (chosen.some((c) => c.split(" ").includes(term) || term.split(" ").includes(c))) continue;
    chosen.push(term);
  }
  return chosen;
}
