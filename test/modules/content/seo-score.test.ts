import { describe, expect, test } from "bun:test";
import { marked } from "marked";
import { detectFormat, METRIC_WEIGHTS, scoreSeo } from "../../../src/modules/content/seo-score";
import { countPhrase, extractKeywords, fleschReadingEase, sentences, words } from "../../../src/modules/content/text-analysis";

const good = await Bun.file(`${import.meta.dir}/fixtures/good-article.md`).text();
const stuffed = await Bun.file(`${import.meta.dir}/fixtures/stuffed-article.md`).text();
const messages = (r: ReturnType<typeof scoreSeo>) => r.suggestions.map((s) => s.message).join("\n");

describe("fixture articles", () => {
  const g = scoreSeo({ content: good, keywords: ["home composting"] });
  const s = scoreSeo({ content: stuffed, keywords: ["cheap shoes"] });

  test("a well-built article scores high, a thin keyword-stuffed one low", () => {
    expect(g.score).toBeGreaterThanOrEqual(80);
    expect(g.grade).toBe("good");
    expect(s.score).toBeLessThan(40);
    expect(s.grade).toBe("poor");
    expect(g.score - s.score).toBeGreaterThan(40);
  });

  test("the stuffed article's suggestions name what is missing or wrong", () => {
    const text = messages(s);
    expect(text).toContain('keyword "cheap shoes" is 33.3% of the words');
    expect(text).toContain("keyword stuffing");
    expect(text).toContain('title (or an H1) that contains the keyword "cheap shoes"');
    expect(text).toContain('"cheap shoes" in at least one subheading');
    expect(text).toContain("84 words; expand it to at least 300 words");
    expect(text).toContain("Add links");
    expect(text).toMatch(/Flesch reading ease is \d/);
    expect(text).toContain("Sentences average 42 words");
    expect(s.metrics.keywordDensity.score).toBe(0);
  });

  test("the good article hits every keyword placement and only misses full length", () => {
    expect(g.metrics.keywordPlacement.score).toBe(100);
    expect(g.metrics.keywordDensity.score).toBe(100);
    expect(g.metrics.links.score).toBe(100);
    expect(g.suggestions.map((x) => x.metric)).toEqual(["contentLength"]);
    expect(g.stats).toMatchObject({ links: 2, subheadings: 7, headings: 8 });
  });

  test("the overall score is the weighted mean of the sub-scores", () => {
    const expected = Object.values(s.metrics).reduce((sum, m) => sum + (m.score ?? 0) * m.weight, 0) / 100;
    expect(s.score).toBe(Math.round(expected));
    expect(Object.values(METRIC_WEIGHTS).reduce((a, b) => a + b, 0)).toBe(100);
  });

  test("markdown and the same article as HTML score the same", () => {
    const html = marked.parse(good, { async: false }) as string;
    const h = scoreSeo({ content: html, keywords: ["home composting"] });
    expect(detectFormat(html)).toBe("html");
    expect(g.format).toBe("markdown");
    expect(h.score).toBe(g.score);
    expect(h.stats.words).toBe(g.stats.words);
  });

  test("deterministic", () => {
    expect(scoreSeo({ content: good })).toEqual(scoreSeo({ content: good }));
  });
});

describe("keywords", () => {
  test("auto-extracted when none are given: the topic phrase from title, headings and body", () => {
    const r = scoreSeo({ content: good });
    expect(r.keywordsSource).toBe("extracted");
    expect(r.keywords[0]).toBe("home composting");
    expect(scoreSeo({ content: stuffed }).keywords[0]).toBe("cheap shoes");
  });

  test("autoExtractKeywords=false without keywords: keyword metrics are excluded, not zero", () => {
    const r = scoreSeo({ content: good, autoExtractKeywords: false });
    expect(r.keywordsSource).toBe("none");
    expect(r.metrics.keywordPlacement).toMatchObject({ score: null, weight: 0 });
    expect(r.metrics.keywordDensity).toMatchObject({ score: null, weight: 0 });
    expect(messages(r)).toContain("Give target keywords");
  });

  test("a missing title costs the title share of keyword placement", () => {
    const noTitle = good.replace(/^# .*\n/, "");
    const a = scoreSeo({ content: good, keywords: ["home composting"] });
    const b = scoreSeo({ content: noTitle, keywords: ["home composting"] });
    expect(a.metrics.keywordPlacement.score! - b.metrics.keywordPlacement.score!).toBe(40);
    expect(b.score).toBeLessThan(a.score);
    expect(messages(b)).toContain('Add a title (or an H1) that contains the keyword "home composting"');
  });

  test("a given title is used instead of the H1", () => {
    const r = scoreSeo({ content: "Some plain text about gardens.", title: "Garden tips", keywords: ["garden"] });
    expect(r.metrics.keywordPlacement.detail).toContain("in title: yes");
  });

  test("countPhrase matches whole words and simple plurals", () => {
    const t = words("Widgets and a widget; widgetry is not a widget. Blue widgets, blue widget!");
    expect(countPhrase(t, "widget")).toBe(5); // not "widgetry"
    expect(countPhrase(t, "blue widget")).toBe(2);
  });

  test("extractKeywords skips stopwords and words already inside a chosen phrase", () => {
    expect(extractKeywords("the solar panel is a solar panel that the solar panel charges", "", [], 2)).toEqual(["solar panel", "charges"]);
  });
});

describe("readability and structure", () => {
  test("Flesch reading ease follows the formula", () => {
    expect(fleschReadingEase(6, 1, 6)).toBeCloseTo(206.835 - 1.015 * 6 - 84.6, 6);
    const r = scoreSeo({ content: "The cat sat on the mat.", autoExtractKeywords: false });
    expect(r.stats).toMatchObject({ words: 6, sentences: 1, syllables: 6 });
    expect(r.stats.fleschReadingEase).toBe(116.1);
  });

  test("sentences split after terminal punctuation", () => {
    expect(sentences('One here. Two there! "Three?" Four')).toEqual(["One here.", "Two there!", '"Three?"', "Four"]);
  });

  test("skipped heading levels and images without alt text are flagged", () => {
    const r = scoreSeo({ content: "# T\n\n## A\n\ntext\n\n#### B\n\nmore ![](x.png)", autoExtractKeywords: false });
    expect(messages(r)).toContain("Heading levels skip a step");
    expect(messages(r)).toContain("1 image without alt text");
  });

  test("a long text without subheadings is asked for them", () => {
    const body = Array.from({ length: 70 }, () => "Short sentences help readers follow along.").join(" ");
    const r = scoreSeo({ content: `# Title\n\n${body}`, autoExtractKeywords: false });
    expect(r.stats.words).toBeGreaterThan(400);
    expect(messages(r)).toContain("Add subheadings (H2/H3)");
    expect(messages(r)).toContain("paragraph longer than 150 words");
  });

  test("empty-ish content scores 0 without throwing", () => {
    const r = scoreSeo({ content: "   " });
    expect(r.score).toBeGreaterThanOrEqual(0);
    expect(r.stats.words).toBe(0);
  });
});

describe("hostile input", () => {
  // marked took tens of seconds on the first (quadratic emphasis scan) and overflowed the stack on the others
  test("a 100 000-char run of unmatched emphasis delimiters is scored", () => {
    const r = scoreSeo({ content: "a_".repeat(50_000) });
    expect(r.stats.words).toBeGreaterThan(0);
    expect(r.score).toBeGreaterThanOrEqual(0);
  });

  test.each([">".repeat(100_000), "> ".repeat(50_000), "1. ".repeat(33_000), "- ".repeat(20) + "deep"])(
    "Markdown nested past the limit → 400 CONTENT_TOO_NESTED (%#)",
    (content) => {
      let err: unknown;
      try {
        scoreSeo({ content });
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ status: 400, errCode: "CONTENT_TOO_NESTED" });
    },
  );

  test("HTML nested 50 000 deep is scored, not a stack overflow", () => {
    const r = scoreSeo({ content: `${"<span>".repeat(50_000)}deep words here${"</span>".repeat(50_000)}` });
    expect(r.format).toBe("html");
    expect(r.stats.words).toBe(3);
  });
});
