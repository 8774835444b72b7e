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
  });
});
