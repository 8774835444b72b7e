// Pure: assembles the stored report (SPEC 2.1 `scores`, `report`, `recommendations`) from the
// answers a report job collected. The README ("Report shape") documents every field built here.
import type { ProviderFamily } from "../../ai/types";
import { type Recommendation, recommend } from "./recommendations";
import { type AnswerOutcome, type EntityScore, type ProviderScore, scoreReport, type TrackedEntity } from "./scoring";

/** A model a report asks, and whether its family is configured on this server. */
export interface ReportTarget {
  family: ProviderFamily;
  model: string;
  configured: boolean;
}

/** One prompt × model as the job collected it. */
export interface CollectedAnswer extends AnswerOutcome {
  excerpt: string | null;
}

export interface MentionView {
  name: string;
  domain: string | null;
  isSelf: boolean;
  position: number;
  cited: boolean;
  sentiment: number;
}

export interface PromptResult {
  family: ProviderFamily;
  model: string;
  status: "answered" | "failed";
  error: string | null;
  excerpt: string | null;
  siteMentioned: boolean;
  sitePosition: number | null;
  mentions: MentionView[];
}

export interface ModelBreakdown {
  family: ProviderFamily;
  model: string;
  status: "ok" | "partial" | "failed" | "not_configured";
  answered: number;
  failed: number;
  siteMentionRate: number | null;
}

export interface StoredReport {
  scores: {
    aiVisibility: {
      score: number;
      interpretation: string | null;
      providers: Record<ProviderFamily, ProviderScore | null>;
    };
  };
  report: {
    site: { url: string; domain: string | null; name: string; names: string[] };
    prompts: { prompt: string; siteMentionedBy: ProviderFamily[]; results: PromptResult[] }[];
    comparison: EntityScore[];
    models: ModelBreakdown[];
    totals: { prompts: number; calls: number; answered: number; failed: number };
  };
  recommendations: Recommendation[];
}

export function assembleReport(args: {
  websiteUrl: string;
  prompts: string[];
  entities: TrackedEntity[];
  targets: ReportTarget[];
  answers: CollectedAnswer[];
}): StoredReport {
  const { websiteUrl, prompts, entities, targets, answers } = args;
  const summary = scoreReport(entities, answers);
  const byKey = new Map(entities.map((e) => [e.key, e]));
  const self = entities.find((e) => e.isSelf)!;

  const promptResults = prompts.map((prompt, i) => {
    const results: PromptResult[] = answers
      .filter((a) => a.promptIndex === i)
      .map((a) => {
        const mentions = (a.analysis?.mentions ?? []).map((m) => {
          const e = byKey.get(m.entity)!;
          return { name: e.name, domain: e.domain, isSelf: e.isSelf, position: m.position, cited: m.cited, sentiment: m.sentiment };
        });
        const site = mentions.find((m) => m.isSelf);
        return {
          family: a.family,
          model: a.model,
          status: a.analysis ? "answered" : "failed",
          error: a.error,
          excerpt: a.excerpt,
          siteMentioned: !!site,
          sitePosition: site?.position ?? null,
          mentions,
        };
      });
    return { prompt, siteMentionedBy: [...new Set(results.filter((r) => r.siteMentioned).map((r) => r.family))], results };
  });

  const models: ModelBreakdown[] = targets.map((t) => {
    const mine = answers.filter((a) => a.family === t.family && a.model === t.model);
    const ok = mine.filter((a) => a.analysis);
    const failed = mine.length - ok.length;
    const status = !t.configured ? "not_configured" : ok.length === 0 ? "failed" : failed ? "partial" : "ok";
    const named = ok.filter((a) => a.analysis!.mentions.some((m) => m.entity === "self")).length;
    return {
      family: t.family,
      model: t.model,
      status,
      answered: ok.length,
      failed,
      siteMentionRate: ok.length ? Math.round((named / ok.length) * 1000) / 1000 : null,
    };
  });

  const answered = answers.filter((a) => a.analysis).length;
  return {
    scores: { aiVisibility: { score: summary.score, interpretation: summary.interpretation, providers: summary.providers } },
    report: {
      site: { url: websiteUrl, domain: self.domain, name: self.name, names: self.names },
      prompts: promptResults,
      comparison: summary.entities,
      models,
      totals: { prompts: prompts.length, calls: answers.length, answered, failed: answers.length - answered },
    },
    recommendations: recommend({ prompts, entities, outcomes: answers, summary }),
  };
}
