/**
 * The gate's one cursor codec. Every paged list answers an opaque `next_cursor` and reads it
 * back from `?cursor=` (or an MCP `cursor`) through a {@link CursorCodec} made here from the
 * list's shape: the text `<prefix><key>` (the prefix names the list, so a cursor of another list
 * is refused), carried as canonical unpadded base64url of UTF-8 (`core/wire/base64url`) or, for
 * a cursor that is already URL-safe, as it is. Reading is strict: a cursor longer than the
 * list's bound, not canonical base64url, not UTF-8, of another list, or whose key the list does
 * not answer (`read` says `null`) is refused: `INVALID_CURSOR` with the list's detail. A cursor
 * grants nothing: it only says where the next page starts.
 * @module
 */
import { decodeBase64Url, encodeBase64Url } from "../../core/wire/base64url";
import { problem } from "../http/problem";
import { fail, ok, type Outcome } from "../result";

/** What one list's cursors look like. */
export interface CursorShape<K> {
  /** The text before the key (`"tools:v1:"`, `"pending:"`); `""` when the cursor is the key alone. */
  readonly prefix: string;
  /** Longest cursor the list reads; a longer one is refused unread. */
  readonly maxChars: number;
  /** How the text is carried (default `base64url`; `plain` for text that is already URL-safe). */
  readonly armor?: "base64url" | "plain";
  /** The key as text. */
  readonly write: (key: K) => string;
  /** The key a text names, or `null` for text this list never answered. */
  readonly read: (text: string) => K | null;
  /** The `INVALID_CURSOR` problem's detail. */
  readonly detail: string;
}

/** Writes and reads one list's cursors. */
export interface CursorCodec<K> {
  /** The cursor of the page after `key`. */
  encode(key: K): string;
  /** The key a cursor names, or `null` for a cursor this list never answered. */
  decode(cursor: string): K | null;
  /** The key a cursor names, or `INVALID_CURSOR`. */
  read(cursor: string): Outcome<K>;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function unarmor(cursor: string, armor: "base64url" | "plain"): string | null {
  if (armor === "plain") return cursor;
  const bytes = decodeBase64Url(cursor);
  if (bytes === null) return null;
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** The codec of a list whose cursors have `shape`. */
export function cursorCodec<K>(shape: CursorShape<K>): CursorCodec<K> {
  const armor = shape.armor ?? "base64url";
  const decode = (cursor: string): K | null => {
    if (cursor.length === 0 || cursor.length > shape.maxChars) return null;
    const text = unarmor(cursor, armor);
    if (text === null || !text.startsWith(shape.prefix)) return null;
    return shape.read(text.slice(shape.prefix.length));
  };
  return {
    encode(key: K): string {
      const text = `${shape.prefix}${shape.write(key)}`;
      return armor === "plain" ? text : encodeBase64Url(new TextEncoder().encode(text));
    },
    decode,
    read(cursor: string): Outcome<K> {
      const key = decode(cursor);
      return key === null ? fail(problem("INVALID_CURSOR", shape.detail)) : ok(key);
    },
  };
}

/** A `read` for a decimal key matching `digits` (anchored) that is a safe integer. */
export function safeIntegerKey(digits: RegExp): (text: string) => number | null {
  return (text) => {
    if (!digits.test(text)) return null;
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : null;
  };
}
