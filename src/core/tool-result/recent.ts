/**
 * A small, fixed number of recent entries keyed by object identity: what the engine remembers
 * about the packages it just built, so re-validating one in the same call is cheap.
 * @module
 */

/**
 * Remembers the last `size` entries (oldest overwritten first), found by `===` on the key.
 * Unlike a WeakMap, it gives the collector no weak table to trace on every call, and it holds
 * at most `size` keys whatever the callers do; a forgotten entry only means recomputing.
 */
export class RecentByIdentity<K extends object, V> {
  readonly #keys: Array<K | undefined>;
  readonly #values: Array<V | undefined>;
  #next = 0;

  constructor(readonly size: number) {
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError("size must be a positive integer");
    this.#keys = new Array<K | undefined>(size).fill(undefined);
    this.#values = new Array<V | undefined>(size).fill(undefined);
  }

  /** The value stored with `key`, the most recent if it was stored twice; undefined if forgotten. */
  get(key: K): V | undefined {
    const keys = this.#keys;
    // Newest first, so a key stored again answers its latest value.
    for (let n = 1; n <= keys.length; n++) {
      const i = (this.#next - n + keys.length) % keys.length;
      if (keys[i] === key) return this.#values[i];
    }
    return undefined;
  }

  /** Stores `value` under `key`, forgetting the oldest entry once `size` are held. */
  set(key: K, value: V): void {
    this.#keys[this.#next] = key;
    this.#values[this.#next] = value;
    this.#next = (this.#next + 1) % this.#keys.length;
  }
}
