/**
 * `defineTool` for tools written as code (`toolgate/worker`): the core's {@link ToolSpec} with
 * the argument and output types inferred from the rules, so a handler reads `args.text` as a
 * `string` and returns `data` of the declared fields.
 * @module
 */
import type { JsonObject, PyFloat } from "../../../core/json";
import {
  defineTool as defineCoreTool,
  type ArgumentRule,
  type OutputRule,
  type RuleType,
  type ToolContext,
  type ToolSpec,
} from "../../../core/tool-result/tool-spec";
import type { HandlerResult, Principal } from "../../../core/tool-result/types";

/** The value a rule type admits: `int` is an integral number, `float` a non-integral number or a `PyFloat` (`1.0`). */
export type RuleValue<T extends RuleType> = T extends "str"
  ? string
  : T extends "int"
    ? number
    : T extends "float"
      ? number | PyFloat
      : boolean;

/** One field's value: its `enum` members when it has one, else its type's values. */
export type FieldValue<R extends { readonly type: RuleType; readonly enum?: readonly string[] }> = R extends {
  readonly enum: readonly (infer E)[];
}
  ? E
  : RuleValue<R["type"]>;

/** The arguments a handler receives: every declared argument, checked against its rule before the handler runs. */
export type ArgumentsOf<A extends Readonly<Record<string, ArgumentRule>>> = {
  readonly [K in keyof A]: FieldValue<A[K]>;
};

/** The `data` a handler returns: exactly the declared output fields. */
export type OutputOf<O extends Readonly<Record<string, OutputRule>>> = { readonly [K in keyof O]: FieldValue<O[K]> };

/** What a code tool's handler returns: a {@link HandlerResult} whose `data` has the declared fields. */
export interface CodeToolResult<O extends Readonly<Record<string, OutputRule>>> extends Omit<HandlerResult, "data"> {
  readonly data: OutputOf<O>;
}

/** The parts of a {@link ToolSpec} a code tool types from its rules. */
type TypedParts = "arguments" | "output" | "authorize" | "businessRule" | "execution";

/**
 * A tool written as code: every field of {@link ToolSpec}, with typed `authorize`,
 * `businessRule` and handler. The handler is synchronous (it runs inside the consumer object's
 * transaction); a thrown error answers `TOOL_ERROR`.
 */
export interface CodeToolSpec<
  A extends Readonly<Record<string, ArgumentRule>>,
  O extends Readonly<Record<string, OutputRule>>,
> extends Omit<ToolSpec, TypedParts> {
  readonly arguments: A;
  readonly output: O;
  /** Resource check; false answers NOT_FOUND, exactly as for a missing resource. */
  readonly authorize: (principal: Principal, args: ArgumentsOf<A>, ctx: ToolContext) => boolean;
  /** Optional business rule for writes; false answers BUSINESS_RULE_VIOLATION. */
  readonly businessRule?: (principal: Principal, args: ArgumentsOf<A>, ctx: ToolContext) => boolean;
  readonly execution: {
    readonly kind: "in_process";
    readonly handler: (args: ArgumentsOf<A>, ctx: ToolContext) => CodeToolResult<O>;
  };
}

/**
 * Declares a tool written as code (for `createGate({ tools })`): the same rules as the core's
 * `defineTool`, with the handler's arguments and `data` typed from `arguments` and `output`.
 * The gate checks the arguments against their rules before `authorize`, `businessRule` or the
 * handler sees them, and the handler's `data` against `output` before anything is answered.
 */
export function defineTool<
  const A extends Readonly<Record<string, ArgumentRule>>,
  const O extends Readonly<Record<string, OutputRule>>,
>(spec: CodeToolSpec<A, O>): ToolSpec {
  const { authorize, businessRule, execution, ...rest } = spec;
  // The dispatcher validates the arguments against `arguments` before any of these runs.
  const typed = (args: JsonObject): ArgumentsOf<A> => args as ArgumentsOf<A>;
  return defineCoreTool({
    ...rest,
    // A code tool is the embedder's own: its INVALID_ARGUMENTS says where and what was expected.
    explainsArguments: true,
    authorize: (principal, args, ctx) => authorize(principal, typed(args), ctx),
    ...(businessRule === undefined
      ? {}
      : {
          businessRule: (principal: Principal, args: JsonObject, ctx: ToolContext) =>
            businessRule(principal, typed(args), ctx),
        }),
    execution: {
      kind: "in_process",
      handler: (args, ctx): HandlerResult => {
        const { data, ...result } = execution.handler(typed(args), ctx);
        return { ...result, data };
      },
    },
  });
}
