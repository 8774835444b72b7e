// Pure: turns a scored report into prioritized actions, each with an impact, a difficulty and the
// evidence it came from. The advice follows what raises visibility in generative engines (GEO:
// cited sources, quotations, statistics, authoritative and fluent phrasing; being named in the
// sources models draw on).
import type { ProviderFamily } from "../../ai/types";
import type { AnswerOutcome, ScoreSummary, TrackedEntity } from "./scoring";
import { PROVIDER_FAMILIES } from "./scoring";

export type Impact = "high" | "medium" | "low";
export type Difficulty = "easy" | "medium" | "hard";

export interface RecommendationEvidence {
  /** prompts the finding is based on (at most 5) */
  prompts?: string[];
  /** provider families the finding is based on */
  providers?: ProviderFamily[];
  /** competitors involved, by name */
  competitors?: string[];
  /** the measured value that triggered it */
  metric?: { name: string; value: number };
}

export interface Recommendation {
  /** stable kind: not-visible, content-gap, provider-gap, competitor-ahead, negative-sentiment, late-position, missing-citations, geo-content */
  id: string;
  /** 1 = do this first */
  priority: number;
  title: string;
  description: string;
  impact: Impact;
  difficulty: Difficulty;
  evidence: RecommendationEvidence;
}

export interface RecommendationInput {
  prompts: string[];
  entities: TrackedEntity[];
  outcomes: AnswerOutcome[];
  summary: ScoreSummary;
}

const EVIDENCE_PROMPTS = 5;
const IMPACT_RANK: Record<Impact, number> = { high: 3, medium: 2, low: 1 };
const DIFFICULTY_RANK: Record<Difficulty, number> = { easy: 1, medium: 2, hard: 3 };
const PROVIDER_LABEL: Record<ProviderFamily, string> = { openai: "ChatGPT (OpenAI)", anthropic: "Claude (Anthropic)", gemini: "Gemini (Google)" };

type Draft = Omit<Recommendation, "priority">;

function contentGap(input: RecommendationInput, nameOf: (key: string) => string): Draft | null {
  const gaps: { prompt: string; competitors: Set<string> }[] = [];
  input.prompts.forEach((prompt, i) => {
    const answers = input.outcomes.filter((o) => o.promptIndex === i && o.analysis);
    const selfNamed = answers.some((o) => o.analysis!.mentions.some((m) => m.entity === "self"));
    const rivals = new Set(answers.flatMap((o) => o.analysis!.mentions.filter((m) => m.entity !== "self").map((m) => nameOf(m.entity))));
    if (!selfNamed && rivals.size) gaps.push({ prompt, competitors: rivals });
  });
  if (!gaps.length) return null;
  const competitors = [...new Set(gaps.flatMap((g) => [...g.competitors]))];
  return {
    id: "content-gap",
    title: `Answer the ${gaps.length === 1 ? "question" : `${gaps.length} questions`} where competitors appear and you do not`,
    description:
      `For these prompts AI assistants name ${competitors.slice(0, 3).join(", ")} but not your site. Publish a page that ` +
      "answers each question directly in its first paragraph, with concrete figures, a quotable expert statement and " +
      "links to the sources you rely on; these are the edits that raise a page's share of generative answers most.",
    impact: "high",
    difficulty: "medium",
    evidence: { prompts: gaps.slice(0, EVIDENCE_PROMPTS).map((g) => g.prompt), competitors, metric: { name: "promptsWithoutSite", value: gaps.length } },
  };
}

function providerGaps(input: RecommendationInput): Draft | null {
  // absent everywhere is the "not-visible" finding, not a per-provider one
  if (!input.summary.entities.find((e) => e.isSelf)!.mentions) return null;
  const absent = PROVIDER_FAMILIES.filter((f) => {
    const p = input.summary.providers[f];
    return p !== null && p.mentionRate === 0;
  });
  if (!absent.length) return null;
  return {
    id: "provider-gap",
    title: `You are absent from ${absent.map((f) => PROVIDER_LABEL[f]).join(" and ")}`,
    description:
      "Different assistants learn from and search different sources. Get your brand described in the places these models " +
      "cite: well-known directories and review sites for your category, comparison articles, documentation and a clear " +
      "About page that states what you do in one sentence.",
    impact: "high",
    difficulty: "hard",
    evidence: { providers: absent },
  };
}

function competitorsAhead(input: RecommendationInput): Draft | null {
  const self = input.summary.entities.find((e) => e.isSelf)!;
  const ahead = input.summary.entities.filter((e) => !e.isSelf && e.score !== null && e.score > (self.score ?? 0));
  if (!ahead.length) return null;
  ahead.sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
  const gap = (ahead[0].score ?? 0) - (self.score ?? 0);
  return {
    id: "competitor-ahead",
    title: `Close the gap with ${ahead[0].name}`,
    description:
      `${ahead.map((e) => e.name).join(", ")} ${ahead.length === 1 ? "scores" : "score"} higher than your site. Publish honest ` +
      "comparison and alternatives pages (\"you vs them\") with a feature table and figures, so assistants that compare " +
      "options have a source that includes you.",
    impact: gap >= 20 ? "high" : "medium",
    difficulty: "medium",
    evidence: { competitors: ahead.map((e) => e.name), metric: { name: "scoreGap", value: Math.round(gap * 10) / 10 } },
  };
}

function negativeTone(input: RecommendationInput): Draft | null {
  const self = input.summary.entities.find((e) => e.isSelf)!;
  if (self.sentiment === null || self.sentiment >= -0.1) return null;
  const prompts = input.prompts.filter((_, i) =>
    input.outcomes.some((o) => o.promptIndex === i && o.analysis?.mentions.some((m) => m.entity === "self" && m.sentiment < 0)),
  );
  return {
    id: "negative-sentiment",
    title: "Answers describe your brand negatively",
    description:
      "When AI assistants mention you, the surrounding sentences are mostly negative. Find the complaints they repeat, fix or " +
      "answer them publicly (changelog, support articles, review replies) and publish up-to-date facts that contradict outdated claims.",
    impact: "high",
    difficulty: "medium",
    evidence: { prompts: prompts.slice(0, EVIDENCE_PROMPTS), metric: { name: "sentiment", value: self.sentiment } },
  };
}

function latePosition(input: RecommendationInput): Draft | null {
  const self = input.summary.entities.find((e) => e.isSelf)!;
  if (self.averagePosition === null || self.averagePosition <= 1.5) return null;
  return {
    id: "late-position",
    title: "You are named, but after others",
    description:
      "Assistants list your site behind other brands. State what you do and for whom in the first sentence of your key pages, " +
      "use the words people use in these prompts, and back the claim with a number (customers, results, years) so it can be quoted.",
    impact: "medium",
    difficulty: "medium",
    evidence: { metric: { name: "averagePosition", value: self.averagePosition } },
  };
}

function missingCitations(input: RecommendationInput): Draft | null {
  const self = input.summary.entities.find((e) => e.isSelf)!;
  if (!self.mentions) return null;
  const citedShare = self.citationRate / self.mentionRate;
  if (citedShare >= 0.5) return null;
  return {
    id: "missing-citations",
    title: "Give AI engines a page worth linking to",
    description:
      "Your brand is mentioned but rarely linked. Pages that cite their own sources, include statistics and quotations, and " +
      "answer one question per section get linked far more often in generative answers. Add them to the pages that should be cited.",
    impact: "medium",
    difficulty: "easy",
    evidence: { metric: { name: "citationRate", value: self.citationRate } },
  };
}

function notVisible(input: RecommendationInput, nameOf: (key: string) => string): Draft | null {
  const self = input.summary.entities.find((e) => e.isSelf)!;
  if (self.mentions) return null;
  const named = input.summary.entities.filter((e) => !e.isSelf && e.mentions > 0).map((e) => nameOf(e.key));
  return {
    id: "not-visible",
    title: "Make AI assistants aware of your brand",
    description:
      "No answer named your site. Models mention brands they have seen described consistently across the web: use one brand " +
      "name everywhere, describe the company on an About page with Organization structured data, and get listed where your " +
      "category is discussed (directories, review sites, community threads, industry articles).",
    impact: "high",
    difficulty: "hard",
    evidence: { competitors: named, metric: { name: "mentionRate", value: 0 } },
  };
}

function geoContent(input: RecommendationInput): Draft {
  return {
    id: "geo-content",
    title: "Make your key pages quotable",
    description:
      "Generative engines favour content they can lift: add statistics with their source, short quotations from named experts, " +
      "citations of authoritative references, and plain, confident phrasing. These edits are cheap and apply to every prompt you track.",
    impact: input.summary.score < 50 ? "medium" : "low",
    difficulty: "easy",
    evidence: { metric: { name: "score", value: input.summary.score } },
  };
}

/** The report's recommendations, most valuable first (impact, then the easier one). */
export function recommend(input: RecommendationInput): Recommendation[] {
  const names = new Map(input.entities.map((e) => [e.key, e.name]));
  const nameOf = (key: string) => names.get(key) ?? key;
  const drafts = [
    notVisible(input, nameOf),
    contentGap(input, nameOf),
    providerGaps(input),
    competitorsAhead(input),
    negativeTone(input),
    latePosition(input),
    missingCitations(input),
    geoContent(input),
  ].filter((d): d is Draft => d !== null);
  drafts.sort((a, b) => IMPACT_RANK[b.impact] - IMPACT_RANK[a.impact] || DIFFICULTY_RANK[a.difficulty] - DIFFICULTY_RANK[b.difficulty]);
  return drafts.map((d, i) => ({ ...d, priority: i + 1 }));
}
