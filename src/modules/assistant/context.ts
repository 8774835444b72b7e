// The assistant context's shape and its compact text form for the chat system prompt. Pure: the
// data is gathered by service.ts; this file only decides what the assistant sees and how.
import type { ProviderFamily } from "../../ai/types";
import type { TrafficSummary } from "../traffic/stats";

export interface AssistantVisibility {
  reportId: string;
  createdAt: string;
  websiteurl: string;
  score: number;
  interpretation: string | null;
  /** score per provider family; null when that provider gave no answer */
  providers: Record<ProviderFamily, number | null>;
  /** score change since the previous report; null when this is the first */
  change: number | null;
  site: { mentionRate: number; citationRate: number; averagePosition: number | null; shareOfVoice: number };
  /** best first, at most 5 */
  competitors: { name: string; domain: string | null; score: number | null; shareOfVoice: number }[];
  /** prompts where a competitor is named and the site is not, at most 5 */
  promptsWithoutSite: string[];
}

export interface AssistantContext {
  generatedAt: string;
  workspace: { websiteUrl: string | null; plan: string };
  /** the latest completed report, or null */
  visibility: AssistantVisibility | null;
  /** the report's top recommendations, at most 3 */
  recommendations: { priority: number; title: string; impact: string; difficulty: string }[];
  /** AI traffic over the last 30 days across the workspace's sites; null when no site is tracked */
  traffic: TrafficSummary | null;
  /** brand voices the caller can use (workspace documents), newest first, at most 5 */
  brandVoices: { id: string; name: string; type: string; url: string | null; contentLength: number }[];
}

const PROVIDER_NAMES: Record<ProviderFamily, string> = { openai: "ChatGPT", anthropic: "Claude", gemini: "Gemini" };
const pct = (ratio: number) => `${Math.round(ratio * 100)}%`;

/** A few hundred words at most: the system prompt pays for every token on every chat turn. */
export function assistantContextText(c: AssistantContext): string {
  const lines = ["Workspace data from aivis (use it when the user asks about their visibility, traffic or content):"];
  lines.push(`Site: ${c.visibility?.websiteurl ?? c.workspace.websiteUrl ?? "not set"} (plan ${c.workspace.plan}).`);
  const v = c.visibility;
  if (!v) {
    lines.push("AI visibility: no report yet; suggest running one (POST /v1/ai/generate/seo-site-report).");
  } else {
    const providers = (Object.keys(v.providers) as ProviderFamily[])
      .map((f) => `${PROVIDER_NAMES[f]} ${v.providers[f] ?? "n/a"}`)
      .join(", ");
    const change = v.change === null ? "first report" : `${v.change >= 0 ? "+" : ""}${v.change} since the previous report`;
    lines.push(`AI visibility score ${v.score}/100 on ${v.createdAt.slice(0, 10)} (${change}): ${v.interpretation ?? ""}`.trim());
    lines.push(`By provider: ${providers}.`);
    lines.push(
      `The site is named in ${pct(v.site.mentionRate)} of answers, linked in ${pct(v.site.citationRate)}, ` +
        `average position ${v.site.averagePosition ?? "n/a"}, share of voice ${v.site.shareOfVoice}%.`,
    );
    if (v.competitors.length) {
      lines.push(`Competitors: ${v.competitors.map((e) => `${e.name} ${e.score ?? "n/a"} (share of voice ${e.shareOfVoice}%)`).join("; ")}.`);
    }
    if (v.promptsWithoutSite.length) lines.push(`Prompts where competitors appear and the site does not: ${v.promptsWithoutSite.map((p) => `"${p}"`).join(", ")}.`);
  }
  if (c.recommendations.length) {
    lines.push(`Top recommendations: ${c.recommendations.map((r) => `${r.priority}. ${r.title} (impact ${r.impact}, difficulty ${r.difficulty})`).join("; ")}.`);
  }
  const t = c.traffic;
  if (!t) lines.push("AI traffic: no site tracked yet.");
  else {
    const top = t.topAiSources.map((s) => `${s.source} ${s.visits}`).join(", ");
    lines.push(`AI traffic, last ${t.days} days: ${t.visits} visits, ${t.aiVisits} from AI assistants (${pct(t.aiShare)})${top ? `; top sources: ${top}` : ""}.`);
  }
  if (c.brandVoices.length) lines.push(`Brand voices: ${c.brandVoices.map((b) => `"${b.name}" (${b.type})`).join(", ")}.`);
  return lines.join("\n");
}
