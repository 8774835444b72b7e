// AI traffic: the workspace's sites with their snippet (copy button), a form to add one, and for
// the chosen site and window (7/30/90 days) the AI share, a stacked daily chart, the AI sources
// and the top AI landing pages. Site and window live in the URL query, so reloads keep them.
import { api } from "./api.js";
import { PALETTE, stackedAreaChart } from "./charts.js";
import { announce, field, copyButton, errorBox, fill, h, pageTitle } from "./dom.js";
import { formatDate, formatDuration, formatNumber, formatShare, sourceBreakdown, TRAFFIC_DAY_CHOICES, trafficLayers } from "./view-model.js";

const BASE = "/v1/ai-traffic";

function readQuery() {
  const q = new URLSearchParams(location.search);
  const days = Number(q.get("days"));
  return { site: q.get("site"), days: TRAFFIC_DAY_CHOICES.includes(days) ? days : 30 };
}

function writeQuery(site, days) {
  const q = new URLSearchParams({ site, days: String(days) });
  history.replaceState(null, "", `${location.pathname}?${q}`);
}

function siteCard(site) {
  const snippetId = `snippet-${site.id}`;
  return h(
    "li",
    { class: "site", "data-site-key": site.siteKey },
    h(
      "div",
      { class: "item-head" },
      h("strong", {}, site.name),
      site.name !== site.domain ? h("span", { class: "muted" }, site.domain) : null,
      h("span", { class: site.isActive ? "badge ok" : "badge" }, site.isActive ? "active" : "paused"),
    ),
    h("p", { class: "muted hint-line", id: `${snippetId}-label` }, "Put this tag in the <head> of every page:"),
    h("pre", { id: snippetId, "aria-labelledby": `${snippetId}-label` }, h("code", {}, site.snippet)),
    copyButton(() => site.snippet, "Copy snippet"),
  );
}

function addSiteForm(onAdded, needsDomain) {
  const domain = h("input", { id: "site-domain", name: "domain", type: "text", required: true, maxlength: "2048", placeholder: "example.com", inputmode: "url", autocomplete: "off" });
  const name = h("input", { id: "site-name", name: "name", type: "text", maxlength: "200", placeholder: "defaults to the domain" });
  const submit = h("button", { type: "submit" }, "Add site");
  const status = h("div");
  const form = h(
    "form",
    { class: "inline-form", "aria-labelledby": "add-site-title" },
    field("Domain", domain),
    field("Name (optional)", name),
    submit,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    status.replaceChildren();
    try {
      const body = { domain: domain.value.trim() };
      if (name.value.trim()) body.name = name.value.trim();
      const site = await api("POST", `${BASE}/sites`, body);
      await onAdded(site);
    } catch (err) {
      status.replaceChildren(errorBox(err));
      submit.disabled = false;
    }
  });
  return h(
    "section",
    { class: "card", id: "add-site", "aria-labelledby": "add-site-title" },
    h("h2", { id: "add-site-title" }, "Add a site"),
    needsDomain ? h("p", {}, "No site yet. Add the domain you want to track; you get a snippet to install on it.") : null,
    form,
    status,
  );
}

function daysPicker(current, onChange) {
  const options = h("div", { class: "segmented" });
  for (const d of TRAFFIC_DAY_CHOICES) {
    const input = h("input", { type: "radio", name: "days", value: String(d), checked: d === current });
    input.addEventListener("change", () => onChange(d));
    options.append(h("label", {}, input, h("span", {}, `${d} days`)));
  }
  return h("fieldset", { class: "field days", id: "days" }, h("legend", { class: "label" }, "Period"), options);
}

function statCard(id, label, value, note) {
  return h("section", { class: "card stat", id, "aria-labelledby": `${id}-label` }, h("h2", { id: `${id}-label` }, label), h("p", { class: "big" }, value), note ? h("p", { class: "muted hint-line" }, note) : null);
}

function chartSection(stats, signal) {
  const section = h("section", { class: "card", id: "traffic-chart", "aria-labelledby": "chart-title" }, h("h2", { id: "chart-title" }, "Daily visits"));
  const toggle = h("input", { type: "checkbox", id: "with-other", checked: true });
  const holder = h("div");
  let chartAbort = null;

  signal.addEventListener("abort", () => chartAbort?.abort());

  function draw() {
    chartAbort?.abort();
    chartAbort = new AbortController();
    const { days, layers, bySource } = trafficLayers(stats, toggle.checked);
    const total = layers.reduce((n, l) => n + l.values.reduce((a, b) => a + b, 0), 0);
    if (!total) {
      const empty = toggle.checked ? "No visits in this period yet. Install the snippet, then come back." : "No AI visits in this period.";
      holder.replaceChildren(h("p", { class: "chart-empty" }, empty));
      return;
    }
    const chart = h("div", { class: "chart", "aria-hidden": "true" });
    const rows = days.map((day, i) => h("tr", {}, h("th", { scope: "row" }, day), layers.map((l) => h("td", { class: "num" }, formatNumber(l.values[i])))));
    holder.replaceChildren(
      h(
        "figure",
        { class: "chart-figure" },
        chart,
        h(
          "figcaption",
          { class: "legend-note" },
          bySource ? "Visits per day, AI sources stacked" : "Visits per day: AI visits at the bottom",
          toggle.checked ? ", other visits on top." : ".",
        ),
      ),
      h(
        "details",
        {},
        h("summary", {}, "Show the daily visits as a table"),
        h("div", { class: "table-wrap" }, h("table", {}, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Day"), layers.map((l) => h("th", { scope: "col", class: "num" }, l.label)))), h("tbody", {}, rows))),
      ),
    );
    const colored = layers.map((l, i) => ({ ...l, color: l.other ? "#8c959f" : PALETTE[i % PALETTE.length] }));
    queueMicrotask(() => {
      if (!chartAbort.signal.aborted) stackedAreaChart(chart, { days, series: colored }, chartAbort.signal);
    });
  }

  toggle.addEventListener("change", draw);
  section.append(h("div", { class: "check" }, toggle, h("label", { for: "with-other" }, "Include non-AI visits")), holder);
  draw();
  return section;
}

function sourcesTable(stats) {
  const rows = (stats.aiSources ?? []).map((s) =>
    h(
      "tr",
      {},
      h("th", { scope: "row" }, s.source),
      h("td", { class: "num" }, formatNumber(s.visits)),
      h("td", { class: "num" }, formatShare(s.share)),
      h("td", { class: "num" }, formatDuration(s.avgEngagedMs)),
    ),
  );
  return h(
    "section",
    { class: "card", id: "ai-sources", "aria-labelledby": "sources-title" },
    h("h2", { id: "sources-title" }, "AI sources"),
    rows.length
      ? h(
          "div",
          { class: "table-wrap" },
          h(
            "table",
            {},
            h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Source"), h("th", { scope: "col", class: "num" }, "Visits"), h("th", { scope: "col", class: "num" }, "Share of AI"), h("th", { scope: "col", class: "num" }, "Engaged / visit"))),
            h("tbody", {}, rows),
          ),
        )
      : h("p", { class: "muted" }, "No visits from AI assistants in this period."),
  );
}

function landingTable(stats) {
  const rows = (stats.topAiLandingPages ?? []).map((p) =>
    h("tr", {}, h("th", { scope: "row" }, h("code", {}, p.path)), h("td", { class: "num" }, formatNumber(p.visits)), h("td", { class: "muted" }, sourceBreakdown(p.sources))),
  );
  return h(
    "section",
    { class: "card", id: "landing-pages", "aria-labelledby": "landing-title" },
    h("h2", { id: "landing-title" }, "Top AI landing pages"),
    rows.length
      ? h(
          "div",
          { class: "table-wrap" },
          h(
            "table",
            {},
            h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Page"), h("th", { scope: "col", class: "num" }, "AI visits"), h("th", { scope: "col" }, "From"))),
            h("tbody", {}, rows),
          ),
        )
      : h("p", { class: "muted" }, "No AI landing pages in this period."),
  );
}

function sitePicker(sites, current, onChange) {
  const select = h("select", { id: "site-select" }, sites.map((s) => h("option", { value: s.siteKey, selected: s.siteKey === current.siteKey }, s.name)));
  select.addEventListener("change", () => onChange(sites.find((s) => s.siteKey === select.value)));
  return field("Site", select);
}

export default {
  title: "AI traffic",
  async render(main, { signal }) {
    let { sites } = await api("GET", `${BASE}/sites`);
    if (!sites.length) {
      // SPEC 4.5 ensure: a site from the website the workspace already gave (e.g. a visibility report)
      const ensured = await api("POST", `${BASE}/sites/ensure`);
      if (ensured.site) sites = [ensured.site];
    }
    if (signal.aborted) return;
    const query = readQuery();
    let site = sites.find((s) => s.siteKey === query.site) ?? sites[0] ?? null;
    let days = query.days;
    /** aborts the charts of the stats on screen when other stats replace them or the page is left */
    let statsAbort = null;
    signal.addEventListener("abort", () => statsAbort?.abort());
    const statsSlot = h("div", { id: "traffic-stats" });

    async function loadStats() {
      statsAbort?.abort();
      statsAbort = new AbortController();
      const local = statsAbort.signal;
      if (!site) {
        statsSlot.replaceChildren();
        return;
      }
      writeQuery(site.siteKey, days);
      statsSlot.setAttribute("aria-busy", "true");
      let stats;
      try {
        const q = new URLSearchParams({ siteKey: site.siteKey, days: String(days), source: "script" });
        stats = await api("GET", `${BASE}/stats?${q}`);
      } catch (err) {
        if (!local.aborted) statsSlot.replaceChildren(errorBox(err));
        return;
      } finally {
        statsSlot.removeAttribute("aria-busy");
      }
      if (local.aborted) return;
      const t = stats.totals;
      const chooseSite = (chosen) => {
        site = chosen;
        void loadStats();
      };
      const chooseDays = async (d) => {
        days = d;
        await loadStats();
        statsSlot.querySelector(`#days input[value="${d}"]`)?.focus();
        announce(`Showing the last ${d} days`);
      };
      fill(
        statsSlot,
        h("h2", { class: "section-title" }, `${site.name}: last ${days} days`),
        h("p", { class: "muted hint-line" }, `${formatDate(stats.range?.from)} – ${formatDate(stats.range?.to)} (UTC)`),
        h("div", { class: "toolbar" }, sites.length > 1 ? sitePicker(sites, site, chooseSite) : null, daysPicker(days, chooseDays)),
        h(
          "div",
          { class: "grid stats" },
          statCard("ai-visits", "AI visits", formatNumber(t.aiVisits), `${formatNumber(t.aiVisitors)} visitors`),
          statCard("ai-share", "AI share", formatShare(t.aiShare), "of all visits"),
          statCard("all-visits", "All visits", formatNumber(t.visits), `${formatNumber(t.pageViews)} page views`),
        ),
        chartSection(stats, local),
        h("div", { class: "grid" }, sourcesTable(stats), landingTable(stats)),
      );
    }

    function drawPage() {
      fill(
        main,
        ...pageTitle("AI traffic", "Visits that AI assistants send to your sites."),
        sites.length
          ? h("section", { class: "card", id: "sites", "aria-labelledby": "sites-title" }, h("h2", { id: "sites-title" }, "Sites"), h("ul", { class: "sites" }, sites.map(siteCard)))
          : null,
        addSiteForm(added, !sites.length),
        statsSlot,
      );
    }

    async function added(created) {
      const known = sites.some((s) => s.id === created.id);
      if (!known) sites = [...sites, created];
      site = created;
      drawPage();
      announce(known ? `${created.domain} was already tracked` : `Site ${created.name} added. Copy its snippet.`);
      main.querySelector(`[data-site-key="${created.siteKey}"] button.copy`)?.focus();
      await loadStats();
    }

    await loadStats();
    if (signal.aborted) return;
    drawPage();
  },
};
