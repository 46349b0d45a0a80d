/**
 * The `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header): an Item
 * Structured Field (RFC 8941) whose value is a String (`"k-1"`); a bare token (`k-1`) is
 * accepted too. It fills a tool call's `context.idempotency_key` when the body has none; when
 * both are given they must agree. Parameters are parsed and ignored (none is defined); a
 * header sent more than once (the runtime joins repeats with `, `) or as a list is refused.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import type * as z from "../../core/zod";
import { readBody } from "./body";
import type { Env } from "../env";
import { problem, problemResponse, type Problem } from "./problem";
import { fail, ok, type Outcome } from "../result";

/** Longest key: the core's identifier bound (code points; a key is ASCII, so characters). */
export const MAX_IDEMPOTENCY_KEY_CHARS = 255;

const invalid = (detail: string): Problem => problem("INVALID_IDEMPOTENCY_KEY", detail);

/** sf-string characters (printable ASCII but `"` and `\`), or an escaped `"` or `\`. */
const SF_STRING = /"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"/y;
/** A bare key: RFC 9110 token characters plus `:` and `/` (an sf-token's, with any first character). */
const BARE = /[!#$%&'*+\-.^_`|~0-9A-Za-z:/]+/y;
/** One parameter: `;` key, optionally `=` a bare item (integer, decimal, string, token, byte sequence, boolean). */
const PARAMETER =
  /;[ ]*[a-z*][a-z0-9_.*-]*(?:=(?:-?\d{1,15}(?:\.\d{1,3})?|"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*"|[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*|:[A-Za-z0-9+/=]*:|\?[01]))?/y;

/**
 * The key an `Idempotency-Key` value names (`null`: no header), or why it is refused:
 * `INVALID_IDEMPOTENCY_KEY` for a value that is not one String or token of 1..255 characters.
 */
export function parseIdempotencyKey(value: string | null): Outcome<string | null> {
  if (value === null) return ok(null);
  const text = value.replace(/^[ \t]+|[ \t]+$/g, "");
  let key: string;
  let at: number;
  if (text.startsWith('"')) {
    SF_STRING.lastIndex = 0;
    const string = SF_STRING.exec(text);
    if (string === null)
      return fail(
        invalid(
          'Idempotency-Key is not a structured-field String: printable ASCII between double quotes, with \\" and \\\\ the only escapes.',
        ),
      );
    key = (string[1] ?? "").replace(/\\(["\\])/g, "$1");
    at = SF_STRING.lastIndex;
  } else {
    BARE.lastIndex = 0;
    const bare = BARE.exec(text);
    if (bare === null)
      return fail(invalid('Idempotency-Key is neither a structured-field String ("k-1") nor a token (k-1).'));
    key = bare[0];
    at = BARE.lastIndex;
  }
  for (;;) {
    PARAMETER.lastIndex = at;
    if (PARAMETER.exec(text) === null) break;
    at = PARAMETER.lastIndex;
  }
  const rest = text.slice(at).trimStart();
  if (rest.startsWith(","))
    return fail(invalid("Idempotency-Key was sent more than once (or as a list): send exactly one key."));
  if (rest !== "")
    return fail(invalid("Idempotency-Key has characters after its key that are not structured-field parameters."));
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_CHARS)
    return fail(invalid(`An idempotency key has 1..${MAX_IDEMPOTENCY_KEY_CHARS} characters.`));
  return ok(key);
}

/**
 * The body's key after the header's: the header fills an absent (or null) key; a different
 * key in each is `IDEMPOTENCY_KEY_MISMATCH` (the draft's 422: the same request with another key).
 */
export function mergeIdempotencyKey(header: string | null, body: string | null): Outcome<string | null> {
  if (header === null || body === null) return ok(body ?? header);
  if (header === body) return ok(body);
  return fail(
    problem(
      "IDEMPOTENCY_KEY_MISMATCH",
      "The Idempotency-Key header and the body's context.idempotency_key name different keys: send one, or the same in both.",
    ),
  );
}

/** A body whose host context may carry an idempotency key (a tool call, a status query). */
type KeyedBody = { context: { idempotency_key: string | null } };

/**
 * The body of a tool-call route: the `Idempotency-Key` header first (refused before the body is
 * read), then the one body reader ({@link readBody}), then the header's key merged into
 * `context.idempotency_key`.
 */
export function keyedJsonBody<S extends z.ZodMiniType<KeyedBody>>(
  schema: S,
): MiddlewareHandler<{ Bindings: Env; Variables: { body: z.output<S> } }> {
  return async function keyedJsonBody(c, next) {
    const header = parseIdempotencyKey(c.req.header("idempotency-key") ?? null);
    if (!header.ok) return problemResponse(header.error);
    const body = await readBody(c.req.raw, schema);
    if (!body.ok) return problemResponse(body.error);
    const key = mergeIdempotencyKey(header.value, body.value.context.idempotency_key);
    if (!key.ok) return problemResponse(key.error);
    const value: z.output<S> = body.value;
    value.context.idempotency_key = key.value;
    c.set("body", value);
    await next();
  };
}

/**
 * For a route whose body carries a key per item (`POST …/tool-calls/batch`: each call's
 * `idempotency_key`): the header is refused rather than ignored — one key cannot name several calls.
 */
export function noIdempotencyKeyHeader(): MiddlewareHandler<{ Bindings: Env }> {
  return async function noIdempotencyKeyHeader(c, next) {
    const header = parseIdempotencyKey(c.req.header("idempotency-key") ?? null);
    if (!header.ok) return problemResponse(header.error);
    if (header.value !== null)
      return problemResponse(
        invalid(
          "This route takes each call's key in the body (calls[].idempotency_key), not the Idempotency-Key header.",
        ),
      );
    await next();
  };
}
