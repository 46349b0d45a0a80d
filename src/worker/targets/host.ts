/**
 * Which hosts a consumer-defined target (a tool as data, an MCP server, a webhook endpoint) may
 * name: never a private, loopback, link-local or otherwise non-public address written as a
 * literal, nor a name of this machine (`localhost` and its aliases). The host is the one WHATWG URL parsing answers, so every spelling
 * URL parsing normalises is covered (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1` and
 * `127.0.0.1.` are all `127.0.0.1`; `[::ffff:127.0.0.1]` is `[::ffff:7f00:1]`). A DNS name is
 * not resolved here: what a public name resolves to is the platform's to police.
 * @module
 */

const LOOPBACK_V4 = "loopback (127.0.0.0/8)";

/** One refused IPv4 block: its first address, prefix length and what it is. */
type Block = readonly [base: number, bits: number, what: string];

/** The IPv4 blocks that are not public unicast (RFC 6890 and its successors). */
const IPV4_BLOCKS: readonly Block[] = [
  [0x00000000, 8, "this network (0.0.0.0/8)"],
  [0x0a000000, 8, "private (10.0.0.0/8)"],
  [0x64400000, 10, "shared CGNAT (100.64.0.0/10)"],
  [0x7f000000, 8, LOOPBACK_V4],
  [0xa9fe0000, 16, "link-local (169.254.0.0/16)"],
  [0xac100000, 12, "private (172.16.0.0/12)"],
  [0xc0000000, 24, "IETF protocol assignments (192.0.0.0/24)"],
  [0xc0000200, 24, "documentation (192.0.2.0/24)"],
  [0xc0586300, 24, "6to4 relay anycast (192.88.99.0/24)"],
  [0xc0a80000, 16, "private (192.168.0.0/16)"],
  [0xc6120000, 15, "benchmarking (198.18.0.0/15)"],
  [0xc6336400, 24, "documentation (198.51.100.0/24)"],
  [0xcb007100, 24, "documentation (203.0.113.0/24)"],
  [0xe0000000, 4, "multicast (224.0.0.0/4)"],
  [0xf0000000, 4, "reserved or broadcast (240.0.0.0/4)"],
];

const DOTTED = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** What a 32-bit IPv4 address is when it is not public unicast; null when it is. */
function ipv4Reason(address: number): string | null {
  for (const [base, bits, what] of IPV4_BLOCKS) {
    const size = 2 ** (32 - bits);
    if (address >= base && address < base + size) return what;
  }
  return null;
}

function dotted(host: string): number | null {
  const match = DOTTED.exec(host);
  if (match === null) return null;
  const octets = match.slice(1).map(Number);
  if (octets.some((octet) => octet > 255)) return null;
  return octets.reduce((sum, octet) => sum * 256 + octet, 0);
}

/** The eight 16-bit groups of an IPv6 address in URL serialisation (hex groups, at most one `::`). */
function groups(text: string): number[] | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const part = (half: string | undefined) => (half === undefined || half === "" ? [] : half.split(":"));
  const head = part(halves[0]);
  const tail = part(halves[1]);
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const all = [...head, ...Array.from({ length: fill }, () => "0"), ...tail];
  if (all.length !== 8 || all.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return all.map((g) => parseInt(g, 16));
}

/** The IPv4 address of groups 6 and 7. */
function lastIpv4(g: readonly number[]): number {
  return (g[6] ?? 0) * 65536 + (g[7] ?? 0);
}

/** What an IPv6 address in 2001::/23 (IETF protocol assignments, RFC 2928) is; none is a target. */
function ietfReason(g1: number, g2: number): string {
  if (g1 === 0) return "Teredo (2001::/32)";
  if (g1 === 2 && g2 === 0) return "benchmarking (2001:2::/48)";
  if (g1 >= 0x10 && g1 <= 0x1f) return "ORCHID (2001:10::/28, deprecated)";
  if (g1 >= 0x20 && g1 <= 0x2f) return "ORCHIDv2 (2001:20::/28)";
  return "IETF protocol assignments (2001::/23)";
}

/**
 * What an IPv6 address is when it is not public unicast (or embeds an IPv4 address that is not);
 * null when it is. Only global unicast (2000::/3) may be a target, and within it not the special
 * blocks below; outside it only an IPv4-mapped or NAT64 form of a public IPv4 address.
 */
function ipv6Reason(g: readonly number[]): string | null {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0] = g;
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (upperZero && g5 === 0xffff) {
    const embedded = ipv4Reason(lastIpv4(g));
    return embedded === null ? null : `IPv4-mapped ${embedded}`;
  }
  if (upperZero && g5 === 0) {
    if (g[6] === 0 && g[7] === 0) return "unspecified (::)";
    if (g[6] === 0 && g[7] === 1) return "loopback (::1)";
    return "IPv4-compatible (::/96, deprecated)";
  }
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) {
    // SIIT (RFC 2765): a translator turns it into the IPv4 address; no public service is named so.
    const embedded = ipv4Reason(lastIpv4(g));
    return embedded === null ? "IPv4-translated (::ffff:0:0/96)" : `IPv4-translated ${embedded}`;
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    const embedded = ipv4Reason(lastIpv4(g));
    return embedded === null ? null : `NAT64 of ${embedded}`;
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return "local-use NAT64 (64:ff9b:1::/48)";
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return "discard-only (100::/64)";
  if (g0 === 0x2001 && g1 < 0x200) return ietfReason(g1, g2);
  if (g0 === 0x2001 && g1 === 0xdb8) return "documentation (2001:db8::/32)";
  if (g0 === 0x2002) {
    const embedded = ipv4Reason(g1 * 65536 + g2);
    if (embedded !== null) return `6to4 of ${embedded}`;
  }
  if (g0 === 0x3fff && g1 < 0x1000) return "documentation (3fff::/20)";
  if (g0 >= 0xfc00 && g0 <= 0xfdff) return "unique local (fc00::/7)";
  if (g0 >= 0xfe80 && g0 <= 0xfebf) return "link-local (fe80::/10)";
  if (g0 >= 0xfec0 && g0 <= 0xfeff) return "site-local (fec0::/10, deprecated)";
  if (g0 >= 0xff00) return "multicast (ff00::/8)";
  if (g0 < 0x2000 || g0 > 0x3fff) return "not global unicast (outside 2000::/3)";
  return null;
}

/** Why a host may not be a target: what it is, and whether it is this machine (loopback). */
export interface HostRefusal {
  readonly what: string;
  /** A loopback name, 127.0.0.0/8, `::1` or an IPv4-mapped 127/8: what `TOOLGATE_ALLOW_LOOPBACK_TARGETS` lets through. */
  readonly loopback: boolean;
}

const LOOPBACK_NAME = "a loopback name (localhost)";

/** Names hosts files and resolvers give this machine (RFC 6761 `localhost`, and the common aliases). */
const LOOPBACK_NAMES = new Set([
  "localhost",
  "localhost.localdomain",
  "localhost6",
  "localhost6.localdomain6",
  "ip6-localhost",
  "ip6-loopback",
]);

function isLoopbackName(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || host.endsWith(".localhost") || host.endsWith(".localhost.localdomain");
}

/**
 * Why a host (as `new URL(…).hostname` answers it) is not a public address a target may name,
 * or null when it may: `localhost`, `*.localhost`, `localhost.localdomain` (and its subdomains),
 * `localhost6`, `localhost6.localdomain6`, `ip6-localhost` and `ip6-loopback` (with or without a
 * trailing dot), and IPv4
 * and IPv6 literals in a non-public block (an IPv6 literal is bracketed, as URL parsing keeps it).
 */
export function hostRefusal(hostname: string): HostRefusal | null {
  const host = hostname.toLowerCase().replace(/\.+$/, "");
  const v4 = dotted(host);
  const bracketed = host.startsWith("[") && host.endsWith("]");
  const g = bracketed ? groups(host.slice(1, -1)) : null;
  const what = isLoopbackName(host)
    ? LOOPBACK_NAME
    : v4 !== null
      ? ipv4Reason(v4)
      : bracketed
        ? g === null
          ? "an IPv6 literal that does not parse"
          : ipv6Reason(g)
        : null;
  if (what === null) return null;
  const loopback = what === LOOPBACK_NAME || what.startsWith("loopback") || what === `IPv4-mapped ${LOOPBACK_V4}`;
  return { what, loopback };
}
