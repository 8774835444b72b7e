// Pure analysis of AI answers for a visibility report: who is tracked and how each brand is
// recognised, which brands an answer mentions (order, citation, sentiment), and the aggregate
// 0–100 visibility score. No I/O; the formula is published in the README ("Scoring").
import Sentiment from "sentiment";
import { parse as parseDomain } from "tldts";
import type { ProviderFamily } from "../../ai/types";

export const PROVIDER_FAMILIES: readonly ProviderFamily[] = ["openai", "anthropic", "gemini"];

/** Weights of one answer's value for a mentioned brand; they add up to 1 (see README "Scoring"). */
export const WEIGHTS = { presence: 0.45, position: 0.3, citation: 0.15, sentiment: 0.1 } as const;
/**
 * Phantom answers without a mention added to every sample: a brand named once in a single
 * answer must not outrank one named in most of ten (GEO-style shrinkage toward "not visible").
 */
export const SHRINK_ANSWERS = 1;

/** A brand the report tracks: the analysed site or one competitor. */
export interface TrackedEntity {
  /** stable key: "self" for the site, the registrable domain or the lower-cased name otherwise */
  key: string;
  /** display name */
  name: string;
  /** registrable domain (acme.co.uk), or null for a competitor given only by name */
  domain: string | null;
  /** brand names matched as whole words, case-insensitively */
  names: string[];
  isSelf: boolean;
}

// Ordinary words a domain's label can be ("monday.com", "notion.so"): as a bare word in an answer
// they mean the word, not the brand, so only the full domain (or a longer title name) matches.
const COMMON_WORDS = new Set(
  (
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july " +
    "august september october november december today tomorrow week month year time day night home work life " +
    "world people money business company team group best top new free easy simple smart fast quick good great " +
    "open one first next all any every more most some other same hello help start get make find search shop " +
    "store market app apps web site page blog news mail email chat talk meet call data cloud code box base hub " +
    "line link note plan task tasks project form forms survey sheet sheets doc docs flow stream focus"
  ).split(" "),
);

const SEPARATORS = /\s+[|\-–—:·•»]\s+|\s*[|–—·•»]\s*/;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function titleCase(label: string): string {
  return label.charAt(0).toUpperCase() + label.slice(1);
}

/** The registrable domain of a URL or host (www.acme.co.uk → acme.co.uk), or null. */
export function registrableDomain(urlOrHost: string): string | null {
  const r = parseDomain(urlOrHost);
  if (r.isIp) return r.hostname ?? null;
  return r.domain ?? r.hostname ?? null;
}

/**
 * Brand names from a page title: the title segment (split on | – — : ·) that contains the domain
 * label, when it is short enough to be a name. "Acme Analytics — Product analytics" → "Acme Analytics".
 */
export function brandFromTitle(title: string | null | undefined, label: string): string | null {
  if (!title || !label) return null;
  const wordRe = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(label)}`, "iu");
  for (const raw of title.split(SEPARATORS)) {
    const segment = raw.trim();
    if (!segment || segment.length > 40 || segment.split(/\s+/).length > 4) continue;
    if (segment.includes(".")) continue; // "monday.com" is the domain, already matched as such
    if (wordRe.test(segment)) return segment;
  }
  return null;
}

function usableName(name: string): boolean {
  const n = name.trim();
  if (n.length < 3) return false;
  // a single ordinary word is too ambiguous to count as a brand mention
  return !(!/\s/.test(n) && COMMON_WORDS.has(n.toLowerCase()));
}

function uniqueNames(names: (string | null | undefined)[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const n of names) {
    if (!n || !usableName(n)) continue;
    const k = n.trim().toLowerCase();
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(n.trim());
  }
  return out;
}

/** The analysed site: its domain, the domain label as a name, and the brand from its title when fetched. */
export function siteEntity(websiteUrl: string, title?: string | null): TrackedEntity {
  const parsed = parseDomain(websiteUrl);
  const domain = registrableDomain(websiteUrl) ?? new URL(websiteUrl).hostname;
  const label = parsed.domainWithoutSuffix ?? domain;
  const fromTitle = brandFromTitle(title, label);
  return {
    key: "self",
    name: fromTitle ?? (parsed.isIp ? domain : titleCase(label)),
    domain,
    names: parsed.isIp ? [] : uniqueNames([label, fromTitle]),
    isSelf: true,
  };
}

/** Whether a competitor string is a URL or domain ("https://x.com", "x.com") rather than a name ("HubSpot"). */
export function looksLikeDomain(input: string): boolean {
  const s = input.trim();
  if (/^https?:\/\//i.test(s)) return true;
  // any dotted host, not only ICANN suffixes: "monday.com", "Node.js" and "rivalry.test" are matched as written
  return /^[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)*\.\p{L}{2,63}(\/\S*)?$/u.test(s);
}

/** A competitor given as a URL, a bare domain or a brand name. Returns null when it is unusable. */
export function competitorEntity(input: string): TrackedEntity | null {
  const s = input.trim();
  if (!s) return null;
  if (looksLikeDomain(s)) {
    let host: string;
    try {
      host = new URL(/^https?:\/\//i.test(s) ? s : `https://${s}`).hostname;
    } catch {
      return null;
    }
    const parsed = parseDomain(host);
    const domain = registrableDomain(host);
    if (!domain || parsed.isIp) return null;
    const label = parsed.domainWithoutSuffix ?? domain;
    return { key: domain, name: usableName(label) ? titleCase(label) : domain, domain, names: uniqueNames([label]), isSelf: false };
  }
  if (s.length > 80 || !/[\p{L}\p{N}]/u.test(s)) return null;
  // a name is what the user typed, so it is kept even when it is an ordinary word
  return { key: s.toLowerCase(), name: s, domain: null, names: [s], isSelf: false };
}

/** The site plus competitors, competitors deduplicated by key and never equal to the site. */
export function trackedEntities(websiteUrl: string, competitors: string[], title?: string | null): TrackedEntity[] {
  const self = siteEntity(websiteUrl, title);
  const out: TrackedEntity[] = [self];
  const keys = new Set<string>([self.domain ?? "self"]);
  for (const c of competitors) {
    const e = competitorEntity(c);
    if (!e || keys.has(e.key)) continue;
    keys.add(e.key);
    out.push(e);
  }
  return out;
}

// --- answer analysis -------------------------------------------------------------------------

export interface Mention {
  entity: string;
  /** 1 = the first tracked brand the answer names */
  position: number;
  /** character offset of the first match */
  offset: number;
  /** the answer links to the brand's domain (in the text or the provider's citations) */
  cited: boolean;
  /** -1 … 1 over the clauses that name the brand (AFINN via `sentiment`), 0 when neutral */
  sentiment: number;
  /** the text that matched first */
  matched: string;
}

export interface AnswerAnalysis {
  mentions: Mention[];
}

function domainPattern(domain: string): RegExp {
  // subdomains belong to the site (app.acme.com); acme.com.evil.org and notacme.com do not
  return new RegExp(
    `(?<![\\p{L}\\p{N}\\-.])(?:[\\p{L}\\p{N}\\-]+\\.)*${escapeRegExp(domain)}(?![\\p{L}\\p{N}\\-]|\\.[\\p{L}\\p{N}])`,
    "giu",
  );
}

function namePattern(name: string): RegExp {
  const body = name.trim().split(/\s+/).map(escapeRegExp).join("\\s+");
  // whole words only: "Acme" is not in "Acmeville", and "acme" in "acme.io" is another domain
  return new RegExp(`(?<![\\p{L}\\p{N}_.@/])${body}(?![\\p{L}\\p{N}_]|\\.[\\p{L}\\p{N}])`, "giu");
}

const URL_RE = /\bhttps?:\/\/[^\s<>()\[\]"'`]+/giu;

function hostOf(url: string): string | null {
  try {
    return new URL(url.replace(/[.,;:!?]+$/, "")).hostname.toLowerCase();
  } catch {
    return null;
  }
}

function hostBelongsTo(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

interface Match {
  index: number;
  text: string;
}

interface OwnedMatch extends Match {
  /** index of the tracked entity the match belongs to */
  owner: number;
}

function findMatches(text: string, entity: TrackedEntity): Match[] {
  const patterns: RegExp[] = [];
  if (entity.domain) patterns.push(domainPattern(entity.domain));
  for (const n of entity.names) patterns.push(namePattern(n));
  const matches: Match[] = [];
  for (const re of patterns) for (const m of text.matchAll(re)) matches.push({ index: m.index ?? 0, text: m[0] });
  return matches.sort((a, b) => a.index - b.index);
}

/**
 * Spans the sentiment of a mention is read from: sentences, list lines, and clauses around a
 * contrast, so "A is great but B is awful" splits. Not commas or colons: "**Acme**: excellent for
 * teams" must keep the brand with its verdict.
 */
function clauseSpans(text: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  const boundary = /(?<=[.!?])\s+|\n+|;\s+|,?\s+(?:but|however|whereas|while|although)\s+/giu;
  let start = 0;
  for (const m of text.matchAll(boundary)) {
    const idx = m.index ?? 0;
    if (idx > start) spans.push({ start, end: idx });
    start = idx + m[0].length;
  }
  if (start < text.length) spans.push({ start, end: text.length });
  return spans;
}

const sentimentAnalyzer = new Sentiment();

/** AFINN sum of a clause divided by 5, clamped to [-1, 1]. */
export function clauseSentiment(clause: string): number {
  const { score } = sentimentAnalyzer.analyze(clause);
  return Math.max(-1, Math.min(1, score / 5));
}

/**
 * Every entity's matches, minus those inside a longer match of another entity: brands that share
 * a word ("Acme" and "Acme Cloud", a site "analytics.com" and "Google Analytics") name only the
 * longer brand. One sweep over the matches sorted by start (longest first), no pairwise comparison.
 */
function matchesByEntity(text: string, entities: TrackedEntity[]): Match[][] {
  const all: OwnedMatch[] = entities.flatMap((e, owner) => findMatches(text, e).map((m) => ({ ...m, owner })));
  all.sort((a, b) => a.index - b.index || b.text.length - a.text.length);
  const kept: Match[][] = entities.map(() => []);
  let cover: OwnedMatch | null = null;
  for (const m of all) {
    const end = m.index + m.text.length;
    const covered = cover && cover.owner !== m.owner && cover.index + cover.text.length >= end && cover.text.length > m.text.length;
    if (!covered) kept[m.owner].push(m);
    if (!cover || end > cover.index + cover.text.length) cover = m;
  }
  return kept;
}

/** Which tracked brands an answer mentions, in what order, cited or not, and in what tone. */
export function analyzeAnswer(text: string, entities: TrackedEntity[], citations: string[] = []): AnswerAnalysis {
  const urlHosts = [...text.matchAll(URL_RE)].map((m) => hostOf(m[0])).filter((h): h is string => !!h);
  const citedHosts = [...urlHosts, ...citations.map(hostOf).filter((h): h is string => !!h)];
  const spans = clauseSpans(text);
  const matchesOf = matchesByEntity(text, entities);
  const found: Omit<Mention, "position">[] = [];
  for (const [i, entity] of entities.entries()) {
    const matches = matchesOf[i];
    const domain = entity.domain;
    const cited = !!domain && citedHosts.some((h) => hostBelongsTo(h, domain));
    if (!matches.length && !cited) continue;
    const clauses = new Set<number>();
    for (const m of matches) {
      const i = spans.findIndex((s) => m.index >= s.start && m.index < s.end);
      if (i >= 0) clauses.add(i);
    }
    const tones = [...clauses].map((i) => clauseSentiment(text.slice(spans[i].start, spans[i].end)));
    found.push({
      entity: entity.key,
      // named only through the provider's citation list: it still counts, after every brand named in the text
      offset: matches.length ? matches[0].index : text.length,
      cited,
      sentiment: tones.length ? tones.reduce((a, b) => a + b, 0) / tones.length : 0,
      matched: matches.length ? matches[0].text : domain ?? entity.name,
    });
  }
  found.sort((a, b) => a.offset - b.offset);
  return { mentions: found.map((m, i) => ({ ...m, position: i + 1 })) };
}

/** Value 0–1 of one answer for one brand: 0 when not mentioned (README "Scoring"). */
export function mentionValue(m: Mention | undefined): number {
  if (!m) return 0;
  return (
    WEIGHTS.presence +
    WEIGHTS.position / m.position +
    WEIGHTS.citation * (m.cited ? 1 : 0) +
    WEIGHTS.sentiment * ((m.sentiment + 1) / 2)
  );
}

/** A short piece of the answer for the report: around the site's first mention (offset in `text`), else its start. */
export function answerExcerpt(text: string, offset: number | null, max = 400): string {
  const clean = text.replace(/\s+/g, " ").trim();
  if (clean.length <= max) return clean;
  // the offset moves left by the whitespace collapsed before it
  const cleanOffset = offset === null ? null : text.slice(0, offset).replace(/\s+/g, " ").trimStart().length;
  const at = cleanOffset === null ? 0 : Math.max(0, Math.min(cleanOffset - Math.floor(max / 4), clean.length - max));
  const piece = clean.slice(at, at + max).trim();
  return `${at > 0 ? "…" : ""}${piece}${at + max < clean.length ? "…" : ""}`;
}

// --- aggregation -----------------------------------------------------------------------------

/** One prompt asked of one model: its analysis when it answered, its error otherwise. */
export interface AnswerOutcome {
  promptIndex: number;
  family: ProviderFamily;
  model: string;
  analysis: AnswerAnalysis | null;
  error: string | null;
}

export interface EntityMetrics {
  /** 0–100, or null when no answer came back */
  score: number | null;
  answers: number;
  mentions: number;
  /** share of answers naming the brand, 0–1 */
  mentionRate: number;
  /** share of answers linking to the brand's domain, 0–1 */
  citationRate: number;
  /** mean position among tracked brands in the answers that name it, null when never named */
  averagePosition: number | null;
  /** mean tone of the mentions, -1 … 1, null when never named */
  sentiment: number | null;
}

export interface EntityScore extends EntityMetrics {
  key: string;
  name: string;
  domain: string | null;
  isSelf: boolean;
  /** this brand's mentions over all tracked brands' mentions, 0–100 */
  shareOfVoice: number;
  /** per provider family; null when that provider gave no answer */
  providers: Record<ProviderFamily, number | null>;
}

export interface ProviderScore {
  score: number;
  models: string[];
  answered: number;
  failed: number;
  mentionRate: number;
  citationRate: number;
  averagePosition: number | null;
  /** the site's mentions over all tracked brands' mentions in this provider's answers, 0–100 */
  shareOfVoice: number;
}

export interface ScoreSummary {
  /** the site's score: mean of its provider scores */
  score: number;
  interpretation: string;
  /** per family; null when not configured, not asked, or every call failed */
  providers: Record<ProviderFamily, ProviderScore | null>;
  entities: EntityScore[];
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

function metricsFor(key: string, answers: AnswerAnalysis[]): EntityMetrics {
  let sum = 0;
  let mentions = 0;
  let cited = 0;
  let positionSum = 0;
  let toneSum = 0;
  for (const a of answers) {
    const m = a.mentions.find((x) => x.entity === key);
    sum += mentionValue(m);
    if (!m) continue;
    mentions++;
    if (m.cited) cited++;
    positionSum += m.position;
    toneSum += m.sentiment;
  }
  const n = answers.length;
  return {
    score: n ? round((100 * sum) / (n + SHRINK_ANSWERS)) : null,
    answers: n,
    mentions,
    mentionRate: n ? round(mentions / n, 3) : 0,
    citationRate: n ? round(cited / n, 3) : 0,
    averagePosition: mentions ? round(positionSum / mentions, 2) : null,
    sentiment: mentions ? round(toneSum / mentions, 3) : null,
  };
}

/** Score bands and what they mean for the user (README "Interpretation"). */
export const INTERPRETATION_BANDS: { min: number; text: string }[] = [
  { min: 70, text: "Strong: AI assistants name the site in most answers, usually first and often with a link." },
  { min: 50, text: "Good: the site is named in many answers but not consistently first or cited." },
  { min: 30, text: "Moderate: the site appears in some answers; competitors are often named before it." },
  { min: 10, text: "Low: AI assistants rarely mention the site." },
  { min: 0, text: "Not visible: AI assistants practically never mention the site for these prompts." },
];

export function interpret(score: number): string {
  return (INTERPRETATION_BANDS.find((b) => score >= b.min) ?? INTERPRETATION_BANDS[INTERPRETATION_BANDS.length - 1]).text;
}

/**
 * The report's scores. Every brand's score per provider is 100 × Σ value / (answers + 1) over
 * that provider's answers; a brand's score is the mean over the providers that answered, so each
 * AI engine weighs the same and a failed or unconfigured one is left out (null), never a 0.
 */
export function scoreReport(entities: TrackedEntity[], outcomes: AnswerOutcome[]): ScoreSummary {
  const byFamily = new Map<ProviderFamily, AnswerOutcome[]>();
  for (const o of outcomes) byFamily.set(o.family, [...(byFamily.get(o.family) ?? []), o]);
  const answered = (list: AnswerOutcome[]) => list.filter((o) => o.analysis).map((o) => o.analysis!);
  const all = answered(outcomes);
  const mentionsOfAll = (answers: AnswerAnalysis[]) => answers.reduce((n, a) => n + a.mentions.length, 0);
  const totalMentions = mentionsOfAll(all);

  const entityScores: EntityScore[] = entities.map((e) => {
    const providers = {} as Record<ProviderFamily, number | null>;
    for (const f of PROVIDER_FAMILIES) {
      const list = answered(byFamily.get(f) ?? []);
      providers[f] = list.length ? metricsFor(e.key, list).score : null;
    }
    const perProvider = Object.values(providers).filter((v): v is number => v !== null);
    const pooled = metricsFor(e.key, all);
    return {
      key: e.key,
      name: e.name,
      domain: e.domain,
      isSelf: e.isSelf,
      ...pooled,
      score: perProvider.length ? round(perProvider.reduce((a, b) => a + b, 0) / perProvider.length) : null,
      shareOfVoice: totalMentions ? round((100 * pooled.mentions) / totalMentions) : 0,
      providers,
    };
  });

  const self = entityScores.find((e) => e.isSelf)!;
  const providers = {} as Record<ProviderFamily, ProviderScore | null>;
  for (const f of PROVIDER_FAMILIES) {
    const list = byFamily.get(f) ?? [];
    const ok = answered(list);
    if (!ok.length) {
      providers[f] = null;
      continue;
    }
    const m = metricsFor("self", ok);
    const mentionsHere = mentionsOfAll(ok);
    providers[f] = {
      score: m.score!,
      models: [...new Set(list.map((o) => o.model))],
      answered: ok.length,
      failed: list.length - ok.length,
      mentionRate: m.mentionRate,
      citationRate: m.citationRate,
      averagePosition: m.averagePosition,
      shareOfVoice: mentionsHere ? round((100 * m.mentions) / mentionsHere) : 0,
    };
  }
  const score = self.score ?? 0;
  return { score, interpretation: interpret(score), providers, entities: entityScores };
}
