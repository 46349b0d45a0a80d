/**
 * Long-polls waiting for a provider's next effect: each waits until woken after a commit that
 * queued effects for its provider, or until its time is up.
 */
export class Waiters {
  readonly #byProvider = new Map<string, Set<() => void>>();

  /** Resolves when {@link wake} is called for the provider, or after `ms`. */
  wait(providerId: string, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const waiters = this.#byProvider.get(providerId) ?? new Set<() => void>();
      this.#byProvider.set(providerId, waiters);
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(done);
        // A provider nobody waits for leaves the map, so it holds live polls only.
        if (waiters.size === 0 && this.#byProvider.get(providerId) === waiters) this.#byProvider.delete(providerId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  /** Wakes every poll waiting for the provider. */
  wake(providerId: string): void {
    for (const wake of this.#byProvider.get(providerId) ?? []) wake();
  }

  /** Providers with a poll waiting now. */
  get size(): number {
    return this.#byProvider.size;
  }
}
