/**
 * A parser of ECMAScript patterns in `u` mode (already accepted by `new RegExp(p, "u")`) into the
 * small tree the backtracking-risk analysis needs. Offsets count code points. Backreferences and
 * lookbehind are refused here; anything the parser does not know is refused too.
 * @module
 */
import { ANY, complement, DIGIT, DOT, SPACE, single, union, WORD, type CharSet } from "./char-set";

/** The pattern tree: positions (`char`) and the structure around them. */
export type RegexNode =
  | { readonly kind: "char"; readonly set: CharSet; readonly at: number }
  | { readonly kind: "empty" }
  | { readonly kind: "assertion"; readonly start: boolean }
  | { readonly kind: "lookahead"; readonly body: RegexNode; readonly at: number }
  | { readonly kind: "sequence"; readonly items: readonly RegexNode[] }
  | { readonly kind: "alternation"; readonly options: readonly RegexNode[]; readonly at: number }
  | {
      readonly kind: "repeat";
      readonly body: RegexNode;
      readonly min: number;
      readonly max: number;
      readonly at: number;
    };

/** Why a pattern is refused; thrown inside the analysis and answered as text. */
export class PatternRisk {
  constructor(readonly reason: string) {}
}

const cp = (c: string): number => c.codePointAt(0) as number;
// Built on the first pattern parsed, not when the module loads.
let escapes: Record<string, CharSet> | undefined;
const classEscapes = (): Record<string, CharSet> =>
  (escapes ??= {
    d: DIGIT,
    D: complement(DIGIT),
    w: WORD,
    W: complement(WORD),
    s: SPACE,
    S: complement(SPACE),
  });
const CONTROL: Record<string, number> = { f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09, v: 0x0b };

class Parser {
  private pos = 0;
  private readonly chars: string[];

  constructor(pattern: string) {
    this.chars = Array.from(pattern);
  }

  parse(): RegexNode {
    const node = this.disjunction();
    if (this.pos < this.chars.length) this.unsupported();
    return node;
  }

  private unsupported(): never {
    throw new PatternRisk(`unsupported syntax at offset ${this.pos}`);
  }

  private peek(ahead = 0): string | undefined {
    return this.chars[this.pos + ahead];
  }

  private next(): string {
    const c = this.chars[this.pos];
    if (c === undefined) this.unsupported();
    this.pos++;
    return c;
  }

  private disjunction(): RegexNode {
    const options = [this.alternative()];
    const at = this.pos;
    while (this.peek() === "|") {
      this.pos++;
      options.push(this.alternative());
    }
    return options.length === 1 ? (options[0] as RegexNode) : { kind: "alternation", options, at };
  }

  private alternative(): RegexNode {
    const items: RegexNode[] = [];
    for (let c = this.peek(); c !== undefined && c !== "|" && c !== ")"; c = this.peek()) items.push(this.term());
    if (items.length === 0) return { kind: "empty" };
    return items.length === 1 ? (items[0] as RegexNode) : { kind: "sequence", items };
  }

  private term(): RegexNode {
    const c = this.peek();
    if (c === "^" || c === "$") {
      this.pos++;
      return { kind: "assertion", start: c === "^" };
    }
    if (c === "\\" && (this.peek(1) === "b" || this.peek(1) === "B")) {
      this.pos += 2;
      return { kind: "assertion", start: false };
    }
    if (c === "(" && this.peek(1) === "?") {
      const at = this.pos;
      const kind = this.peek(2);
      if (kind === "=" || kind === "!") {
        this.pos += 3;
        return { kind: "lookahead", body: this.group(), at };
      }
      if (kind === "<" && (this.peek(3) === "=" || this.peek(3) === "!"))
        throw new PatternRisk(`lookbehind at offset ${at}`);
    }
    return this.quantified(this.atom());
  }

  private group(): RegexNode {
    const body = this.disjunction();
    if (this.next() !== ")") this.unsupported();
    return body;
  }

  private atom(): RegexNode {
    const at = this.pos;
    const c = this.next();
    if (c === ".") return { kind: "char", set: DOT, at };
    if (c === "[") return { kind: "char", set: this.characterClass(), at };
    if (c === "\\") return { kind: "char", set: this.escape(false), at };
    if (c === "(") {
      if (this.peek() === "?") {
        if (this.peek(1) === ":") this.pos += 2;
        else if (this.peek(1) === "<") {
          while (this.peek() !== undefined && this.peek() !== ">") this.pos++;
          this.next();
        } else this.unsupported();
      }
      return this.group();
    }
    if ("*+?{})]|".includes(c)) {
      this.pos = at;
      this.unsupported();
    }
    return { kind: "char", set: single(cp(c)), at };
  }

  private quantified(body: RegexNode): RegexNode {
    const at = this.pos;
    const c = this.peek();
    let min: number;
    let max: number;
    if (c === "*" || c === "+" || c === "?") {
      this.pos++;
      min = c === "+" ? 1 : 0;
      max = c === "?" ? 1 : Infinity;
    } else if (c === "{") {
      this.pos++;
      min = this.count();
      max = min;
      if (this.peek() === ",") {
        this.pos++;
        max = this.peek() === "}" ? Infinity : this.count();
      }
      if (this.next() !== "}") this.unsupported();
    } else return body;
    if (this.peek() === "?") this.pos++;
    return { kind: "repeat", body, min, max, at };
  }

  private count(): number {
    const start = this.pos;
    while (/[0-9]/.test(this.peek() ?? "")) this.pos++;
    if (this.pos === start) this.unsupported();
    return Number(this.chars.slice(start, this.pos).join(""));
  }

  private characterClass(): CharSet {
    const negated = this.peek() === "^";
    if (negated) this.pos++;
    const parts: CharSet[] = [];
    while (this.peek() !== "]") {
      const from = this.classAtom();
      if (
        this.peek() === "-" &&
        this.peek(1) !== "]" &&
        this.peek(1) !== undefined &&
        from.length === 1 &&
        from[0]?.[0] === from[0]?.[1]
      ) {
        this.pos++;
        const to = this.classAtom();
        const lo = from[0]?.[0] ?? 0;
        const hi = to[0]?.[0] ?? 0;
        if (to.length !== 1 || to[0]?.[0] !== to[0]?.[1] || hi < lo) this.unsupported();
        parts.push([[lo, hi]]);
      } else parts.push(from);
    }
    this.pos++;
    const set = union(...parts);
    return negated ? complement(set) : set;
  }

  private classAtom(): CharSet {
    const c = this.next();
    if (c !== "\\") return single(cp(c));
    if (this.peek() === "b") {
      this.pos++;
      return single(0x08);
    }
    if (this.peek() === "-") {
      this.pos++;
      return single(0x2d);
    }
    return this.escape(true);
  }

  /** After a backslash: a class escape, or one code point. */
  private escape(inClass: boolean): CharSet {
    const at = this.pos - 1;
    const c = this.next();
    const known = classEscapes()[c];
    if (known !== undefined) return known;
    if (c === "p" || c === "P") {
      // Unicode properties are not modelled: assumed to match anything (conservative).
      while (this.peek() !== undefined && this.peek() !== "}") this.pos++;
      this.next();
      return ANY;
    }
    if ((/[1-9]/.test(c) || c === "k") && !inClass) throw new PatternRisk(`backreference at offset ${at}`);
    const control = CONTROL[c];
    if (control !== undefined) return single(control);
    if (c === "c") return single(cp(this.next()) % 32);
    if (c === "0") return single(0);
    if (c === "x") return single(this.hex(2));
    if (c === "u") return single(this.unicodeEscape());
    if (/[0-9A-Za-z]/.test(c)) this.unsupported();
    return single(cp(c));
  }

  private hex(digits: number): number {
    const text = this.chars.slice(this.pos, this.pos + digits).join("");
    if (!/^[0-9A-Fa-f]+$/.test(text) || text.length !== digits) this.unsupported();
    this.pos += digits;
    return parseInt(text, 16);
  }

  private unicodeEscape(): number {
    if (this.peek() === "{") {
      this.pos++;
      let digits = 0;
      while (this.peek(digits) !== "}" && this.peek(digits) !== undefined) digits++;
      const value = this.hex(digits);
      this.next();
      return value;
    }
    const lead = this.hex(4);
    if (lead >= 0xd800 && lead <= 0xdbff && this.peek() === "\\" && this.peek(1) === "u") {
      const text = this.chars.slice(this.pos + 2, this.pos + 6).join("");
      const trail = /^[0-9A-Fa-f]{4}$/.test(text) ? parseInt(text, 16) : -1;
      if (trail >= 0xdc00 && trail <= 0xdfff) {
        this.pos += 6;
        return 0x10000 + ((lead - 0xd800) << 10) + (trail - 0xdc00);
      }
    }
    return lead;
  }
}

/** Parses a pattern that `new RegExp(pattern, "u")` accepts. Throws {@link PatternRisk}. */
export function parsePattern(pattern: string): RegexNode {
  return new Parser(pattern).parse();
}
