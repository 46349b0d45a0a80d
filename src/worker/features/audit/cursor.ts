/**
 * The audit service's opaque cursors: base64url text the gate answers in `next_cursor` and reads
 * back from `?cursor=`. A page cursor carries the sequence number the next page starts after; a
 * verify cursor carries the position the walk reached and the digest it continues from. Clients
 * must not build or edit them; anything that is not exactly what the gate answered is
 * `INVALID_CURSOR`. A cursor grants nothing: the auditor may read every entry anyway. Both are
 * written and read by the gate's one cursor codec (`../cursor`).
 * @module
 */
import type { Outcome } from "../../result";
import { cursorCodec, safeIntegerKey } from "../../kernel/cursor";

const MAX_CURSOR_CHARS = 400;
const DETAIL = "The cursor is not one this route answered; start again without it.";
const VERIFY = /^([1-9][0-9]{0,15}):([0-9a-f]{64})$/;

/** Where a verification walk continues: entries `1..seq` verified, the last with digest `sha256`. */
export interface VerifyPosition {
  readonly seq: number;
  readonly sha256: string;
}

const walkSeq = safeIntegerKey(/^[1-9][0-9]{0,15}$/);

const pages = cursorCodec<number>({
  prefix: "audit-page:v1:",
  maxChars: MAX_CURSOR_CHARS,
  write: String,
  read: safeIntegerKey(/^(0|[1-9][0-9]{0,15})$/),
  detail: DETAIL,
});

const walks = cursorCodec<VerifyPosition>({
  prefix: "audit-verify:v1:",
  maxChars: MAX_CURSOR_CHARS,
  write: (position) => `${position.seq}:${position.sha256}`,
  read: (text) => {
    const m = VERIFY.exec(text);
    const seq = walkSeq(m?.[1] ?? "");
    return seq === null || m?.[2] === undefined ? null : { seq, sha256: m[2] };
  },
  detail: DETAIL,
});

/** The cursor of the page that starts after entry `after`. */
export function pageCursor(after: number): string {
  return pages.encode(after);
}

/** The sequence number a page cursor starts after, or `INVALID_CURSOR`. */
export function readPageCursor(cursor: string): Outcome<number> {
  return pages.read(cursor);
}

/** The cursor that continues a verification walk from `position`. */
export function verifyCursor(position: VerifyPosition): string {
  return walks.encode(position);
}

/** The position a verify cursor continues from, or `INVALID_CURSOR`. */
export function readVerifyCursor(cursor: string): Outcome<VerifyPosition> {
  return walks.read(cursor);
}
