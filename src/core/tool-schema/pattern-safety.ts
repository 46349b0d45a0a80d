/**
 * A conservative static check that a `pattern` cannot backtrack catastrophically in a
 * backtracking engine (V8's irregexp). A pattern passes only when:
 *
 * 1. it has no backreference and no lookbehind, and every group is `( )`, `(?: )`, `(?<name> )`
 *    or a lookahead `(?= )` / `(?! )` whose body has no repetition beyond `?`;
 * 2. a repeated part (`*`, `+`, `{n,m}` with m > 1) holds no quantifier at all and cannot match
 *    the empty string (refuses `(a+)+`, `(a*)*`, `(ab?)*`, `(a|)*`);
 * 3. an optional part (`?`, `{0,1}`) cannot already match the empty string, and an alternation
 *    has at most one option that matches it (each piece matches "nothing" in at most one way);
 * 4. it is deterministic in the Glushkov sense: where a match can start, and after every
 *    position, the positions that may come next match disjoint sets of characters (refuses
 *    `(a|a)*`, `a*a*b`, `a?a?aa`, `\w+\d`). `{n,m}` counts as `*` or `+`; `\p{…}` is assumed to
 *    match any character.
 *
 * Then a match attempt never has two live ways forward, so it runs in time linear in the subject
 * (times the pattern's length). A search tries every start, so an unanchored pattern costs up to
 * the square of the subject's length: the compiler requires `maxLength` ≤ 256
 * (SCHEMA_LIMITS.maxPatternSubjectLength) unless the pattern is anchored with a leading `^`.
 * @module
 */
import type { CharSet } from "./char-set";
import { SCHEMA_LIMITS } from "./limits";
import { parsePattern, PatternRisk, type RegexNode } from "./regex-parse";

interface Facts {
  readonly nullable: boolean;
  /** Ways to match the empty string, capped at 2. */
  readonly ways: number;
  readonly first: readonly number[];
  readonly last: readonly number[];
  /** Holds a quantifier (any, `?` included). */
  readonly quantified: boolean;
  /** Holds a repetition beyond `?`. */
  readonly repeats: boolean;
}

const EMPTY: Facts = { nullable: true, ways: 1, first: [], last: [], quantified: false, repeats: false };

/** The Glushkov construction over one (sub)pattern: positions, their sets and follow lists. */
class Glushkov {
  readonly sets: CharSet[] = [];
  readonly offsets: number[] = [];
  readonly follow: number[][] = [];

  visit(node: RegexNode): Facts {
    switch (node.kind) {
      case "char": {
        const id = this.sets.length;
        this.sets.push(node.set);
        this.offsets.push(node.at);
        this.follow.push([]);
        return { nullable: false, ways: 0, first: [id], last: [id], quantified: false, repeats: false };
      }
      case "empty":
      case "assertion":
        return EMPTY;
      case "lookahead": {
        const inner = analyse(node.body);
        if (inner.repeats) throw new PatternRisk(`a lookahead holds a repetition (at offset ${node.at})`);
        return { ...EMPTY, quantified: inner.quantified };
      }
      case "sequence":
        return node.items.reduce((acc, item) => this.join(acc, this.visit(item)), EMPTY);
      case "alternation": {
        const all = node.options.map((option) => this.visit(option));
        const ways = all.reduce((sum, f) => sum + f.ways, 0);
        if (ways > 1)
          throw new PatternRisk(`an alternation matches the empty string in more than one way (at offset ${node.at})`);
        return {
          nullable: ways > 0,
          ways,
          first: all.flatMap((f) => f.first),
          last: all.flatMap((f) => f.last),
          quantified: all.some((f) => f.quantified),
          repeats: all.some((f) => f.repeats),
        };
      }
      case "repeat":
        return this.repeat(node.body, node.min, node.max, node.at);
    }
  }

  private join(left: Facts, right: Facts): Facts {
    for (const x of left.last) this.follow[x]?.push(...right.first);
    return {
      nullable: left.nullable && right.nullable,
      ways: Math.min(2, left.ways * right.ways),
      first: left.nullable ? [...left.first, ...right.first] : left.first,
      last: right.nullable ? [...left.last, ...right.last] : right.last,
      quantified: left.quantified || right.quantified,
      repeats: left.repeats || right.repeats,
    };
  }

  private repeat(node: RegexNode, min: number, max: number, at: number): Facts {
    if (min > SCHEMA_LIMITS.maxPatternRepeat || (max !== Infinity && max > SCHEMA_LIMITS.maxPatternRepeat)) {
      throw new PatternRisk(`a repetition count above ${SCHEMA_LIMITS.maxPatternRepeat} (at offset ${at})`);
    }
    const body = this.visit(node);
    if (max === 0) return { ...EMPTY, quantified: true, repeats: body.repeats };
    if (max === 1) {
      if (min === 1) return { ...body, quantified: true };
      if (body.nullable)
        throw new PatternRisk(`an optional part that already matches the empty string (at offset ${at})`);
      return { ...body, nullable: true, ways: 1, quantified: true };
    }
    if (body.quantified)
      throw new PatternRisk(`nested quantifiers: a repeated part holds a quantifier (at offset ${at})`);
    if (body.nullable) throw new PatternRisk(`a repeated part matches the empty string (at offset ${at})`);
    for (const x of body.last) this.follow[x]?.push(...body.first);
    return { ...body, nullable: min === 0, ways: min === 0 ? 1 : 0, quantified: true, repeats: true };
  }

  /** Throws when two positions of the list can match one character (or one position is reached twice). */
  checkDisjoint(list: readonly number[]): void {
    const ranges: [number, number, number][] = [];
    for (const id of list) for (const [lo, hi] of this.sets[id] ?? []) ranges.push([lo, hi, id]);
    ranges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let reach: [number, number, number] | undefined;
    for (const range of ranges) {
      if (reach !== undefined && range[0] <= reach[1]) {
        const [a, b] = [this.offsets[reach[2]], this.offsets[range[2]]].sort((x = 0, y = 0) => x - y);
        // The same position twice would take a second route to one part (rule 2 leaves none: defensive).
        if (a === b) throw new PatternRisk(`ambiguous: one part is reached in two ways (at offset ${a})`);
        throw new PatternRisk(
          `ambiguous: the parts at offsets ${a} and ${b} can match the same character at the same point`,
        );
      }
      if (reach === undefined || range[1] > reach[1]) reach = range;
    }
  }
}

/** Builds and checks one (sub)pattern; answers its facts. */
function analyse(node: RegexNode): Facts {
  const glushkov = new Glushkov();
  const facts = glushkov.visit(node);
  glushkov.checkDisjoint(facts.first);
  for (const list of glushkov.follow) glushkov.checkDisjoint(list);
  return facts;
}

/** True when every match must begin at the subject's start (`^…`, or `^a|^b`): the search tries one position. */
function anchoredAtStart(node: RegexNode): boolean {
  if (node.kind === "assertion") return node.start;
  if (node.kind === "sequence") return node.items[0] !== undefined && anchoredAtStart(node.items[0]);
  if (node.kind === "alternation") return node.options.every(anchoredAtStart);
  return false;
}

/** The verdict on one pattern: why it risks catastrophic backtracking (or null), and whether it is anchored at the start. */
export interface PatternAssessment {
  readonly risk: string | null;
  readonly anchored: boolean;
}

/** Assesses a pattern that already compiles with `new RegExp(pattern, "u")`. */
export function assessPattern(pattern: string): PatternAssessment {
  try {
    const tree = parsePattern(pattern);
    analyse(tree);
    return { risk: null, anchored: anchoredAtStart(tree) };
  } catch (caught) {
    if (caught instanceof PatternRisk) return { risk: caught.reason, anchored: false };
    throw caught;
  }
}

/**
 * Why a pattern risks catastrophic backtracking, or null when it passes the check above. The
 * pattern must already compile with `new RegExp(pattern, "u")`.
 */
export function patternRisk(pattern: string): string | null {
  return assessPattern(pattern).risk;
}
