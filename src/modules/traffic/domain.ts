// Host names for AI traffic: normalizing a site's domain as the user typed it, and reading the
// host of a referrer URL. Pure functions, no I/O.

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A DNS host name with at least two labels and a non-numeric last label (so no IPv4 literal). */
export function isValidHostname(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false;
  const labels = host.split(".");
  if (labels.length < 2) return false;
  if (/^\d+$/.test(labels[labels.length - 1])) return false;
  return labels.every((l) => LABEL.test(l));
}

/**
 * "https://WWW.Example.com:8080/path?q" → "example.com". Scheme, `www.`, port, path, query and
 * case are dropped; an IDN becomes punycode. null when no valid host name is left (IP literals,
 * single labels like "localhost", credentials in the URL, non-http schemes).
 */
export function normalizeDomain(input: string): string | null {
  let raw = input.trim().toLowerCase();
  if (raw === "" || raw.length > 2048) return null;
  if (!/^[a-z][a-z0-9+.-]*:\/\//.test(raw)) raw = `http://${raw}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username || url.password) return null;
  let host = url.hostname.replace(/\.$/, "");
  if (host.startsWith("www.")) host = host.slice(4);
  return isValidHostname(host) ? host : null;
}

export interface ReferrerParts {
  /** lower case, trailing dot and a leading `www.` removed */
  host: string;
  path: string;
}

/** Host and path of an http(s) referrer; null for anything else (empty, android-app:, garbage). */
export function parseReferrer(referrer: string | undefined): ReferrerParts | null {
  if (!referrer) return null;
  let url: URL;
  try {
    url = new URL(referrer);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  let host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("www.")) host = host.slice(4);
  if (!host) return null;
  return { host, path: url.pathname };
}

/** true when host is the domain itself or one of its subdomains. */
export function isHostOf(host: string, domain: string): boolean {
  return host === domain || (host.length > domain.length && host.endsWith(domain) && host[host.length - domain.length - 1] === ".");
}
