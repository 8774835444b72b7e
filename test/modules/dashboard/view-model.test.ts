// Unit tests of the client's pure shaping (src/modules/dashboard/client/view-model.js), run in Bun
// with plain inputs; the same file is what the browser loads.
import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";

// a plain-JS browser module: imported through a path string so TypeScript does not look for types
const VIEW_MODEL: string = resolve(import.meta.dir, "../../../src/modules/dashboard/client/view-model.js");
const vm = await import(VIEW_MODEL);

describe("usage meters", () => {
  test("a limited counter: text, percent, remaining, period", () => {
    const m = vm.meter({ used: 125, limit: 500, remaining: 375, period: "2026-11", resetsAt: "2026-12-01T00:00:00.000Z" });
    expect(m).toEqual({
      used: 125,
      limit: 500,
      remaining: 375,
      percent: 25,
      unlimited: false,
      period: "November 2026",
      resetsAt: "2026-12-01T00:00:00.000Z",
      text: "125 of 500 used",
    });
  });

  test("unlimited, over the limit, lifetime, and missing counters", () => {
    expect(vm.meter({ used: 1234, limit: null, remaining: null, period: "2026-01" })).toMatchObject({
      unlimited: true,
      percent: 0,
      remaining: null,
      text: "1,234 used (unlimited)",
      period: "January 2026",
    });
    expect(vm.meter({ used: 12, limit: 10, period: "lifetime" })).toMatchObject({ percent: 100, remaining: 0, period: "trial allowance (does not reset)" });
    expect(vm.meter(undefined)).toBeNull();
    expect(vm.meter({ limit: 10 })).toBeNull();
  });

  test("number and share formatting", () => {
    expect(vm.formatShare(0.4236)).toBe("42.4%");
    expect(vm.formatShare(1)).toBe("100%");
    expect(vm.formatShare(null)).toBe("—");
    expect(vm.formatNumber(1234567)).toBe("1,234,567");
    expect(vm.formatNumber(Number.NaN)).toBe("—");
    expect(vm.periodLabel("weird")).toBe("weird");
    expect(vm.formatDate(null)).toBe("—");
    expect(vm.formatDate("not a date")).toBe("not a date");
    expect(vm.formatDate("2026-11-23T10:00:00.000Z")).toContain("2026");
  });
});

describe("traffic chart layers", () => {
  const daily = [
    { date: "2026-11-01", visits: 10, aiVisits: 4, aiSources: { ChatGPT: 3, Claude: 1 } },
    { date: "2026-11-02", visits: 5, aiVisits: 2, aiSources: { Perplexity: 2 } },
  ];

  test("with a per-day split by source: one layer per source in ranking order, then other visits", () => {
    const stats = { daily, aiSources: [{ source: "ChatGPT" }, { source: "Perplexity" }, { source: "Claude" }] };
    const { days, layers, bySource } = vm.trafficLayers(stats, true);
    expect(bySource).toBe(true);
    expect(days).toEqual(["2026-11-01", "2026-11-02"]);
    expect(layers.map((l: { label: string }) => l.label)).toEqual(["ChatGPT", "Perplexity", "Claude", "Other visits"]);
    expect(layers.map((l: { values: number[] }) => l.values)).toEqual([[3, 0], [0, 2], [1, 0], [6, 3]]);
  });

  test("beyond the top sources the rest share an Other AI layer", () => {
    const sources = Array.from({ length: vm.CHART_SOURCES + 2 }, (_, i) => `S${i}`);
    const day = { date: "2026-11-01", visits: 100, aiVisits: sources.length, aiSources: Object.fromEntries(sources.map((s) => [s, 1])) };
    const { layers } = vm.trafficLayers({ daily: [day], aiSources: sources.map((source) => ({ source })) }, false);
    expect(layers).toHaveLength(vm.CHART_SOURCES + 1);
    expect(layers.at(-1)).toEqual({ label: "Other AI", values: [2] });
  });

  test("without a split: AI visits as one layer; the other layer is optional", () => {
    const plain = daily.map(({ aiSources: _, ...d }) => d);
    expect(vm.trafficLayers({ daily: plain }, false)).toEqual({ days: ["2026-11-01", "2026-11-02"], layers: [{ label: "AI visits", values: [4, 2] }], bySource: false });
    expect(vm.trafficLayers({ daily: plain }, true).layers[1]).toEqual({ label: "Other visits", values: [6, 3], other: true });
  });

  test("durations and landing-page source lists", () => {
    expect(vm.formatDuration(65_000)).toBe("1m 05s");
    expect(vm.formatDuration(0)).toBe("0s");
    expect(vm.formatDuration(-1)).toBe("—");
    expect(vm.sourceBreakdown({ Claude: 2, ChatGPT: 5, Perplexity: 2 })).toBe("ChatGPT 5 · Claude 2 · Perplexity 2");
  });
});

describe("visibility shaping", () => {
  test("provider rows keep providers that gave no answer", () => {
    const rows = vm.providerRows({
      openai: { score: 72, models: ["gpt-4o-mini"], answered: 3, failed: 0, mentionRate: 1 },
      anthropic: null,
    });
    expect(rows).toEqual([
      { family: "openai", label: "ChatGPT (OpenAI)", score: 72, answered: 3, failed: 0, mentionRate: 1, models: ["gpt-4o-mini"] },
      { family: "anthropic", label: "Claude (Anthropic)", score: null, answered: 0, failed: 0, mentionRate: null, models: [] },
    ]);
  });

  test("comparison rows: best first, unscored last, ties favour the site", () => {
    const rows = vm.comparisonRows([
      { name: "B", score: 40, isSelf: false },
      { name: "None", score: null, isSelf: false },
      { name: "Me", score: 40, isSelf: true },
      { name: "A", score: 57, isSelf: false },
    ]);
    expect(rows.map((r: { name: string }) => r.name)).toEqual(["A", "Me", "B", "None"]);
  });

  test("history series: seconds on x, the site first, competitors aligned by name with gaps", () => {
    const { x, series } = vm.historySeries([
      { timestamp: "2026-11-01T00:00:00.000Z", overall: 40, self: 41, competitors: [{ name: "Globex", score: 57 }] },
      { timestamp: "2026-11-02T00:00:00.000Z", overall: 45, self: 46, competitors: [{ name: "Initech", score: 30 }, { name: "Globex", score: 50 }] },
    ]);
    expect(x).toEqual([Date.UTC(2026, 10, 1) / 1000, Date.UTC(2026, 10, 2) / 1000]);
    expect(series).toEqual([
      { label: "Your site", values: [41, 46] },
      { label: "Globex", values: [57, 50] },
      { label: "Initech", values: [null, 30] },
    ]);
  });

  test("refresh allowance wording and state", () => {
    const business = { label: "Business", refreshesPer24h: 10 };
    expect(vm.refreshState({ limitPer24h: 10, remaining: 9 }, business)).toEqual({ allowed: true, text: "9 of 10 refreshes left in the last 24 hours." });
    expect(vm.refreshState({ limitPer24h: 10, remaining: 0 }, business).allowed).toBe(false);
    expect(vm.refreshState(undefined, { label: "Free trial", refreshesPer24h: 0 })).toEqual({ allowed: false, text: "Refreshing is not included in the Free trial plan." });
  });

  test("job states become progress sentences; completed and failed end polling", () => {
    expect(vm.jobStatus({ state: "waiting", progress: 0 })).toEqual({ done: false, ok: true, progress: 0, text: "Queued…" });
    expect(vm.jobStatus({ state: "active", progress: 37.4 })).toEqual({ done: false, ok: true, progress: 37, text: "Asking the AI models… 37%" });
    expect(vm.jobStatus({ state: "completed", progress: 100 })).toMatchObject({ done: true, ok: true, progress: 100 });
    expect(vm.jobStatus({ state: "failed", progress: 40, failedReason: "no AI provider answered" })).toEqual({
      done: true,
      ok: false,
      progress: 40,
      text: "The report failed: no AI provider answered",
    });
  });
});
