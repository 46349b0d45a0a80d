// The demo service's check of the gate's identity statement (docs/http-tools.md), with the stock
// RFC 9421 library `http-message-signatures` under the public key the gate publishes for the
// consumer (`GET /v1/consumers/{consumer}/signing-keys`): the service can verify the gate's
// statements and cannot make one (it never holds anything the gate signs with).
import { createHash, createPublicKey, timingSafeEqual } from "node:crypto";
import { createVerifier, httpbis, type SignatureParameters } from "http-message-signatures";

const COMPONENTS = ["@method", "@target-uri", "content-digest", "toolgate-identity"];
const PARAMS = ["created", "expires", "nonce", "keyid", "alg", "tag"];
/** Clock skew accepted on `created`, and the oldest `created` accepted (the gate's signatures live 60 s). */
const SKEW_SECONDS = 5;
export const MAX_AGE_SECONDS = 65;
/** A key set fetched from the gate is fetched again for an unknown `keyid` (a rotation), at most this often. */
const REFETCH_MS = 10_000;
const STATEMENT_TEXT = ["consumer", "subject_id", "tool", "call_id", "operation_id"];

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function readStatement(header: string): Statement | null {
  if (!/^[A-Za-z0-9_-]+$/.test(header)) return null;
  let parsed: unknown;
  try {
    // Untrusted, so every field is checked below before it is used.
    parsed = JSON.parse(Buffer.from(header, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  return isStatement(parsed) ? parsed : null;
}

function isStatement(parsed: unknown): parsed is Statement {
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return false;
  const value = parsed as Record<string, unknown>;
  if (!STATEMENT_TEXT.every((k) => typeof value[k] === "string")) return false;
  const roles = value.roles;
  if (!Array.isArray(roles) || !roles.every((r) => typeof r === "string")) return false;
  return value.status_ref === undefined || typeof value.status_ref === "string";
}

/** Why a `toolgate` signature's parameters are refused at `nowSeconds`, or null if they are acceptable. */
function paramsRefusal(params: SignatureParameters, nowSeconds: number): string | null {
  const created = params.created instanceof Date ? Math.floor(params.created.getTime() / 1000) : undefined;
  // The library's types say Date; what it parses from `expires=` is the number of seconds.
  const expires: unknown = params.expires;
  if (created === undefined || typeof expires !== "number" || typeof params.nonce !== "string")
    return "signature parameters";
  if (created > nowSeconds + SKEW_SECONDS) return "created in the future";
  if (nowSeconds - created > MAX_AGE_SECONDS || expires + SKEW_SECONDS < nowSeconds) return "expired";
  return null;
}

/**
 * Verifies one request as docs/http-tools.md says, in its order: the body's digest, the
 * statement, the one `toolgate` signature (`ed25519` over the four components, under the
 * published key of the statement's consumer whose `kid` is its `keyid`, checked by
 * `http-message-signatures`), its age, the nonce (never seen), the Idempotency-Key (the
 * statement's status_ref).
 * `request`: { method, url (as the gate addressed it), headers (lower-case names), body (Buffer) };
 * `keysOf(consumer, keyid)`: the consumer's published JWKs (a promise), or undefined if it is not
 * served; `fresh(nonce)`: records it, false if seen before.
 * Answers (a promise) `{ ok: true, statement }` or `{ ok: false, reason }`.
 */
export async function verifyToolgateRequest(
  request: SignedRequest,
  { keysOf, nowSeconds, fresh }: VerifyOptions,
): Promise<Verified> {
  const { headers } = request;
  const identity = headers["toolgate-identity"];
  const digest = headers["content-digest"];
  if (
    typeof identity !== "string" ||
    typeof digest !== "string" ||
    typeof headers["signature-input"] !== "string" ||
    typeof headers["signature"] !== "string"
  )
    return { ok: false, reason: "unsigned" };
  const sent = /(?:^|,\s*)sha-256=:([A-Za-z0-9+/]+={0,2}):(?:\s*,|$)/.exec(digest);
  if (
    sent === null ||
    !sameBytes(Buffer.from(sent[1] ?? "", "base64"), createHash("sha256").update(request.body).digest())
  ) {
    return { ok: false, reason: "content-digest mismatch" };
  }
  const statement = readStatement(identity);
  if (statement === null) return { ok: false, reason: "malformed identity" };
  const accepted: SignatureParameters[] = [];
  let refusal: string | null = null;
  let verified: boolean | null;
  try {
    verified = await httpbis.verifyMessage(
      {
        async keyLookup(params) {
          if (params.tag !== "toolgate") return null;
          const jwk =
            params.alg === "ed25519"
              ? (await keysOf(statement.consumer, params.keyid))?.find((k) => k.kid === params.keyid)
              : undefined;
          refusal ??= jwk === undefined ? "unknown key" : paramsRefusal(params, nowSeconds);
          accepted.push(params);
          if (jwk === undefined || refusal !== null) return null;
          const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: "jwk" });
          return { id: jwk.kid, algs: ["ed25519"], verify: createVerifier(key, "ed25519") };
        },
        requiredFields: COMPONENTS,
        requiredParams: PARAMS,
        // The library's own checks of `created` and `expires`, on this clock, with the same skew.
        notAfter: nowSeconds,
        tolerance: SKEW_SECONDS,
      },
      { method: request.method, url: request.url, headers: definedHeaders(headers) },
    );
  } catch (error) {
    return { ok: false, reason: `signature refused: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (accepted.length !== 1) return { ok: false, reason: "not one toolgate signature" };
  if (refusal !== null) return { ok: false, reason: refusal };
  if (verified !== true) return { ok: false, reason: "bad signature" };
  if (!fresh(accepted[0]?.nonce ?? "")) return { ok: false, reason: "replayed nonce" };
  const idempotencyKey = headers["idempotency-key"];
  if (idempotencyKey !== undefined && idempotencyKey !== `"${statement.status_ref ?? ""}"`)
    return { ok: false, reason: "idempotency key is not the statement's status_ref" };
  return { ok: true, statement };
}

/**
 * The published keys of the consumers served: `sources` maps each to its JWK Set, given (`{ keys }`)
 * or the URL of the gate's `GET /v1/consumers/{consumer}/signing-keys`, fetched at first use and
 * again when a `keyid` is unknown (a rotation), at most every {@link REFETCH_MS}.
 */
export function keyring(
  sources: Readonly<Record<string, string | { keys: Jwk[] }>>,
  now: () => number = Date.now,
): KeysOf {
  const fetched = new Map<string, { at: number; keys: Jwk[] }>();
  return async (consumer, keyid) => {
    const source = Object.hasOwn(sources, consumer) ? sources[consumer] : undefined;
    if (source === undefined) return undefined;
    if (typeof source !== "string") return source.keys;
    const held = fetched.get(consumer);
    if (held !== undefined && (held.keys.some((k) => k.kid === keyid) || now() - held.at < REFETCH_MS))
      return held.keys;
    let keys = held?.keys ?? [];
    try {
      const res = await fetch(source);
      const set: unknown = res.ok ? await res.json() : null;
      const listed: unknown = typeof set === "object" && set !== null ? (set as { keys?: unknown }).keys : undefined;
      if (Array.isArray(listed)) keys = listed.filter(isEd25519Jwk);
    } catch {
      // The gate is not up yet: keep what is held, and try again later.
    }
    fetched.set(consumer, { at: now(), keys });
    return keys;
  };
}

/** The gate's identity statement (docs/http-tools.md), its fields checked. */
export interface Statement {
  consumer: string;
  subject_id: string;
  tool: string;
  call_id: string;
  operation_id: string;
  roles: string[];
  status_ref?: string;
}

/** A public key the gate publishes (an Ed25519 JWK). */
export interface Jwk {
  kty: string;
  crv: string;
  x: string;
  kid: string;
}

/** The consumer's published keys (undefined: the consumer is not served). */
export type KeysOf = (consumer: string, keyid: string | undefined) => Promise<Jwk[] | undefined>;

/** A request as the service received it; `headers` with lower-case names. */
export interface SignedRequest {
  method: string;
  url: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: Buffer;
}

/** What {@link verifyToolgateRequest} checks against. */
export interface VerifyOptions {
  keysOf: KeysOf;
  nowSeconds: number;
  fresh: (nonce: string) => boolean;
}

export type Verified = { ok: true; statement: Statement } | { ok: false; reason: string };

function isEd25519Jwk(k: unknown): k is Jwk {
  if (typeof k !== "object" || k === null) return false;
  const key = k as Record<string, unknown>;
  return key.kty === "OKP" && key.crv === "Ed25519" && typeof key.x === "string" && typeof key.kid === "string";
}

/** The headers that are present (Node's header objects type absent ones as undefined). */
function definedHeaders(headers: SignedRequest["headers"]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value;
  return out;
}
