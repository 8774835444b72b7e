// Gathers the workspace summary the chat assistant is grounded in: the latest visibility report's
// scores and gaps, its top recommendations, AI traffic and the caller's brand voices.
import type { AppContext } from "../../context";
import { listActiveBrandVoices } from "../brand-voice/service";
import { trafficSummary } from "../traffic/service";
import type { Principal } from "../users/service";
import { getWorkspace } from "../users/service";
import type { StoredReport } from "../visibility/report";
import { completedReport, reportHistory, reportInput } from "../visibility/service";
import type { AssistantContext, AssistantVisibility } from "./context";

export const CONTEXT_TRAFFIC_DAYS = 30;
const TOP_COMPETITORS = 5;
const TOP_GAPS = 5;
const TOP_RECOMMENDATIONS = 3;
const TOP_BRAND_VOICES = 5;

function visibilityOf(ctx: AppContext, workspaceId: string): { visibility: AssistantVisibility; stored: StoredReport } | null {
  const row = completedReport(ctx.db, workspaceId);
  if (!row) return null;
  const stored = JSON.parse(row.result!) as StoredReport;
  const { aiVisibility } = stored.scores;
  const self = stored.report.comparison.find((e) => e.isSelf)!;
  const [previous] = reportHistory(ctx.db, workspaceId, 2);
  const hasPrevious = previous && previous.reportId !== row.id;
  const providers = Object.fromEntries(
    Object.entries(aiVisibility.providers).map(([family, p]) => [family, p ? p.score : null]),
  ) as AssistantVisibility["providers"];
  return {
    stored,
    visibility: {
      reportId: row.id,
      createdAt: new Date(row.created_at).toISOString(),
      websiteurl: reportInput(row).websiteurl,
      score: aiVisibility.score,
      interpretation: aiVisibility.interpretation,
      providers,
      change: hasPrevious ? Math.round((aiVisibility.score - previous.overall) * 10) / 10 : null,
      site: { mentionRate: self.mentionRate, citationRate: self.citationRate, averagePosition: self.averagePosition, shareOfVoice: self.shareOfVoice },
      competitors: stored.report.comparison
        .filter((e) => !e.isSelf)
        .sort((a, b) => (b.score ?? -1) - (a.score ?? -1))
        .slice(0, TOP_COMPETITORS)
        .map((e) => ({ name: e.name, domain: e.domain, score: e.score, shareOfVoice: e.shareOfVoice })),
      promptsWithoutSite: stored.report.prompts
        .filter((p) => p.siteMentionedBy.length === 0 && p.results.some((r) => r.mentions.some((m) => !m.isSelf)))
        .slice(0, TOP_GAPS)
        .map((p) => p.prompt),
    },
  };
}

/** The workspace summary for the chat assistant (GET /v1/ai/generate/assistant/context). */
export function buildAssistantContext(ctx: AppContext, principal: Principal): AssistantContext {
  const now = ctx.clock.now();
  const found = visibilityOf(ctx, principal.workspaceId);
  const traffic = trafficSummary(ctx.db, principal.workspaceId, CONTEXT_TRAFFIC_DAYS, now);
  return {
    generatedAt: new Date(now).toISOString(),
    workspace: { websiteUrl: getWorkspace(ctx.db, principal.workspaceId)?.website_url ?? null, plan: principal.plan.label },
    visibility: found?.visibility ?? null,
    recommendations: (found?.stored.recommendations ?? [])
      .slice(0, TOP_RECOMMENDATIONS)
      .map((r) => ({ priority: r.priority, title: r.title, impact: r.impact, difficulty: r.difficulty })),
    traffic: traffic.sites > 0 ? traffic : null,
    brandVoices: listActiveBrandVoices(ctx.db, principal)
      .slice(0, TOP_BRAND_VOICES)
      .map((v) => ({ id: v.id, name: v.name, type: v.type, url: v.url, contentLength: v.contentLength })),
  };
}
