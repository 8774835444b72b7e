// Visibility: the latest report (score, per-provider scores, competitor comparison,
// recommendations, prompts), the score history chart, a refresh button, and a first-report form
// when there is none. A report in progress, started here or anywhere else (API, schedule, another
// tab), shows its job's progress and the page updates when it finishes.
import { api, ApiError } from "./api.js";
import { lineChart } from "./charts.js";
import { announce, field, errorBox, fill, h, pageTitle } from "./dom.js";
import { comparisonRows, formatDateTime, formatShare, historySeries, jobStatus, providerLabel, providerRows, refreshState } from "./view-model.js";

const REPORT = "/v1/ai/generate/seo-site-report";
const POLL_MS = 1000;
/** wait before polling again after a dropped connection (e.g. the server restarting) */
const RECONNECT_MS = 5000;

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const score = (n) => (typeof n === "number" ? String(Math.round(n)) : "—");

function scoreBar(value) {
  const pct = typeof value === "number" ? Math.max(0, Math.min(100, value)) : 0;
  const fillEl = h("span");
  fillEl.style.width = `${pct}%`; // CSSOM, which the page's CSP allows (style attributes it does not)
  return h("div", { class: "bar", "aria-hidden": "true" }, fillEl);
}

function table(caption, head, rows, attrs = {}) {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      attrs,
      caption ? h("caption", { class: "visually-hidden" }, caption) : null,
      h("thead", {}, h("tr", {}, head.map(([label, cls]) => h("th", { scope: "col", class: cls }, label)))),
      h("tbody", {}, rows),
    ),
  );
}

function scoreCard(report) {
  const ai = report.scores?.aiVisibility ?? {};
  return h(
    "section",
    { class: "card", id: "score", "aria-labelledby": "score-title" },
    h("h2", { id: "score-title" }, "Visibility score"),
    h("p", { class: "score" }, score(ai.score), h("span", { class: "out-of" }, " / 100")),
    ai.interpretation ? h("p", {}, ai.interpretation) : null,
    h("p", { class: "muted" }, `${report.input?.websiteurl ?? ""} · report of ${formatDateTime(report.completedAt ?? report.createdAt)}`),
  );
}

function providersCard(report) {
  const rows = providerRows(report.scores?.aiVisibility?.providers).map((p) =>
    h(
      "tr",
      {},
      h("th", { scope: "row" }, p.label, p.models.length ? h("div", { class: "muted" }, p.models.join(", ")) : null),
      h("td", { class: "num" }, p.score === null ? h("span", { class: "muted" }, "no answers") : score(p.score)),
      h("td", { class: "bar-cell" }, p.score === null ? null : scoreBar(p.score)),
      h("td", { class: "num" }, p.mentionRate === null ? "—" : formatShare(p.mentionRate)),
    ),
  );
  return h(
    "section",
    { class: "card", id: "providers", "aria-labelledby": "providers-title" },
    h("h2", { id: "providers-title" }, "By AI provider"),
    table("Score per AI provider", [["Provider"], ["Score", "num"], ["", "bar-cell"], ["Mentions you", "num"]], rows),
  );
}

function comparisonCard(report) {
  const rows = comparisonRows(report.report?.comparison).map((r) =>
    h(
      "tr",
      { class: r.isSelf ? "self" : undefined },
      h("th", { scope: "row" }, r.name, r.isSelf ? h("span", { class: "badge ok" }, "you") : null, r.domain && r.domain !== r.name ? h("div", { class: "muted" }, r.domain) : null),
      h("td", { class: "num" }, score(r.score)),
      h("td", { class: "num" }, r.shareOfVoice === null ? "—" : `${Math.round(r.shareOfVoice)}%`),
      h("td", { class: "num" }, formatShare(r.mentionRate)),
      h("td", { class: "num" }, formatShare(r.citationRate)),
      h("td", { class: "num" }, r.averagePosition === null ? "—" : r.averagePosition.toFixed(1)),
    ),
  );
  return h(
    "section",
    { class: "card", id: "comparison", "aria-labelledby": "comparison-title" },
    h("h2", { id: "comparison-title" }, "Competitor comparison"),
    rows.length
      ? table("Your site and competitors", [["Brand"], ["Score", "num"], ["Share of voice", "num"], ["Named in", "num"], ["Cited in", "num"], ["Avg. position", "num"]], rows)
      : h("p", { class: "muted" }, "No competitors in this report."),
  );
}

function recommendationsCard(report) {
  const recs = [...(report.recommendations ?? [])].sort((a, b) => (a.priority ?? 99) - (b.priority ?? 99));
  return h(
    "section",
    { class: "card", id: "recommendations", "aria-labelledby": "recs-title" },
    h("h2", { id: "recs-title" }, "Recommendations"),
    recs.length
      ? h(
          "ol",
          { class: "recs" },
          recs.map((r) =>
            h(
              "li",
              {},
              h(
                "div",
                { class: "item-head" },
                h("strong", {}, r.title),
                r.impact ? h("span", { class: "badge" }, `${r.impact} impact`) : null,
                r.difficulty ? h("span", { class: `badge difficulty-${r.difficulty}` }, `${r.difficulty} to do`) : null,
              ),
              r.description ? h("p", { class: "muted" }, r.description) : null,
            ),
          ),
        )
      : h("p", { class: "muted" }, "Nothing to recommend: keep it up."),
  );
}

function promptsCard(report) {
  const prompts = report.report?.prompts ?? [];
  if (!prompts.length) return null;
  const rows = prompts.map((p) =>
    h(
      "tr",
      {},
      h("td", {}, p.prompt),
      h("td", {}, p.siteMentionedBy?.length ? p.siteMentionedBy.map(providerLabel).join(", ") : h("span", { class: "muted" }, "nobody")),
    ),
  );
  return h(
    "section",
    { class: "card", id: "prompts", "aria-labelledby": "prompts-title" },
    h("h2", { id: "prompts-title" }, "Prompts asked"),
    table("Which AI providers named your site per prompt", [["Prompt"], ["Named you"]], rows),
  );
}

function historyCard(points, signal) {
  const card = h("section", { class: "card", id: "history", "aria-labelledby": "history-title" }, h("h2", { id: "history-title" }, "Score history"));
  const { x, series } = historySeries(points);
  if (x.length < 2) {
    card.append(h("p", { class: "chart-empty" }, "The history chart appears after the second report."));
    return card;
  }
  const chart = h("div", { class: "chart", id: "history-chart", "aria-hidden": "true" });
  const rows = x.map((ts, i) =>
    h("tr", {}, h("th", { scope: "row" }, formatDateTime(new Date(ts * 1000).toISOString())), series.map((s) => h("td", { class: "num" }, score(s.values[i])))),
  );
  card.append(
    h("figure", { class: "chart-figure" }, chart, h("figcaption", { class: "legend-note" }, "Your site (solid) and competitors (dashed), score 0–100 per report.")),
    h("details", {}, h("summary", {}, "Show the history as a table"), table("Scores per report", [["Report"], ...series.map((s) => [s.label, "num"])], rows)),
  );
  // drawn after insertion so uPlot can measure the container
  queueMicrotask(() => {
    if (!signal.aborted) lineChart(chart, { x, series }, signal);
  });
  return card;
}

function firstReportForm(me, start) {
  const limit = me.plan.promptsPerReport;
  const url = h("input", { id: "report-url", name: "websiteurl", type: "url", required: true, maxlength: "2048", placeholder: "https://www.example.com", inputmode: "url" });
  const competitors = h("textarea", { id: "report-competitors", name: "competitors", rows: "3", maxlength: "2200" });
  const prompts = h("textarea", { id: "report-prompts", name: "prompts", rows: "4", maxlength: "5000" });
  const status = h("div");
  const submit = h("button", { type: "submit" }, "Run the report");
  const suggest = h("button", { type: "button", class: "secondary" }, "Suggest competitors and prompts");
  const lines = (el) => el.value.split("\n").map((l) => l.trim()).filter(Boolean);

  suggest.addEventListener("click", async () => {
    if (!url.reportValidity()) return;
    suggest.disabled = true;
    status.replaceChildren(h("p", { class: "muted" }, "Asking for suggestions…"));
    try {
      const res = await api("POST", `${REPORT}/prefill`, { websiteurl: url.value.trim(), competitors: lines(competitors), prompts: lines(prompts) });
      competitors.value = (res.prefill?.competitors ?? []).join("\n");
      prompts.value = (res.prefill?.prompts ?? []).join("\n");
      status.replaceChildren(h("p", { class: "muted" }, res.message ?? "Suggestions ready"));
      announce("Suggestions filled in");
    } catch (err) {
      status.replaceChildren(errorBox(err));
    } finally {
      suggest.disabled = false;
    }
  });

  const form = h(
    "form",
    { class: "stack", "aria-labelledby": "first-report-title" },
    field("Website (https://)", url),
    field("Competitors (optional, one URL or name per line)", competitors),
    h(
      "div",
      { class: "field" },
      h("label", { for: "report-prompts" }, `Prompts (optional, one per line, up to ${limit} on your plan)`),
      prompts,
      h("p", { class: "muted hint-line" }, "Leave empty to have prompts written for your site."),
    ),
    h("div", { class: "actions" }, submit, suggest),
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    status.replaceChildren();
    const body = { websiteurl: url.value.trim() };
    if (lines(competitors).length) body.competitors = lines(competitors);
    if (lines(prompts).length) body.prompts = lines(prompts);
    let res;
    try {
      res = await api("POST", REPORT, body);
    } catch (err) {
      status.replaceChildren(errorBox(err));
      submit.disabled = false;
      return;
    }
    await start(res.jobId);
  });
  return h(
    "section",
    { class: "card", id: "empty-report", "aria-labelledby": "first-report-title" },
    h("h2", { id: "first-report-title" }, "No report yet"),
    h("p", {}, "Run a first report to see how ChatGPT, Claude and Gemini talk about your site and your competitors."),
    form,
  );
}

export default {
  title: "Visibility",
  async render(main, { me, signal }) {
    const toolbar = h("div", { class: "toolbar" });
    // not a live region: progress ticks every second; start and finish are announced instead
    const jobSlot = h("div", { id: "report-job" });
    const content = h("div", { id: "report-content" });
    let polling = false;
    /** destroys the charts of the report on screen when it is redrawn or the page is left */
    let drawn = null;
    signal.addEventListener("abort", () => drawn?.abort());

    async function load() {
      const [report, history] = await Promise.all([api("GET", REPORT), api("GET", `${REPORT}/history`)]);
      if (signal.aborted) return;
      drawToolbar(report);
      if (report.isEmpty) {
        fill(content, polling ? null : firstReportForm(me, start));
        return;
      }
      drawn?.abort();
      drawn = new AbortController();
      fill(
        content,
        h("div", { class: "grid" }, scoreCard(report), providersCard(report)),
        comparisonCard(report),
        historyCard(history.points ?? [], drawn.signal),
        recommendationsCard(report),
        promptsCard(report),
      );
    }

    function drawToolbar(report) {
      if (report.isEmpty) {
        toolbar.replaceChildren();
        return;
      }
      const state = refreshState(report.refreshMeta, me.plan);
      const button = h("button", { type: "button", id: "refresh-report", disabled: polling || !state.allowed }, "Refresh report");
      button.addEventListener("click", async () => {
        button.disabled = true;
        let res;
        try {
          res = await api("POST", REPORT, { refresh: true });
        } catch (err) {
          jobSlot.replaceChildren(errorBox(err));
          button.disabled = false;
          return;
        }
        await start(res.jobId);
      });
      const refreshes = report.refreshMeta?.count ? ` Refreshed ${report.refreshMeta.count} time${report.refreshMeta.count === 1 ? "" : "s"} so far.` : "";
      toolbar.replaceChildren(button, h("p", { class: "muted hint-line", id: "refresh-allowance" }, state.text + refreshes));
    }

    function showJob(status) {
      jobSlot.replaceChildren(
        h(
          "div",
          { class: "card job" },
          h("strong", {}, status.text),
          status.done ? null : h("progress", { max: "100", value: String(status.progress), "aria-label": "Report progress" }),
        ),
      );
    }

    /** polls the job until it ends, then reloads the report in place; never rejects */
    async function start(jobId) {
      try {
        await follow(jobId);
      } catch (err) {
        polling = false;
        if (!signal.aborted) jobSlot.replaceChildren(errorBox(err));
      }
    }

    async function follow(jobId) {
      polling = true;
      toolbar.querySelector("button")?.setAttribute("disabled", "");
      if (content.querySelector("#empty-report")) fill(content);
      announce("Report in progress");
      showJob(jobStatus({ state: "waiting" }));
      while (!signal.aborted) {
        let job;
        try {
          job = await api("GET", `/v1/ai/generate/job/${encodeURIComponent(jobId)}`);
        } catch (err) {
          if (err instanceof ApiError && err.status === 404) {
            jobSlot.replaceChildren();
            polling = false;
            return load();
          }
          // SPEC 8.5: a poller respects the rate limit; a dropped connection is retried too
          if (err instanceof ApiError && (err.status === 429 || err.status === 0)) {
            await sleep(err.retryAfterSeconds ? err.retryAfterSeconds * 1000 : RECONNECT_MS, signal);
            continue;
          }
          throw err;
        }
        if (signal.aborted) return;
        const status = jobStatus(job);
        showJob(status);
        if (status.done) {
          polling = false;
          announce(status.text);
          await load();
          if (!status.ok) jobSlot.replaceChildren(errorBox(new Error(status.text)));
          return;
        }
        await sleep(POLL_MS, signal);
      }
    }

    const { pending } = await api("GET", `${REPORT}/pending`);
    if (signal.aborted) return;
    polling = pending !== null; // no first-report form and no refresh while a report runs
    await load();
    if (signal.aborted) return;
    fill(main, ...pageTitle("Visibility", "How AI assistants answer questions about your market, and where your site shows up."), toolbar, jobSlot, content);
    if (pending) void start(pending.jobId);
  },
};
