import { describe, expect, test } from "bun:test";
import { placeImages, planBlogImages, spread } from "../../../src/modules/content/image-plan";
import { cleanModelOutput, improveUserPrompt } from "../../../src/modules/content/prompts";

const POST = "# Title\n\nIntro.\n\n```md\n## not a section\n```\n\n## One\n\nAlpha text here.\n\n## Two\nBeta text\n\n### Detail\n\nmore\n\n## Three\n\nGamma";

describe("planBlogImages", () => {
  test("spreads evenly, first and last included", () => {
    expect(spread(7, 3)).toEqual([0, 3, 6]);
    expect(spread(2, 5)).toEqual([0, 1]);
    expect(spread(5, 1)).toEqual([0]);
  });

  test("one image per chosen H2 section; headings inside code blocks are not sections", () => {
    const plan = planBlogImages(POST, { count: 3, title: "Title", style: "Ink drawing" });
    expect(plan.map((p) => p.section)).toEqual(["One", "Two", "Three"]);
    expect(plan[0].prompt).toBe('Ink drawing for a blog post titled "Title", section "One": Alpha text here. No text, letters or logos in the image.');
    expect(plan[1].prompt).toContain("Beta text Detail more");
  });

  test("posts without subheadings get images before evenly spread paragraphs", () => {
    const plan = planBlogImages("First paragraph here.\n\nSecond.\n\nThird one.", { count: 2 });
    expect(plan.map((p) => p.afterToken)).toEqual([-1, 3]);
    expect(plan[0].alt).toBe("First paragraph here.");
  });

  test("placeImages puts each image under its heading and leaves the rest byte for byte", () => {
    const plan = planBlogImages(POST, { count: 2 });
    const out = placeImages(POST, plan.map((p, i) => ({ afterToken: p.afterToken, alt: p.alt, src: `img${i}.png` })));
    expect(out).toContain("## One\n\n![One](img0.png)\n\nAlpha text here.");
    expect(out).toContain("## Three\n\n![Three](img1.png)\n\nGamma");
    expect(out.replace(/!\[[^\]]*\]\([^)]*\)\n\n/g, "")).toBe(POST);
  });
});

describe("prompts", () => {
  test("the improve prompt carries instructions, focus, keywords, review and content", () => {
    const p = improveUserPrompt({
      content: "Body", improvePrompt: "Tighten", metricType: "general", keywords: ["a b"], title: "T",
      review: { score: 41, suggestions: [{ metric: "links", message: "Add links" }] },
    });
    expect(p).toBe("Instructions: Tighten\nFocus: general\nTitle: T\nTarget keywords: a b\nAn SEO review scored the current version 41/100.\nFix these points:\n- Add links\n\nContent:\n<<<\nBody\n>>>");
  });

  test("cleanModelOutput removes a wrapping fence and echoed markers only", () => {
    expect(cleanModelOutput("```markdown\n# Hi\n\ntext\n```")).toBe("# Hi\n\ntext");
    expect(cleanModelOutput("<<<\nbody\n>>>")).toBe("body");
    expect(cleanModelOutput("text with ```code``` inside")).toBe("text with ```code``` inside");
  });
});

describe("hostile posts", () => {
  // marked's full lexer spent tens of seconds on the first one's inline pass and overflowed on the second
  test("a section of 90 000 chars of unmatched emphasis delimiters is planned and placed", () => {
    const post = `# T\n\n## Only section\n\n${"a_".repeat(45_000)}\n`;
    const plan = planBlogImages(post, { count: 1 });
    expect(plan.map((p) => p.section)).toEqual(["Only section"]);
    const placed = placeImages(post, [{ afterToken: plan[0].afterToken, alt: "x", src: "data:," }]);
    expect(placed).toBe(`# T\n\n## Only section\n\n![x](data:,)\n\n${"a_".repeat(45_000)}\n`);
  });

  test("Markdown nested past the limit → 400 CONTENT_TOO_NESTED", () => {
    expect(() => planBlogImages(`## S\n\n${">".repeat(100_000)} x`, { count: 1 })).toThrow(
      expect.objectContaining({ status: 400, errCode: "CONTENT_TOO_NESTED" }),
    );
  });
});
