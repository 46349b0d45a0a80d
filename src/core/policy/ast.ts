/**
 * A typed walk over the CEL library's parsed expression (its surface syntax: macros such as
 * `map` and `all` stay method calls, their iteration variable the first argument).
 * @module
 */
import type { ASTNode } from "@marcbachmann/cel-js";

export type { ASTNode };

/** The macros that bind an iteration variable (their first argument) over a list or a map. */
export const COMPREHENSIONS: ReadonlySet<string> = new Set(["all", "exists", "exists_one", "map", "filter"]);

/** The sub-expressions of a node, in source order. */
export function children(node: ASTNode): readonly ASTNode[] {
  switch (node.op) {
    case "value":
    case "id":
      return [];
    case ".":
    case ".?":
      return [node.args[0]];
    case "call":
      return node.args[1];
    case "rcall":
      return [node.args[1], ...node.args[2]];
    case "map":
      return node.args.flat();
    case "!_":
    case "-_":
      return [node.args];
    default:
      return node.args;
  }
}

/** The iteration variable of a comprehension macro call, or null for any other node. */
export function iterationVariable(node: ASTNode): string | null {
  if (node.op !== "rcall" || !COMPREHENSIONS.has(node.args[0])) return null;
  const first = node.args[2][0];
  return first !== undefined && first.op === "id" ? first.args : null;
}

/** The names of the variables an expression reads (iteration variables excluded). */
export function freeVariables(root: ASTNode): Set<string> {
  const found = new Set<string>();
  const visit = (node: ASTNode, bound: ReadonlySet<string>): void => {
    if (node.op === "id") {
      if (!bound.has(node.args)) found.add(node.args);
      return;
    }
    const iter = iterationVariable(node);
    if (node.op === "rcall" && iter !== null) {
      visit(node.args[1], bound);
      const inner = new Set(bound).add(iter);
      for (const arg of node.args[2].slice(1)) visit(arg, inner);
      return;
    }
    for (const child of children(node)) visit(child, bound);
  };
  visit(root, new Set());
  return found;
}
