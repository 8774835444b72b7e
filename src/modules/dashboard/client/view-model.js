// Pure shaping of API responses into what the pages show: no DOM, no fetch, so it is tested with
// plain inputs (test/modules/dashboard/view-model.test.ts).

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** "2025-06" → "June 2025"; "lifetime" → the trial wording; anything else as given. */
export function periodLabel(period) {
  if (period === "lifetime") return "trial allowance (does not reset)";
  const m = /^(\d{4})-(\d{2})$/.exec(period ?? "");
  if (!m) return period ?? "";
  return `${MONTHS[Number(m[2]) - 1] ?? m[2]} ${m[1]}`;
}

export function formatNumber(n) {
  return typeof n === "number" && Number.isFinite(n) ? n.toLocaleString("en-US") : "—";
}

/** ISO time → "Nov 23, 2026" in the browser's locale; "—" when absent. */
export function formatDate(iso) {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
}

/** ISO time → date and hour:minute in the browser's locale. */
export function formatDateTime(iso) {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** 0.4236 → "42.4%" (share given as a fraction 0..1). */
export function formatShare(fraction) {
  if (typeof fraction !== "number" || !Number.isFinite(fraction)) return "—";
  return `${(Math.round(fraction * 1000) / 10).toLocaleString("en-US")}%`;
}

/**
 * A usage meter from /v1/users/me: usage.credits / usage.images ({used, limit, remaining, period,
 * resetsAt}; limit null = unlimited). Returns null when the server did not report that counter.
 */
export function meter(counter) {
  if (!counter || typeof counter.used !== "number") return null;
  const unlimited = counter.limit === null || counter.limit === undefined;
  const limit = unlimited ? null : counter.limit;
  const remaining = unlimited ? null : typeof counter.remaining === "number" ? counter.remaining : Math.max(0, limit - counter.used);
  const percent = unlimited || limit === 0 ? (unlimited ? 0 : 100) : Math.min(100, Math.round((counter.used / limit) * 100));
  return {
    used: counter.used,
    limit,
    remaining,
    percent,
    unlimited,
    period: periodLabel(counter.period),
    resetsAt: counter.resetsAt ?? null,
    text: unlimited ? `${formatNumber(counter.used)} used (unlimited)` : `${formatNumber(counter.used)} of ${formatNumber(limit)} used`,
  };
}

// --- visibility ------------------------------------------------------------------------------

const PROVIDER_LABELS = { openai: "ChatGPT (OpenAI)", anthropic: "Claude (Anthropic)", gemini: "Gemini (Google)" };

export function providerLabel(family) {
  return PROVIDER_LABELS[family] ?? family;
}

/** scores.aiVisibility.providers → table rows; a null provider gave no answer (not configured or failed). */
export function providerRows(providers) {
  return Object.entries(providers ?? {}).map(([family, p]) => ({
    family,
    label: providerLabel(family),
    score: p ? p.score : null,
    answered: p ? p.answered : 0,
    failed: p ? p.failed : 0,
    mentionRate: p ? p.mentionRate : null,
    models: p ? p.models ?? [] : [],
  }));
}

/** report.comparison → rows, best score first (unscored last), the analysed site flagged. */
export function comparisonRows(comparison) {
  const rows = (comparison ?? []).map((e) => ({
    name: e.name,
    domain: e.domain ?? null,
    isSelf: !!e.isSelf,
    score: typeof e.score === "number" ? e.score : null,
    shareOfVoice: typeof e.shareOfVoice === "number" ? e.shareOfVoice : null,
    mentionRate: typeof e.mentionRate === "number" ? e.mentionRate : null,
    citationRate: typeof e.citationRate === "number" ? e.citationRate : null,
    averagePosition: typeof e.averagePosition === "number" ? e.averagePosition : null,
  }));
  return rows.sort((a, b) => (b.score ?? -1) - (a.score ?? -1) || Number(b.isSelf) - Number(a.isSelf));
}

/**
 * History points (oldest first) → uPlot-ready columns: x in unix seconds, the site's score, and one
 * series per competitor name seen in any point (null where a report did not track it).
 */
export function historySeries(points) {
  const list = (points ?? []).filter((p) => !Number.isNaN(Date.parse(p.timestamp ?? p.time)));
  const x = list.map((p) => Math.round(Date.parse(p.timestamp ?? p.time) / 1000));
  const names = [];
  for (const p of list) for (const c of p.competitors ?? []) if (!names.includes(c.name)) names.push(c.name);
  const series = [{ label: "Your site", values: list.map((p) => (typeof p.self === "number" ? p.self : p.overall)) }];
  for (const name of names) {
    series.push({ label: name, values: list.map((p) => (p.competitors ?? []).find((c) => c.name === name)?.score ?? null) });
  }
  return { x, series };
}

/** refreshMeta + plan → what the refresh button may do and the sentence under it. */
export function refreshState(refreshMeta, plan) {
  if (!plan || plan.refreshesPer24h === 0) {
    return { allowed: false, text: `Refreshing is not included in the ${plan?.label ?? "current"} plan.` };
  }
  const limit = refreshMeta?.limitPer24h ?? plan.refreshesPer24h;
  const remaining = refreshMeta?.remaining ?? limit;
  return {
    allowed: remaining > 0,
    text: remaining > 0 ? `${remaining} of ${limit} refreshes left in the last 24 hours.` : `All ${limit} refreshes of the last 24 hours are used.`,
  };
}

/** A job (SPEC 2.4) → a short progress sentence and whether polling is over. */
export function jobStatus(job) {
  const progress = Math.max(0, Math.min(100, Math.round(job?.progress ?? 0)));
  switch (job?.state) {
    case "completed":
      return { done: true, ok: true, progress: 100, text: "Report ready." };
    case "failed":
      return { done: true, ok: false, progress, text: `The report failed: ${job.failedReason ?? "unknown reason"}` };
    case "active":
      return { done: false, ok: true, progress, text: `Asking the AI models… ${progress}%` };
    case "delayed":
      return { done: false, ok: true, progress, text: "Waiting to retry…" };
    default:
      return { done: false, ok: true, progress, text: "Queued…" };
  }
}

// --- AI traffic ------------------------------------------------------------------------------

export const TRAFFIC_DAY_CHOICES = [7, 30, 90];
/** AI sources drawn as their own layer; the rest share one "Other AI" layer */
export const CHART_SOURCES = 6;

/** 65_000 → "1m 05s"; 0 → "0s". */
export function formatDuration(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) return "—";
  const total = Math.round(ms / 1000);
  const m = Math.floor(total / 60);
  const s = total % 60;
  return m ? `${m}m ${String(s).padStart(2, "0")}s` : `${s}s`;
}

/**
 * Stats (GET /v1/ai-traffic/stats) → layers for the stacked daily chart, bottom first. With a
 * per-day breakdown by AI source (daily[].aiSources: {source: visits}) each top source is a layer;
 * without it, AI visits form one layer. Non-AI visits are the top layer when `withOther`.
 */
export function trafficLayers(stats, withOther) {
  const daily = stats?.daily ?? [];
  const days = daily.map((d) => d.date);
  const layers = [];
  const bySource = daily.some((d) => d.aiSources && typeof d.aiSources === "object");
  if (bySource) {
    const ranked = (stats.aiSources ?? []).map((s) => s.source);
    for (const d of daily) for (const name of Object.keys(d.aiSources ?? {})) if (!ranked.includes(name)) ranked.push(name);
    const top = ranked.slice(0, CHART_SOURCES);
    for (const name of top) layers.push({ label: name, values: daily.map((d) => d.aiSources?.[name] ?? 0) });
    if (ranked.length > top.length) {
      layers.push({
        label: "Other AI",
        values: daily.map((d) => Object.entries(d.aiSources ?? {}).reduce((sum, [name, v]) => (top.includes(name) ? sum : sum + v), 0)),
      });
    }
  } else {
    layers.push({ label: "AI visits", values: daily.map((d) => d.aiVisits ?? 0) });
  }
  if (withOther) layers.push({ label: "Other visits", values: daily.map((d) => Math.max(0, (d.visits ?? 0) - (d.aiVisits ?? 0))), other: true });
  return { days, layers, bySource };
}

/** "{ChatGPT: 3, Perplexity: 1}" → "ChatGPT 3 · Perplexity 1", biggest first. */
export function sourceBreakdown(sources) {
  return Object.entries(sources ?? {})
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([name, n]) => `${name} ${formatNumber(n)}`)
    .join(" · ");
}
