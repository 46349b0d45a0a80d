/**
 * What `INVALID_ARGUMENTS` tells the model, for tools that explain it (data-defined and code
 * tools; the reference's tools answer the catalog's bytes only): the RFC 6901 pointer of the
 * first failing argument and what was expected there, e.g. `/amount: expected an integer ≤ 1000`.
 * Built from the tool's contract, never from the value: a member name the model made up is
 * shown bounded, its hidden characters escaped.
 * @module
 */
import { codePointLength, PyFloat, pyStrip, type Json } from "../json";
import { inJsonDomain } from "../json/domain";
import { bounded, oneOf } from "../tool-schema/expected";
import { hasRuleType, type RuleType, type ToolSpec } from "./tool-spec";

/** `model_result.error.details` of an explained `INVALID_ARGUMENTS`. */
export interface ArgumentProblem {
  readonly pointer: string;
  readonly expected: string;
}

const RULE_NOUNS: Readonly<Record<RuleType, string>> = {
  str: "a string",
  int: "an integer",
  float: "a float (a number with a fraction or a decimal point)",
  bool: "a boolean",
};

const REQUIRED = "a value: the member is required";
const UNDECLARED = "no such member: the tool does not declare it";

function at(name: string): string {
  return `/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

/** The first failure of the flat `arguments` rules, in `validateArguments`' order. */
function ruleProblem(spec: ToolSpec, args: Json): ArgumentProblem {
  if (typeof args !== "object" || args === null || Array.isArray(args) || args instanceof PyFloat)
    return { pointer: "", expected: "an object" };
  const names = Object.keys(spec.arguments);
  const missing = names.find((name) => !Object.hasOwn(args, name));
  if (missing !== undefined) return { pointer: at(missing), expected: REQUIRED };
  const extra = Object.keys(args).find((key) => !Object.hasOwn(spec.arguments, key));
  if (extra !== undefined) return { pointer: at(bounded(extra)), expected: UNDECLARED };
  if (!inJsonDomain(args)) return { pointer: "", expected: "JSON values only" };
  for (const name of names) {
    const rule = spec.arguments[name];
    const value = args[name];
    if (rule === undefined) continue;
    if (!hasRuleType(value, rule.type)) return { pointer: at(name), expected: RULE_NOUNS[rule.type] };
    if (typeof value !== "string") continue;
    if (rule.minLength !== undefined && codePointLength(pyStrip(value)) < rule.minLength)
      return {
        pointer: at(name),
        expected: `a string of at least ${rule.minLength} characters, not counting outer spaces`,
      };
    if (rule.maxLength !== undefined && codePointLength(value) > rule.maxLength)
      return { pointer: at(name), expected: `a string of at most ${rule.maxLength} characters` };
    if (rule.enum !== undefined && !rule.enum.includes(value)) return { pointer: at(name), expected: oneOf(rule.enum) };
  }
  return { pointer: "", expected: "arguments the tool's contract accepts" };
}

/**
 * Why `args` fail the tool's contract (call it only when `validateArguments` answered false);
 * deterministic, so re-validation recomputes it from the call.
 */
export function argumentProblem(spec: ToolSpec, args: Json): ArgumentProblem {
  if (spec.inputSchema === undefined) return ruleProblem(spec, args);
  if (typeof args !== "object" || args === null || Array.isArray(args) || args instanceof PyFloat)
    return { pointer: "", expected: "an object" };
  if (!inJsonDomain(args)) return { pointer: "", expected: "JSON values only" };
  return spec.inputSchema.describe?.(args) ?? { pointer: "", expected: "arguments the tool's input schema accepts" };
}

/** The details a package of `spec` carries with `INVALID_ARGUMENTS`, or undefined (the reference's tools). */
export function argumentDetails(spec: ToolSpec | undefined, args: Json): ArgumentProblem | undefined {
  return spec?.explainsArguments === true ? argumentProblem(spec, args) : undefined;
}
