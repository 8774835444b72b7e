// API key (SPEC 4.7): metadata of the current key, generate or rotate (the secret is shown once
// with a copy button), and revoke after an inline confirmation.
import { api } from "./api.js";
import { announce, field, copyButton, errorBox, fill, h, pageTitle } from "./dom.js";
import { formatDate, formatDateTime } from "./view-model.js";

function metadataList(key) {
  const row = (term, ...value) => [h("dt", {}, term), h("dd", {}, ...value)];
  return h(
    "dl",
    { class: "meta", id: "key-meta" },
    row("Name", key.name),
    row("Prefix", h("code", {}, `${key.prefix}…`)),
    row("Created", formatDate(key.createdAt)),
    row("Expires", formatDate(key.expiresAt), key.expired ? h("span", { class: "badge danger" }, "expired") : ""),
    row("Last used", key.lastUsedAt ? formatDateTime(key.lastUsedAt) : "never"),
  );
}

/** The once-shown secret: a read-only field to select plus a copy button. */
function secretPanel(secret) {
  const field = h("input", { id: "new-key", type: "text", readonly: true, value: secret, spellcheck: "false", autocomplete: "off" });
  field.addEventListener("focus", () => field.select());
  return h(
    "section",
    { class: "card notice", id: "new-key-panel", "aria-labelledby": "new-key-title" },
    h("h2", { id: "new-key-title" }, "Your new API key"),
    h("p", {}, h("strong", {}, "Copy it now: it is shown only once."), " Send it in the ", h("code", {}, "api-key"), " header."),
    h("div", { class: "copy-row" }, h("label", { for: "new-key", class: "visually-hidden" }, "New API key"), field, copyButton(() => secret, "Copy key")),
  );
}

export default {
  title: "API key",
  async render(main, { me, signal }) {
    const secretSlot = h("div");
    const keySlot = h("div");
    const status = h("div");

    async function refresh() {
      const { apiKey } = await api("GET", "/v1/users/api-key");
      if (signal.aborted) return;
      keySlot.replaceChildren(keyCard(apiKey));
    }

    function keyCard(key) {
      const nameInput = h("input", { id: "key-name", name: "name", type: "text", maxlength: "100", required: true, value: key?.name ?? "default" });
      const generate = h("button", { type: "submit" }, key ? "Rotate key" : "Generate key");
      const form = h(
        "form",
        { class: "inline-form", "aria-label": key ? "Rotate the API key" : "Generate an API key" },
        field("Key name", nameInput),
        generate,
      );
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        generate.disabled = true;
        status.replaceChildren();
        try {
          const res = await api("POST", "/v1/users/generateApiKey", { name: nameInput.value.trim() || "default" });
          secretSlot.replaceChildren(secretPanel(res.apiKey));
          announce("New API key created. Copy it now: it is shown only once.");
          await refresh();
          document.getElementById("new-key")?.focus();
        } catch (err) {
          status.replaceChildren(errorBox(err));
          generate.disabled = false;
        }
      });

      const parts = [h("h2", { id: "key-title" }, "Current key")];
      if (!key) parts.push(h("p", { id: "no-key" }, "No API key yet."));
      else parts.push(metadataList(key));
      if (key) parts.push(h("p", { class: "muted" }, "Rotating replaces the key: the old one stops working at once."));
      parts.push(form);
      if (key) parts.push(revokeControl());
      return h("section", { class: "card", "aria-labelledby": "key-title" }, ...parts);
    }

    function revokeControl() {
      const slot = h("div", { class: "revoke" });
      const ask = h("button", { type: "button", class: "danger" }, "Revoke key");
      ask.addEventListener("click", () => {
        const confirm = h("button", { type: "button", class: "danger" }, "Yes, revoke it");
        const cancel = h("button", { type: "button", class: "secondary" }, "Cancel");
        cancel.addEventListener("click", () => {
          slot.replaceChildren(ask);
          ask.focus();
        });
        confirm.addEventListener("click", async () => {
          confirm.disabled = true;
          try {
            await api("DELETE", "/v1/users/api-key");
            secretSlot.replaceChildren();
            announce("API key revoked");
            await refresh();
            document.getElementById("key-name")?.focus();
          } catch (err) {
            slot.replaceChildren(errorBox(err), ask);
          }
        });
        slot.replaceChildren(
          h("p", { role: "alert" }, "Revoke the key? Programs using it stop working at once."),
          h("div", { class: "actions" }, confirm, cancel),
        );
        cancel.focus();
      });
      slot.append(ask);
      return slot;
    }

    const planNote = me.plan.apiAccess
      ? null
      : h(
          "p",
          { class: "card warning", id: "plan-note" },
          `Your plan (${me.plan.label}) has no API access: requests with a key are refused with 403 PLAN_NOT_ELIGIBLE. The dashboard works on every plan.`,
        );
    await refresh();
    if (signal.aborted) return;
    fill(
      main,
      ...pageTitle("API key", "One key per user. Keys expire 30 days after they are generated."),
      planNote,
      secretSlot,
      keySlot,
      status,
    );
  },
};
