/**
 * The approver console's session cookie and its request checks (docs/console.md, "Sessions and
 * CSRF"). The cookie `__Host-toolgate-console=<consumer>.<session id>` is `HttpOnly; Secure;
 * SameSite=Strict; Path=/`. A session id is 256 random bits and a tag (HMAC-SHA-256 under
 * `TOOLGATE_TOKEN_KEY` over the consumer and the id), so a forged or foreign cookie is refused
 * here before any Durable Object wakes; the object stores only the id's SHA-256. Every
 * state-changing request must come from the console's own origin.
 * @module
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { ConsumerName } from "../../../contracts/consumer";
import type * as z from "../../../core/zod";
import { describeIssues, mediaType, readCappedBytes } from "../../http/body";
import type { TokenKeys } from "../credentials/format";
import { problem, type Problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import { secretsEqual } from "../../http/timing-safe";

/** The cookie's name: `__Host-` makes a browser accept it only `Secure`, with `Path=/` and no `Domain`. */
export const SESSION_COOKIE = "__Host-toolgate-console";

/**
 * The largest form body the console reads (sign-in, sign-out, a decision: a reason of 500
 * characters and an edit's arguments, up to {@link MAX_EDITED_JSON} characters, percent-encoded fit).
 */
export const MAX_FORM_BYTES = 65_536;

/** The most characters of an edit's arguments as the console's form posts them (JSON text). */
export const MAX_EDITED_JSON = 16_384;

const SESSION_ID = /^cs1_([0-9a-f]{64})_([0-9a-f]{32})$/;

function sessionTag(key: string, consumer: string, body: string): string {
  return bytesToHex(
    hmac(sha256, utf8ToBytes(key), utf8ToBytes(`toolgate console session v1\n${consumer}\n${body}`)).subarray(0, 16),
  );
}

/** A new session id for a consumer, tagged with the current key; `null` without a key (no credential works then either). */
export function mintSessionId(consumer: string, keys: TokenKeys): string | null {
  if (keys.current === null) return null;
  const body = `cs1_${bytesToHex(crypto.getRandomValues(new Uint8Array(32)))}`;
  return `${body}_${sessionTag(keys.current, consumer, body)}`;
}

/** Whether a session id has the shape and a tag for this consumer (current or previous key; constant-time). */
function sessionIdOk(sessionId: string, consumer: string, keys: TokenKeys): boolean {
  const m = SESSION_ID.exec(sessionId);
  if (m === null || keys.current === null) return false;
  const body = `cs1_${m[1] as string}`;
  const presented = m[2] as string;
  const current = secretsEqual(presented, sessionTag(keys.current, consumer, body));
  const previous = keys.previous !== null && secretsEqual(presented, sessionTag(keys.previous, consumer, body));
  return current || previous;
}

/** The `Set-Cookie` value of a new session, living `maxAgeSeconds`. */
export function sessionCookie(consumer: string, sessionId: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${consumer}.${sessionId}; Max-Age=${maxAgeSeconds}; Path=/; Secure; HttpOnly; SameSite=Strict`;
}

/** The `Set-Cookie` value that removes the session cookie. */
export const CLEARED_SESSION_COOKIE = `${SESSION_COOKIE}=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Strict`;

/** The session a request's cookie names. */
export interface ConsoleSessionRef {
  readonly consumer: string;
  readonly sessionId: string;
}

/** The session of the request's cookie (well-formed, tagged for its consumer), or `null`. */
export function sessionOf(request: Request, keys: TokenKeys): ConsoleSessionRef | null {
  const header = request.headers.get("cookie");
  if (header === null) return null;
  const prefix = `${SESSION_COOKIE}=`;
  const value = header
    .split(";")
    .map((part) => part.trim())
    .find((part) => part.startsWith(prefix))
    ?.slice(prefix.length);
  if (value === undefined) return null;
  const dot = value.lastIndexOf(".");
  const consumer = value.slice(0, dot);
  const sessionId = value.slice(dot + 1);
  if (dot <= 0 || !ConsumerName.safeParse(consumer).success || !sessionIdOk(sessionId, consumer, keys)) return null;
  return { consumer, sessionId };
}

/**
 * Why a state-changing request is refused for where it comes from, or `null`: an `Origin` must
 * be the console's own (scheme, host and port of the request). Under the console's
 * `Referrer-Policy: no-referrer` a browser sends `Origin: null` on its own form posts and
 * same-origin `fetch`es (Fetch, "serializing a request origin"), so without an `Origin`, or with
 * `null`, the browser's `Sec-Fetch-Site: same-origin` is required; with neither, it is refused.
 */
export function originRefusal(request: Request): Problem | null {
  const url = new URL(request.url);
  const own = `${url.protocol}//${(request.headers.get("host") ?? url.host).toLowerCase()}`;
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== "null")
    return origin.toLowerCase() === own
      ? null
      : problem("CSRF_REFUSED", "The request comes from another origin; nothing was changed.");
  if (request.headers.get("sec-fetch-site") === "same-origin") return null;
  return problem(
    "CSRF_REFUSED",
    "The request names neither this console's Origin nor Sec-Fetch-Site: same-origin; nothing was changed.",
  );
}

/**
 * Reads an `application/x-www-form-urlencoded` body: media type, cap, UTF-8, each field at most
 * once, then one contract (no values echoed in refusals).
 */
export async function readForm<S extends z.ZodMiniType>(request: Request, schema: S): Promise<Outcome<z.output<S>>> {
  if (mediaType(request.headers.get("content-type")) !== "application/x-www-form-urlencoded") {
    return fail(problem("UNSUPPORTED_MEDIA_TYPE", "Send the form as application/x-www-form-urlencoded."));
  }
  const bytes = await readCappedBytes(request, MAX_FORM_BYTES);
  if (!bytes.ok) return bytes;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes.value);
  } catch {
    return fail(problem("INVALID_REQUEST", "The form is not UTF-8."));
  }
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) {
    if (fields.has(name))
      return fail(problem("INVALID_REQUEST", `The form repeats the field ${JSON.stringify(name.slice(0, 40))}.`));
    fields.set(name, value);
  }
  const parsed = schema.safeParse(Object.fromEntries(fields));
  return parsed.success ? ok(parsed.data) : fail(problem("INVALID_REQUEST", describeIssues(parsed.error)));
}
