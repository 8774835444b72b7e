// The prompts the content tools send to the text model, and the clean-up of what comes back.
// Pure: no I/O.
import type { SeoReport } from "./seo-score";

export const IMPROVE_SYSTEM_PROMPT = [
  "You are an expert content editor and SEO writer.",
  "Rewrite the user's content following their instructions.",
  "Keep the language and the format of the original: Markdown stays Markdown, HTML stays HTML.",
  "Keep its facts, links and claims; never invent statistics, quotes or sources.",
  "Answer with the improved content only: no preamble, no notes, no code fences around it.",
].join(" ");

export interface ImprovePromptInput {
  content: string;
  improvePrompt: string;
  metricType: string;
  title?: string;
  keywords: string[];
  /** the SEO review of `content`, for validation rounds: its score and suggestions go into the prompt */
  review?: Pick<SeoReport, "score" | "suggestions">;
}

export function improveUserPrompt(input: ImprovePromptInput): string {
  const lines = [`Instructions: ${input.improvePrompt}`, `Focus: ${input.metricType}`];
  if (input.title) lines.push(`Title: ${input.title}`);
  if (input.keywords.length) lines.push(`Target keywords: ${input.keywords.join(", ")}`);
  if (input.review) {
    lines.push(`An SEO review scored the current version ${input.review.score}/100.`);
    if (input.review.suggestions.length) {
      lines.push("Fix these points:", ...input.review.suggestions.map((s) => `- ${s.message}`));
    }
  }
  lines.push("", "Content:", "<<<", input.content, ">>>");
  return lines.join("\n");
}

/** The model's answer without a wrapping code fence or the <<< >>> markers echoed back. */
export function cleanModelOutput(text: string): string {
  let out = text.trim();
  const fenced = /^```[\w-]*\n([\s\S]*?)\n```$/.exec(out);
  if (fenced) out = fenced[1].trim();
  if (out.startsWith("<<<") && out.endsWith(">>>")) out = out.slice(3, -3).trim();
  return out;
}
