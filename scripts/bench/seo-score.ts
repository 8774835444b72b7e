// `bun scripts/bench/seo-score.ts`: how long POST /calculate-seo-score's synchronous scoring holds
// the event loop, for the test fixture (~800 words), a maximum-size body (100 000 chars) and two
// maximum-size hostile bodies. Baseline measured in the same run: rendering + parsing the same
// document only (Bun.markdown + linkedom), the floor any DOM-based scorer pays. The last column
// is one render of the same body with marked, the renderer this scorer used before (quadratic
// on runs of unmatched emphasis delimiters).
import { marked } from "marked";
import { parseHtmlDocument } from "../../src/lib/html-text";
import { scoreSeo } from "../../src/modules/content/seo-score";

const article = await Bun.file(`${import.meta.dir}/../../test/modules/content/fixtures/good-article.md`).text();
const maxSize = article.repeat(Math.ceil(100_000 / article.length)).slice(0, 100_000);
const inputs: [string, string][] = [
  ["fixture article", article],
  ["100 000-char body", maxSize],
  ['hostile "a_" × 50 000', "a_".repeat(50_000)],
  ['hostile "*x *x " × 16 666', "*x *x ".repeat(16_666)],
];

function timePerOp(fn: () => unknown, minMs = 1500): number {
  for (let i = 0; i < 3; i++) fn(); // warm-up
  let ops = 0;
  const start = performance.now();
  while (performance.now() - start < minMs) {
    fn();
    ops++;
  }
  return (performance.now() - start) / ops;
}

function timeOnce(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

for (const [label, content] of inputs) {
  const baseline = timePerOp(() => parseHtmlDocument(Bun.markdown.html(content, { autolinks: true })));
  const scored = timePerOp(() => scoreSeo({ content }));
  const withMarked = timeOnce(() => marked.parse(content, { async: false, gfm: true }));
  console.log(
    `${label.padEnd(27)} ${String(content.length).padStart(7)} chars: score ${scored.toFixed(2)} ms/op, ` +
      `parse-only baseline ${baseline.toFixed(2)} ms/op, ratio ${(scored / baseline).toFixed(2)}×; marked render alone ${withMarked.toFixed(0)} ms`,
  );
}
