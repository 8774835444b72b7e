// Entry of the dashboard client: who is signed in, path routing inside /app (history API; the
// server answers every /app path with the same shell), the sign-in page and sign-out.
import { api, ApiError } from "./api.js";
import { announce, field, errorBox, fill, h, pageTitle } from "./dom.js";
import keyPage from "./page-key.js";
import overviewPage from "./page-overview.js";
import trafficPage from "./page-traffic.js";
import visibilityPage from "./page-visibility.js";

const PAGES = {
  "/app": overviewPage,
  "/app/api-key": keyPage,
  "/app/traffic": trafficPage,
  "/app/visibility": visibilityPage,
};
const LOGIN_PATH = "/app/login";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const account = document.getElementById("account");
const accountEmail = document.getElementById("account-email");

/** GET /v1/users/me of the signed-in user, or null when signed out. */
let me = null;
/** aborts the work (polling, timers) of the page being left */
let leaving = null;
/** location.pathname of the page on screen */
let shownPath = "";

async function loadMe() {
  try {
    me = await api("GET", "/v1/users/me");
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) me = null;
    else throw err;
  }
  nav.hidden = !me;
  account.hidden = !me;
  accountEmail.textContent = me ? me.user.email : "";
  return me;
}

function normalizePath(pathname) {
  const trimmed = pathname.replace(/\/+$/, "");
  return trimmed === "" ? "/app" : trimmed;
}

function markCurrentNav(path) {
  for (const a of nav.querySelectorAll("a")) {
    if (a.getAttribute("href") === path) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

function navigate(href, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", href);
  else history.pushState(null, "", href);
  return render({ moveFocus: true });
}

function goToLogin() {
  const here = location.pathname + location.search;
  const next = normalizePath(location.pathname) === LOGIN_PATH ? "" : `?next=${encodeURIComponent(here)}`;
  return navigate(LOGIN_PATH + next, { replace: true });
}

async function render({ moveFocus }) {
  leaving?.abort();
  const controller = new AbortController();
  leaving = controller;
  const path = normalizePath(location.pathname);
  shownPath = location.pathname;
  markCurrentNav(path);

  if (path === LOGIN_PATH) {
    if (me) return navigate(safeNext(), { replace: true });
    renderLogin();
  } else if (!me) {
    return goToLogin();
  } else {
    const page = PAGES[path];
    fill(main, h("p", { class: "muted" }, "Loading…"));
    if (!page) {
      document.title = "Not found · aivis";
      fill(main, ...pageTitle("Page not found"), h("p", {}, h("a", { href: "/app" }, "Back to the overview")));
    } else {
      document.title = `${page.title} · aivis`;
      try {
        await page.render(main, { me, signal: controller.signal });
      } catch (err) {
        if (controller.signal.aborted) return;
        if (err instanceof ApiError && err.status === 401) {
          await loadMe();
          return goToLogin();
        }
        fill(main, ...pageTitle(page.title), errorBox(err));
      }
    }
  }
  if (moveFocus && !controller.signal.aborted) main.querySelector("h1")?.focus();
}

function safeNext() {
  const next = new URLSearchParams(location.search).get("next") ?? "/app";
  // only our own pages: never an open redirect to another site
  return next.startsWith("/app") ? next : "/app";
}

function renderLogin() {
  document.title = "Sign in · aivis";
  const status = h("div", { id: "login-status" });
  const email = h("input", { id: "login-email", name: "email", type: "email", autocomplete: "username", required: true, maxlength: "254" });
  const password = h("input", {
    id: "login-password",
    name: "password",
    type: "password",
    autocomplete: "current-password",
    required: true,
    maxlength: "256",
  });
  const submit = h("button", { type: "submit" }, "Sign in");
  const form = h(
    "form",
    { class: "stack", "aria-labelledby": "login-title" },
    field("Email", email),
    field("Password", password),
    submit,
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    status.replaceChildren();
    try {
      await api("POST", "/v1/users/login", { email: email.value, password: password.value });
      await loadMe();
      announce("Signed in");
      await navigate(safeNext(), { replace: true });
    } catch (err) {
      const friendly = err instanceof ApiError && err.errCode === "INVALID_CREDENTIALS" ? new Error("Email or password is wrong.") : err;
      status.replaceChildren(errorBox(friendly));
      password.focus();
    } finally {
      submit.disabled = false;
    }
  });

  fill(
    main,
    h(
      "div",
      { class: "login" },
      h("section", { class: "card" }, h("h1", { id: "login-title", tabindex: "-1" }, "Sign in to aivis"), form),
      h(
        "aside",
        { class: "card hint", "aria-labelledby": "first-run-title" },
        h("h2", { id: "first-run-title" }, "No account yet?"),
        h("p", {}, "There is no self-registration. Whoever runs the server creates accounts with the command line:"),
        h("pre", {}, h("code", {}, "aivis user add you@example.com --plan business --password '…'")),
        h(
          "p",
          { class: "muted" },
          "From a source checkout the command is ",
          h("code", {}, "npm run aivis -- user add …"),
        ),
        h("p", { class: "muted" }, "Forgotten password: ", h("code", {}, "aivis user password EMAIL --password …")),
      ),
    ),
  );
}

async function signOut() {
  try {
    await api("POST", "/v1/users/logout");
  } catch (err) {
    // an already-expired session is signed out anyway
    if (!(err instanceof ApiError && err.status === 401)) {
      announce(`Sign-out failed: ${err.message}`);
      return;
    }
  }
  await loadMe();
  announce("Signed out");
  await navigate(LOGIN_PATH, { replace: true });
}

document.getElementById("sign-out").addEventListener("click", signOut);

// same-document navigation for links to dashboard pages; everything else (docs, assets) loads normally
document.addEventListener("click", (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
  if (!link || link.target || link.getAttribute("href").startsWith("#")) return; // in-page links (skip link) stay native
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith("/app") || url.pathname.startsWith("/app/assets/")) return;
  event.preventDefault();
  void navigate(url.pathname + url.search);
});

// fragment jumps (the skip link) fire popstate too: only a changed path is another page
window.addEventListener("popstate", () => {
  if (location.pathname !== shownPath) void render({ moveFocus: true });
});

loadMe()
  .then(() => render({ moveFocus: false }))
  .catch((err) => fill(main, ...pageTitle("aivis"), errorBox(err)));
