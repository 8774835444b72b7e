// Chart wrappers over uPlot (the embedded uPlot.iife.min.js sets the global uPlot): a stacked area
// chart of daily visits by AI source and a line chart of scores over time. Both follow their
// container's width and are destroyed when the page is left.

export const PALETTE = ["#0a58ca", "#d63384", "#198754", "#fd7e14", "#6f42c1", "#0dcaf0", "#dc3545", "#6c757d", "#20c997", "#ffc107"];

function mount(container, signal, makeOpts, data) {
  const width = () => Math.max(280, container.clientWidth || 600);
  const plot = new window.uPlot(makeOpts(width()), data, container);
  const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: plot.height }));
  resize.observe(container);
  signal?.addEventListener("abort", () => {
    resize.disconnect();
    plot.destroy();
  });
  return plot;
}

/**
 * days: ["2026-11-01", …]; series: [{label, values, color?}] drawn stacked (each band sits on the previous),
 * with the legend showing each source's own count, not the running total.
 */
export function stackedAreaChart(container, { days, series }, signal) {
  const x = days.map((d) => Math.round(Date.parse(`${d}T00:00:00Z`) / 1000));
  const stacked = [];
  let base = days.map(() => 0);
  for (const s of series) {
    base = base.map((b, i) => b + (s.values[i] ?? 0));
    stacked.push(base);
  }
  const data = [x, ...stacked];
  const bands = series.slice(1).map((_, i) => ({ series: [i + 2, i + 1] }));
  const makeOpts = (width) => ({
    width,
    height: 240,
    tzDate: (ts) => window.uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
    axes: [{}, { label: "Visits" }],
    bands,
    series: [
      { label: "Day", value: (_u, ts) => (ts == null ? "—" : new Date(ts * 1000).toISOString().slice(0, 10)) },
      ...series.map((s, i) => ({
        label: s.label,
        stroke: s.color ?? PALETTE[i % PALETTE.length],
        fill: `${s.color ?? PALETTE[i % PALETTE.length]}66`,
        width: 1.5,
        points: { show: false },
        value: (_u, _v, _si, idx) => (idx == null ? "—" : String(s.values[idx] ?? 0)),
      })),
    ],
  });
  return mount(container, signal, makeOpts, data);
}

/** x: unix seconds; series: [{label, values}] (values may hold null gaps); scores 0–100. */
export function lineChart(container, { x, series }, signal) {
  const makeOpts = (width) => ({
    width,
    height: 240,
    scales: { x: { time: true }, y: { range: [0, 100] } },
    axes: [{}, { label: "Score" }],
    series: [
      {},
      ...series.map((s, i) => ({
        label: s.label,
        stroke: PALETTE[i % PALETTE.length],
        width: i === 0 ? 3 : 1.5,
        dash: i === 0 ? undefined : [6, 4],
        spanGaps: true,
        points: { show: true, size: 6 },
      })),
    ],
  });
  return mount(container, signal, makeOpts, [x, ...series.map((s) => s.values)]);
}
