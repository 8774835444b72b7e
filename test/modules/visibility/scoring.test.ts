import { describe, expect, test } from "bun:test";
import {
  analyzeAnswer,
  answerExcerpt,
  brandFromTitle,
  competitorEntity,
  interpret,
  looksLikeDomain,
  mentionValue,
  scoreReport,
  siteEntity,
  trackedEntities,
  type AnswerOutcome,
} from "../../../src/modules/visibility/scoring";

const entities = trackedEntities("https://www.acme.com/", ["https://globex.com", "Initech", "monday.com"]);
const mentionsOf = (text: string, citations: string[] = []) => analyzeAnswer(text, entities, citations).mentions;
const self = (text: string, citations: string[] = []) => mentionsOf(text, citations).find((m) => m.entity === "self");

describe("tracked entities", () => {
  test("the site's name comes from the domain label; competitors from URLs, domains or names", () => {
    expect(entities.map((e) => e.key)).toEqual(["self", "globex.com", "initech", "monday.com"]);
    expect(entities[0]).toMatchObject({ name: "Acme", domain: "acme.com", names: ["acme"], isSelf: true });
    expect(entities[1]).toMatchObject({ name: "Globex", domain: "globex.com", names: ["globex"] });
    expect(entities[2]).toMatchObject({ name: "Initech", domain: null, names: ["Initech"] });
    // an ordinary word as a label is not a name of its own: only the domain matches
    expect(entities[3]).toMatchObject({ name: "monday.com", domain: "monday.com", names: [] });
  });

  test("a title names the brand when a short segment contains the label", () => {
    expect(brandFromTitle("Acme Analytics — Product analytics for teams", "acme")).toBe("Acme Analytics");
    expect(brandFromTitle("Home | Acme", "acme")).toBe("Acme");
    expect(brandFromTitle("Welcome to our very long homepage about everything", "acme")).toBeNull();
    expect(brandFromTitle("monday.com | A new way of working", "monday")).toBeNull();
    expect(siteEntity("https://acme.com", "Acme Analytics | Home")).toMatchObject({ name: "Acme Analytics", names: ["acme", "Acme Analytics"] });
  });

  test("domains and names are told apart; duplicates and the site itself are dropped", () => {
    expect(looksLikeDomain("hubspot.com")).toBe(true);
    expect(looksLikeDomain("https://x.io/pricing")).toBe(true);
    expect(looksLikeDomain("HubSpot")).toBe(false);
    expect(looksLikeDomain("Node.js tools")).toBe(false);
    expect(looksLikeDomain("rivalry.test")).toBe(true);
    expect(looksLikeDomain("v2.0")).toBe(false);
    expect(competitorEntity("   ")).toBeNull();
    const list = trackedEntities("https://acme.com", ["acme.com", "https://www.globex.com", "globex.com", "Globex Corp"]);
    expect(list.map((e) => e.key)).toEqual(["self", "globex.com", "globex corp"]);
  });
});

describe("analyzeAnswer", () => {
  test("mentioned first", () => {
    const m = mentionsOf("Acme is the best choice. Globex is also fine.");
    expect(m.map((x) => [x.entity, x.position])).toEqual([["self", 1], ["globex.com", 2]]);
  });

  test("mentioned later", () => {
    const m = mentionsOf("Top picks: Globex, Initech and finally Acme.");
    expect(m.map((x) => [x.entity, x.position])).toEqual([["globex.com", 1], ["initech", 2], ["self", 3]]);
  });

  test("not mentioned at all", () => {
    expect(self("Globex and Initech lead this market.")).toBeUndefined();
  });

  test("only in a URL: a mention and a citation", () => {
    const m = self("For details see https://docs.acme.com/pricing.");
    expect(m).toMatchObject({ position: 1, cited: true });
  });

  test("a brand that is part of a longer word does not count", () => {
    expect(self("We visited Acmeville and the Acmes last summer.")).toBeUndefined();
    expect(self("notacme.com and acme.com.evil.org are other sites")).toBeUndefined();
    expect(self("acme.io is another company")).toBeUndefined();
  });

  test("brands that share a word: only the longer name counts", () => {
    const shared = trackedEntities("https://acme.com", ["Acme Cloud"]);
    const named = (text: string) => analyzeAnswer(text, shared).mentions.map((x) => [x.entity, x.position]);
    expect(named("Acme Cloud is the best choice.")).toEqual([["acme cloud", 1]]);
    expect(named("Acme Cloud first, then Acme.")).toEqual([["acme cloud", 1], ["self", 2]]);
    const generic = trackedEntities("https://analytics.com", ["Google Analytics"]);
    expect(analyzeAnswer("Google Analytics is the usual pick.", generic).mentions.map((x) => x.entity)).toEqual(["google analytics"]);
  });

  test("a dotted brand does not match the ordinary word", () => {
    expect(mentionsOf("On Monday, try Globex.").map((x) => x.entity)).toEqual(["globex.com"]);
    expect(mentionsOf("monday.com is popular.").map((x) => x.entity)).toEqual(["monday.com"]);
  });

  test("a mention counts once per answer however often it repeats", () => {
    const m = mentionsOf("Acme, Acme, Acme. Did I say Acme? acme.com!");
    expect(m.filter((x) => x.entity === "self")).toHaveLength(1);
  });

  test("citations from the provider count; a bare mention is not a citation", () => {
    expect(self("Acme is good.")!.cited).toBe(false);
    expect(self("Acme is good.", ["https://www.acme.com/blog/post"])!.cited).toBe(true);
    expect(self("Acme is good. See www.acme.com")!.cited).toBe(false);
  });

  test("sentiment is read from the clause around the mention", () => {
    const m = mentionsOf("Acme is excellent and reliable, but Globex is terrible and buggy.");
    expect(m.find((x) => x.entity === "self")!.sentiment).toBeGreaterThan(0);
    expect(m.find((x) => x.entity === "globex.com")!.sentiment).toBeLessThan(0);
    expect(self("Acme is a company.")!.sentiment).toBe(0);
    expect(self("1. **Acme**: excellent and reliable.\n2. **Globex**: awful.")!.sentiment).toBeGreaterThan(0);
  });

  test("the value of an answer rewards position and citation", () => {
    const first = self("Acme, then Globex.")!;
    const later = mentionsOf("Globex, then Acme.").find((x) => x.entity === "self")!;
    expect(mentionValue(undefined)).toBe(0);
    expect(mentionValue(first)).toBeGreaterThan(mentionValue(later));
    expect(mentionValue({ ...first, cited: true })).toBeGreaterThan(mentionValue(first));
    expect(mentionValue({ ...first, cited: true, sentiment: 1 })).toBeCloseTo(1, 10);
  });

  test("excerpts are short and centred near the mention", () => {
    const long = "x ".repeat(500) + "Acme is here. " + "y ".repeat(500);
    const ex = answerExcerpt(long, long.indexOf("Acme"), 100);
    expect(ex).toContain("Acme");
    expect(ex.length).toBeLessThanOrEqual(102);
    expect(answerExcerpt("short", null)).toBe("short");
  });

  test("the excerpt finds a late mention in a long, indented markdown answer", () => {
    const list = (word: string) => Array.from({ length: 40 }, (_, i) => `    -   ${word} ${i}:      some tool   that   works`).join("\n\n");
    const text = `Options:\n\n${list("Option")}\n\n    - Acme: the best.\n\n${list("Other")}`;
    expect(answerExcerpt(text, text.indexOf("Acme"))).toContain("Acme: the best.");
  });
});

function outcome(promptIndex: number, family: AnswerOutcome["family"], text: string | null): AnswerOutcome {
  return {
    promptIndex,
    family,
    model: `${family}-model`,
    analysis: text === null ? null : analyzeAnswer(text, entities),
    error: text === null ? "boom" : null,
  };
}

describe("scoreReport", () => {
  test("never mentioned → 0 and the lowest band", () => {
    const r = scoreReport(entities, [outcome(0, "openai", "Globex wins."), outcome(1, "openai", "Initech wins.")]);
    expect(r.score).toBe(0);
    expect(r.interpretation).toBe(interpret(0));
    expect(r.interpretation).toMatch(/Not visible/);
  });

  test("all > some > none, and a failed or unasked provider is null, not 0", () => {
    const all = scoreReport(entities, [0, 1, 2, 3].map((i) => outcome(i, "openai", "Acme leads.")));
    const some = scoreReport(entities, [0, 1, 2, 3].map((i) => outcome(i, "openai", i < 2 ? "Acme leads." : "Globex leads.")));
    const none = scoreReport(entities, [0, 1, 2, 3].map((i) => outcome(i, "openai", "Globex leads.")));
    expect(all.score).toBeGreaterThan(some.score);
    expect(some.score).toBeGreaterThan(none.score);
    expect(all.providers.anthropic).toBeNull();
    expect(all.providers.gemini).toBeNull();
    const withFailure = scoreReport(entities, [outcome(0, "openai", "Acme leads."), outcome(0, "gemini", null)]);
    expect(withFailure.providers.gemini).toBeNull();
    expect(withFailure.providers.openai).toMatchObject({ answered: 1, failed: 0 });
    // the failed provider does not drag the score down
    expect(withFailure.score).toBe(scoreReport(entities, [outcome(0, "openai", "Acme leads.")]).score);
  });

  test("the published formula: 100 × Σ value / (answers + 1), averaged over providers", () => {
    // first and alone, not cited, neutral: 0.45 + 0.30 + 0 + 0.05 = 0.8 per answer
    const r = scoreReport(entities, [0, 1, 2, 3].map((i) => outcome(i, "openai", "Acme leads.")));
    expect(r.providers.openai!.score).toBe(64); // 100 × 3.2 / 5
    const two = scoreReport(entities, [
      ...[0, 1, 2, 3].map((i) => outcome(i, "openai", "Acme leads."))!,
      ...[0, 1, 2, 3].map((i) => outcome(i, "anthropic", "Globex leads.")),
    ]);
    expect(two.providers.anthropic!.score).toBe(0);
    expect(two.score).toBe(32);
  });

  test("a brand named in one answer does not outrank one named in most", () => {
    const texts = ["Globex, then Initech.", "Globex, then Initech.", "Globex, then Initech.", "Initech first.", "Nothing here."];
    const outs = texts.map((t, i) => outcome(i, "openai", t));
    // a provider that answered only once and named Acme first
    outs.push(outcome(0, "anthropic", "Acme is the one."));
    const r = scoreReport(entities, outs);
    const score = (k: string) => r.entities.find((e) => e.key === k)!;
    expect(score("initech").mentionRate).toBeGreaterThan(score("self").mentionRate);
    expect(score("initech").score!).toBeGreaterThan(score("self").score!);
  });

  test("share of voice, citation rate and average position per brand", () => {
    const r = scoreReport(entities, [
      outcome(0, "openai", "Acme (https://acme.com) and Globex."),
      outcome(1, "openai", "Globex then Acme."),
    ]);
    const acme = r.entities.find((e) => e.isSelf)!;
    const globex = r.entities.find((e) => e.key === "globex.com")!;
    expect(acme.shareOfVoice).toBe(50);
    expect(globex.shareOfVoice).toBe(50);
    expect(acme.citationRate).toBe(0.5);
    expect(acme.averagePosition).toBe(1.5);
    expect(acme.providers.openai).toBe(acme.score);
    expect(acme.providers.gemini).toBeNull();
    // per provider too: 2 of the 4 mentions in OpenAI's answers are the site's
    expect(r.providers.openai!.shareOfVoice).toBe(50);
    const mixed = scoreReport(entities, [outcome(0, "openai", "Acme."), outcome(0, "anthropic", "Globex, Initech and Acme.")]);
    expect(mixed.providers.openai!.shareOfVoice).toBe(100);
    expect(mixed.providers.anthropic!.shareOfVoice).toBe(33.3);
  });

  test("interpretation bands", () => {
    expect(interpret(95)).toMatch(/^Strong/);
    expect(interpret(55)).toMatch(/^Good/);
    expect(interpret(35)).toMatch(/^Moderate/);
    expect(interpret(12)).toMatch(/^Low/);
    expect(interpret(3)).toMatch(/^Not visible/);
  });
});
