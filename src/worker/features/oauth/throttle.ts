/**
 * The anonymous OAuth endpoints' rate limits: dynamic registration and the sign-in page write to
 * `OAUTH_KV` for anyone, so each meets a token bucket per client address (`CF-Connecting-IP`;
 * IPv6 by its /64) and a higher one for the whole isolate. One address running out refuses only
 * itself; the isolate's bucket bounds what many addresses together can write. A refusal is
 * `429` with `Retry-After` and an OAuth error body (`temporarily_unavailable`).
 * @module
 */
import { oauthError } from "./error-answer";
import { LruMap } from "../../lru";

/** A token bucket's shape: `burst` tokens, refilled at `perSecond`. */
export interface BucketSpec {
  readonly burst: number;
  readonly perSecond: number;
}

/** What one endpoint allows per address and per isolate. */
export interface ThrottleSpec {
  readonly perAddress: BucketSpec;
  readonly perIsolate: BucketSpec;
}

/** Client registrations: 10 per address (then one per 6 minutes), 200 per isolate (then one per second). */
export const REGISTRATION_LIMITS: ThrottleSpec = {
  perAddress: { burst: 10, perSecond: 1 / 360 },
  perIsolate: { burst: 200, perSecond: 1 },
};

/** Sign-in page views and consent forms: 30 per address (then one per 20 seconds), 600 per isolate (then 10 per second). */
export const AUTHORIZATION_LIMITS: ThrottleSpec = {
  perAddress: { burst: 30, perSecond: 1 / 20 },
  perIsolate: { burst: 600, perSecond: 10 },
};

/** Addresses whose buckets an isolate keeps per endpoint (a forgotten bucket starts full; the isolate's bucket still holds). */
export const THROTTLE_ADDRESSES = 4096;

interface Bucket {
  tokens: number;
  at: number;
}

function refilled(bucket: Bucket | undefined, spec: BucketSpec, nowMs: number): Bucket {
  if (bucket === undefined) return { tokens: spec.burst, at: nowMs };
  return {
    tokens: Math.min(spec.burst, bucket.tokens + (Math.max(0, nowMs - bucket.at) * spec.perSecond) / 1000),
    at: nowMs,
  };
}

function secondsUntilToken(bucket: Bucket, spec: BucketSpec): number {
  return Math.max(1, Math.ceil((1 - bucket.tokens) / spec.perSecond));
}

/** One endpoint's buckets. */
export class Throttle {
  readonly #addresses = new LruMap<string, Bucket>(THROTTLE_ADDRESSES);
  #isolate: Bucket | undefined;

  constructor(readonly spec: ThrottleSpec) {}

  /**
   * Takes a token from the address's bucket and the isolate's, or neither: `null` when the request
   * may proceed, otherwise the seconds until it may.
   */
  take(address: string, nowMs: number): number | null {
    const own = refilled(this.#addresses.get(address), this.spec.perAddress, nowMs);
    const all = refilled(this.#isolate, this.spec.perIsolate, nowMs);
    this.#addresses.set(address, own);
    this.#isolate = all;
    if (own.tokens < 1) return secondsUntilToken(own, this.spec.perAddress);
    if (all.tokens < 1) return secondsUntilToken(all, this.spec.perIsolate);
    own.tokens -= 1;
    all.tokens -= 1;
    return null;
  }
}

/**
 * The key of a client address: an IPv4 address as it is, an IPv6 one by its /64 (one host gets a
 * whole /64); `unknown` without the header (a local run).
 */
export function addressKey(header: string | null): string {
  const address = (header ?? "").trim().toLowerCase();
  if (address === "") return "unknown";
  if (!address.includes(":")) return address;
  const [head = "", tail] = address.split("::", 2);
  const front = head === "" ? [] : head.split(":");
  const back = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups =
    tail === undefined
      ? front
      : [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill("0"), ...back];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/**
 * The `429` of a throttled OAuth endpoint; `origin`: a browser client's `Origin`, which may read
 * it and its `Retry-After` (as it may read the library's own answers).
 */
export function throttled(retryAfter: number, what: string, origin: string | null = null): Response {
  return oauthError(
    429,
    "temporarily_unavailable",
    `Too many ${what} from this address or on this server; retry after ${retryAfter} seconds.`,
    origin,
    { "Retry-After": String(retryAfter) },
  );
}

/** The isolate's buckets of dynamic registration. */
export const registrations = new Throttle(REGISTRATION_LIMITS);
/** The isolate's buckets of the sign-in page and its form. */
export const authorizations = new Throttle(AUTHORIZATION_LIMITS);
