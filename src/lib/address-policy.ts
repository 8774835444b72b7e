// Which IP addresses a server-side fetch of a user-supplied URL may connect to. Pure: no DNS, no
// sockets. Only globally routable unicast passes; IPv6 forms that embed an IPv4 address are judged
// by the address they embed, so ::ffff:127.0.0.1 is as loopback as 127.0.0.1.
import ipaddr from "ipaddr.js";

export interface AddressVerdict {
  allowed: boolean;
  /** the address as parsed (zone id dropped), or the input when it did not parse */
  address: string;
  /** the ipaddr.js range name that decided it, e.g. "loopback", "private", "linkLocal" */
  range: string;
}

// 169.254.169.254 (cloud metadata) is inside linkLocal; named here so the reason is explicit.
const METADATA_ADDRESSES = new Set(["169.254.169.254", "fd00:ec2::254", "100.100.100.200"]);

function classifyV4(ip: ipaddr.IPv4, via?: string): AddressVerdict {
  const address = ip.toString();
  const range = METADATA_ADDRESSES.has(address) ? "cloudMetadata" : ip.range();
  return { allowed: range === "unicast", address, range: via ? `${via}:${range}` : range };
}

function embeddedV4(ip: ipaddr.IPv6, fromPart: number): ipaddr.IPv4 {
  const p = ip.parts;
  return new ipaddr.IPv4([p[fromPart] >> 8, p[fromPart] & 0xff, p[fromPart + 1] >> 8, p[fromPart + 1] & 0xff]);
}

/** Decides whether a literal IP address is safe to connect to. Unparseable input is refused. */
export function classifyAddress(input: string): AddressVerdict {
  const raw = input.trim().replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!ipaddr.isValid(raw)) return { allowed: false, address: input, range: "invalid" };
  const ip = ipaddr.parse(raw);
  if (ip.kind() === "ipv4") return classifyV4(ip as ipaddr.IPv4);

  const v6 = ip as ipaddr.IPv6;
  const address = v6.toString();
  if (METADATA_ADDRESSES.has(address)) return { allowed: false, address, range: "cloudMetadata" };
  const range = v6.range();
  switch (range) {
    case "ipv4Mapped":
    case "rfc6145":
    case "rfc6052":
      return classifyV4(embeddedV4(v6, 6), range);
    case "6to4":
      return classifyV4(embeddedV4(v6, 1), range);
    case "unicast": {
      // ipaddr.js calls ::a.b.c.d (IPv4-compatible) and other unassigned space "unicast";
      // only 2000::/3 is actually global unicast
      const global = v6.match(ipaddr.parse("2000::") as ipaddr.IPv6, 3);
      if (global) return { allowed: true, address, range };
      const compat = v6.parts.slice(0, 6).every((p) => p === 0);
      return { allowed: false, address, range: compat ? "ipv4Compatible" : "unassigned" };
    }
    default:
      return { allowed: false, address, range };
  }
}

/** Whether a URL hostname is an IP literal (IPv4 dotted or bracketed IPv6), as WHATWG URL normalizes it. */
export function isIpLiteral(hostname: string): boolean {
  return ipaddr.isValid(hostname.replace(/^\[|\]$/g, ""));
}
