// The dashboard's HTML shell: landmarks, navigation and the script tags. The same document is
// served for every /app path; the client (client/app.js) routes on the path and fills <main>.
export const DASHBOARD_PAGES = [
  { path: "/app", label: "Overview" },
  { path: "/app/api-key", label: "API key" },
  { path: "/app/traffic", label: "AI traffic" },
  { path: "/app/visibility", label: "Visibility" },
] as const;

/**
 * Scripts only from this origin (no inline script); uPlot sets element styles through the CSSOM,
 * which style-src does not restrict. connect-src 'self' keeps the client talking to this API only.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'";

export function renderShell(version: string): string {
  const nav = DASHBOARD_PAGES.map((p) => `<li><a href="${p.path}">${p.label}</a></li>`).join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light">
<title>aivis</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/app/assets/uPlot.min.css">
<link rel="stylesheet" href="/app/assets/app.css">
<script defer src="/app/assets/uPlot.iife.min.js"></script>
<script type="module" src="/app/assets/app.js"></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="topbar">
  <a class="brand" href="/app">aivis</a>
  <nav id="nav" aria-label="Main" hidden><ul>${nav}</ul></nav>
  <div id="account" class="account" hidden>
    <span id="account-email"></span>
    <button id="sign-out" type="button" class="secondary">Sign out</button>
  </div>
</header>
<main id="main" tabindex="-1">
  <p>Loading…</p>
  <noscript><p>The dashboard needs JavaScript. The API reference is at <a href="/docs">/docs</a>.</p></noscript>
</main>
<div id="announcer" class="visually-hidden" role="status" aria-live="polite"></div>
<footer class="footer">aivis ${version} · <a href="/docs">API reference</a></footer>
</body>
</html>
`;
}
