/**
 * Regular expressions made on their first test (issue #32, cold start): making an expression with
 * a Unicode property class (`\p{L}`, `\p{Cn}`) builds that class's table, and a module-level
 * literal would build every one of them when the module starts, before any text needs them.
 * @module
 */

/** What the text modules ask of an expression: a test (no `g` or `y` flag, so no state between tests). */
export interface Pattern {
  test(text: string): boolean;
}

/** The expression `make` answers, made by the first test and kept. */
export function lazyPattern(make: () => RegExp): Pattern {
  let made: RegExp | undefined;
  return { test: (text) => (made ??= make()).test(text) };
}
