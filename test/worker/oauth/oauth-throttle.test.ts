/** The anonymous OAuth endpoints' buckets: per address, and a higher one for the isolate that many addresses share. */
import { describe, expect, it } from "vitest";
import {
  addressKey,
  AUTHORIZATION_LIMITS,
  REGISTRATION_LIMITS,
  Throttle,
  throttled,
} from "../../../src/worker/features/oauth/throttle";

const SMALL = { perAddress: { burst: 2, perSecond: 1 }, perIsolate: { burst: 5, perSecond: 0.5 } };

describe("the OAuth throttle", () => {
  it("refuses an address past its burst without touching anyone else's, and refills it", () => {
    const throttle = new Throttle(SMALL);
    expect([throttle.take("a", 0), throttle.take("a", 0), throttle.take("a", 0)]).toEqual([null, null, 1]);
    expect(throttle.take("b", 0)).toBe(null);
    expect(throttle.take("a", 1000)).toBe(null);
  });

  it("refuses every address once the isolate's bucket is empty, then lets them in as it refills", () => {
    const throttle = new Throttle(SMALL);
    const taken = ["a", "b", "c", "d", "e", "f", "g"].map((address) => throttle.take(address, 0));
    expect(taken).toEqual([null, null, null, null, null, 2, 2]);
    expect(throttle.take("h", 2000)).toBe(null);
  });

  it("keeps the documented limits: per address below the isolate's", () => {
    expect([
      REGISTRATION_LIMITS.perAddress.burst,
      REGISTRATION_LIMITS.perIsolate.burst,
      AUTHORIZATION_LIMITS.perAddress.burst,
      AUTHORIZATION_LIMITS.perIsolate.burst,
    ]).toEqual([10, 200, 30, 600]);
  });

  it("keys IPv4 addresses whole and IPv6 ones by their /64", () => {
    expect([
      addressKey("203.0.113.7"),
      addressKey("2001:db8:1:2:aaaa::1"),
      addressKey("2001:DB8:1:2::9"),
      addressKey("::1"),
      addressKey(null),
    ]).toEqual(["203.0.113.7", "2001:db8:1:2::/64", "2001:db8:1:2::/64", "0:0:0:0::/64", "unknown"]);
  });

  it("lets a browser client read the 429 and its Retry-After", () => {
    const res = throttled(7, "client registrations", "http://localhost:6274");
    expect(
      ["access-control-allow-origin", "access-control-expose-headers", "retry-after"].map((h) => res.headers.get(h)),
    ).toEqual(["http://localhost:6274", "Retry-After", "7"]);
  });
});
