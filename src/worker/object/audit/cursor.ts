/**
 * The audit plane's opaque cursors: base64url text the gate answers in `next_cursor` and reads
 * back from `?cursor=`. A page cursor carries the sequence number the next page starts after; a
 * verify cursor carries the position the walk reached and the digest it continues from. Clients
 * must not build or edit them; anything that is not exactly what the gate answered is
 * `INVALID_CURSOR`. A cursor grants nothing: the auditor may read every entry anyway.
 * @module
 */
import { problem } from "../../problem";
import { fail, ok, type Outcome } from "../../result";
import { decodeCursorText, encodeCursorText } from "../cursor-text";

const PAGE = /^audit-page:v1:(0|[1-9][0-9]{0,15})$/;
const VERIFY = /^audit-verify:v1:([1-9][0-9]{0,15}):([0-9a-f]{64})$/;
const MAX_CURSOR_CHARS = 400;

/** Where a verification walk continues: entries `1..seq` verified, the last with digest `sha256`. */
export interface VerifyPosition {
  readonly seq: number;
  readonly sha256: string;
}

const encode = encodeCursorText;
const decode = (cursor: string): string | null => decodeCursorText(cursor, MAX_CURSOR_CHARS);

const invalid = () => fail(problem("INVALID_CURSOR", "The cursor is not one this route answered; start again without it."));

function safeInt(digits: string | undefined): number | null {
  const n = Number(digits);
  return digits !== undefined && Number.isSafeInteger(n) ? n : null;
}

/** The cursor of the page that starts after entry `after`. */
export function pageCursor(after: number): string {
  return encode(`audit-page:v1:${after}`);
}

/** The sequence number a page cursor starts after, or `INVALID_CURSOR`. */
export function readPageCursor(cursor: string): Outcome<number> {
  const m = PAGE.exec(decode(cursor) ?? "");
  const after = safeInt(m?.[1]);
  return after === null ? invalid() : ok(after);
}

/** The cursor that continues a verification walk from `position`. */
export function verifyCursor(position: VerifyPosition): string {
  return encode(`audit-verify:v1:${position.seq}:${position.sha256}`);
}

/** The position a verify cursor continues from, or `INVALID_CURSOR`. */
export function readVerifyCursor(cursor: string): Outcome<VerifyPosition> {
  const m = VERIFY.exec(decode(cursor) ?? "");
  const seq = safeInt(m?.[1]);
  return seq === null || m?.[2] === undefined ? invalid() : ok({ seq, sha256: m[2] });
}
