/**
 * The variables a policy reads, and their conversion from toolgate's JSON values to the CEL
 * library's values.
 *
 * CEL keeps `int` and `double` apart, and so does the strict JSON reader (`100` is a number,
 * `100.0` a {@link PyFloat}); the conversion keeps the distinction: an integral number becomes a
 * CEL `int` (a `bigint`), a {@link PyFloat} or a fractional number a CEL `double`. Objects become
 * `Map`s, so a key named `constructor` or `__proto__` is an ordinary key.
 * @module
 */
import { err, ok, type Result } from "../result";
import { PyFloat, type JsonObject } from "../json";
import { POLICY_LIMITS } from "./limits";

/** Who a call acts for, as a policy sees it. */
export interface PolicyPrincipal {
  /** The verified subject. */
  subject_id: string;
  /** The principal's roles. */
  roles: string[];
  /** Verified claims (an end user's JWT claims, or `{}`). */
  claims: JsonObject;
}

/** Everything a policy may read; the caller passes it in full for every evaluation. */
export interface PolicyVariables {
  /** Who the call acts for. */
  principal: PolicyPrincipal;
  /** The tool call's arguments (already validated against the tool's input schema). */
  args: JsonObject;
  /** The tool's name. */
  tool: string;
  /** The consumer's name. */
  consumer: string;
  /** The current time in Unix seconds, passed in: the core never reads a clock. */
  now: number;
}

/** The names of the variables, in declaration order. */
export const POLICY_VARIABLE_NAMES = ["principal", "args", "tool", "consumer", "now"] as const;

/** One variable's name. */
export type PolicyVariableName = (typeof POLICY_VARIABLE_NAMES)[number];

/** Why the variables could not be handed to the policy. */
export interface VariableFailure {
  readonly code: "COST_EXCEEDED" | "EVALUATION_ERROR";
  readonly message: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_INT64 = 9_223_372_036_854_775_807n;
const MIN_INT64 = -9_223_372_036_854_775_808n;

/** Converts one variable while counting its size; stops at the first failure. */
class Converter {
  private size = 0;
  failure: VariableFailure | null = null;
  /** The path to the failing value, filled in while the failure unwinds (innermost first). */
  private readonly trail: (string | number)[] = [];

  constructor(
    private readonly name: string,
    private readonly limit: number,
  ) {}

  /** Where the failure happened, as `args.items[3]["a-b"]`. */
  private where(): string {
    let out = this.name;
    for (let i = this.trail.length - 1; i >= 0; i--) {
      const part = this.trail[i];
      if (part === undefined) continue;
      out += typeof part === "number" ? `[${part}]` : IDENTIFIER.test(part) ? `.${part}` : `[${JSON.stringify(part)}]`;
    }
    return out;
  }

  /** Adds `units` to the size; false (and a failure) once the size passes the limit. */
  private charge(units: number): boolean {
    this.size += units;
    if (this.size <= this.limit) return true;
    this.failure = {
      code: "COST_EXCEEDED",
      message: `${this.name} is larger than this policy affords (size limit ${this.limit})`,
    };
    return false;
  }

  /** Records an evaluation error; the callers on the way out add the path. */
  refuse(what: string): undefined {
    this.failure = { code: "EVALUATION_ERROR", message: what };
    return undefined;
  }

  /** The failure, its message prefixed with the path of the offending value. */
  finalFailure(): VariableFailure {
    const failure = this.failure ?? { code: "EVALUATION_ERROR", message: "is missing" };
    return failure.code === "EVALUATION_ERROR"
      ? { code: failure.code, message: `${this.where()} ${failure.message}` }
      : failure;
  }

  /** The CEL value of a JSON value, or undefined with {@link failure} set. */
  json(value: unknown, depth: number): unknown {
    if (depth > POLICY_LIMITS.maxValueDepth) return this.refuse(`is nested deeper than ${POLICY_LIMITS.maxValueDepth}`);
    switch (typeof value) {
      case "boolean":
        return this.charge(1) ? value : undefined;
      case "string":
        return this.charge(1 + value.length) ? value : undefined;
      case "number":
        if (!this.charge(1)) return undefined;
        if (Number.isSafeInteger(value)) return BigInt(value);
        if (Number.isFinite(value) && !Number.isInteger(value)) return value;
        return this.refuse("is not a JSON number a policy can read (an integer beyond 2^53-1, NaN or infinite)");
      case "bigint":
        if (!this.charge(1)) return undefined;
        return value <= MAX_INT64 && value >= MIN_INT64 ? value : this.refuse("is outside the CEL int range");
      case "object":
        if (value === null) return this.charge(1) ? null : undefined;
        if (value instanceof PyFloat) return this.charge(1) ? value.value : undefined;
        if (Array.isArray(value)) return this.list(value, depth);
        if (isPlain(value)) return this.object(value, depth);
    }
    return this.refuse("is not a JSON value");
  }

  private list(value: readonly unknown[], depth: number): unknown[] | undefined {
    if (!this.charge(1)) return undefined;
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = this.json(value[i], depth + 1);
      if (item === undefined) {
        this.trail.push(i);
        return undefined;
      }
      out[i] = item;
    }
    return out;
  }

  private object(value: object, depth: number): Map<string, unknown> | undefined {
    if (!this.charge(1)) return undefined;
    const out = new Map<string, unknown>();
    for (const [key, member] of Object.entries(value)) {
      const item = this.charge(1 + key.length) ? this.json(member, depth + 1) : undefined;
      if (item === undefined) {
        this.trail.push(key);
        return undefined;
      }
      out.set(key, item);
    }
    return out;
  }

  /** A string (the tool's and the consumer's names, the principal's subject). */
  string(value: unknown): string | undefined {
    if (typeof value !== "string") return this.refuse("is not a string");
    return this.charge(1 + value.length) ? value : undefined;
  }

  /** A JSON object (the arguments, the claims). */
  record(value: unknown): Map<string, unknown> | undefined {
    if (typeof value !== "object" || value === null || Array.isArray(value) || !isPlain(value))
      return this.refuse("is not a JSON object");
    return this.object(value, 0);
  }

  /** A list of strings (the principal's roles). */
  strings(value: unknown): string[] | undefined {
    if (!Array.isArray(value)) return this.refuse("is not a list of strings");
    if (!this.charge(1)) return undefined;
    const out = new Array<string>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item !== "string") return this.refuse("is not a list of strings");
      if (!this.charge(1 + item.length)) return undefined;
      out[i] = item;
    }
    return out;
  }

  /** The principal as the declared message: its three fields, each checked. */
  principal(value: unknown): { subject_id: string; roles: string[]; claims: Map<string, unknown> } | undefined {
    if (typeof value !== "object" || value === null) return this.refuse("is not an object");
    const fields: { subject_id?: unknown; roles?: unknown; claims?: unknown } = value;
    const subjectId = this.string(fields.subject_id);
    const roles = subjectId === undefined ? undefined : this.strings(fields.roles);
    const claims = roles === undefined ? undefined : this.record(fields.claims);
    if (subjectId !== undefined && roles !== undefined && claims !== undefined)
      return { subject_id: subjectId, roles, claims };
    this.trail.push(subjectId === undefined ? "subject_id" : roles === undefined ? "roles" : "claims");
    return undefined;
  }
}

function isPlain(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function convertOne(name: PolicyVariableName, vars: PolicyVariables, converter: Converter): unknown {
  switch (name) {
    case "tool":
    case "consumer":
      return converter.string(vars[name]);
    case "args":
      return converter.record(vars.args);
    case "principal":
      return converter.principal(vars.principal);
    case "now": {
      const now: unknown = vars.now;
      return typeof now === "number" && Number.isSafeInteger(now)
        ? BigInt(now)
        : converter.refuse("is not an integer number of Unix seconds");
    }
  }
}

/**
 * The CEL values of the variables a policy reads (the others are left out), each no larger
 * than `limit` size units; a failure names the offending variable and path.
 */
export function celVariables(
  vars: PolicyVariables,
  names: readonly PolicyVariableName[],
  limit: number,
): Result<Record<string, unknown>, VariableFailure> {
  // Callers pass parsed input; the check holds even when the value does not match its type.
  const given: unknown = vars;
  if (typeof given !== "object" || given === null)
    return err({ code: "EVALUATION_ERROR", message: "the variables are not an object" });
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const converter = new Converter(name, limit);
    const value = convertOne(name, vars, converter);
    if (value === undefined) return err(converter.finalFailure());
    out[name] = value;
  }
  return ok(out);
}
