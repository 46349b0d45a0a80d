/**
 * The engine's dependencies: the tool registry, the state store, the hash and the approver
 * allow-list. Pure data and functions; nothing here reads a clock or does I/O.
 * @module
 */
import { sha256Hex } from "../json";
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

/** Options of {@link createEngine}: the tools and the approvers are the caller's to name. */
export interface EngineOptions {
  /** The tools the engine dispatches to. */
  readonly registry: ToolRegistry;
  /** Approvers whose approvals count; an empty set means no approval counts. */
  readonly approvers: ReadonlySet<string>;
  /** Defaults to a fresh in-memory store. */
  readonly store?: ToolResultStore;
  /** Defaults to SHA-256 ({@link sha256Hex}). */
  readonly hash?: HashFn;
}

/** An engine over the given tools and approvers, and a fresh in-memory store unless told otherwise. */
export function createEngine(options: EngineOptions): ToolResultEngine {
  return {
    registry: options.registry,
    store: options.store ?? new InMemoryToolResultStore(),
    hash: options.hash ?? sha256Hex,
    approvers: options.approvers,
  };
}
