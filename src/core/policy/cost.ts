/**
 * A static upper bound on the work of one evaluation of a policy.
 *
 * The CEL library has parser limits but no evaluation cost limit, and the Worker cannot
 * interrupt a synchronous evaluation, so the bound is computed before evaluating: each node of
 * the expression gets an upper bound on its value's size and on the steps it takes, as a
 * function of `v`, an upper bound on the size of each variable. Sizes count one per value plus
 * one per character of each string and map key (see `variables.ts`, which measures the real
 * variables in the same units). The rules:
 *
 * - reading and converting the variables costs `CONVERSION_WEIGHT` steps per unit of each
 *   variable the expression reads;
 * - a literal, a variable or a selection (`a.b`, `a[i]`) costs one step; a selection's value is
 *   no larger than its operand; a list or map literal is as large as its parts;
 * - `+` copies both operands (its cost and its value's size are their sizes' sum); comparisons
 *   walk the smaller operand; `in` walks both; arithmetic and logic cost one step; where the type
 *   checker proved a value an int, double, bool or timestamp, it is one unit whatever the bound;
 * - a function walks its arguments (`size` and `contains` their strings, `startsWith` and
 *   `endsWith` the prefix); case conversion may triple a string; `split` doubles it at most,
 *   `join` adds a separator per element;
 * - a comprehension (`all`, `exists`, `exists_one`, `map`, `filter`) runs its body once per
 *   element: a list literal's length, otherwise at most `size(range) - 1` times, each element
 *   as large as the largest one can be; `map` builds a list of the body's values.
 *
 * The bound is conservative (a body over an element is charged as if each element were the
 * largest possible), and every rule is monotone in `v`, so the largest affordable input size is
 * found by bisection. It bounds the classic CEL bombs: nested comprehensions multiply their
 * ranges' lengths, a string or list doubled by chained `map(x, x + x)` doubles its size bound
 * and its cost at each step, and a deep equality walks the whole doubled value; each is refused
 * at definition time, or, when it grows with the arguments, stopped before the evaluation
 * starts because the arguments are larger than the policy affords.
 * @module
 */
import { COMPREHENSIONS, freeVariables, type ASTNode } from "./ast";
import { POLICY_LIMITS } from "./limits";

/**
 * Upper bounds for one node: the steps to evaluate it, the size of its value, and, when it is
 * iterated, the number of its elements and the size of each.
 */
interface Estimate {
  readonly cost: number;
  readonly size: number;
  readonly count: number;
  readonly element: number;
}

/** Iteration variables in scope, with their values' bounds. */
type Scope = ReadonlyMap<string, Estimate>;

/** Variables whose size is the input bound `v`; `now` is one int. */
const SIZED_VARIABLES: ReadonlySet<string> = new Set(["principal", "args", "tool", "consumer"]);

/**
 * Steps to measure and convert one unit of a variable before the evaluation (an int becomes a
 * `bigint`, which costs about as much as eight evaluation steps).
 */
const CONVERSION_WEIGHT = 8;

/** The size bound of a constant that is not a variable (a type name such as `int`). */
const CONSTANT_SIZE = 8;

/** The size bound of a number written as a string. */
const NUMBER_TEXT_SIZE = 33;

/** Types whose values are one unit: the checker's verdict lets the estimate drop their sizes. */
const SCALAR_TYPES: ReadonlySet<string> = new Set([
  "int",
  "uint",
  "double",
  "bool",
  "null",
  "type",
  "google.protobuf.Timestamp",
  "google.protobuf.Duration",
]);

/** An estimate whose elements are bounded by its size alone. */
function sized(cost: number, size: number): Estimate {
  return { cost, size, count: Math.max(0, size - 1), element: Math.max(1, size - 1) };
}

/** The name of the type the checker gave a node and of its elements (keys for a map), when it did. */
function checkedTypes(node: ASTNode): { name: string | null; element: string | null } {
  const type: unknown = Reflect.get(node, "checkedType");
  const name = nameOf(type);
  if (name === null || typeof type !== "object" || type === null) return { name, element: null };
  return { name, element: nameOf(Reflect.get(type, name.startsWith("map<") ? "keyType" : "valueType")) };
}

function nameOf(type: unknown): string | null {
  if (typeof type !== "object" || type === null) return null;
  const name: unknown = Reflect.get(type, "name");
  return typeof name === "string" ? name : null;
}

/** Tightens an estimate with the checker's types: a scalar is one unit, so are a scalar list's elements. */
function refine(node: ASTNode, estimate: Estimate): Estimate {
  const types = checkedTypes(node);
  if (types.name !== null && SCALAR_TYPES.has(types.name))
    return { cost: estimate.cost, size: 1, count: 0, element: 1 };
  if (types.element !== null && SCALAR_TYPES.has(types.element)) return { ...estimate, element: 1 };
  return estimate;
}

function literalSize(value: unknown): number {
  if (typeof value === "string") return 1 + value.length;
  if (value instanceof Uint8Array) return 1 + value.length;
  return 1;
}

/** `n * x`, zero when there are no iterations (so an infinite body over nothing costs nothing). */
function times(n: number, x: number): number {
  return n === 0 ? 0 : n * x;
}

function sum(parts: readonly Estimate[], key: "cost" | "size"): number {
  let total = 0;
  for (const part of parts) total += part[key];
  return total;
}

function estimateCall(name: string, args: readonly ASTNode[], scope: Scope, v: number): Estimate {
  const parts = args.map((arg) => estimate(arg, scope, v));
  const cost = sum(parts, "cost") + 1;
  const size = sum(parts, "size");
  switch (name) {
    case "has":
      return sized(cost, 1);
    case "dyn":
      return parts[0] === undefined ? sized(cost, size) : { ...parts[0], cost };
    case "string":
      return sized(cost + size, Math.max(size, NUMBER_TEXT_SIZE));
    default:
      return sized(cost + size, 1);
  }
}

function estimateComprehension(
  name: string,
  iter: string,
  range: Estimate,
  bodies: readonly ASTNode[],
  scope: Scope,
  v: number,
): Estimate {
  const inner = new Map(scope).set(iter, sized(1, range.element));
  const parts = bodies.map((body) => estimate(body, inner, v));
  const cost = range.cost + range.size + times(range.count, sum(parts, "cost") + 2) + 1;
  const last = parts[parts.length - 1];
  if (name === "map") {
    const element = last === undefined ? Infinity : last.size;
    return { cost, size: 1 + times(range.count, element), count: range.count, element };
  }
  if (name === "filter") return { ...range, cost };
  return sized(cost, 1);
}

function estimateMethod(name: string, receiver: ASTNode, args: readonly ASTNode[], scope: Scope, v: number): Estimate {
  const target = estimate(receiver, scope, v);
  const iter = COMPREHENSIONS.has(name) && args[0]?.op === "id" ? args[0].args : null;
  if (iter !== null) return estimateComprehension(name, iter, target, args.slice(1), scope, v);
  const parts = args.map((arg) => estimate(arg, scope, v));
  const base = target.cost + sum(parts, "cost") + 1;
  const walked = target.size + sum(parts, "size");
  switch (name) {
    case "startsWith":
    case "endsWith":
      // Compares the prefix or suffix only.
      return sized(base + sum(parts, "size"), 1);
    case "size":
    case "contains":
    case "indexOf":
    case "lastIndexOf":
      return sized(base + walked, 1);
    case "lowerAscii":
    case "upperAscii":
      return sized(base + 3 * target.size, 3 * target.size);
    case "trim":
    case "substring":
      return sized(base + target.size, target.size);
    case "split":
      return { cost: base + walked, size: 2 * target.size, count: target.size, element: target.size };
    case "join": {
      const out = target.size * (1 + (parts[0]?.size ?? 0)) + 1;
      return sized(base + out, out);
    }
    default:
      // The timestamp getters; any other name was refused before the estimate.
      return name.startsWith("get") ? sized(base, 1) : sized(Infinity, Infinity);
  }
}

function estimateOperator(node: Extract<ASTNode, { args: [ASTNode, ASTNode] }>, scope: Scope, v: number): Estimate {
  const left = estimate(node.args[0], scope, v);
  const right = estimate(node.args[1], scope, v);
  const both = left.cost + right.cost + 1;
  switch (node.op) {
    case "+": {
      // Strings and lists are copied; the checker's types make numbers one unit (see refine).
      const copied = left.size + right.size;
      return {
        cost: both + copied,
        size: copied,
        count: left.count + right.count,
        element: Math.max(left.element, right.element),
      };
    }
    case "in":
      return sized(both + left.size + right.size, 1);
    case "==":
    case "!=":
    case "<":
    case "<=":
    case ">":
    case ">=":
      return sized(both + Math.min(left.size, right.size), 1);
    case "[]":
    case "[?]":
      // A list's element or a map's value: no larger than the operand.
      return sized(both, left.size);
    default:
      // && || - * / %
      return sized(both, 1);
  }
}

function estimate(node: ASTNode, scope: Scope, v: number): Estimate {
  return refine(node, estimateNode(node, scope, v));
}

function estimateNode(node: ASTNode, scope: Scope, v: number): Estimate {
  switch (node.op) {
    case "value":
      return sized(1, literalSize(node.args));
    case "id": {
      const bound = scope.get(node.args);
      if (bound !== undefined) return bound;
      return sized(1, SIZED_VARIABLES.has(node.args) ? v : node.args === "now" ? 1 : CONSTANT_SIZE);
    }
    case ".":
    case ".?": {
      const target = estimate(node.args[0], scope, v);
      return sized(target.cost + 1, target.size);
    }
    case "list": {
      const parts = node.args.map((item) => estimate(item, scope, v));
      const element = parts.reduce((max, part) => Math.max(max, part.size), 1);
      return {
        cost: sum(parts, "cost") + parts.length + 1,
        size: sum(parts, "size") + 1,
        count: parts.length,
        element,
      };
    }
    case "map": {
      const keys = node.args.map(([key]) => estimate(key, scope, v));
      const values = node.args.map(([, value]) => estimate(value, scope, v));
      const element = keys.reduce((max, key) => Math.max(max, key.size), 1);
      return {
        cost: sum(keys, "cost") + sum(values, "cost") + 2 * keys.length + 1,
        size: sum(keys, "size") + sum(values, "size") + 1,
        count: keys.length,
        element,
      };
    }
    case "!_":
    case "-_":
      return sized(estimate(node.args, scope, v).cost + 1, 1);
    case "?:": {
      const cond = estimate(node.args[0], scope, v);
      const then = estimate(node.args[1], scope, v);
      const otherwise = estimate(node.args[2], scope, v);
      return {
        cost: cond.cost + Math.max(then.cost, otherwise.cost) + 1,
        size: Math.max(then.size, otherwise.size),
        count: Math.max(then.count, otherwise.count),
        element: Math.max(then.element, otherwise.element),
      };
    }
    case "call":
      return estimateCall(node.args[0], node.args[1], scope, v);
    case "rcall":
      return estimateMethod(node.args[0], node.args[1], node.args[2], scope, v);
    default:
      return estimateOperator(node, scope, v);
  }
}

/**
 * The estimated steps of one evaluation when every variable's size is at most `inputSize`,
 * measuring and converting the variables it reads included.
 */
export function estimateCost(root: ASTNode, inputSize: number): number {
  let reads = 0;
  for (const name of freeVariables(root)) if (SIZED_VARIABLES.has(name)) reads++;
  return estimate(root, new Map(), inputSize).cost + CONVERSION_WEIGHT * reads * inputSize;
}

/** The cost bounds of a policy, computed once when it is compiled. */
export interface CostBounds {
  /** The estimated cost for variables of {@link POLICY_LIMITS.compileInputSize}. */
  readonly compileCost: number;
  /** The largest variable size whose estimated cost stays within the limit (`Infinity` when the cost does not grow with the input). */
  readonly maxInputSize: number;
}

/** Beyond this size every variable is too large anyway (the strict reader's bodies are far smaller). */
const SEARCH_CEILING = 2 ** 31;

/** The cost at the compile-time input size and the largest affordable input size. */
export function costBounds(root: ASTNode): CostBounds {
  const fits = (size: number): boolean => estimateCost(root, size) <= POLICY_LIMITS.maxCost;
  const compileCost = estimateCost(root, POLICY_LIMITS.compileInputSize);
  if (compileCost > POLICY_LIMITS.maxCost) return { compileCost, maxInputSize: 0 };
  if (fits(SEARCH_CEILING)) return { compileCost, maxInputSize: Infinity };
  let low: number = POLICY_LIMITS.compileInputSize;
  let high = SEARCH_CEILING;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle;
  }
  return { compileCost, maxInputSize: low };
}
