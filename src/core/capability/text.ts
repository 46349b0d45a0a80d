/**
 * Identifier and text checks of the protocol crate, with Rust's semantics:
 * UTF-8 byte lengths, `str::trim` (Unicode White_Space) and `char::is_control` (Cc).
 * @module
 */
import type { Validation } from "./validation-error";

/** UTF-8 byte length of a string (lone surrogates count as the 3-byte replacement). */
export function utf8Length(value: string): number {
  let bytes = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

// Rust's `char::is_whitespace` is the Unicode White_Space property. It differs from JS
// `trim()`: U+0085 is whitespace in Rust but not in JS, U+FEFF is whitespace in JS only.
function isRustWhitespace(unit: number): boolean {
  return (
    (unit >= 0x09 && unit <= 0x0d) ||
    unit === 0x20 ||
    unit === 0x85 ||
    unit === 0xa0 ||
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000
  );
}

/** True when Rust's `value.trim().is_empty()` would be. */
export function isBlank(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    if (!isRustWhitespace(value.charCodeAt(i))) return false;
  }
  return true;
}

/** True when some char is in Unicode category Cc (U+0000–U+001F, U+007F–U+009F). */
export function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit <= 0x1f || (unit >= 0x7f && unit <= 0x9f)) return true;
  }
  return false;
}

function isIdentifierByte(unit: number): boolean {
  return (
    (unit >= 0x30 && unit <= 0x39) ||
    (unit >= 0x41 && unit <= 0x5a) ||
    (unit >= 0x61 && unit <= 0x7a) ||
    unit === 0x2d || // -
    unit === 0x5f || // _
    unit === 0x2e || // .
    unit === 0x3a || // :
    unit === 0x2f // /
  );
}

/** Identifier check: blank → required, too long → too-large, other bytes → invalid-identifier. */
export function validateIdentifier(field: string, value: string, max: number): Validation {
  if (isBlank(value)) return { required: { field } };
  const actual = utf8Length(value);
  if (actual > max) return { "too-large": { field, max, actual } };
  for (let i = 0; i < value.length; i++) {
    if (!isIdentifierByte(value.charCodeAt(i))) return { "invalid-identifier": { field } };
  }
  return null;
}

/** Length then control-character checks shared by required and optional text. */
export function validateText(field: string, value: string, max: number): Validation {
  const actual = utf8Length(value);
  if (actual > max) return { "too-large": { field, max, actual } };
  if (hasControlCharacter(value)) return { "control-character": { field } };
  return null;
}

/** Required text: blank → required, then {@link validateText}. */
export function validateRequiredText(field: string, value: string, max: number): Validation {
  if (isBlank(value)) return { required: { field } };
  return validateText(field, value, max);
}

/** Optional text: absent is valid; an empty string is valid too. */
export function validateOptionalText(field: string, value: string | null, max: number): Validation {
  return value === null ? null : validateText(field, value, max);
}
