/**
 * `toolgate/worker`: embed the gate in your own Worker, with your tools written as code.
 *
 * ```ts
 * import { createGate, defineTool } from "toolgate/worker";
 * const gate = createGate({ tools: [defineTool({ name: "word_count", … })] });
 * export default { fetch: gate.fetch };
 * export const ConsumerObject = gate.ConsumerObject; // the class named in wrangler.toml
 * ```
 *
 * A consumer enables a code tool by listing its name in `tools` (`PUT /v1/consumers/{consumer}`);
 * its calls then pass every check the built-in tools pass (arguments, principal, approval for
 * writes, idempotency, output contract, audit). A tool defined with `execute` may do I/O: it runs
 * between the engine's two steps, like an HTTP tool (docs/tools.md). See examples/custom-worker/.
 * @module
 */
import type { ToolSpec } from "../core/tool-result/tool-spec";
import { app } from "./app";
import type { Env } from "./env";
import { ConsumerObject } from "./kernel/consumer-object";
import { checkCodeTools } from "./targets/code/tools";

export { defineTool } from "./targets/code/define-tool";
export type {
  ArgumentsOf,
  CodeToolResult,
  CodeToolSpec,
  FieldValue,
  OutputOf,
  RuleValue,
} from "./targets/code/typed-tool";
export type { PolicyContext, SchemaToolSpec, ToolStatus } from "./targets/code/schema-tool";
export type { SignedFetchInit, ToolRunContext } from "./targets/code/runner";
export type { InferInput, InferOutput, StandardSchema } from "./targets/code/standard-schema";
export { CODE_TOOL_NAME, knownToolNames } from "./targets/code/tools";
export { ALL_TOOL_NAMES } from "./targets/catalog";
export type { ArgumentRule, OutputRule, RuleType, ToolContext, ToolSpec } from "../core/tool-result/tool-spec";
export type { HandlerResult, Principal } from "../core/tool-result/types";
export { PyFloat, type Json, type JsonObject } from "../core/json";
export type { Env } from "./env";
export { ConsumerObject };

/** What {@link createGate} builds the gate with. */
export interface GateOptions {
  /**
   * Tools written as code (`defineTool` of this module, or the core's with `execution.kind
   * "in_process"`). Names must be unique and differ from the built-in tools' (`ALL_TOOL_NAMES`).
   */
  readonly tools?: readonly ToolSpec[];
}

/** A gate to export from a Worker: `export default { fetch }` and the Durable Object class. */
export interface Gate {
  /** The Worker's fetch handler (the gate's Hono app). */
  readonly fetch: (request: Request, env: Env, ctx: ExecutionContext) => Response | Promise<Response>;
  /**
   * The per-consumer Durable Object, knowing the given tools; export it under the `class_name`
   * of the `CONSUMER` binding in wrangler.toml (`ConsumerObject`).
   */
  readonly ConsumerObject: typeof ConsumerObject;
  /** The code tools, checked and frozen. */
  readonly tools: readonly ToolSpec[];
}

/**
 * Builds the gate with the given code tools. Throws (a programming error) when a tool neither
 * runs in process nor was defined with `execute`, or its name is malformed, repeated or a built-in tool's.
 */
export function createGate(options: GateOptions = {}): Gate {
  const tools = checkCodeTools(options.tools ?? []);
  /** The gate's Durable Object with this Worker's code tools in every consumer's registry. */
  class GateConsumerObject extends ConsumerObject {
    protected override codeTools(): readonly ToolSpec[] {
      return tools;
    }
  }
  return { fetch: (request, env, ctx) => app.fetch(request, env, ctx), ConsumerObject: GateConsumerObject, tools };
}
