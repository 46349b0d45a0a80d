/**
 * The engine's dependencies: the tool registry, the state store, the hash and the approver
 * allow-list. Pure data and functions; nothing here reads a clock or does I/O.
 * @module
 */
import { sha256Hex } from "../json";
import { AUTHORIZED_APPROVER_IDS } from "./constants";
import { createDemoRegistry, SIDE_EFFECT_COUNTER } from "./demo-registry";
import { InMemoryToolResultStore, type ToolResultStore } from "./store";
import type { ToolRegistry } from "./tool-spec";
import type { HashFn } from "./types";

/** Everything a dispatcher step needs besides the request itself. */
export interface ToolResultEngine {
  readonly registry: ToolRegistry;
  readonly store: ToolResultStore;
  /** SHA-256 over UTF-8 text, lowercase hex. A benchmark may pass a counting wrapper. */
  readonly hash: HashFn;
  /** Approvers whose approvals count. */
  readonly approvers: ReadonlySet<string>;
}

/** Options of {@link createEngine}; every field defaults to the reference's demo setup. */
export interface EngineOptions {
  readonly registry?: ToolRegistry;
  readonly store?: ToolResultStore;
  readonly hash?: HashFn;
  readonly approvers?: ReadonlySet<string>;
}

/** An engine over the demo registry and a fresh in-memory store unless told otherwise. */
export function createEngine(options: EngineOptions = {}): ToolResultEngine {
  return {
    registry: options.registry ?? createDemoRegistry(),
    store: options.store ?? new InMemoryToolResultStore(),
    hash: options.hash ?? sha256Hex,
    approvers: options.approvers ?? AUTHORIZED_APPROVER_IDS,
  };
}

/** How many times the demo write handler has executed against this engine's store. */
export function sideEffectCount(engine: ToolResultEngine): number {
  return engine.store.counter(SIDE_EFFECT_COUNTER);
}
