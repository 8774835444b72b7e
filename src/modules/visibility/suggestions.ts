// Pure parts of prefill: the instruction a model gets to suggest competitors and prompts, the
// defensive parse of its reply, fallback prompts when no model can be asked, and merging
// suggestions with the user's seeds (deduplicated, capped).
import { MAX_PROMPT_LENGTH } from "./model";
import { competitorEntity, registrableDomain } from "./scoring";

export interface SiteFacts {
  url: string;
  title: string | null;
  description: string | null;
}

export interface Suggestions {
  competitors: string[];
  prompts: string[];
}

export const SUGGESTION_SYSTEM_PROMPT =
  "You help measure how often AI assistants recommend a website. Given a site, name its direct competitors " +
  "(as their main website domains) and write questions real users type into an AI assistant when they look for " +
  "what the site offers. Questions must not name the site itself. Reply with JSON only, exactly of the form " +
  '{"competitors": ["example.com"], "prompts": ["question"]}.';

export function suggestionRequest(site: SiteFacts, want: { competitors: number; prompts: number }, seeds: Suggestions): string {
  const lines = [
    `Website: ${site.url}`,
    site.title ? `Title: ${site.title}` : null,
    site.description ? `Description: ${site.description.slice(0, 500)}` : null,
    seeds.competitors.length ? `Known competitors: ${seeds.competitors.join(", ")}` : null,
    seeds.prompts.length ? `Existing questions: ${seeds.prompts.join(" | ")}` : null,
    `Give up to ${want.competitors} competitors and ${want.prompts} questions.`,
  ];
  return lines.filter(Boolean).join("\n");
}

function strings(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .map((v) => (typeof v === "string" ? v : typeof v === "object" && v && typeof (v as { name?: unknown }).name === "string" ? (v as { name: string }).name : ""))
    .map((v) => v.trim())
    .filter(Boolean);
}

function objectIn(text: string): unknown {
  const unfenced = text.replace(/```(?:json)?/gi, "");
  const start = unfenced.indexOf("{");
  const end = unfenced.lastIndexOf("}");
  if (start < 0 || end <= start) return null;
  try {
    return JSON.parse(unfenced.slice(start, end + 1));
  } catch {
    return null;
  }
}

/** Lines under a heading, for models that ignore the JSON instruction ("Competitors:\n- a.com"). */
function listUnder(text: string, heading: RegExp): string[] {
  const out: string[] = [];
  let inside = false;
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (heading.test(trimmed)) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    const item = trimmed.match(/^(?:[-*•]|\d+[.)])\s+(.+)$/);
    if (item) out.push(item[1].replace(/\*\*/g, "").trim());
    else if (trimmed && /:$/.test(trimmed)) inside = false;
  }
  return out;
}

/** A model's reply → suggestions; never throws, whatever came back. */
export function parseSuggestions(reply: string): Suggestions {
  const obj = objectIn(reply) as Record<string, unknown> | null;
  if (obj && typeof obj === "object") {
    return { competitors: strings(obj.competitors), prompts: strings(obj.prompts ?? obj.questions) };
  }
  return { competitors: listUnder(reply, /^#*\s*competitors\b/i), prompts: listUnder(reply, /^#*\s*(prompts|questions)\b/i) };
}

/** Questions to ask when no model is available for suggestions: about the category, from the title or description. */
export function fallbackPrompts(site: SiteFacts): string[] {
  const brand = registrableDomain(site.url) ?? site.url;
  const topic = (site.description ?? site.title ?? "").split(/[.!?|–—]/)[0]?.trim().toLowerCase();
  const prompts = topic && topic.length >= 8 && topic.length <= 120
    ? [`What are the best options for ${topic}?`, `Which companies are recommended for ${topic}?`]
    : [];
  prompts.push(`What are the best alternatives to ${brand}?`, `Is ${brand} a good choice, and what are its competitors?`);
  return prompts;
}

function dedupe(items: string[], keyOf: (s: string) => string): string[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = keyOf(item);
    if (!k || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

const promptKey = (p: string) => p.trim().toLowerCase().replace(/\s+/g, " ").replace(/[?.!\s]+$/, "");
const competitorKey = (c: string) => competitorEntity(c)?.key ?? "";

/** Prompts trimmed and deduplicated, keeping the first spelling. */
export function cleanPrompts(prompts: string[]): string[] {
  return dedupe(prompts.map((p) => p.trim().replace(/\s+/g, " ")).filter((p) => p.length > 0 && p.length <= MAX_PROMPT_LENGTH), promptKey);
}

/** Competitors that are usable brands or domains, deduplicated, never the site itself. */
export function cleanCompetitors(competitors: string[], websiteUrl: string): string[] {
  const own = registrableDomain(websiteUrl);
  return dedupe(
    competitors.map((c) => c.trim()).filter((c) => {
      const e = competitorEntity(c);
      return e !== null && e.domain !== own;
    }),
    competitorKey,
  );
}

/** Seeds first, then suggestions; deduplicated and capped. */
export function mergeSuggestions(
  websiteUrl: string,
  seeds: Suggestions,
  suggested: Suggestions,
  caps: { competitors: number; prompts: number },
): Suggestions {
  return {
    competitors: cleanCompetitors([...seeds.competitors, ...suggested.competitors], websiteUrl).slice(0, caps.competitors),
    prompts: cleanPrompts([...seeds.prompts, ...suggested.prompts]).slice(0, caps.prompts),
  };
}
