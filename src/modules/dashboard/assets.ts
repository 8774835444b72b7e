// The dashboard's static files, embedded into the executable as text at build time (no CDN, no
// build step at run time): the hand-written client modules and uPlot's distribution files.
import uplotCss from "uplot/dist/uPlot.min.css" with { type: "text" };
import uplotJs from "uplot/dist/uPlot.iife.min.js" with { type: "text" };
import apiJs from "./client/api.js" with { type: "text" };
import appCss from "./client/app.css" with { type: "text" };
import appJs from "./client/app.js" with { type: "text" };
import chartsJs from "./client/charts.js" with { type: "text" };
import domJs from "./client/dom.js" with { type: "text" };
import keyJs from "./client/page-key.js" with { type: "text" };
import overviewJs from "./client/page-overview.js" with { type: "text" };
import trafficJs from "./client/page-traffic.js" with { type: "text" };
import visibilityJs from "./client/page-visibility.js" with { type: "text" };
import viewModelJs from "./client/view-model.js" with { type: "text" };

export interface Asset {
  body: string;
  /** gzip of body, made once at start-up */
  gzipped: Uint8Array<ArrayBuffer>;
  contentType: string;
  /** strong validator: the browser revalidates (cache-control: no-cache) and gets a 304 */
  etag: string;
}

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

const SOURCES: Record<string, [string, string]> = {
  "app.js": [appJs, JS],
  "api.js": [apiJs, JS],
  "dom.js": [domJs, JS],
  "charts.js": [chartsJs, JS],
  "view-model.js": [viewModelJs, JS],
  "page-overview.js": [overviewJs, JS],
  "page-key.js": [keyJs, JS],
  "page-traffic.js": [trafficJs, JS],
  "page-visibility.js": [visibilityJs, JS],
  "app.css": [appCss, CSS],
  "uPlot.iife.min.js": [uplotJs, JS],
  "uPlot.min.css": [uplotCss, CSS],
};

export const ASSETS: ReadonlyMap<string, Asset> = new Map(
  Object.entries(SOURCES).map(([name, [body, contentType]]) => [
    name,
    { body, gzipped: Bun.gzipSync(body), contentType, etag: `"${Bun.hash(body).toString(36)}"` },
  ]),
);

