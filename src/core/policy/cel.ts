/**
 * CEL policies of data-defined tools: compiled (parsed, restricted to the allowed functions,
 * type-checked, cost-bounded) once when a tool is defined, evaluated for every call.
 *
 * A refusal carries the position of the offending character (in Unicode code points from the
 * start of the expression) when there is one. An evaluation answers a boolean or a
 * {@link PolicyFailure}, never throws, and callers treat a failure as a deny.
 * @module
 */
import { EvaluationError, ParseError, TypeError as CelTypeError, type ParseResult } from "@marcbachmann/cel-js";
import { codePointLength, isWellFormed } from "../json";
import { err, ok, type Result } from "../result";
import { freeVariables } from "./ast";
import { costBounds } from "./cost";
import { disallowedCall, policyEnvironment } from "./environment";
import { POLICY_LIMITS } from "./limits";
import { celVariables, POLICY_VARIABLE_NAMES, type PolicyVariableName, type PolicyVariables } from "./variables";

/** Where a policy is used: a tool's `authorize` rule or its `approval` rule. Both read the same variables. */
export type PolicyUse = "authorize" | "approval";

/** Why an expression was refused when it was defined. */
export interface PolicyRefusal {
  /** Code-point offset of the syntax or type error in the expression, or null when the refusal is about the whole. */
  readonly position: number | null;
  /** What is wrong, in a sentence. */
  readonly message: string;
}

/** Why an evaluation answered no boolean; callers deny. */
export interface PolicyFailure {
  /**
   * `COST_EXCEEDED`: the variables are larger than the policy's cost bound affords;
   * `NOT_BOOLEAN`: a `dyn` result was not a bool; `EVALUATION_ERROR`: a runtime error (a missing
   * key, a division by zero, no matching overload, an unreadable variable).
   */
  readonly code: "COST_EXCEEDED" | "NOT_BOOLEAN" | "EVALUATION_ERROR";
  readonly message: string;
}

/** A checked expression, ready to evaluate any number of times. */
export interface CompiledPolicy {
  /** The expression as defined. */
  readonly source: string;
  /** Where it is used. */
  readonly use: PolicyUse;
  /** The largest size of any variable it reads that its cost bound affords (`Infinity` when its cost does not depend on them). */
  readonly maxInputSize: number;
  /** True or false, or a failure (never throws). */
  evaluate(vars: PolicyVariables): Result<boolean, PolicyFailure>;
}

type CelError = ParseError | CelTypeError | EvaluationError;

function isCelError(error: unknown): error is CelError {
  return error instanceof ParseError || error instanceof CelTypeError || error instanceof EvaluationError;
}

/** The code-point offset of a UTF-16 index into the source. */
function position(source: string, index: number): number {
  return codePointLength(source.slice(0, index));
}

function refusalOf(source: string, error: unknown): PolicyRefusal {
  if (isCelError(error)) {
    const start = error.range?.start;
    return { position: start === undefined ? null : position(source, start), message: error.summary };
  }
  return {
    position: null,
    message: `the expression could not be checked: ${error instanceof Error ? error.message : String(error)}`,
  };
}

function celTypeName(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "bigint") return "int";
  if (typeof value === "number") return "double";
  if (Array.isArray(value)) return "list";
  if (value instanceof Map) return "map";
  return typeof value === "object" ? "map" : typeof value;
}

class Policy implements CompiledPolicy {
  constructor(
    readonly source: string,
    readonly use: PolicyUse,
    readonly maxInputSize: number,
    private readonly program: ParseResult,
    private readonly reads: readonly PolicyVariableName[],
  ) {
    Object.freeze(this);
  }

  evaluate(vars: PolicyVariables): Result<boolean, PolicyFailure> {
    try {
      const context = celVariables(vars, this.reads, this.maxInputSize);
      if (!context.ok) return err(context.error);
      const value: unknown = this.program(context.value);
      if (typeof value === "boolean") return ok(value);
      return err({
        code: "NOT_BOOLEAN",
        message: `the expression answered a value of type ${celTypeName(value)}, not a bool`,
      });
    } catch (error) {
      if (isCelError(error)) {
        const start = error.range?.start;
        const at = start === undefined ? "" : ` (at ${position(this.source, start)})`;
        return err({ code: "EVALUATION_ERROR", message: `${error.summary}${at}` });
      }
      return err({
        code: "EVALUATION_ERROR",
        message: error instanceof Error ? error.message : "the evaluation failed",
      });
    }
  }
}

/**
 * Parses and checks a policy: its length, its syntax, the functions it calls, the types of its
 * variables and operators, a boolean (or `dyn`) result, and its estimated cost for inputs of
 * {@link POLICY_LIMITS.compileInputSize}.
 */
export function compilePolicy(source: string, use: PolicyUse): Result<CompiledPolicy, PolicyRefusal> {
  if (typeof source !== "string") return err({ position: null, message: "the expression is not a string" });
  if (!isWellFormed(source)) return err({ position: null, message: "the expression is not well-formed Unicode" });
  const length = codePointLength(source);
  if (length > POLICY_LIMITS.maxSourceChars) {
    return err({
      position: POLICY_LIMITS.maxSourceChars,
      message: `the expression is ${length} characters long; the limit is ${POLICY_LIMITS.maxSourceChars}`,
    });
  }
  let program: ParseResult;
  try {
    program = policyEnvironment().parse(source);
  } catch (error) {
    return err(refusalOf(source, error));
  }
  const disallowed = disallowedCall(program.ast);
  if (disallowed !== null) return err({ position: position(source, disallowed.index), message: disallowed.message });
  const checked = program.check();
  if (!checked.valid) return err(refusalOf(source, checked.error));
  if (checked.type !== "bool" && checked.type !== "dyn") {
    return err({
      position: position(source, program.ast.start),
      message: `the expression must answer a bool, not ${checked.type ?? "an unknown type"}`,
    });
  }
  const bounds = costBounds(program.ast);
  if (bounds.compileCost > POLICY_LIMITS.maxCost) {
    return err({
      position: null,
      message: `the expression's estimated cost exceeds ${POLICY_LIMITS.maxCost} steps for variables of size ${POLICY_LIMITS.compileInputSize} (nested comprehensions or repeated concatenation?)`,
    });
  }
  const free = freeVariables(program.ast);
  const reads = POLICY_VARIABLE_NAMES.filter((name) => free.has(name));
  return ok(new Policy(source, use, bounds.maxInputSize, program, reads));
}
