/**
 * The strict JSON reader: one pass over the bytes with every refusal the reference makes.
 * @module
 */
import { JSON_DOMAIN, stringTooLong } from "./domain";
import { isWellFormed } from "./python-text";
import {
  refuse,
  Refusal,
  type JsonReadError,
  type JsonReadErrorCode,
  type ReadJsonOptions,
  type ReadJsonResult,
} from "./read-result";
import { type Json, type JsonObject, PyFloat } from "./value";

export type { JsonReadError, JsonReadErrorCode, ReadJsonOptions, ReadJsonResult } from "./read-result";

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** A strict RFC 8259 recursive-descent parser over decoded text; depth is bounded before each descent. */
class Parser {
  private pos = 0;
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
    private readonly bigints: boolean,
    private readonly domain: boolean,
  ) {}

  parseDocument(): Json {
    this.skipSpace();
    const value = this.parseValue("$");
    this.skipSpace();
    if (this.pos < this.text.length) this.fail("JSON_SYNTAX", "unexpected data after the JSON value");
    return value;
  }

  private fail(code: JsonReadErrorCode, message: string, path?: string): never {
    const error: JsonReadError = { code, message: `${message} (at offset ${this.pos})`, offset: this.pos };
    if (path !== undefined) error.path = path;
    throw new Refusal(error);
  }

  private skipSpace(): void {
    const text = this.text;
    let pos = this.pos;
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      pos++;
    }
    this.pos = pos;
  }

  private parseValue(path: string): Json {
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x7b) return this.parseObject(path);
    if (c === 0x5b) return this.parseArray(path);
    if (c === 0x22) return this.parseString(path);
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.parseNumber(path);
    if (this.text.startsWith("true", this.pos)) {
      this.pos += 4;
      return true;
    }
    if (this.text.startsWith("false", this.pos)) {
      this.pos += 5;
      return false;
    }
    if (this.text.startsWith("null", this.pos)) {
      this.pos += 4;
      return null;
    }
    for (const constant of ["NaN", "Infinity", "-Infinity"]) {
      if (this.text.startsWith(constant, this.pos))
        this.fail("JSON_NON_FINITE", `JSON disallows non-finite constants: ${constant}`, path);
    }
    if (this.pos >= this.text.length) this.fail("JSON_SYNTAX", "unexpected end of input");
    return this.fail("JSON_SYNTAX", "unexpected character");
  }

  private enter(path: string): void {
    if (++this.depth > this.maxDepth) this.fail("JSON_TOO_DEEP", `JSON nesting exceeds ${this.maxDepth} levels`, path);
  }

  private parseArray(path: string): Json[] {
    this.enter(path);
    this.pos++;
    const items: Json[] = [];
    this.skipSpace();
    if (this.text.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      this.depth--;
      return items;
    }
    for (;;) {
      this.skipSpace();
      items.push(this.parseValue(`${path}[${items.length}]`));
      if (this.domain && items.length > JSON_DOMAIN.maxEntries)
        this.fail("JSON_DOMAIN", `${path} array is too long`, path);
      this.skipSpace();
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x2c) {
        this.pos++;
        continue;
      }
      if (c === 0x5d) {
        this.pos++;
        this.depth--;
        return items;
      }
      this.fail("JSON_SYNTAX", "expected ',' or ']' in array");
    }
  }

  private parseObject(path: string): JsonObject {
    this.enter(path);
    this.pos++;
    const object: JsonObject = {};
    let count = 0;
    this.skipSpace();
    if (this.text.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      this.depth--;
      return object;
    }
    for (;;) {
      this.skipSpace();
      if (this.text.charCodeAt(this.pos) !== 0x22) this.fail("JSON_SYNTAX", "expected a string key");
      const key = this.parseString(`${path}.<key>`);
      if (Object.hasOwn(object, key))
        this.fail("JSON_DUPLICATE_KEY", `JSON contains a duplicate field: ${key}`, `${path}.${key}`);
      this.skipSpace();
      if (this.text.charCodeAt(this.pos) !== 0x3a) this.fail("JSON_SYNTAX", "expected ':' after an object key");
      this.pos++;
      this.skipSpace();
      const value = this.parseValue(`${path}.${key}`);
      // Assignment would run the `__proto__` setter; define it as an ordinary own key instead.
      if (key === "__proto__") {
        Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
      } else {
        object[key] = value;
      }
      if (this.domain && ++count > JSON_DOMAIN.maxEntries)
        this.fail("JSON_DOMAIN", `${path} object has too many fields`, path);
      this.skipSpace();
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x2c) {
        this.pos++;
        continue;
      }
      if (c === 0x7d) {
        this.pos++;
        this.depth--;
        return object;
      }
      this.fail("JSON_SYNTAX", "expected ',' or '}' in object");
    }
  }

  private parseString(path: string): string {
    const text = this.text;
    let pos = this.pos + 1;
    let out = "";
    let start = pos;
    for (;;) {
      if (pos >= text.length) {
        this.pos = pos;
        this.fail("JSON_SYNTAX", "unterminated string");
      }
      const c = text.charCodeAt(pos);
      if (c === 0x22) break;
      if (c < 0x20) {
        this.pos = pos;
        this.fail("JSON_SYNTAX", "raw control character in a string");
      }
      if (c !== 0x5c) {
        pos++;
        continue;
      }
      out += text.slice(start, pos);
      const e = text[pos + 1];
      if (e === "u") {
        const hex = text.slice(pos + 2, pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
          this.pos = pos;
          this.fail("JSON_SYNTAX", "invalid \\u escape");
        }
        out += String.fromCharCode(Number.parseInt(hex, 16));
        pos += 6;
      } else {
        const replacement = e === undefined ? undefined : ESCAPES[e];
        if (replacement === undefined) {
          this.pos = pos;
          this.fail("JSON_SYNTAX", "invalid escape");
        }
        out += replacement;
        pos += 2;
      }
      start = pos;
    }
    out += text.slice(start, pos);
    this.pos = pos + 1;
    if (this.domain) {
      if (stringTooLong(out)) this.fail("JSON_DOMAIN", `${path} stringis too long`, path);
      if (!isWellFormed(out)) this.fail("JSON_DOMAIN", `${path} is not a valid UTF-8 string`, path);
    }
    return out;
  }

  private parseNumber(path: string): Json {
    const text = this.text;
    const start = this.pos;
    let pos = start;
    if (text.charCodeAt(pos) === 0x2d) pos++;
    if (text.startsWith("Infinity", pos))
      this.fail("JSON_NON_FINITE", "JSON disallows non-finite constants: -Infinity", path);
    const intStart = pos;
    while (pos < text.length && isDigit(text.charCodeAt(pos))) pos++;
    const intDigits = pos - intStart;
    if (intDigits === 0 || (intDigits > 1 && text.charCodeAt(intStart) === 0x30)) {
      this.pos = start;
      this.fail("JSON_SYNTAX", "invalid number");
    }
    let isFloat = false;
    if (text.charCodeAt(pos) === 0x2e) {
      isFloat = true;
      pos++;
      const fracStart = pos;
      while (pos < text.length && isDigit(text.charCodeAt(pos))) pos++;
      if (pos === fracStart) {
        this.pos = start;
        this.fail("JSON_SYNTAX", "invalid number");
      }
    }
    const e = text.charCodeAt(pos);
    if (e === 0x65 || e === 0x45) {
      isFloat = true;
      pos++;
      const sign = text.charCodeAt(pos);
      if (sign === 0x2b || sign === 0x2d) pos++;
      const expStart = pos;
      while (pos < text.length && isDigit(text.charCodeAt(pos))) pos++;
      if (pos === expStart) {
        this.pos = start;
        this.fail("JSON_SYNTAX", "invalid number");
      }
    }
    const lexeme = text.slice(start, pos);
    this.pos = pos;
    const x = Number(lexeme);
    if (isFloat) {
      if (!Number.isFinite(x)) this.fail("JSON_NON_FINITE", `${path} does not allow NaN or Infinity`, path);
      return Number.isInteger(x) ? new PyFloat(x) : x;
    }
    // Rounding is monotonic and 2^53 is representable, so this test is exact even for long lexemes.
    if (Number.isSafeInteger(x)) return x === 0 ? 0 : x;
    if (this.bigints) return BigInt(lexeme);
    return this.fail("JSON_NUMBER_RANGE", `${path}  integeris outside the portable JSON-safe range`, path);
  }
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * Reads one JSON document strictly: size cap, no BOM, strict UTF-8, RFC 8259 grammar, bounded
 * nesting, no duplicate keys (compared decoded), no non-finite numbers, exact integers, and the
 * reference's value domain. `1.0` stays apart from `1` (as {@link PyFloat}); `__proto__` is an
 * ordinary own key. Never throws for bad input.
 */
export function readJson(input: Uint8Array | string, options: ReadJsonOptions = {}): ReadJsonResult {
  const maxBytes = options.maxBytes ?? 65_536;
  const maxDepth = Math.min(options.maxDepth ?? JSON_DOMAIN.maxDepth, 512);
  let text: string;
  if (typeof input === "string") {
    // Count UTF-8 bytes without encoding when the answer is certain either way.
    if (input.length > maxBytes || (input.length * 3 > maxBytes && encoder.encode(input).length > maxBytes)) {
      return refuse("JSON_TOO_LARGE", `JSON document exceeds ${maxBytes} bytes`);
    }
    if (input.charCodeAt(0) === 0xfeff) return refuse("JSON_BOM", "JSON document starts with a byte order mark");
    text = input;
  } else {
    if (input.byteLength > maxBytes) return refuse("JSON_TOO_LARGE", `JSON document exceeds ${maxBytes} bytes`);
    if (input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf) {
      return refuse("JSON_BOM", "JSON document starts with a byte order mark");
    }
    try {
      text = decoder.decode(input);
    } catch {
      return refuse("JSON_INVALID_UTF8", "JSON document is not valid UTF-8");
    }
  }
  try {
    const value = new Parser(text, maxDepth, options.integers === "bigint", options.domain ?? true).parseDocument();
    return { ok: true, value };
  } catch (caught) {
    if (caught instanceof Refusal) return { ok: false, error: caught.error };
    throw caught;
  }
}
