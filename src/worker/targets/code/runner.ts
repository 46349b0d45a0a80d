/**
 * The Worker's side of a tool written as code with `execute` (`defineTool({ input, output,
 * execute })`): the registry entry is an `external` tool, so the engine runs its two steps in
 * two transactions and the handler runs between them, with I/O, exactly like an HTTP tool.
 * This module holds what the executor needs of such a tool, beside its {@link ToolSpec}.
 * @module
 */
import type { JsonObject } from "../../../core/json";
import type { ToolSpec } from "../../../core/tool-result/tool-spec";
import type { Principal } from "../../../core/tool-result/types";

/** What a request made with {@link ToolRunContext.fetch} may carry (the body is signed, so it is text). */
export interface SignedFetchInit {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** What a code tool's `execute` (and `status`) receives besides its arguments. */
export interface ToolRunContext<E = unknown> {
  /** The Worker's bindings (the Durable Object's `env`: every binding of the embedding Worker). */
  readonly env: E;
  /** Aborted when the tool's `timeoutMs` is over: pass it to every `fetch`. */
  readonly signal: AbortSignal;
  /** The verified principal the call acts for. */
  readonly principal: Principal;
  /**
   * A write's key (its `status_ref`): send it as the downstream's idempotency key, so a status
   * query can later ask what became of it. `null` for a read.
   */
  readonly idempotencyKey: string | null;
  /** The provider's call id of the call (or of the status query). */
  readonly callId: string;
  /**
   * `fetch` with the identity every HTTP tool request carries (RFC 9421 signature of the consumer's
   * key, `Toolgate-Identity`, `Content-Digest`; docs/http-tools.md), the call's `signal`, and for a
   * write its `Idempotency-Key` unless given. Rejects when the gate has no signing key.
   */
  readonly fetch: (url: string, init?: SignedFetchInit) => Promise<Response>;
}

/** A handler's output once checked: the data, or why it was refused (for operators only). */
export type CheckedOutput =
  { readonly ok: true; readonly data: JsonObject } | { readonly ok: false; readonly cause: string };

/** What a code tool's `status` learned about a write, its data checked. */
export type CheckedStatus =
  | { readonly state: "committed"; readonly output: CheckedOutput }
  | { readonly state: "not_executed" }
  | { readonly state: "unknown" };

/**
 * How the executor runs one code tool. The methods are bivariant on purpose: `env` is whatever
 * the embedding Worker's bindings are, typed by its author (`ToolRunContext<MyEnv>`).
 */
export interface CodeRunner {
  /** Parses the arguments, runs the handler, checks its output against the output schema. */
  execute(args: JsonObject, ctx: ToolRunContext<object>): Promise<CheckedOutput>;
  /** Asks what became of a write (only when the tool has a `status`). */
  status?(args: JsonObject, ctx: ToolRunContext<object>): Promise<CheckedStatus>;
}

/** The runners of the tools `defineTool` built, by their frozen spec (never by name: names may repeat across gates). */
const RUNNERS = new WeakMap<ToolSpec, CodeRunner>();

/** Records the runner of a spec `defineTool` just built. */
export function registerRunner(spec: ToolSpec, runner: CodeRunner): void {
  RUNNERS.set(spec, runner);
}

/** The runner of a code tool's spec, or `undefined` for every other tool. */
export function runnerOf(spec: ToolSpec): CodeRunner | undefined {
  return RUNNERS.get(spec);
}
