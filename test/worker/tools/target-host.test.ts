/**
 * The target rule's hosts, in workerd (its URL parser is the one targets are fetched with): each
 * row is a URL as a consumer might write it, and what its host is, written by hand from the IANA
 * special-purpose registries; null for a host a target may name.
 */
import { describe, expect, it } from "vitest";
import { checkUrl } from "../../../src/worker/features/tools/build";
import { hostRefusal } from "../../../src/worker/targets/host";

const ROWS: ReadonlyArray<readonly [url: string, what: string | null, loopback: boolean]> = [
  // IPv4 loopback, in every spelling URL parsing normalises to 127.0.0.1.
  ["https://127.0.0.1/x", "loopback (127.0.0.0/8)", true],
  ["https://127.8.9.10/", "loopback (127.0.0.0/8)", true],
  ["https://2130706433/", "loopback (127.0.0.0/8)", true],
  ["https://0x7f000001/", "loopback (127.0.0.0/8)", true],
  ["https://0x7f.1/", "loopback (127.0.0.0/8)", true],
  ["https://0177.0.0.1/", "loopback (127.0.0.0/8)", true],
  ["https://127.1/", "loopback (127.0.0.0/8)", true],
  ["https://127.0.0.1./", "loopback (127.0.0.0/8)", true],
  // Names of this machine.
  ["https://localhost/", "a loopback name (localhost)", true],
  ["https://LOCALHOST./", "a loopback name (localhost)", true],
  ["https://api.localhost/", "a loopback name (localhost)", true],
  ["https://a.b.localhost../", "a loopback name (localhost)", true],
  // IPv4 private, link-local, shared and reserved blocks, at their edges.
  ["https://10.0.0.1/", "private (10.0.0.0/8)", false],
  ["https://10.255.255.255/", "private (10.0.0.0/8)", false],
  ["https://167772161/", "private (10.0.0.0/8)", false],
  ["https://172.16.0.1/", "private (172.16.0.0/12)", false],
  ["https://172.31.255.254/", "private (172.16.0.0/12)", false],
  ["https://192.168.1.1/", "private (192.168.0.0/16)", false],
  ["https://0300.0250.0.1/", "private (192.168.0.0/16)", false],
  ["https://169.254.169.254/latest/meta-data/", "link-local (169.254.0.0/16)", false],
  ["https://0xa9fea9fe/", "link-local (169.254.0.0/16)", false],
  ["https://100.64.0.1/", "shared CGNAT (100.64.0.0/10)", false],
  ["https://100.127.255.255/", "shared CGNAT (100.64.0.0/10)", false],
  ["https://0.0.0.0/", "this network (0.0.0.0/8)", false],
  ["https://0/", "this network (0.0.0.0/8)", false],
  ["https://192.0.0.8/", "IETF protocol assignments (192.0.0.0/24)", false],
  ["https://192.0.2.1/", "documentation (192.0.2.0/24)", false],
  ["https://198.18.0.1/", "benchmarking (198.18.0.0/15)", false],
  ["https://198.19.255.255/", "benchmarking (198.18.0.0/15)", false],
  ["https://224.0.0.1/", "multicast (224.0.0.0/4)", false],
  ["https://239.255.255.250/", "multicast (224.0.0.0/4)", false],
  ["https://240.0.0.1/", "reserved or broadcast (240.0.0.0/4)", false],
  ["https://255.255.255.255/", "reserved or broadcast (240.0.0.0/4)", false],
  // IPv6.
  ["https://[::1]/", "loopback (::1)", true],
  ["https://[0:0:0:0:0:0:0:1]/", "loopback (::1)", true],
  ["https://[::]/", "unspecified (::)", false],
  ["https://[fc00::1]/", "unique local (fc00::/7)", false],
  ["https://[FD12:3456::1]/", "unique local (fc00::/7)", false],
  ["https://[fe80::1]/", "link-local (fe80::/10)", false],
  ["https://[febf::1]/", "link-local (fe80::/10)", false],
  ["https://[fec0::1]/", "site-local (fec0::/10, deprecated)", false],
  ["https://[ff02::1]/", "multicast (ff00::/8)", false],
  ["https://[2001:db8::1]/", "documentation (2001:db8::/32)", false],
  ["https://[100::1]/", "discard-only (100::/64)", false],
  ["https://[::127.0.0.1]/", "IPv4-compatible (::/96, deprecated)", false],
  // IPv4-mapped, dotted and hex, and IPv4 embedded by NAT64 and 6to4.
  ["https://[::ffff:127.0.0.1]/", "IPv4-mapped loopback (127.0.0.0/8)", true],
  ["https://[::ffff:7f00:1]/", "IPv4-mapped loopback (127.0.0.0/8)", true],
  ["https://[0:0:0:0:0:ffff:a9fe:a9fe]/", "IPv4-mapped link-local (169.254.0.0/16)", false],
  ["https://[::ffff:10.1.2.3]/", "IPv4-mapped private (10.0.0.0/8)", false],
  ["https://[64:ff9b::169.254.169.254]/", "NAT64 of link-local (169.254.0.0/16)", false],
  ["https://[64:ff9b:1::1]/", "local-use NAT64 (64:ff9b:1::/48)", false],
  ["https://[2002:c0a8:101::1]/", "6to4 of private (192.168.0.0/16)", false],
  // Other names of this machine.
  ["https://localhost.localdomain/", "a loopback name (localhost)", true],
  ["https://api.localhost.localdomain./", "a loopback name (localhost)", true],
  ["https://localhost6/", "a loopback name (localhost)", true],
  ["https://localhost6.localdomain6/", "a loopback name (localhost)", true],
  ["https://ip6-localhost/", "a loopback name (localhost)", true],
  ["https://IP6-LOOPBACK/", "a loopback name (localhost)", true],
  // IPv4-translated (SIIT, ::ffff:0:0/96): refused whatever the IPv4 address.
  ["https://[::ffff:0:7f00:1]/", "IPv4-translated loopback (127.0.0.0/8)", false],
  ["https://[::ffff:0:a9fe:a9fe]/", "IPv4-translated link-local (169.254.0.0/16)", false],
  ["https://[::ffff:0:10.0.0.1]/", "IPv4-translated private (10.0.0.0/8)", false],
  ["https://[::ffff:0:808:808]/", "IPv4-translated (::ffff:0:0/96)", false],
  // IETF protocol assignments (2001::/23): Teredo, benchmarking, ORCHID, and the rest.
  ["https://[2001::1]/", "Teredo (2001::/32)", false],
  ["https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "Teredo (2001::/32)", false],
  ["https://[2001:0:ffff:ffff:ffff:ffff:5601:5601]/", "Teredo (2001::/32)", false],
  ["https://[2001:2::1]/", "benchmarking (2001:2::/48)", false],
  ["https://[2001:10::1]/", "ORCHID (2001:10::/28, deprecated)", false],
  ["https://[2001:1f::1]/", "ORCHID (2001:10::/28, deprecated)", false],
  ["https://[2001:20::1]/", "ORCHIDv2 (2001:20::/28)", false],
  ["https://[2001:1::1]/", "IETF protocol assignments (2001::/23)", false],
  ["https://[2001:1ff::1]/", "IETF protocol assignments (2001::/23)", false],
  // Documentation, and everything outside global unicast (2000::/3).
  ["https://[2001:db8:ffff::1]/", "documentation (2001:db8::/32)", false],
  ["https://[3fff::1]/", "documentation (3fff::/20)", false],
  ["https://[3fff:fff:ffff::1]/", "documentation (3fff::/20)", false],
  ["https://[::2]/", "IPv4-compatible (::/96, deprecated)", false],
  ["https://[::a9fe:a9fe]/", "IPv4-compatible (::/96, deprecated)", false],
  ["https://[0:0:0:0:1::1]/", "not global unicast (outside 2000::/3)", false],
  ["https://[64:ff9b::127.0.0.1]/", "NAT64 of loopback (127.0.0.0/8)", false],
  ["https://[64:ff9b:1:ffff::1]/", "local-use NAT64 (64:ff9b:1::/48)", false],
  ["https://[64:ff9b:2::1]/", "not global unicast (outside 2000::/3)", false],
  ["https://[100::ffff:1]/", "discard-only (100::/64)", false],
  ["https://[100:0:0:1::1]/", "not global unicast (outside 2000::/3)", false],
  ["https://[2002:7f00:1::1]/", "6to4 of loopback (127.0.0.0/8)", false],
  ["https://[2002:a9fe:a9fe::1]/", "6to4 of link-local (169.254.0.0/16)", false],
  ["https://[fdff:ffff::1]/", "unique local (fc00::/7)", false],
  ["https://[fec0::1]/", "site-local (fec0::/10, deprecated)", false],
  ["https://[feff::1]/", "site-local (fec0::/10, deprecated)", false],
  ["https://[ff00::1]/", "multicast (ff00::/8)", false],
  ["https://[4000::1]/", "not global unicast (outside 2000::/3)", false],
  ["https://[5f00::1]/", "not global unicast (outside 2000::/3)", false],
  ["https://[e000::1]/", "not global unicast (outside 2000::/3)", false],
  // Public: names (never resolved here) and public literals.
  ["https://api.example.com/", null, false],
  ["https://example.com./", null, false],
  ["https://localhost.example.com/", null, false],
  ["https://127.0.0.1.nip.io/", null, false],
  ["https://8.8.8.8/", null, false],
  ["https://172.32.0.1/", null, false],
  ["https://100.128.0.1/", null, false],
  ["https://169.255.0.1/", null, false],
  ["https://[2606:4700:4700::1111]/", null, false],
  ["https://[::ffff:8.8.8.8]/", null, false],
  ["https://[64:ff9b::808:808]/", null, false],
  ["https://[2002:808:808::1]/", null, false],
  ["https://localhost.localdomain.example.com/", null, false],
  ["https://[2001:200::1]/", null, false],
  ["https://[2001:db9::1]/", null, false],
  ["https://[3fff:1000::1]/", null, false],
  ["https://[2000::1]/", null, false],
];

describe("hostRefusal", () => {
  it.each(ROWS)("%s → %s", (url, what, loopback) => {
    expect(hostRefusal(new URL(url).hostname)).toEqual(what === null ? null : { what, loopback });
  });
});

describe("checkUrl, the target rule", () => {
  const strict = { allowLoopback: false };
  const local = { allowLoopback: true };

  it("refuses a private literal over https, naming the host and its block", () => {
    expect(checkUrl("https://169.254.169.254/latest/meta-data/", "/target/url", strict)).toEqual({
      pointer: "/target/url",
      message:
        "a target URL may not name a private, loopback or link-local address: 169.254.169.254 is link-local (169.254.0.0/16)",
    });
    expect(checkUrl("https://2130706433/", "/url", strict)).toEqual({
      pointer: "/url",
      message:
        "a target URL may not name a private, loopback or link-local address: 127.0.0.1 is loopback (127.0.0.0/8)",
    });
  });

  it("lets loopback through only under the local escape hatch, over http or https; other private blocks stay refused", () => {
    expect([
      checkUrl("http://127.0.0.1:8790/refunds", "/target/url", local),
      checkUrl("https://[::1]/", "/url", local),
      checkUrl("http://api.localhost:9000/", "/url", local),
    ]).toEqual([null, null, null]);
    expect(checkUrl("http://10.0.0.1/", "/url", local)).toEqual({
      pointer: "/url",
      message:
        "a target URL may not name a private, loopback or link-local address: 10.0.0.1 is private (10.0.0.0/8) (only loopback is allowed under npm start)",
    });
    expect(checkUrl("https://localhost/", "/url", strict)).toEqual({
      pointer: "/url",
      message:
        "a target URL may not name a private, loopback or link-local address: localhost is a loopback name (localhost)",
    });
  });

  it("keeps its scheme and credential rules for public hosts", () => {
    expect(checkUrl("https://api.example.com/refunds", "/target/url", strict)).toBe(null);
    expect(checkUrl("http://api.example.com/", "/target/url", local)).toEqual({
      pointer: "/target/url",
      message: "a target URL is https (or loopback http under npm start)",
    });
    expect(checkUrl("https://user:pw@api.example.com/", "/target/url", strict)).toEqual({
      pointer: "/target/url",
      message: "a target URL carries no credentials (use secret_headers or auth)",
    });
  });
});
