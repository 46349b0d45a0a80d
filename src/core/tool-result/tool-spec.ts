/**
 * Tool specifications: what a registered tool accepts, what it may return, which revisions
 * bind its results, and the host-side checks that run before its handler.
 * @module
 */
import { codePointLength, PyFloat, pyStrip, type Json, type JsonObject } from "../json";
import { inJsonDomain } from "../json/domain";
import type { HandlerResult, Principal } from "./types";
import type { ToolResultStore } from "./store";

/** Python type names the rules check with `type(v) is T` (so `true` is not an int, `1.0` is not an int). */
export type RuleType = "str" | "int" | "float" | "bool";

/** One argument's rule. String lengths count code points; `minLength` applies after Python's strip. */
export interface ArgumentRule {
  readonly type: RuleType;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly enum?: readonly string[];
}

/** One output field's rule. `equalsArgument` binds the field to the call's argument of that name. */
export interface OutputRule {
  readonly type: RuleType;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly enum?: readonly string[];
  /** Must match the whole string (Python `fullmatch`). */
  readonly pattern?: RegExp;
  readonly equalsArgument?: string;
}

/** What a tool's checks and handler may consult besides the arguments. */
export interface ToolContext {
  readonly store: ToolResultStore;
  /** The dispatch's time (Unix seconds), for policies that read `now` (the core reads no clock). */
  readonly now?: number;
  /** The verified claims of the principal (an end user's token), for policies that read them. */
  readonly claims?: JsonObject;
}

/**
 * A compiled schema check (a data-defined tool's `input` or `output`, see `core/tool-schema`):
 * `validate` answers whether a JSON value satisfies it; `document` is the schema itself.
 */
export interface SchemaCheck {
  readonly document: JsonObject;
  validate(value: Json): boolean;
  /** Where an invalid value fails and what was expected there (`core/tool-schema` answers it). */
  describe?(value: Json): { readonly pointer: string; readonly expected: string } | null;
}

/** How a tool runs: an in-process handler, or outside the engine, by the host (an HTTP service). */
export type ToolExecution =
  | {
      readonly kind: "in_process";
      readonly handler: (args: JsonObject, ctx: ToolContext) => HandlerResult | Promise<HandlerResult>;
    }
  | { readonly kind: "external" };

/** A registered tool. Built with {@link defineTool}. */
export interface ToolSpec {
  readonly name: string;
  readonly inputSchemaRevision: string;
  /** The policy revision, bound into approvals. */
  readonly policyRevision: string;
  readonly risk: "read" | "write";
  readonly arguments: Readonly<Record<string, ArgumentRule>>;
  readonly outputSchemaRevision: string;
  readonly output: Readonly<Record<string, OutputRule>>;
  readonly maxOutputBytes: number;
  readonly maxOutputDepth: number;
  readonly effectRevision: string;
  readonly handlerRevision: string;
  readonly producerLabel: string;
  readonly producerRevision: string;
  readonly timeoutMs: number;
  /** Resource check; false answers NOT_FOUND so a caller cannot tell "absent" from "not yours". */
  readonly authorize: (principal: Principal, args: JsonObject, ctx: ToolContext) => boolean;
  /** Optional business rule for writes; false answers BUSINESS_RULE_VIOLATION. */
  readonly businessRule?: (principal: Principal, args: JsonObject, ctx: ToolContext) => boolean;
  readonly execution: ToolExecution;
  /** What the tool does, for the model's declaration (data-defined and embedded tools). */
  readonly description?: string;
  /** A JSON Schema check of the arguments, instead of the flat `arguments` rules (data-defined tools). */
  readonly inputSchema?: SchemaCheck;
  /**
   * A JSON Schema check of the output data, instead of the exact field set of `output`; the
   * `output` rules then only bind fields to arguments (data-defined tools).
   */
  readonly outputSchema?: SchemaCheck;
  /** Whether this write needs a human (default: every write does); a data tool's `approval` rule. */
  readonly needsApproval?: (principal: Principal, args: JsonObject, ctx: ToolContext) => boolean;
  /**
   * Seconds an approval of this tool stays valid for the repeated call, from the decision
   * (default `APPROVAL_TTL_SECONDS`, the reference's 60).
   */
  readonly approvalValidSeconds?: number;
  /**
   * `INVALID_ARGUMENTS` carries `error.details` (where and what was expected) for this tool.
   * Data-defined and code tools set it; the reference's tools do not, so their answers keep the
   * reference's bytes.
   */
  readonly explainsArguments?: boolean;
  /**
   * The rule that asks a person, as its author wrote it (a data tool's CEL `approval`), shown to
   * the approver beside the call; absent where the rule is code or every write asks.
   */
  readonly approvalRule?: string;
  /**
   * Who confirms a write of this tool that needs a human: absent, the host's approvers;
   * `"end_user"`, the requesting end user, in the agent's chat (docs/approvals.md, "Who
   * decides"). Only a write sets it. The approval is the same bound approval; the host decides
   * who may approve it (an end user proven by a verified token; else its approvers), and its
   * approvers may still deny.
   */
  readonly confirmedBy?: "end_user";
}

/** Registered tools by name. */
export type ToolRegistry = ReadonlyMap<string, ToolSpec>;

/** Declares a tool; freezes it so a registry cannot drift after digests were bound to it. */
export function defineTool(spec: ToolSpec): ToolSpec {
  return Object.freeze({
    ...spec,
    arguments: Object.freeze({ ...spec.arguments }),
    output: Object.freeze({ ...spec.output }),
  });
}

/** Builds a registry keyed by tool name; duplicate names are a bug. */
export function createRegistry(tools: readonly ToolSpec[]): ToolRegistry {
  const registry = new Map<string, ToolSpec>();
  for (const tool of tools) {
    if (registry.has(tool.name)) throw new Error(`duplicate tool name: ${tool.name}`);
    registry.set(tool.name, tool);
  }
  return registry;
}

/** Python `type(value) is T` for the rule types. */
export function hasRuleType(value: unknown, type: RuleType): boolean {
  switch (type) {
    case "str":
      return typeof value === "string";
    case "bool":
      return typeof value === "boolean";
    case "int":
      return typeof value === "number" && Number.isInteger(value);
    case "float":
      return value instanceof PyFloat || (typeof value === "number" && !Number.isInteger(value));
  }
}

/** The reference's `_validate_arguments`: exact names, JSON domain, type, stripped/raw lengths, enum. */
export function validateArguments(spec: ToolSpec, args: Json): boolean {
  if (typeof args !== "object" || args === null || Array.isArray(args) || args instanceof PyFloat) return false;
  if (spec.inputSchema !== undefined) return inJsonDomain(args) && spec.inputSchema.validate(args);
  const names = Object.keys(spec.arguments);
  if (Object.keys(args).length !== names.length) return false;
  for (let i = 0; i < names.length; i++) if (!Object.hasOwn(args, names[i] as string)) return false;
  if (!inJsonDomain(args)) return false;
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const rule = spec.arguments[name] as ArgumentRule;
    const value = args[name];
    if (!hasRuleType(value, rule.type)) return false;
    if (typeof value === "string") {
      if (rule.minLength !== undefined && codePointLength(pyStrip(value)) < rule.minLength) return false;
      if (rule.maxLength !== undefined && codePointLength(value) > rule.maxLength) return false;
      if (rule.enum !== undefined && !rule.enum.includes(value)) return false;
    }
  }
  return true;
}
