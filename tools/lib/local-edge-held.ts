// The requests of the local edge (tools/lib/local-edge.ts) that the gate may hold open, and the
// per-client count of those held at once.

/**
 * Whether a request asks for an answer the gate may hold open: an event stream (`Accept` names
 * `text/event-stream`: approval and console streams, MCP) or a long-poll (a `wait` query
 * parameter other than 0: approval status, capability effects). `path` is its origin-form target.
 */
export function isHeld(headers: { accept?: string | undefined }, path: string): boolean {
  if (/text\/event-stream/i.test(headers.accept ?? "")) return true;
  const query = path.indexOf("?");
  if (query < 0) return false;
  const wait = new URLSearchParams(path.slice(query + 1)).get("wait");
  return wait !== null && wait !== "0";
}

/**
 * Counts held requests per client address, at most `max` each. `take(client)` answers a function
 * that gives the slot back (once, however often it is called), or null when the client holds
 * `max` already.
 */
export function heldLedger(max: number): HeldLedger {
  const counts = new Map<string, number>();
  return {
    take(client) {
      const count = counts.get(client) ?? 0;
      if (count >= max) return null;
      counts.set(client, count + 1);
      let given = false;
      return () => {
        if (given) return;
        given = true;
        const left = (counts.get(client) ?? 1) - 1;
        if (left === 0) counts.delete(client);
        else counts.set(client, left);
      };
    },
  };
}

/** Held requests per client address (see {@link heldLedger}). */
export interface HeldLedger {
  take(client: string): (() => void) | null;
}
