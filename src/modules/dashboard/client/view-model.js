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
