// Small DOM helpers shared by the pages: an element builder, screen-reader announcements,
// copy-to-clipboard buttons and error boxes. No framework.

/**
 * h("button", { type: "button", onclick: fn, class: "x" }, "text", childNode, [more])
 * Attributes are set as attributes (true → present, false/null/undefined → absent); on* are listeners.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** A labelled form field; the label points at the control's own id, so the two cannot drift apart. */
export function field(label, control) {
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control);
}

/** Says something to screen-reader users through the shell's polite live region. */
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region) return;
  region.textContent = "";
  // a fresh text node after a tick so repeating the same message is announced again
  setTimeout(() => {
    region.textContent = text;
  }, 30);
}

/** Clipboard API where allowed (https or localhost); the older selection copy on plain http. */
async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = h("textarea", { readonly: true, class: "visually-hidden", "aria-hidden": "true" });
  area.value = text;
  document.body.append(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("copy refused");
}

/** A button that copies getText() and says so, for snippets and the once-shown key. */
export function copyButton(getText, label = "Copy") {
  const button = h("button", { type: "button", class: "secondary copy" }, label);
  button.addEventListener("click", async () => {
    try {
      await copyText(getText());
      button.textContent = "Copied";
      announce("Copied to the clipboard");
      setTimeout(() => {
        button.textContent = label;
      }, 2000);
    } catch {
      announce("Copy failed: select the text and copy it yourself");
      button.textContent = "Copy failed";
    }
  });
  return button;
}

/** An alert paragraph with the server's message (errCode kept in a data attribute for tests/support). */
export function errorBox(err) {
  const message = err && err.message ? err.message : String(err);
  return h("p", { class: "error", role: "alert", "data-errcode": err?.errCode }, message);
}

/** A page's heading; focusable so route changes can move focus to it. */
export function pageTitle(text, lead) {
  return [h("h1", { tabindex: "-1" }, text), lead ? h("p", { class: "lead" }, lead) : null];
}

/** Replaces an element's children, skipping null/false entries and flattening arrays. */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}
