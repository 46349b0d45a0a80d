// The demo service's check of the gate's identity statement (docs/http-tools.md), with the stock
// RFC 9421 library `http-message-signatures` under the public key the gate publishes for the
// consumer (`GET /v1/consumers/{consumer}/signing-keys`): the service can verify the gate's
// statements and cannot make one (it never holds anything the gate signs with).
import { createHash, createPublicKey, timingSafeEqual } from "node:crypto";
import { createVerifier, httpbis } from "http-message-signatures";

const COMPONENTS = ["@method", "@target-uri", "content-digest", "toolgate-identity"];
const PARAMS = ["created", "expires", "nonce", "keyid", "alg", "tag"];
/** Clock skew accepted on `created`, and the oldest `created` accepted (the gate's signatures live 60 s). */
const SKEW_SECONDS = 5;
export const MAX_AGE_SECONDS = 65;
/** A key set fetched from the gate is fetched again for an unknown `keyid` (a rotation), at most this often. */
const REFETCH_MS = 10_000;
const STATEMENT_TEXT = ["consumer", "subject_id", "tool", "call_id", "operation_id"];

function sameBytes(a, b) {
  return a.length === b.length && timingSafeEqual(a, b);
}

function readStatement(header) {
  if (!/^[A-Za-z0-9_-]+$/.test(header)) return null;
  let value;
  try {
    value = JSON.parse(Buffer.from(header, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  if (!STATEMENT_TEXT.every((k) => typeof value[k] === "string")) return null;
  if (!Array.isArray(value.roles) || !value.roles.every((r) => typeof r === "string")) return null;
  if (value.status_ref !== undefined && typeof value.status_ref !== "string") return null;
  return value;
}

/** Why a `toolgate` signature's parameters are refused at `nowSeconds`, or null if they are acceptable. */
function paramsRefusal(params, nowSeconds) {
  const created = params.created instanceof Date ? Math.floor(params.created.getTime() / 1000) : undefined;
  if (created === undefined || typeof params.expires !== "number" || typeof params.nonce !== "string") return "signature parameters";
  if (created > nowSeconds + SKEW_SECONDS) return "created in the future";
  if (nowSeconds - created > MAX_AGE_SECONDS || params.expires + SKEW_SECONDS < nowSeconds) return "expired";
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
export async function verifyToolgateRequest(request, { keysOf, nowSeconds, fresh }) {
  const { headers } = request;
  const identity = headers["toolgate-identity"];
  const digest = headers["content-digest"];
  if ([identity, digest, headers["signature-input"], headers["signature"]].some((h) => typeof h !== "string")) return { ok: false, reason: "unsigned" };
  const sent = /(?:^|,\s*)sha-256=:([A-Za-z0-9+/]+={0,2}):(?:\s*,|$)/.exec(digest);
  if (sent === null || !sameBytes(Buffer.from(sent[1], "base64"), createHash("sha256").update(request.body).digest())) {
    return { ok: false, reason: "content-digest mismatch" };
  }
  const statement = readStatement(identity);
  if (statement === null) return { ok: false, reason: "malformed identity" };
  const accepted = [];
  let refusal = null;
  let verified;
  try {
    verified = await httpbis.verifyMessage(
      {
        async keyLookup(params) {
          if (params.tag !== "toolgate") return null;
          const jwk = params.alg === "ed25519" ? (await keysOf(statement.consumer, params.keyid))?.find((k) => k.kid === params.keyid) : undefined;
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
      { method: request.method, url: request.url, headers },
    );
  } catch (error) {
    return { ok: false, reason: `signature refused: ${error.message}` };
  }
  if (accepted.length !== 1) return { ok: false, reason: "not one toolgate signature" };
  if (refusal !== null) return { ok: false, reason: refusal };
  if (verified !== true) return { ok: false, reason: "bad signature" };
  if (!fresh(accepted[0].nonce)) return { ok: false, reason: "replayed nonce" };
  const idempotencyKey = headers["idempotency-key"];
  if (idempotencyKey !== undefined && idempotencyKey !== `"${statement.status_ref ?? ""}"`) return { ok: false, reason: "idempotency key is not the statement's status_ref" };
  return { ok: true, statement };
}

/**
 * The published keys of the consumers served: `sources` maps each to its JWK Set, given (`{ keys }`)
 * or the URL of the gate's `GET /v1/consumers/{consumer}/signing-keys`, fetched at first use and
 * again when a `keyid` is unknown (a rotation), at most every {@link REFETCH_MS}.
 */
export function keyring(sources, now = Date.now) {
  const fetched = new Map();
  return async (consumer, keyid) => {
    if (!Object.hasOwn(sources, consumer)) return undefined;
    const source = sources[consumer];
    if (typeof source !== "string") return source.keys;
    const held = fetched.get(consumer);
    if (held !== undefined && (held.keys.some((k) => k.kid === keyid) || now() - held.at < REFETCH_MS)) return held.keys;
    let keys = held?.keys ?? [];
    try {
      const res = await fetch(source);
      const set = res.ok ? await res.json() : null;
      if (Array.isArray(set?.keys)) keys = set.keys.filter((k) => k?.kty === "OKP" && k.crv === "Ed25519" && typeof k.x === "string" && typeof k.kid === "string");
    } catch {
      // The gate is not up yet: keep what is held, and try again later.
    }
    fetched.set(consumer, { at: now(), keys });
    return keys;
  };
}
