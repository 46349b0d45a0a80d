/** The object's clock in Unix seconds; tests may pin it through `runInDurableObject`. */
export class ObjectClock {
  /** Set only by tests (through `runInDurableObject`); never reachable over HTTP. */
  pinnedSeconds: number | undefined;

  now(): number {
    return this.pinnedSeconds ?? Math.floor(Date.now() / 1000);
  }

  /** Wall-clock milliseconds for rate limits, never pinned (a test's pinned second must not starve a bucket). */
  rateMs(): number {
    return Date.now();
  }
}
