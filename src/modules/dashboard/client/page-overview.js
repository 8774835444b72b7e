// Overview: the plan and what has been used of it this period (credits, images), and where to go next.
import { api } from "./api.js";
import { fill, h, pageTitle } from "./dom.js";
import { formatDate, formatNumber, meter } from "./view-model.js";

function usageCard(id, title, counter, fallbackLimit, unit) {
  const m = meter(counter);
  const body = m
    ? [
        h("p", { class: "big" }, m.text),
        h("progress", { max: "100", value: String(m.percent), "aria-labelledby": `${id}-title`, "aria-valuetext": m.text }),
        h(
          "p",
          { class: "muted" },
          m.unlimited ? "No limit on this plan" : `${formatNumber(m.remaining)} ${unit} left`,
          m.period ? ` · ${m.period}` : "",
          m.resetsAt ? ` · resets ${formatDate(m.resetsAt)}` : "",
        ),
      ]
    : [h("p", {}, fallbackLimit === null ? `Unlimited ${unit}` : `${formatNumber(fallbackLimit)} ${unit} per period`), h("p", { class: "muted" }, "Usage is not reported by this server yet.")];
  return h("section", { class: "card", id, "aria-labelledby": `${id}-title` }, h("h2", { id: `${id}-title` }, title), ...body);
}

export default {
  title: "Overview",
  async render(main, { signal }) {
    // fetched again rather than taken from the shell's copy: usage changes while the tab is open
    const me = await api("GET", "/v1/users/me");
    if (signal.aborted) return;
    const plan = me.plan;
    const usage = me.usage ?? {};
    fill(
      main,
      ...pageTitle("Overview", `Signed in as ${me.user.email}`),
      h(
        "div",
        { class: "grid" },
        h(
          "section",
          { class: "card", id: "plan", "aria-labelledby": "plan-title" },
          h("h2", { id: "plan-title" }, "Plan"),
          h("p", { class: "big" }, plan.label),
          h(
            "ul",
            { class: "facts" },
            h("li", {}, plan.apiAccess ? "API keys work on this plan" : "No API access on this plan (the dashboard works)"),
            h("li", {}, `${formatNumber(plan.promptsPerReport)} prompts per visibility report`),
            h("li", {}, plan.refreshesPer24h > 0 ? `${formatNumber(plan.refreshesPer24h)} report refreshes per 24 hours` : "Report refreshes are not included"),
          ),
        ),
        usageCard("credits", "AI credits", usage.credits, plan.monthlyCredits, "credits"),
        usageCard("images", "Images", usage.images, plan.monthlyImages, "images"),
      ),
      h(
        "section",
        { class: "card", "aria-labelledby": "next-title" },
        h("h2", { id: "next-title" }, "Next steps"),
        h(
          "ul",
          { class: "links" },
          h("li", {}, h("a", { href: "/app/api-key" }, "Create an API key"), " to call the API from your own programs."),
          h("li", {}, h("a", { href: "/app/traffic" }, "Add a site"), " and install its snippet to count visits sent by AI assistants."),
          h("li", {}, h("a", { href: "/app/visibility" }, "See your visibility report"), " and what to do about it."),
        ),
      ),
    );
  },
};
