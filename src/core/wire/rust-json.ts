/**
 * A compact JSON writer that prints what `serde_json::to_string` prints, so the canonical wire
 * text is the one a Rust peer would send: no spaces, keys in the given order, non-ASCII written
 * raw, only `"`, `\` and control characters escaped, and `f64` values in Rust's shortest form
 * (`0.5`, `1.0`, `1e30`, `1.5e-7`).
 * @module
 */

import { type Json, PyFloat } from "../json";

/** A number that Rust holds as `f64`: written with a fraction or exponent even when integral. */
export class RustF64 {
  constructor(readonly value: number) {}
}

/** A JSON value about to be written: reader values plus {@link RustF64}. */
export type WireValue = Json | RustF64 | WireValue[] | { [key: string]: WireValue };

const SHORT_ESCAPES: Record<number, string> = {
  0x22: '\\"',
  0x5c: "\\\\",
  0x08: "\\b",
  0x0c: "\\f",
  0x0a: "\\n",
  0x0d: "\\r",
  0x09: "\\t",
};
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

function writeString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const short = SHORT_ESCAPES[c];
    if (short !== undefined) out += short;
    else if (c < 0x20) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += s[i] ?? "";
  }
  return `${out}"`;
}

/**
 * Formats a finite f64 as Rust's `ryu` does: the shortest digits that round-trip (the same digits
 * JavaScript picks), placed as a plain decimal when the exponent is small, else as `de±n`.
 * Non-finite values print as `null`, as `serde_json` writes them.
 */
export function formatRustF64(x: number): string {
  if (!Number.isFinite(x)) return "null";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mantissa = "", exponent = "0"] = Math.abs(x).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const length = digits.length;
  // `kk` places the decimal point: the value is 0.d1d2… × 10^kk.
  const kk = Number(exponent) + 1;
  if (length <= kk && kk <= 16) return `${sign}${digits}${"0".repeat(kk - length)}.0`;
  if (0 < kk && kk <= 16) return `${sign}${digits.slice(0, kk)}.${digits.slice(kk)}`;
  if (-5 < kk && kk <= 0) return `${sign}0.${"0".repeat(-kk)}${digits}`;
  const e = kk - 1;
  return length === 1 ? `${sign}${digits}e${e}` : `${sign}${digits[0]}.${digits.slice(1)}e${e}`;
}

/** Writes a wire value as compact JSON text; throws on a value JSON cannot hold (a caller's bug). */
export function writeRustJson(value: WireValue): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "string":
      return writeString(value);
    case "bigint":
      return value.toString();
    case "number":
      if (Number.isInteger(value)) return Object.is(value, -0) ? "0" : String(value);
      return formatRustF64(value);
    case "object":
      break;
    default:
      throw new TypeError(`cannot write ${typeof value} as JSON`);
  }
  if (value instanceof RustF64) return formatRustF64(value.value);
  if (value instanceof PyFloat) return formatRustF64(value.value);
  if (Array.isArray(value)) return `[${value.map(writeRustJson).join(",")}]`;
  const parts: string[] = [];
  for (const key of Object.keys(value)) {
    const item = value[key];
    if (item === undefined) continue;
    parts.push(`${writeString(key)}:${writeRustJson(item)}`);
  }
  return `{${parts.join(",")}}`;
}
