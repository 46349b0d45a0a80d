/**
 * The bounds of a CEL policy: what its source may hold and what one evaluation may cost.
 * @module
 */

/**
 * Every limit a policy is held to. The parser limits are handed to the CEL library (it refuses
 * with the offending position); the cost limits are toolgate's own estimate (see `cost.ts`).
 */
export const POLICY_LIMITS = {
  /** Length of the expression, in Unicode code points. */
  maxSourceChars: 2048,
  /** Nodes of the parsed expression (the library's `maxAstNodes`). */
  maxAstNodes: 1024,
  /** Nesting of calls, selections, indexes and literals (the library's `maxDepth`). */
  maxDepth: 32,
  /** Elements of one list literal. */
  maxListElements: 256,
  /** Entries of one map literal. */
  maxMapEntries: 256,
  /** Arguments of one call. */
  maxCallArguments: 8,
  /**
   * The largest estimated cost of one evaluation, in steps (one step is one node evaluated or
   * one element or character a function walks, about 40 ns on a current server); about 20 ms
   * of work at most.
   */
  maxCost: 500_000,
  /**
   * The input size every accepted policy must afford: a policy whose estimated cost for
   * variables of this size exceeds `maxCost` is refused when it is defined. Sizes count one per
   * value plus one per character of each string and object key.
   */
  compileInputSize: 256,
  /** Nesting of the variables' JSON values; deeper values fail the evaluation. */
  maxValueDepth: 32,
} as const;
