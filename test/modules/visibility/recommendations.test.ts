import { describe, expect, test } from "bun:test";
import { recommend } from "../../../src/modules/visibility/recommendations";
import { analyzeAnswer, scoreReport, trackedEntities, type AnswerOutcome } from "../../../src/modules/visibility/scoring";

const entities = trackedEntities("https://acme.com", ["globex.com", "Initech"]);
const prompts = ["best crm", "cheap crm", "crm for startups"];

function build(answers: Record<string, string[]>) {
  const outcomes: AnswerOutcome[] = [];
  for (const [family, texts] of Object.entries(answers)) {
    texts.forEach((text, promptIndex) =>
      outcomes.push({ promptIndex, family: family as AnswerOutcome["family"], model: "m", analysis: analyzeAnswer(text, entities), error: null }),
    );
  }
  const summary = scoreReport(entities, outcomes);
  return recommend({ prompts, entities, outcomes, summary });
}

const ids = (recs: { id: string }[]) => recs.map((r) => r.id);

describe("recommend", () => {
  test("never mentioned: become known first; gaps name the prompts and the competitors", () => {
    const recs = build({ openai: ["Globex is best.", "Initech is cheap.", "Nothing relevant."] });
    expect(ids(recs)).toContain("not-visible");
    expect(ids(recs)).not.toContain("provider-gap");
    const gap = recs.find((r) => r.id === "content-gap")!;
    expect(gap.evidence.prompts).toEqual(["best crm", "cheap crm"]);
    expect(gap.evidence.competitors!.sort()).toEqual(["Globex", "Initech"]);
    expect(gap.impact).toBe("high");
  });

  test("priorities are 1..n, high impact before medium, easier first within an impact", () => {
    const recs = build({ openai: ["Globex is best.", "Initech is cheap.", "Nothing relevant."] });
    expect(recs.map((r) => r.priority)).toEqual(recs.map((_, i) => i + 1));
    const rank = { high: 3, medium: 2, low: 1 } as const;
    for (let i = 1; i < recs.length; i++) expect(rank[recs[i - 1].impact]).toBeGreaterThanOrEqual(rank[recs[i].impact]);
    for (const r of recs) expect(["easy", "medium", "hard"]).toContain(r.difficulty);
  });

  test("absent from one provider only → provider gap naming it", () => {
    const recs = build({
      openai: ["Acme is best.", "Acme is cheap.", "Acme for startups."],
      anthropic: ["Globex is best.", "Globex is cheap.", "Globex."],
    });
    const gap = recs.find((r) => r.id === "provider-gap")!;
    expect(gap.evidence.providers).toEqual(["anthropic"]);
    expect(ids(recs)).not.toContain("not-visible");
  });

  test("mentioned but never linked, after a competitor, in a negative tone", () => {
    const recs = build({ openai: ["Globex is fine, Acme is awful and broken.", "Globex then Acme, terrible support.", "Globex first, Acme is bad."] });
    expect(ids(recs)).toEqual(expect.arrayContaining(["missing-citations", "late-position", "negative-sentiment", "competitor-ahead"]));
    expect(recs.find((r) => r.id === "late-position")!.evidence.metric).toEqual({ name: "averagePosition", value: 2 });
    expect(recs.find((r) => r.id === "competitor-ahead")!.evidence.competitors).toEqual(["Globex"]);
  });

  test("a strong, cited, first-named site gets only the low-impact content advice", () => {
    const recs = build({ openai: ["https://acme.com — Acme is excellent.", "Acme (https://acme.com) is great.", "Acme: https://acme.com"] });
    expect(ids(recs)).toEqual(["geo-content"]);
    expect(recs[0].impact).toBe("low");
  });
});
