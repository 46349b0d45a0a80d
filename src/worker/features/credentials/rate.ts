import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import type { Limits } from "../../kernel/limits";
import { LruMap } from "../../lru";

/** Credentials whose buckets one object keeps at once (a forgotten bucket starts full). */
export const RATE_BUCKETS = 4096;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Calls per credential per second: one token bucket per credential (`call_burst` tokens,
 * refilled at `calls_per_second`), in the consumer's object, so every call of a consumer meets
 * the same buckets. Buckets live in memory: they start full again after the object restarts.
 */
export class CallRate {
  readonly #buckets = new LruMap<string, Bucket>(RATE_BUCKETS);

  /** Takes one token for a call at `nowMs`, or answers `RATE_LIMITED` with the seconds until one is back. */
  take(credentialId: string, limits: Limits, nowMs: number): Outcome<null> {
    const burst = limits.call_burst;
    const rate = limits.calls_per_second;
    const bucket = this.#buckets.get(credentialId) ?? { tokens: burst, at: nowMs };
    const refilled = Math.min(burst, bucket.tokens + (Math.max(0, nowMs - bucket.at) * rate) / 1000);
    if (refilled < 1) {
      this.#buckets.set(credentialId, { tokens: refilled, at: nowMs });
      const wait = Math.max(1, Math.ceil(((1 - refilled) * 1000) / rate / 1000));
      return fail(problem("RATE_LIMITED", `This credential may make ${rate} calls per second (burst ${burst}).`, wait));
    }
    this.#buckets.set(credentialId, { tokens: refilled - 1, at: nowMs });
    return ok(null);
  }

  /** Buckets held now (at most {@link RATE_BUCKETS}). */
  get size(): number {
    return this.#buckets.size;
  }
}
