/**
 * The string `format`s of the subset, the ones zod and the MCP SDK emit most (`.email()`,
 * `.url()`, `.uuid()`, `.datetime()`, `.date()`), validated, not just annotated: each is a
 * hand-written check in one pass over the string (no regular expression can backtrack here).
 * - `email`: a dot-atom local part (RFC 5322 §3.2.3, at most 64 characters) `@` a domain of
 *   at least two DNS labels (letters, digits, inner hyphens, each at most 63), at most 254 in all;
 *   quoted local parts and address literals are refused.
 * - `uri`: an absolute URI (RFC 3986 §4.3): a scheme, `:`, then only unreserved, reserved and
 *   percent-encoded characters (each `%` followed by two hex digits).
 * - `uuid`: 8-4-4-4-12 hexadecimal digits (RFC 9562), either case.
 * - `date`: an RFC 3339 `full-date` that exists in the calendar (leap years included).
 * - `date-time`: an RFC 3339 `date-time`: a `date`, `T` (or the space RFC 3339 §5.6 allows by
 *   agreement, as ajv and @cfworker/json-schema do), `hh:mm:ss` (second 60 allowed for a leap
 *   second), an optional fraction, then `Z` or `±hh:mm`; `T` and `Z` in either case.
 * @module
 */

/** The formats the subset validates. */
export const STRING_FORMATS = ["email", "uri", "uuid", "date", "date-time"] as const;

/** One of {@link STRING_FORMATS}. */
export type StringFormat = (typeof STRING_FORMATS)[number];

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isAlpha = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/** RFC 5322 `atext`: letters, digits and ``!#$%&'*+-/=?^_`{|}~``. */
const ATEXT_SYMBOLS = "!#$%&'*+-/=?^_`{|}~";
const isAtext = (c: number): boolean => isAlpha(c) || isDigit(c) || ATEXT_SYMBOLS.includes(String.fromCharCode(c));

/** RFC 3986 unreserved and reserved characters (`%` is checked apart, with its two hex digits). */
const URI_SYMBOLS = "-._~:/?#[]@!$&'()*+,;=";
const isUriChar = (c: number): boolean => isAlpha(c) || isDigit(c) || URI_SYMBOLS.includes(String.fromCharCode(c));

function isDotAtom(text: string): boolean {
  if (text.length === 0 || text.startsWith(".") || text.endsWith(".") || text.includes("..")) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x2e && !isAtext(c)) return false;
  }
  return true;
}

function isHostname(text: string): boolean {
  const labels = text.split(".");
  if (labels.length < 2) return false;
  for (const label of labels) {
    if (label.length === 0 || label.length > 63 || label.startsWith("-") || label.endsWith("-")) return false;
    for (let i = 0; i < label.length; i++) {
      const c = label.charCodeAt(i);
      if (!isAlpha(c) && !isDigit(c) && c !== 0x2d) return false;
    }
  }
  return true;
}

function isEmail(text: string): boolean {
  if (text.length > 254) return false;
  const at = text.lastIndexOf("@");
  if (at <= 0) return false;
  const local = text.slice(0, at);
  return local.length <= 64 && isDotAtom(local) && isHostname(text.slice(at + 1));
}

function isUri(text: string): boolean {
  const colon = text.indexOf(":");
  if (colon < 1 || !isAlpha(text.charCodeAt(0))) return false;
  for (let i = 1; i < colon; i++) {
    const c = text.charCodeAt(i);
    if (!isAlpha(c) && !isDigit(c) && c !== 0x2b && c !== 0x2d && c !== 0x2e) return false;
  }
  for (let i = colon + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x25) {
      if (!isHex(text.charCodeAt(i + 1)) || !isHex(text.charCodeAt(i + 2))) return false;
      i += 2;
    } else if (!isUriChar(c)) return false;
  }
  return true;
}

function isUuid(text: string): boolean {
  if (text.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = text.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23 ? c !== 0x2d : !isHex(c)) return false;
  }
  return true;
}

/** The digits of `text[from, from + count)` as a number, or -1 when one is not a digit. */
function digits(text: string, from: number, count: number): number {
  let n = 0;
  for (let i = from; i < from + count; i++) {
    const c = text.charCodeAt(i);
    if (!isDigit(c)) return -1;
    n = n * 10 + (c - 0x30);
  }
  return n;
}

function isDate(text: string): boolean {
  if (text.length !== 10 || text[4] !== "-" || text[7] !== "-") return false;
  const [year, month, day] = [digits(text, 0, 4), digits(text, 5, 2), digits(text, 8, 2)];
  if (year < 0 || month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= days;
}

/** `hh:mm` from `from`, within 23:59. */
function isHourMinute(text: string, from: number): boolean {
  const [hour, minute] = [digits(text, from, 2), digits(text, from + 3, 2)];
  return text[from + 2] === ":" && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59;
}

function isDateTime(text: string): boolean {
  const separator = text[10];
  if (text.length < 20 || !isDate(text.slice(0, 10)) || (separator !== "T" && separator !== "t" && separator !== " "))
    return false;
  if (!isHourMinute(text, 11) || text[16] !== ":") return false;
  const second = digits(text, 17, 2);
  if (second < 0 || second > 60) return false;
  let i = 19;
  if (text[i] === ".") {
    const start = ++i;
    while (i < text.length && isDigit(text.charCodeAt(i))) i++;
    if (i === start) return false;
  }
  const zone = text.slice(i);
  if (zone === "Z" || zone === "z") return true;
  return zone.length === 6 && (zone[0] === "+" || zone[0] === "-") && isHourMinute(zone, 1);
}

const CHECKS: Record<StringFormat, (text: string) => boolean> = {
  email: isEmail,
  uri: isUri,
  uuid: isUuid,
  date: isDate,
  "date-time": isDateTime,
};

/** The check of a known format, or null for any other name. */
export function formatCheck(name: string): ((text: string) => boolean) | null {
  const known = STRING_FORMATS.find((f) => f === name);
  return known === undefined ? null : CHECKS[known];
}
