// Which channel and source a visit came from, decided from the referrer and the utm_* tags
// against the table in sources.json. Pure: no I/O, tested with plain inputs.
import { getDomainWithoutSuffix } from "tldts";
import { isHostOf, isValidHostname, parseReferrer } from "./domain";
import table from "./sources.json";

export const CHANNELS = ["ai", "search", "social", "email", "referral", "direct", "other"] as const;
export type Channel = (typeof CHANNELS)[number];

export interface Classification {
  channel: Channel;
  /** display name from the table (ChatGPT, Google…), the referring host, the utm_source, or "Direct" */
  source: string;
  /** host of the referrer when it was an http(s) URL, www. removed */
  referrerHost: string | null;
}

export interface ClassifyInput {
  referrer?: string;
  utmSource?: string;
  utmMedium?: string;
  /** the tracked site's own domain: referrers from it (or its subdomains) are internal, not a source */
  siteDomain?: string;
}

interface Rule {
  source: string;
  channel: Channel;
  /** required referrer path prefix, e.g. "/chat" for Copilot on bing.com */
  path: string | null;
}

interface SourceEntry {
  name: string;
  channel: string;
  hosts: string[];
  utm: string[];
}

/** The source table compiled into lookup maps. */
export interface SourceTable {
  byHost: Map<string, Rule[]>;
  /** "google.*" entries, keyed by the registrable name ("google") */
  byRegistrableName: Map<string, Rule[]>;
  byUtm: Map<string, Rule>;
  /** every display name in the table */
  names: Set<string>;
}

function add(map: Map<string, Rule[]>, key: string, rule: Rule) {
  const rules = map.get(key) ?? [];
  rules.push(rule);
  // on the same host, the rule needing a path is tried first (x.com/i/grok before x.com)
  rules.sort((a, b) => Number(b.path !== null) - Number(a.path !== null));
  map.set(key, rules);
}

/** Compiles entries in the sources.json format; throws on an unknown channel or a bad host. */
export function compileSources(entries: SourceEntry[]): SourceTable {
  const byHost = new Map<string, Rule[]>();
  const byRegistrableName = new Map<string, Rule[]>();
  const byUtm = new Map<string, Rule>();
  const names = new Set<string>();
  for (const e of entries) {
    if (!(CHANNELS as readonly string[]).includes(e.channel)) throw new Error(`sources.json: unknown channel "${e.channel}" for ${e.name}`);
    const channel = e.channel as Channel;
    names.add(e.name);
    for (const pattern of e.hosts) {
      const slash = pattern.indexOf("/");
      const host = slash < 0 ? pattern : pattern.slice(0, slash);
      const rule: Rule = { source: e.name, channel, path: slash < 0 ? null : pattern.slice(slash) };
      if (host.endsWith(".*")) add(byRegistrableName, host.slice(0, -2), rule);
      else if (isValidHostname(host)) add(byHost, host, rule);
      else throw new Error(`sources.json: invalid host "${pattern}" for ${e.name}`);
    }
    for (const u of e.utm) byUtm.set(u.toLowerCase(), { source: e.name, channel, path: null });
  }
  return { byHost, byRegistrableName, byUtm, names };
}

const SHIPPED = compileSources(table.sources);

function pathUnder(path: string, prefix: string): boolean {
  return path === prefix || (path.startsWith(prefix) && path[prefix.length] === "/");
}

function firstRule(rules: Rule[] | undefined, path: string | null): Rule | null {
  if (!rules) return null;
  for (const r of rules) if (r.path === null || (path !== null && pathUnder(path, r.path))) return r;
  return null;
}

/** The most specific host entry wins (gemini.google.com before google.*); name.* entries come last. */
function matchHost(t: SourceTable, host: string, path: string | null): Rule | null {
  for (let h = host; ; ) {
    const hit = firstRule(t.byHost.get(h), path);
    if (hit) return hit;
    const dot = h.indexOf(".");
    if (dot < 0) break;
    h = h.slice(dot + 1);
  }
  // the public-suffix lookup is the slow part: only pay for it when a label could be a name.* entry
  if (!host.split(".").some((label) => t.byRegistrableName.has(label))) return null;
  const name = getDomainWithoutSuffix(host);
  return name ? firstRule(t.byRegistrableName.get(name), path) : null;
}

function matchUtm(t: SourceTable, utm: string): Rule | null {
  const alias = t.byUtm.get(utm);
  if (alias) return alias;
  const host = utm.startsWith("www.") ? utm.slice(4) : utm;
  return isValidHostname(host) ? matchHost(t, host, null) : null;
}

const EMAIL_MEDIUMS = new Set(["email", "e-mail", "e_mail", "mail", "newsletter"]);

/**
 * Order of precedence: an AI match (referrer, then utm_source) beats everything, because AI
 * assistants often send no referrer but tag links; then utm_medium=email; then a known referrer,
 * then a known utm_source; an unknown referrer is "referral"; an unknown utm_source alone is
 * "other"; nothing at all is "direct".
 */
export function classifySource(input: ClassifyInput, sources: SourceTable = SHIPPED): Classification {
  const ref = parseReferrer(input.referrer);
  const referrerHost = ref?.host ?? null;
  const external = ref && !(input.siteDomain && isHostOf(ref.host, input.siteDomain)) ? ref : null;
  const refRule = external ? matchHost(sources, external.host, external.path) : null;
  const utm = input.utmSource?.trim().toLowerCase() || null;
  const utmRule = utm ? matchUtm(sources, utm) : null;

  const hit = (r: Rule): Classification => ({ channel: r.channel, source: r.source, referrerHost });
  if (refRule?.channel === "ai") return hit(refRule);
  if (utmRule?.channel === "ai") return hit(utmRule);
  const medium = input.utmMedium?.trim().toLowerCase();
  if (medium && EMAIL_MEDIUMS.has(medium)) return { channel: "email", source: utmRule?.source ?? utm ?? "Email", referrerHost };
  if (refRule) return hit(refRule);
  if (utmRule) return hit(utmRule);
  if (external) return { channel: "referral", source: external.host, referrerHost };
  if (utm) return { channel: "other", source: utm, referrerHost };
  return { channel: "direct", source: "Direct", referrerHost };
}

/** What open-ended sources (any referring host, any unknown utm_source) are counted as in the daily rollups. */
const ROLLUP_CATCH_ALL: Record<Channel, string> = {
  ai: "Other AI",
  search: "Other search",
  social: "Other social",
  email: "Email",
  referral: "Referral",
  direct: "Direct",
  other: "Other",
};

/**
 * The source a daily rollup row is kept under: a name from the table as is, anything else (a
 * referring host, an unknown utm_source) folded into its channel's catch-all. Those are unbounded
 * (anyone can post them to the public beacon); folding them keeps the rollups, and so the stats,
 * at a size set by the table, not by the traffic. The raw rows keep the real host or value.
 */
export function rollupSource(channel: Channel, source: string, sources: SourceTable = SHIPPED): string {
  return sources.names.has(source) ? source : ROLLUP_CATCH_ALL[channel];
}
