import { decodeBase64Url, encodeBase64Url } from "../../core/wire/base64url";

/**
 * The text inside the gate's opaque list cursors: canonical unpadded base64url of UTF-8
 * (`core/wire/base64url`), so a cursor reads back only as exactly what the gate answered.
 */
export function encodeCursorText(text: string): string {
  return encodeBase64Url(new TextEncoder().encode(text));
}

/** The text of a cursor of at most `maxChars` characters, or `null` for anything the gate never answered. */
export function decodeCursorText(cursor: string, maxChars: number): string | null {
  if (cursor.length === 0 || cursor.length > maxChars) return null;
  const bytes = decodeBase64Url(cursor);
  if (bytes === null) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
}
