import { describe, expect, test } from "bun:test";
import { blockText, extractReadableText, parseHtmlDocument } from "../../src/lib/html-text";

const ARTICLE = `<!doctype html><html lang="en"><head>
<title>Acme Widgets | Our story</title>
<meta name="description" content="Plain-spoken widgets for small shops.">
<style>body { color: red }</style><script>window.track = 1</script>
</head><body>
<header><nav><a href="/">Home</a> <a href="/about">About</a> <a href="/shop">Shop</a></nav></header>
<main><article>
<h1>How we talk</h1>
<p>We speak plainly and warmly. We avoid jargon, and we always explain why a widget matters to the people who use it every day.</p>
<p>Our customers are small businesses that need reliable tools. We write for them in short, friendly sentences, and we never oversell.</p>
<h2>Words we like</h2>
<ul><li>sturdy</li><li>honest</li><li>handmade</li></ul>
<p>When something goes wrong we say so first, fix it, and tell the customer what we changed so it will not happen again.</p>
</article></main>
<footer>© 2026 Acme Widgets · Privacy · Terms</footer>
</body></html>`;

describe("extractReadableText", () => {
  test("keeps the article, drops navigation, footer, scripts and styles", () => {
    const r = extractReadableText(ARTICLE);
    expect(r.title).toBe("Acme Widgets | Our story");
    expect(r.description).toBe("Plain-spoken widgets for small shops.");
    expect(r.text).toContain("We speak plainly and warmly.");
    expect(r.text).toContain("Words we like");
    expect(r.text).toContain("handmade");
    for (const noise of ["Shop", "Privacy", "window.track", "color: red"]) expect(r.text).not.toContain(noise);
  });

  test("blocks become separate paragraphs, so sentences do not run together", () => {
    const r = extractReadableText(ARTICLE);
    expect(r.text).toContain("we never oversell.\n\nWords we like");
    expect(r.text).not.toMatch(/oversell\.Words/);
  });

  test("a short page with no article falls back to the body text without chrome", () => {
    const r = extractReadableText("<html><body><nav>Menu</nav><div>Just one line about us.</div><footer>Footer</footer></body></html>");
    expect(r.text).toBe("Just one line about us.");
    expect(r.title).toBe("");
  });

  test("fragments parse too", () => {
    expect(blockText(parseHtmlDocument("<p>one <b>two</b></p><p>three</p>").body)).toBe("one two\n\nthree");
  });
});

test("deeply nested markup (a hostile page) is read without running out of stack", () => {
  const deep = `<html><body>${"<b>".repeat(50_000)}deep text${"</b>".repeat(50_000)}<p>after</p></body></html>`;
  expect(blockText(parseHtmlDocument(deep).body)).toBe("deep text\n\nafter");
  expect(extractReadableText(deep).text).toContain("deep text");
});
