/**
 * `browser.page.snapshot`: what a page shows, as a bounded JSON result.
 *
 * The result is `{"title", "url", "text", "text_length", "truncated"}` (UTF-8 JSON,
 * `application/json`): the tab's title and address, its visible text (`innerText`: no hidden
 * elements, scripts or markup) and that text's full length in UTF-16 code units. The JSON is
 * at most {@link MAX_RESULT_BYTES}: the title and the address are cut first to their own
 * bounds, then the text to what is left; `truncated` (and the result's metadata) says whether
 * anything was cut. The bound keeps the observation frame (each byte a decimal number in
 * JSON) under the gate's default 64 KiB WebSocket message limit.
 * @module
 */

/** The capability this extension answers. */
export const PAGE_SNAPSHOT = "browser.page.snapshot";

/** The one resource scope it answers: the active tab of the last focused window. */
export const ACTIVE_TAB_SCOPE = "tab:active";

/** The largest result, in bytes of UTF-8 JSON. */
export const MAX_RESULT_BYTES = 12 * 1024;

/** The largest title and address kept, in bytes of their JSON text. */
export const MAX_TITLE_BYTES = 1024;
export const MAX_URL_BYTES = 2048;

/** The most text (UTF-16 code units) the page hands over; more than any result can hold. */
export const MAX_PAGE_TEXT = 32 * 1024;

/** What the page itself reports (text already cut to `maxText` code units). */
export interface PageReading {
  readonly title: string;
  readonly url: string;
  readonly text: string;
  readonly text_length: number;
}

/** The snapshot as sent: its JSON bytes and whether anything was cut. */
export interface PageSnapshot {
  readonly bytes: Uint8Array;
  readonly truncated: boolean;
}

/**
 * Runs inside the tab (injected by `chrome.scripting.executeScript`, which serializes the
 * function: it must use nothing from outside its own body).
 */
export function readPage(maxText: number): PageReading {
  const page = globalThis as unknown as {
    document: { title: string; body: { innerText: string } | null };
    location: { href: string };
  };
  const text = page.document.body?.innerText ?? "";
  return {
    title: page.document.title,
    url: page.location.href,
    text: text.slice(0, maxText),
    text_length: text.length,
  };
}

const encoder = new TextEncoder();

/** The bytes a string adds inside a JSON string literal (escapes included). */
function jsonTextBytes(text: string): number {
  return encoder.encode(JSON.stringify(text)).length - 2;
}

/** The longest prefix of `text` (whole code points) whose JSON text fits `budget` bytes. */
function fit(text: string, budget: number): { text: string; cut: boolean } {
  if (jsonTextBytes(text) <= budget) return { text, cut: false };
  let used = 0;
  let end = 0;
  for (const point of text) {
    const cost = jsonTextBytes(point);
    if (used + cost > budget) break;
    used += cost;
    end += point.length;
  }
  return { text: text.slice(0, end), cut: true };
}

/** The bounded result for what a page reported. */
export function pageSnapshot(reading: PageReading): PageSnapshot {
  const title = fit(reading.title, MAX_TITLE_BYTES);
  const url = fit(reading.url, MAX_URL_BYTES);
  const result = {
    title: title.text,
    url: url.text,
    text: reading.text,
    text_length: reading.text_length,
    truncated: title.cut || url.cut || reading.text.length < reading.text_length,
  };
  const whole = encoder.encode(JSON.stringify(result));
  if (whole.length <= MAX_RESULT_BYTES) return { bytes: whole, truncated: result.truncated };
  const room = MAX_RESULT_BYTES - encoder.encode(JSON.stringify({ ...result, text: "", truncated: true })).length;
  const cut = { ...result, text: fit(reading.text, room).text, truncated: true };
  return { bytes: encoder.encode(JSON.stringify(cut)), truncated: true };
}
