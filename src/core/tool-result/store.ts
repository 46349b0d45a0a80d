/**
 * The port behind which all dispatcher state lives. Synchronous on purpose: a Durable Object
 * implements it on SQLite inside one `transactionSync` per engine step, so a step either
 * happens completely or not at all.
 * @module
 */
import { canonicalJson, type Json } from "../json";

/** The tables the engine uses. Keys are strings built by {@link storeKey}. */
export type StoreTable =
  | "call_fingerprints"
  | "idempotency_records"
  | "downstream_receipts"
  | "uncertain_outcomes"
  | "status_refs"
  | "in_flight";

/** Synchronous key-value state of one dispatcher. Values are JSON (they survive canonicalJson + readJson). */
export interface ToolResultStore {
  get(table: StoreTable, key: string): Json | undefined;
  put(table: StoreTable, key: string, value: Json): void;
  /**
   * Optional: stores `value` unless `key` holds another value, and answers that other value
   * (`undefined`: `value` is stored now; where it was held already, it is stored again, so a
   * store that keeps records for a while keeps this one from now). The same as `get`, then `put`
   * unless another value is held, in one step (a store on a database saves statements on every
   * call).
   */
  claim?(table: StoreTable, key: string, value: Json): Json | undefined;
  delete(table: StoreTable, key: string): void;
  /** Every entry of a table, in insertion order (used only by recovery). */
  entries(table: StoreTable): Array<[string, Json]>;
  /** Current value of a named counter (0 when never incremented). */
  counter(name: string): number;
  /** Adds one to a named counter and answers the new value. */
  increment(name: string): number;
}

/**
 * {@link ToolResultStore.claim}'s contract through `get` and `put`: `value` is stored unless the
 * key holds another value (compared as canonical JSON), which is answered instead.
 */
export function claimByGetPut(
  store: Pick<ToolResultStore, "get" | "put">,
  table: StoreTable,
  key: string,
  value: Json,
): Json | undefined {
  const prior = store.get(table, key);
  if (prior !== undefined && canonicalJson(prior) !== canonicalJson(value)) return prior;
  store.put(table, key, value);
  return undefined;
}

/** Scopes and identities are tuples of strings; JSON text of the array is an unambiguous key. */
export function storeKey(parts: readonly string[]): string {
  return JSON.stringify(parts);
}

/** A ToolResultStore held in memory: one per fixture case, or per test. */
export class InMemoryToolResultStore implements ToolResultStore {
  readonly #tables = new Map<StoreTable, Map<string, Json>>();
  readonly #counters = new Map<string, number>();

  #table(table: StoreTable): Map<string, Json> {
    let rows = this.#tables.get(table);
    if (rows === undefined) {
      rows = new Map();
      this.#tables.set(table, rows);
    }
    return rows;
  }

  get(table: StoreTable, key: string): Json | undefined {
    return this.#tables.get(table)?.get(key);
  }

  put(table: StoreTable, key: string, value: Json): void {
    this.#table(table).set(key, value);
  }

  claim(table: StoreTable, key: string, value: Json): Json | undefined {
    return claimByGetPut(this, table, key, value);
  }

  delete(table: StoreTable, key: string): void {
    this.#tables.get(table)?.delete(key);
  }

  entries(table: StoreTable): Array<[string, Json]> {
    return [...(this.#tables.get(table)?.entries() ?? [])];
  }

  counter(name: string): number {
    return this.#counters.get(name) ?? 0;
  }

  increment(name: string): number {
    const next = this.counter(name) + 1;
    this.#counters.set(name, next);
    return next;
  }
}
