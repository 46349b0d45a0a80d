/**
 * `defineTool` of `toolgate/worker`, in its two forms: Standard Schemas and `execute` (the handler
 * may do I/O and runs between the engine's two steps), or the flat rules and a synchronous
 * `execution.handler` (it runs inside the consumer object's transaction, beside the engine's store).
 * @module
 */
import type { ArgumentRule, OutputRule, ToolSpec } from "../../../core/tool-result/tool-spec";
import type { Env } from "../../env";
import { defineSchemaTool, type SchemaToolSpec } from "./schema-tool";
import type { StandardSchema } from "./standard-schema";
import { defineTool as defineRuleTool, type CodeToolSpec } from "./typed-tool";

/**
 * Declares a tool written as code, for `createGate({ tools })`. With `input`, `output` and
 * `execute` ({@link SchemaToolSpec}): zod 4 schemas, revisions derived from the definition,
 * risk inferred from `needsApproval`. With `arguments`, `output` rules and `execution`
 * ({@link CodeToolSpec}): every bookkeeping field spelled out.
 */
export function defineTool<I extends StandardSchema, O extends StandardSchema, E extends object = Env>(
  spec: SchemaToolSpec<I, O, E>,
): ToolSpec;
export function defineTool<
  const A extends Readonly<Record<string, ArgumentRule>>,
  const O extends Readonly<Record<string, OutputRule>>,
>(spec: CodeToolSpec<A, O>): ToolSpec;
export function defineTool(
  spec:
    | SchemaToolSpec<StandardSchema, StandardSchema, object>
    | CodeToolSpec<Readonly<Record<string, ArgumentRule>>, Readonly<Record<string, OutputRule>>>,
): ToolSpec {
  return "input" in spec ? defineSchemaTool(spec) : defineRuleTool(spec);
}
