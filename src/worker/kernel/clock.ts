/** The object's clock in Unix seconds; tests may pin it through `runInDurableObject`. */
export class ObjectClock {
  /** Set only by tests (through `runInDurableObject`); never reachable over HTTP. */
  pinnedSeconds: number | undefined;

  now(): number {
    return this.pinnedSeconds ?? Math.floor(Date.now() / 1000);
  }

  /**
   * Set only by tests of the call rate (through `runInDurableObject`), apart from `pinnedSeconds`:
   * a test's pinned second must not starve every other test's bucket.
   */
  pinnedRateMs: number | undefined;

  /** Wall-clock milliseconds for rate limits. */
  rateMs(): number {
    return this.pinnedRateMs ?? Date.now();
  }
}
