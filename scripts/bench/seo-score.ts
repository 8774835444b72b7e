// `bun scripts/bench/seo-score.ts`: how long POST /calculate-seo-score's synchronous scoring holds
// the event loop, for the test fixture (~800 words) and a maximum-size body (100 000 chars).
// Baseline measured in the same run: rendering + parsing the same document only (marked + linkedom),
// the floor any DOM-based scorer pays.
import { marked } from "marked";
import { parseHtmlDocument } from "../../src/lib/html-text";
import { scoreSeo } from "../../src/modules/content/seo-score";

const article = await Bun.file(`${import.meta.dir}/../../test/modules/content/fixtures/good-article.md`).text();
const maxSize = article.repeat(Math.ceil(100_000 / article.length)).slice(0, 100_000);

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

for (const [label, content] of [["fixture article", article], ["100 000-char body", maxSize]] as const) {
  const baseline = timePerOp(() => parseHtmlDocument(marked.parse(content, { async: false }) as string));
  const scored = timePerOp(() => scoreSeo({ content }));
  console.log(
    `${label.padEnd(18)} ${String(content.length).padStart(7)} chars: score ${scored.toFixed(2)} ms/op, ` +
      `parse-only baseline ${baseline.toFixed(2)} ms/op, ratio ${(scored / baseline).toFixed(2)}×`,
  );
}
