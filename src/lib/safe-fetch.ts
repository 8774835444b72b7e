// The one way aivis fetches a user-supplied URL: scheme check, our own DNS resolution with every
// address checked (src/lib/address-policy.ts) and the port limited to 80/443, a connection pinned
// to the checked addresses (no DNS-rebinding window), manual redirects re-checked hop by hop,
// connect and total timeouts (DNS included), a byte cap on the decoded body and a content-type
// allow-list. Uses node:http(s) because it lets us supply the resolved addresses (`lookup`) and
// honours NODE_EXTRA_CA_CERTS.
import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import type { Config } from "../config";
import { AppError } from "../http/errors";
import { type AddressVerdict, classifyAddress, isIpLiteral } from "./address-policy";
import { extractReadableText, type PageText } from "./html-text";

export const HTML_TYPES = ["text/html", "application/xhtml+xml"];

export interface SafeFetchOptions {
  /** only `fetchAllowPrivate` is read: true lifts the address and port checks (tests, private deployments) */
  config: Pick<Config, "fetchAllowPrivate">;
  /** refuse http:// (400 INVALID_URL), also on redirects; default true */
  httpsOnly?: boolean;
  /** cap on the decoded body; default 2 MiB */
  maxBytes?: number;
  /** allowed media types, `text/*` style wildcards allowed; default HTML_TYPES */
  accept?: string[];
  /** whole fetch including redirects; default 15 s */
  timeoutMs?: number;
  /** per connection (TCP + TLS); default 5 s */
  connectTimeoutMs?: number;
  /** default 5 */
  maxRedirects?: number;
  signal?: AbortSignal;
  /** hostname → addresses; default the system resolver (honours /etc/hosts). Tests inject one. */
  resolveHost?: (hostname: string) => Promise<string[]>;
  /** replaces classifyAddress; only tests use it, to let a loopback server stand in for a public host */
  classify?: (address: string) => AddressVerdict;
  /** replaces PUBLIC_PORTS; only tests use it, for the same reason */
  ports?: readonly number[];
}

export interface SafeFetchResult {
  /** the final URL after redirects */
  url: string;
  status: number;
  /** lower-case media type without parameters, e.g. text/html */
  mediaType: string;
  /** the charset the body is decoded with: a byte-order mark, else the content-type header's, else (HTML) a <meta> one */
  charset: string | null;
  body: Uint8Array;
  /** every URL that answered with a redirect, in order */
  redirects: string[];
  /** the body decoded with `charset` (utf-8 when none or unknown) */
  text(): string;
}

export const SAFE_FETCH_DEFAULTS = {
  maxBytes: 2 * 1024 * 1024,
  timeoutMs: 15_000,
  connectTimeoutMs: 5_000,
  maxRedirects: 5,
};

/**
 * The only ports a public host is fetched on. The address rule cannot tell aivis's own public
 * address (or a neighbour's) from a website, so services on other ports of such a host (admin
 * panels, databases, SMTP) stay out of reach, and aivis cannot be used to port-scan third parties.
 */
export const PUBLIC_PORTS: readonly number[] = [80, 443];

const MAX_URL_LENGTH = 2048;
const USER_AGENT = "aivis/0.1 (+https://github.com/aivis; server-side fetch of a user-supplied URL)";
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const invalidUrl = (message: string) => new AppError(400, "INVALID_URL", message);
const fetchFailed = (errCode: string, message: string) => new AppError(422, errCode, message);

/** Parses and checks a user URL's shape: http(s) only (https only when asked), no credentials. */
export function parseFetchUrl(input: string, httpsOnly = true): URL {
  if (input.length > MAX_URL_LENGTH) throw invalidUrl(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw invalidUrl(`"${input.slice(0, 200)}" is not an absolute URL`);
  }
  if (url.protocol === "http:" && httpsOnly) throw invalidUrl("the URL must use https://; http:// is not accepted");
  if (url.protocol !== "https:" && url.protocol !== "http:") throw invalidUrl(`the URL must use https://, not ${url.protocol}`);
  if (url.username || url.password) throw invalidUrl("the URL must not contain a user name or password");
  if (!url.hostname) throw invalidUrl("the URL has no host");
  url.hash = "";
  return url;
}

async function systemResolve(hostname: string): Promise<string[]> {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

/** `work`, or the signal's abort reason as soon as it aborts (a resolver cannot be cancelled, only stopped waiting for). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

/** The addresses to connect to; every one must pass the policy (one bad answer refuses the host), and so must the port. */
async function resolveChecked(url: URL, opts: SafeFetchOptions, signal: AbortSignal): Promise<string[]> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (isIpLiteral(host)) addresses = [host];
  else {
    try {
      addresses = await untilAborted((opts.resolveHost ?? systemResolve)(host), signal);
    } catch (err) {
      if (signal.aborted) throw err; // the deadline (or the caller) ended the wait: not a DNS answer
      throw fetchFailed("FETCH_FAILED", `the host ${host} could not be resolved`);
    }
    if (addresses.length === 0) throw fetchFailed("FETCH_FAILED", `the host ${host} has no address`);
  }
  if (opts.config.fetchAllowPrivate) return addresses;
  for (const address of addresses) {
    const verdict = (opts.classify ?? classifyAddress)(address);
    if (!verdict.allowed) {
      throw new AppError(400, "URL_NOT_ALLOWED", `the URL points to a non-public address (${verdict.address}, ${verdict.range}); aivis only fetches public hosts`);
    }
  }
  const ports = opts.ports ?? PUBLIC_PORTS;
  if (!ports.includes(portOf(url))) {
    throw new AppError(400, "URL_NOT_ALLOWED", `port ${portOf(url)} is not allowed; aivis fetches public hosts on ports ${ports.join(" and ")} only`);
  }
  return addresses;
}

function familyOf(address: string): 4 | 6 {
  return address.includes(":") ? 6 : 4;
}

/** One request to a pre-checked address set; resolves with the response head. */
function requestOnce(url: URL, addresses: string[], accept: string[], connectTimeoutMs: number, signal: AbortSignal): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === "https:" ? https : http;
    const req = client.request(
      url,
      {
        method: "GET",
        agent: false,
        signal,
        headers: {
          "user-agent": USER_AGENT,
          accept: [...accept, "*/*;q=0.1"].join(", "),
          "accept-encoding": "gzip, deflate, br",
        },
        // pins the connection to the addresses we checked: no second, unchecked DNS answer
        lookup: ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
          if (options?.all) cb(null, addresses.map((address) => ({ address, family: familyOf(address) })));
          else cb(null, addresses[0], familyOf(addresses[0]));
        }) as never,
      },
      resolve,
    );
    const connectTimer = setTimeout(() => {
      req.destroy(fetchFailed("FETCH_TIMEOUT", `could not connect to ${url.host} within ${connectTimeoutMs} ms`));
    }, connectTimeoutMs);
    req.on("socket", (socket) => {
      socket.once(url.protocol === "https:" ? "secureConnect" : "connect", () => clearTimeout(connectTimer));
    });
    req.on("response", () => clearTimeout(connectTimer));
    req.on("error", (err) => {
      clearTimeout(connectTimer);
      reject(err);
    });
    req.end();
  });
}

function mediaTypeAllowed(mediaType: string, accept: string[]): boolean {
  return accept.some((a) => (a.endsWith("/*") ? mediaType.startsWith(a.slice(0, -1)) : a === mediaType));
}

function decoderFor(encoding: string | undefined): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  switch ((encoding ?? "identity").trim().toLowerCase()) {
    case "identity":
    case "":
      return null;
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      return zlib.createInflate();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      throw fetchFailed("FETCH_FAILED", `the server used an unsupported content-encoding "${encoding}"`);
  }
}

/** Reads the (decoded) body, stopping as soon as it passes maxBytes: a decompression bomb stops there too. */
async function readCapped(res: http.IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(res.headers["content-length"]);
  const encoded = res.headers["content-encoding"];
  if (!encoded && Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    throw fetchFailed("FETCH_TOO_LARGE", `the response is ${declared} bytes; the limit is ${maxBytes}`);
  }
  const decoder = decoderFor(encoded);
  const stream: Readable = decoder ? res.pipe(decoder) : res;
  if (decoder) res.on("error", (err) => decoder.destroy(err));
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw fetchFailed("FETCH_TOO_LARGE", `the response is larger than the limit of ${maxBytes} bytes`);
      chunks.push(chunk);
    }
  } finally {
    res.destroy();
    decoder?.destroy();
  }
  return new Uint8Array(Buffer.concat(chunks));
}

const BOMS: [number[], string][] = [
  [[0xef, 0xbb, 0xbf], "utf-8"],
  [[0xff, 0xfe], "utf-16le"],
  [[0xfe, 0xff], "utf-16be"],
];

/**
 * The body's charset as a browser would find it: a byte-order mark, else the header's, else for
 * HTML a `<meta charset>` / `<meta http-equiv=content-type>` in the first 1024 bytes (the HTML
 * prescan; a meta that claims UTF-16 means UTF-8, since the bytes were readable as ASCII).
 */
function sniffCharset(body: Uint8Array, headerCharset: string | null, html: boolean): string | null {
  const bom = BOMS.find(([bytes]) => bytes.every((b, i) => body[i] === b));
  if (bom) return bom[1];
  if (headerCharset || !html) return headerCharset;
  const head = new TextDecoder("windows-1252").decode(body.subarray(0, 1024));
  const meta = /<meta\b[^>]*?charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1]?.toLowerCase();
  if (!meta) return null;
  return meta.startsWith("utf-16") ? "utf-8" : meta;
}

function decodeText(body: Uint8Array, charset: string | null): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

/** Turns socket / TLS / abort failures into our error shape; AppErrors pass through. */
function asFetchError(err: unknown, url: URL, timeoutMs: number, timedOut: boolean): AppError {
  if (err instanceof AppError) return err;
  if (timedOut) return fetchFailed("FETCH_TIMEOUT", `fetching ${url.origin} took longer than ${timeoutMs} ms`);
  const e = err as { code?: string; message?: string; name?: string };
  if (e.name === "AbortError") return fetchFailed("FETCH_FAILED", "the fetch was cancelled");
  const detail = e.code ?? e.message ?? "connection failed";
  return fetchFailed("FETCH_FAILED", `could not fetch ${url.origin}: ${detail}`);
}

/**
 * Fetches a user-supplied URL under the rules above. Throws AppError: 400 INVALID_URL /
 * URL_NOT_ALLOWED for what the caller sent, 422 FETCH_FAILED / FETCH_TIMEOUT / FETCH_TOO_LARGE /
 * FETCH_CONTENT_TYPE / FETCH_TOO_MANY_REDIRECTS for what the remote side did.
 */
export async function safeFetch(input: string, opts: SafeFetchOptions): Promise<SafeFetchResult> {
  const httpsOnly = opts.httpsOnly ?? true;
  const accept = opts.accept ?? HTML_TYPES;
  const maxBytes = opts.maxBytes ?? SAFE_FETCH_DEFAULTS.maxBytes;
  const timeoutMs = opts.timeoutMs ?? SAFE_FETCH_DEFAULTS.timeoutMs;
  const connectTimeoutMs = opts.connectTimeoutMs ?? SAFE_FETCH_DEFAULTS.connectTimeoutMs;
  const maxRedirects = opts.maxRedirects ?? SAFE_FETCH_DEFAULTS.maxRedirects;

  const deadline = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    deadline.abort();
  }, timeoutMs);
  const signal = opts.signal ? AbortSignal.any([deadline.signal, opts.signal]) : deadline.signal;

  let url = parseFetchUrl(input, httpsOnly);
  const redirects: string[] = [];
  try {
    for (;;) {
      const addresses = await resolveChecked(url, opts, signal);
      const res = await requestOnce(url, addresses, accept, connectTimeoutMs, signal);
      const status = res.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status) && res.headers.location) {
        res.destroy();
        if (redirects.length >= maxRedirects) {
          throw fetchFailed("FETCH_TOO_MANY_REDIRECTS", `more than ${maxRedirects} redirects starting at ${input.slice(0, 200)}`);
        }
        redirects.push(url.toString());
        let next: string;
        try {
          next = new URL(res.headers.location, url).toString();
        } catch {
          throw fetchFailed("FETCH_FAILED", "the server sent an invalid redirect location");
        }
        url = parseFetchUrl(next, httpsOnly); // scheme rules hold on every hop; address and port are checked at the loop top
        continue;
      }
      if (status < 200 || status > 299) {
        res.destroy();
        throw fetchFailed("FETCH_FAILED", `${url.origin} answered HTTP ${status}`);
      }
      const contentType = String(res.headers["content-type"] ?? "");
      const mediaType = contentType.split(";")[0].trim().toLowerCase();
      if (!mediaTypeAllowed(mediaType, accept)) {
        res.destroy();
        throw fetchFailed("FETCH_CONTENT_TYPE", `the content type "${mediaType || "none"}" is not accepted here (allowed: ${accept.join(", ")})`);
      }
      const headerCharset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1]?.toLowerCase() ?? null;
      const body = await readCapped(res, maxBytes);
      const charset = sniffCharset(body, headerCharset, HTML_TYPES.includes(mediaType));
      return { url: url.toString(), status, mediaType, charset, body, redirects, text: () => decodeText(body, charset) };
    }
  } catch (err) {
    throw asFetchError(err, url, timeoutMs, timedOut);
  } finally {
    clearTimeout(timer);
  }
}

/** Fetches an HTML page under the safe-fetch rules and returns its title, description and readable text. */
export async function fetchPageText(url: string, opts: SafeFetchOptions): Promise<PageText & { url: string }> {
  const page = await safeFetch(url, { ...opts, accept: opts.accept ?? HTML_TYPES });
  return { url: page.url, ...extractReadableText(page.text()) };
}
