// The web dashboard: GET / → /app, the HTML shell for /app and its client-routed sub-paths, and
// the embedded assets under /app/assets/. Public: the client signs in and calls the JSON API
// with the session cookie.
import { Elysia, t } from "elysia";
import { notFound } from "../../http/errors";
import { ASSETS } from "./assets";
import { DASHBOARD_CSP, renderShell } from "./shell";

const HTML_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-cache",
  "content-security-policy": DASHBOARD_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
};

export function dashboardModule(version: string) {
  const shell = renderShell(version);
  const serveShell = () => new Response(shell, { headers: HTML_HEADERS });
  const hidden = { detail: { hide: true } };

  return new Elysia({ tags: ["dashboard"] })
    .get("/", () => new Response(null, { status: 302, headers: { location: "/app" } }), hidden)
    .get("/app", serveShell, hidden)
    .get(
      "/app/assets/:file",
      ({ params, request }) => {
        const asset = ASSETS.get(params.file);
        if (!asset) throw notFound("ASSET_NOT_FOUND", `no dashboard asset named ${params.file}`);
        const headers: Record<string, string> = {
          "content-type": asset.contentType,
          "cache-control": "no-cache",
          etag: asset.etag,
          vary: "accept-encoding",
          "x-content-type-options": "nosniff",
        };
        if (request.headers.get("if-none-match") === asset.etag) return new Response(null, { status: 304, headers });
        if (/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) {
          return new Response(asset.gzipped, { headers: { ...headers, "content-encoding": "gzip" } });
        }
        return new Response(asset.body, { headers });
      },
      { params: t.Object({ file: t.String({ maxLength: 64 }) }), ...hidden },
    )
    // assets are flat: a deeper or empty name under /app/assets/ is a missing file, not a page
    .get(
      "/app/assets/*",
      ({ params }) => {
        throw notFound("ASSET_NOT_FOUND", `no dashboard asset named ${params["*"].slice(0, 64)}`);
      },
      hidden,
    )
    .get("/app/*", serveShell, hidden);
}
