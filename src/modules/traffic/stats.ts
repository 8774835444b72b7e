// Turns daily rollup rows into the stats response (totals, AI sources, landing pages, daily
// series, engagement) and the workspace summary. Pure: rows in, plain objects out.
import { CHANNELS } from "./classify";
import { isoDate } from "./calendar";

export interface DailyRow {
  day: number;
  channel: string;
  source: string;
  pageviews: number;
  visits: number;
  visitors: number;
  engaged_ms: number;
  scroll_sum: number;
  scroll_count: number;
}

export interface LandingRow {
  path: string;
  source: string;
  visits: number;
}

export interface DayRange {
  /** first and last UTC epoch day, inclusive */
  from: number;
  to: number;
}

interface Sums {
  pageViews: number;
  visits: number;
  visitors: number;
  engagedMs: number;
  scrollSum: number;
  scrollCount: number;
}

const zero = (): Sums => ({ pageViews: 0, visits: 0, visitors: 0, engagedMs: 0, scrollSum: 0, scrollCount: 0 });

function add(s: Sums, r: DailyRow) {
  s.pageViews += r.pageviews;
  s.visits += r.visits;
  s.visitors += r.visitors;
  s.engagedMs += r.engaged_ms;
  s.scrollSum += r.scroll_sum;
  s.scrollCount += r.scroll_count;
}

const ratio = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : 0);

/** engaged time per visit, and the mean of each page view's deepest scroll (null without data) */
function engagement(s: Sums) {
  return {
    visits: s.visits,
    pageViews: s.pageViews,
    avgEngagedMs: s.visits > 0 ? Math.round(s.engagedMs / s.visits) : 0,
    avgScrollDepth: s.scrollCount > 0 ? Math.round(s.scrollSum / s.scrollCount) : null,
  };
}

export const TOP_LANDING_PAGES = 10;

export function shapeStats(rows: DailyRow[], landing: LandingRow[], range: DayRange) {
  const all = zero();
  const ai = zero();
  const other = zero();
  const bySource = new Map<string, Sums>();
  const byChannel = new Map<string, Sums>(CHANNELS.map((c) => [c, zero()]));
  const days = new Map<number, { pageViews: number; visits: number; aiPageViews: number; aiVisits: number; aiSources: Record<string, number> }>();
  for (let d = range.from; d <= range.to; d++) days.set(d, { pageViews: 0, visits: 0, aiPageViews: 0, aiVisits: 0, aiSources: {} });

  for (const r of rows) {
    add(all, r);
    const isAi = r.channel === "ai";
    add(isAi ? ai : other, r);
    let ch = byChannel.get(r.channel);
    if (!ch) byChannel.set(r.channel, (ch = zero()));
    add(ch, r);
    if (isAi) {
      let s = bySource.get(r.source);
      if (!s) bySource.set(r.source, (s = zero()));
      add(s, r);
    }
    const day = days.get(r.day);
    if (day) {
      day.pageViews += r.pageviews;
      day.visits += r.visits;
      if (isAi) {
        day.aiPageViews += r.pageviews;
        day.aiVisits += r.visits;
        // per-source visits of the day, so charts can stack the AI assistants
        day.aiSources[r.source] = (day.aiSources[r.source] ?? 0) + r.visits;
      }
    }
  }

  const pages = new Map<string, { visits: number; sources: Record<string, number> }>();
  for (const l of landing) {
    let p = pages.get(l.path);
    if (!p) pages.set(l.path, (p = { visits: 0, sources: {} }));
    p.visits += l.visits;
    p.sources[l.source] = (p.sources[l.source] ?? 0) + l.visits;
  }

  return {
    range: { days: range.to - range.from + 1, from: isoDate(range.from), to: isoDate(range.to), timezone: "UTC" },
    totals: {
      pageViews: all.pageViews,
      visits: all.visits,
      visitors: all.visitors,
      aiPageViews: ai.pageViews,
      aiVisits: ai.visits,
      aiVisitors: ai.visitors,
      aiShare: ratio(ai.visits, all.visits),
    },
    aiSources: [...bySource]
      .map(([source, s]) => ({ source, ...engagement(s), visitors: s.visitors, share: ratio(s.visits, ai.visits) }))
      .sort((a, b) => b.visits - a.visits || b.pageViews - a.pageViews || a.source.localeCompare(b.source)),
    channels: [...byChannel].map(([channel, s]) => ({ channel, visits: s.visits, pageViews: s.pageViews, visitors: s.visitors })),
    topAiLandingPages: [...pages]
      .map(([path, p]) => ({ path, visits: p.visits, sources: p.sources }))
      .sort((a, b) => b.visits - a.visits || a.path.localeCompare(b.path))
      .slice(0, TOP_LANDING_PAGES),
    daily: [...days].map(([day, d]) => ({ date: isoDate(day), ...d })),
    engagement: { ai: engagement(ai), other: engagement(other) },
  };
}

export type ShapedStats = ReturnType<typeof shapeStats>;

export interface SummaryRow {
  channel: string;
  source: string;
  pageviews: number;
  visits: number;
  visitors: number;
}

export const SUMMARY_TOP_SOURCES = 5;

/** The short form for the chat assistant and the dashboard: totals, AI share, top AI sources. */
export function shapeSummary(rows: SummaryRow[], days: number, sites: number) {
  let pageViews = 0;
  let visits = 0;
  let visitors = 0;
  let aiVisits = 0;
  const ai: { source: string; visits: number; pageViews: number }[] = [];
  for (const r of rows) {
    pageViews += r.pageviews;
    visits += r.visits;
    visitors += r.visitors;
    if (r.channel === "ai") {
      aiVisits += r.visits;
      ai.push({ source: r.source, visits: r.visits, pageViews: r.pageviews });
    }
  }
  return {
    days,
    sites,
    pageViews,
    visits,
    visitors,
    aiVisits,
    aiShare: ratio(aiVisits, visits),
    topAiSources: ai
      .sort((a, b) => b.visits - a.visits || a.source.localeCompare(b.source))
      .slice(0, SUMMARY_TOP_SOURCES)
      .map((s) => ({ ...s, share: ratio(s.visits, aiVisits) })),
  };
}

export type TrafficSummary = ReturnType<typeof shapeSummary>;
