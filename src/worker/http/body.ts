import { readJson } from "../../core/json";
import type * as z from "../../core/zod";
import { problem } from "./problem";
import { fail, ok, type Outcome } from "../result";

/** Default cap on a request body, in bytes. */
export const MAX_BODY_BYTES = 65_536;

/**
 * Reads at most `maxBytes` of a request body, refusing anything larger: `Content-Length` is
 * checked first so an honest oversized request costs nothing, and a body without one (chunked)
 * is read piece by piece and refused, without buffering the rest, once it passes the cap.
 */
export async function readCappedBytes(request: Request | Response, maxBytes: number): Promise<Outcome<Uint8Array>> {
  const tooLarge = problem("BODY_TOO_LARGE", `The body exceeds ${maxBytes} bytes.`);
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) return fail(tooLarge);
  if (request.body === null) return ok(new Uint8Array(0));
  if (declared !== null && !isEncoded(request.headers.get("content-encoding"))) {
    // A declared length within the cap: one native read (the runtime holds a network body to its
    // declared length); the count is checked again for a body built in code that declares less.
    // Not for an encoded body: the runtime decodes a fetched gzip, deflate or br answer and keeps
    // the encoded length, so a few KiB declared can be gigabytes read (read piece by piece below).
    const whole = new Uint8Array(await request.arrayBuffer());
    return whole.byteLength > maxBytes ? fail(tooLarge) : ok(whole);
  }
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return fail(tooLarge);
    }
    chunks.push(value);
  }
  if (chunks.length === 1 && chunks[0] !== undefined) return ok(chunks[0]);
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return ok(bytes);
}

/** Whether a `Content-Encoding` names an encoding (anything but none or `identity`). */
function isEncoded(value: string | null): boolean {
  const coding = (value ?? "").trim().toLowerCase();
  return coding !== "" && coding !== "identity";
}

/** The media type of a `Content-Type`, lowercase, without its parameters (such as `charset`). */
export function mediaType(value: string | null | undefined): string {
  return (value ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Whether a `Content-Type` names JSON (parameters such as `charset` are ignored). */
export function isJsonMediaType(value: string | null | undefined): boolean {
  return mediaType(value) === "application/json";
}

/** Turns zod issues into one short, path-qualified detail line (no values echoed). */
export function describeIssues(error: z.core.$ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length === 0 ? "$" : `$.${issue.path.join(".")}`}: ${issue.message}`)
    .join("; ");
}

/** How a body is read: its cap, and for wire bodies the reader's bigint mode without the tool-call value domain. */
export interface BodyOptions {
  readonly maxBytes?: number;
  /**
   * A capability wire body: integers as bigint (u64), no tool-call value domain (byte arrays
   * exceed 1,024 entries); capped at {@link MAX_WIRE_BODY_BYTES} unless `maxBytes` says otherwise.
   */
  readonly wire?: boolean;
  /** The one media type the body may have (default `application/json`): a PATCH takes `application/merge-patch+json`. */
  readonly mediaType?: JsonMediaType;
}

/** The JSON media types a body is read as. */
export type JsonMediaType = "application/json" | "application/merge-patch+json";

/** Cap on a capability body: payloads and inline results are byte arrays (≈4 characters a byte). */
export const MAX_WIRE_BODY_BYTES = 1 << 20;

/**
 * The one way a route reads an untrusted body: media type, size cap, no BOM, the strict JSON
 * reader, then one zod contract.
 */
export async function readBody<S extends z.ZodMiniType>(
  request: Request,
  schema: S,
  options: BodyOptions = {},
): Promise<Outcome<z.output<S>>> {
  const wire = options.wire === true;
  const maxBytes = options.maxBytes ?? (wire ? MAX_WIRE_BODY_BYTES : MAX_BODY_BYTES);
  const expected = options.mediaType ?? "application/json";
  if (mediaType(request.headers.get("content-type")) !== expected) {
    return fail(problem("UNSUPPORTED_MEDIA_TYPE", `Send the body as ${expected}.`));
  }
  const bytes = await readCappedBytes(request, maxBytes);
  if (!bytes.ok) return bytes;
  const raw = bytes.value;
  if (raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf) {
    return fail(problem("INVALID_JSON", "The body starts with a byte order mark."));
  }
  const read = readJson(raw, wire ? { integers: "bigint", domain: false, maxBytes } : { maxBytes });
  if (!read.ok) return fail(problem("INVALID_JSON", `${read.error.code}: ${read.error.message}`));
  const parsed = schema.safeParse(read.value);
  if (!parsed.success) return fail(problem("INVALID_REQUEST", describeIssues(parsed.error)));
  return ok(parsed.data);
}
