/**
 * Second-precision UTC timestamps without a clock: formatting Unix seconds and checking
 * RFC 3339 text the way the reference's `strftime`/`strptime` do.
 * @module
 */
import { APPROVAL_TTL_SECONDS, MAX_PORTABLE_UNIX_SECONDS } from "./constants";

/** `true` when `now` is an integer second in 0..9999-12-31T23:59:59Z (less the approval TTL if asked). */
export function isPortableTimepoint(now: unknown, approvalWindow = false): now is number {
  const latest = approvalWindow ? MAX_PORTABLE_UNIX_SECONDS - APPROVAL_TTL_SECONDS : MAX_PORTABLE_UNIX_SECONDS;
  return typeof now === "number" && Number.isSafeInteger(now) && now >= 0 && now <= latest;
}

// Howard Hinnant's days-to-civil: exact for the whole proleptic Gregorian range we accept.
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/** `YYYY-MM-DDTHH:MM:SSZ` for a portable Unix second (the caller checked the range). */
export function formatUtcSecond(now: number): string {
  const days = Math.floor(now / 86_400);
  const rest = now - days * 86_400;
  const [year, month, day] = civilFromDays(days);
  const hh = Math.floor(rest / 3600);
  const mm = Math.floor((rest % 3600) / 60);
  const ss = rest % 60;
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hh)}:${pad(mm)}:${pad(ss)}Z`;
}

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * The reference's `_is_rfc3339_utc_second`: the pattern, then a real calendar date
 * (year 1..9999, second 0..59, as Python's `datetime` insists).
 * Only ASCII digits are accepted here; Python would also take other Unicode digits, which no
 * registered producer emits.
 */
export function isRfc3339UtcSecond(value: unknown): value is string {
  if (typeof value !== "string") return false;
  if (!RFC3339_UTC.test(value)) return false;
  // The pattern fixed every field's width, so read the digits in place instead of slicing.
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 2);
  const day = digits(value, 8, 2);
  return (
    year >= 1 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    digits(value, 11, 2) <= 23 &&
    digits(value, 14, 2) <= 59 &&
    digits(value, 17, 2) <= 59
  );
}

function digits(text: string, start: number, length: number): number {
  let n = 0;
  for (let i = start; i < start + length; i++) n = n * 10 + (text.charCodeAt(i) - 48);
  return n;
}
