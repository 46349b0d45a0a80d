/**
 * Cursor pages of the consumer's short lists (tools, secrets, MCP servers, webhook endpoints):
 * each is bounded by a quota and read whole, in a stable order of a text key; a page is the
 * items after the cursor's key, at most the consumer's `page_items`. The cursor names its list
 * and the last key (`<list>:v1:<key>`, base64url; `./cursor`), so a cursor of another list is refused and
 * an item deleted between two pages moves nothing.
 * @module
 */
import { ok, type Outcome } from "../result";
import { cursorCodec } from "./cursor";

/** Longest cursor of these lists (base64url of the list's name and a key of at most 256 characters). */
const MAX_CURSOR_CHARS = 400;

/** One page and the cursor of the next (`null` on the last page). */
export interface ListPage<T> {
  readonly items: T[];
  readonly next_cursor: string | null;
}

/**
 * The page of `items` (already in ascending order of `keyOf`, as strings compare) after `cursor`
 * (`null`: from the first); `INVALID_CURSOR` for a cursor this list never answered.
 */
export function listPage<T>(
  list: string,
  items: readonly T[],
  keyOf: (item: T) => string,
  cursor: string | null,
  pageItems: number,
): Outcome<ListPage<T>> {
  const codec = cursorCodec<string>({
    prefix: `${list}:v1:`,
    maxChars: MAX_CURSOR_CHARS,
    write: (key) => key,
    read: (key) => key,
    detail: "The cursor is not one this list answered; start again without it.",
  });
  let start = 0;
  if (cursor !== null) {
    const after = codec.read(cursor);
    if (!after.ok) return after;
    start = items.findIndex((item) => keyOf(item) > after.value);
    if (start === -1) start = items.length;
  }
  const size = Math.max(1, pageItems);
  const page = items.slice(start, start + size);
  const last = page[page.length - 1];
  const more = start + size < items.length && last !== undefined;
  return ok({ items: page, next_cursor: more ? codec.encode(keyOf(last)) : null });
}

/** A numeric order (a table's `seq`) as a key that sorts like the number. */
export function seqKey(seq: number): string {
  return String(seq).padStart(16, "0");
}
