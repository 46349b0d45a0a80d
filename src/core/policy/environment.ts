/**
 * The CEL environment of a policy: the declared variables, the parser limits, and the functions
 * a policy may call.
 *
 * The library's standard library is larger than a policy needs, and parts of it do not belong
 * in a gate: `matches` runs a JavaScript regular expression (catastrophic backtracking on a
 * hostile argument), `bytes.json()` parses JSON loosely, the time-zone forms of the timestamp
 * getters depend on the platform's time-zone data, `duration()` parses its string with a
 * regular expression that takes cubic time on a long run of digits (a 1,000-digit argument
 * takes a third of a second), and `cel.bind` lets a short expression double a value at each step. Only the functions listed in {@link ALLOWED_FUNCTIONS} and
 * {@link ALLOWED_METHODS} are accepted.
 * @module
 */
import { Environment } from "@marcbachmann/cel-js";
import { children, type ASTNode } from "./ast";
import { POLICY_LIMITS } from "./limits";

/** Global functions a policy may call, with the argument counts allowed. */
export const ALLOWED_FUNCTIONS: ReadonlyMap<string, readonly number[]> = new Map([
  ["size", [1]],
  ["has", [1]],
  ["int", [1]],
  ["uint", [1]],
  ["double", [1]],
  ["string", [1]],
  ["bool", [1]],
  ["dyn", [1]],
  ["type", [1]],
  ["timestamp", [1]],
]);

/** Methods (receiver-style calls, macros included) a policy may call, with the argument counts allowed. */
export const ALLOWED_METHODS: ReadonlyMap<string, readonly number[]> = new Map([
  ["size", [0]],
  ["startsWith", [1]],
  ["endsWith", [1]],
  ["contains", [1]],
  ["lowerAscii", [0]],
  ["upperAscii", [0]],
  ["trim", [0]],
  ["indexOf", [1, 2]],
  ["lastIndexOf", [1, 2]],
  ["substring", [1, 2]],
  ["split", [1, 2]],
  ["join", [0, 1]],
  ["all", [2]],
  ["exists", [2]],
  ["exists_one", [2]],
  ["map", [2, 3]],
  ["filter", [2]],
  ["getFullYear", [0]],
  ["getMonth", [0]],
  ["getDate", [0]],
  ["getDayOfMonth", [0]],
  ["getDayOfWeek", [0]],
  ["getHours", [0]],
  ["getMinutes", [0]],
  ["getSeconds", [0]],
  ["getMilliseconds", [0]],
]);

/** The declared shape of `args` for checking (args-type.ts): field names to CEL types or nested shapes. */
export interface ArgsShape {
  [field: string]: string | ArgsShape;
}

/** A fresh environment with `args` declared as given (the shared one's map, or a tool's shape). */
function environment(args: ArgsShape | null): Environment {
  const env = new Environment({
    unlistedVariablesAreDyn: false,
    homogeneousAggregateLiterals: true,
    enableOptionalTypes: false,
    limits: {
      maxAstNodes: POLICY_LIMITS.maxAstNodes,
      maxDepth: POLICY_LIMITS.maxDepth,
      maxListElements: POLICY_LIMITS.maxListElements,
      maxMapEntries: POLICY_LIMITS.maxMapEntries,
      maxCallArguments: POLICY_LIMITS.maxCallArguments,
    },
  }).registerVariable({
    name: "principal",
    schema: { subject_id: "string", roles: "list<string>", claims: "map<string, dyn>" },
    description: "Who the call acts for: subject_id, roles and verified claims.",
  });
  const described = { description: "The tool call's arguments." };
  return (
    args === null
      ? env.registerVariable("args", "map<string, dyn>", described)
      : env.registerVariable({ name: "args", schema: args, ...described })
  )
    .registerVariable("tool", "string", { description: "The tool's name." })
    .registerVariable("consumer", "string", { description: "The consumer's name." })
    .registerVariable("now", "int", { description: "The current time in Unix seconds." });
}

let shared: Environment | undefined;

/**
 * The one environment every policy is parsed, checked and evaluated in (built on first use; it
 * holds no per-policy state). `now` is declared an `int` of Unix seconds, so `now < 1900000000`
 * reads as written and `timestamp(now)` gives the calendar getters.
 */
export function policyEnvironment(): Environment {
  shared ??= environment(null);
  return shared;
}

/**
 * An environment whose `args` has a tool's declared shape, for checking only: a rule is
 * type-checked in it when the tool is defined, and always evaluated in {@link policyEnvironment}.
 */
export function typedEnvironment(args: ArgsShape): Environment {
  // Evaluation compares an int with a double by value (`args.amount == 100.0`); the checker lacks
  // that overload until declared (the library then answers all four of ==, != either way round).
  // The handler never runs: this environment only checks.
  return environment(args).registerOperator("int == double", () => false);
}

/** A call the policy language does not offer, with the UTF-16 index of its name. */
export interface DisallowedCall {
  readonly index: number;
  readonly message: string;
}

/** The UTF-16 index of a method's name: the first occurrence after its receiver. */
function methodNameIndex(node: Extract<ASTNode, { op: "rcall" }>): number {
  const at = node.input.indexOf(node.args[0], node.args[1].end);
  return at < 0 ? node.start : at;
}

/** The call outside the allowed functions and methods that comes first in the source, or null. */
export function disallowedCall(root: ASTNode): DisallowedCall | null {
  let found: DisallowedCall | null = null;
  const visit = (node: ASTNode): void => {
    if (node.op === "call" || node.op === "rcall") {
      const refusal = callRefusal(node);
      if (refusal !== null && (found === null || refusal.index < found.index)) found = refusal;
    }
    for (const child of children(node)) visit(child);
  };
  visit(root);
  return found;
}

function callRefusal(node: Extract<ASTNode, { op: "call" | "rcall" }>): DisallowedCall | null {
  const name = node.args[0];
  const method = node.op === "rcall";
  const count = node.op === "rcall" ? node.args[2].length : node.args[1].length;
  const allowed = (method ? ALLOWED_METHODS : ALLOWED_FUNCTIONS).get(name);
  const index = node.op === "rcall" ? methodNameIndex(node) : node.start;
  const label = method ? `method ${name}()` : `function ${name}()`;
  if (allowed === undefined) return { index, message: `the ${label} is not available in policies` };
  if (allowed.includes(count)) return null;
  const noun = allowed.length === 1 && allowed[0] === 1 ? "argument" : "arguments";
  return { index, message: `the ${label} takes ${allowed.join(" or ")} ${noun} in policies, not ${count}` };
}
