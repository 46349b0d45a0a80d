// A provider call identity binds to its first fingerprint, whether the store claims the key in
// one step (`claim`, as the object's SQLite store does) or only offers get and put.
import { describe, expect, it } from "vitest";
import type { Json } from "../../../src/core/json";
import { bindToolCall } from "../../../src/core/tool-result";
import { bindCallIdentity } from "../../../src/core/tool-result/dispatcher-state";
import { InMemoryToolResultStore, type StoreTable, type ToolResultStore } from "../../../src/core/tool-result/store";
import { context, principal } from "./host-context";

/** A store offering only get and put (no claim), logging what it is asked. */
function getPutStore(log: string[]): ToolResultStore {
  const inner = new InMemoryToolResultStore();
  return {
    get: (table: StoreTable, key: string) => (log.push(`get ${table}`), inner.get(table, key)),
    put: (table: StoreTable, key: string, value: Json) => (
      log.push(`put ${table} ${String(value)}`),
      inner.put(table, key, value)
    ),
    delete: (table, key) => inner.delete(table, key),
    entries: (table) => inner.entries(table),
    counter: (name) => inner.counter(name),
    increment: (name) => inner.increment(name),
  };
}

const call = bindToolCall({ name: "get_order", arguments: { order_ref: "ORDER-7" } }, context("call-1"));
const KEY = '["tenant-a","user-1","openai","responses","resp-1","call-1"]';

describe("InMemoryToolResultStore.claim", () => {
  it("stores a value unless another is held, answers that other value, and stores the same value again", () => {
    const store = new InMemoryToolResultStore();
    expect(store.claim("call_fingerprints", "k", "first")).toBe(undefined);
    expect(store.claim("call_fingerprints", "k", "second")).toBe("first");
    expect(store.claim("call_fingerprints", "k", "first")).toBe(undefined);
    expect(store.get("call_fingerprints", "k")).toBe("first");
    expect(store.entries("call_fingerprints")).toEqual([["k", "first"]]);
    // Values are compared as JSON: the same members in another order are the same value.
    expect(store.claim("idempotency_records", "r", { a: 1, b: [2] })).toBe(undefined);
    expect(store.claim("idempotency_records", "r", { b: [2], a: 1 })).toBe(undefined);
    expect(store.claim("idempotency_records", "r", { a: 2, b: [2] })).toEqual({ b: [2], a: 1 });
  });
});

describe("bindCallIdentity", () => {
  it("with claim: a new identity binds, the same fingerprint binds again, another is refused and the first stays", () => {
    const store = new InMemoryToolResultStore();
    expect([
      bindCallIdentity(store, principal, call, "fp-a"),
      bindCallIdentity(store, principal, call, "fp-a"),
      bindCallIdentity(store, principal, call, "fp-b"),
    ]).toEqual([true, true, false]);
    expect(store.entries("call_fingerprints")).toEqual([[KEY, "fp-a"]]);
  });

  it("without claim: the same answers through get and put (a repeated identity is put again, a refused one is not)", () => {
    const log: string[] = [];
    const store = getPutStore(log);
    expect([
      bindCallIdentity(store, principal, call, "fp-a"),
      bindCallIdentity(store, principal, call, "fp-a"),
      bindCallIdentity(store, principal, call, "fp-b"),
    ]).toEqual([true, true, false]);
    expect(log).toEqual([
      "get call_fingerprints",
      "put call_fingerprints fp-a",
      "get call_fingerprints",
      "put call_fingerprints fp-a",
      "get call_fingerprints",
    ]);
    expect(store.entries("call_fingerprints")).toEqual([[KEY, "fp-a"]]);
  });
});
