/**
 * The downstream's side of the gate's request identity (docs/http-tools.md), written
 * independently of src/: `http-message-signatures` checks the RFC 9421 `ed25519` signature under
 * the consumer's published public key (a JWK, imported by node:crypto), node:crypto checks
 * `Content-Digest`. Used by the test refunds and ledger services.
 */
import { createHash, createPrivateKey, createPublicKey, hkdfSync, timingSafeEqual, type KeyObject } from "node:crypto";
import { createVerifier, httpbis, type SignatureParameters } from "http-message-signatures";

/** The `TOOLGATE_SIGNING_KEY` bound in vitest.config.ts and test/reliability/vitest.config.ts. */
export const TEST_SIGNING_SECRET = "test-signing-key-0123456789abcdef012345";

/** The components a toolgate signature must cover. */
const REQUIRED_COMPONENTS = ["@method", "@target-uri", "content-digest", "toolgate-identity"];
/** Clock skew accepted on `created`/`expires`, and the oldest `created` accepted. */
const TOLERANCE_SECONDS = 5;
const MAX_AGE_SECONDS = 65;

/** A published public key (a JWK of `GET /v1/consumers/{consumer}/signing-keys`). */
export interface PublishedKey {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  use: string;
}

/** PKCS #8 DER of an Ed25519 private key, before its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/**
 * The private key of a consumer as the gate derives it (docs/http-tools.md: HKDF-SHA256 of the
 * secret, salt "toolgate downstream ed25519 v1", info the consumer) — what only the gate holds;
 * the tests use it for known answers and to stand in for the gate.
 */
export function gatePrivateKey(secret: string, consumer: string): KeyObject {
  const seed = Buffer.from(hkdfSync("sha256", secret, "toolgate downstream ed25519 v1", consumer, 32));
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
}

/** The key the gate publishes for a consumer: its public JWK, `kid` the RFC 7638 thumbprint. */
export function publishedKey(secret: string, consumer: string): PublishedKey {
  const jwk = createPublicKey(gatePrivateKey(secret, consumer)).export({ format: "jwk" });
  const x = String(jwk.x);
  const kid = createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest("base64url");
  return { kty: "OKP", crv: "Ed25519", x, kid, use: "sig" };
}

/** The statement a verified request carries (`Toolgate-Identity`, decoded). */
export interface IdentityStatement {
  consumer: string;
  subject_id: string;
  roles: string[];
  tool: string;
  call_id: string;
  operation_id: string;
  status_ref?: string;
}

/** One request as the downstream received it. */
export interface ReceivedRequest {
  method: string;
  /** The target URI as the gate addressed it (`http://downstream/refunds`). */
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Uint8Array;
}

/** What verification came to: the identity, or why the request is refused (401). */
export type Verification = { ok: true; keyid: string; statement: IdentityStatement } | { ok: false; reason: string };

function digestMatches(header: string, body: Uint8Array): boolean {
  const expected = createHash("sha256").update(body).digest();
  const member = header
    .split(",")
    .map((m) => m.trim())
    .find((m) => m.startsWith("sha-256="));
  const match = member === undefined ? null : /^sha-256=:([A-Za-z0-9+/]+=*):$/.exec(member);
  if (match === null || match[1] === undefined) return false;
  const sent = Buffer.from(match[1], "base64");
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

const TEXT_FIELDS = ["consumer", "subject_id", "tool", "call_id", "operation_id"] as const;

function decodeStatement(header: string): IdentityStatement | null {
  if (!/^[A-Za-z0-9_-]+$/.test(header)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(header, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  const expected = [
    "call_id",
    "consumer",
    "operation_id",
    "roles",
    "subject_id",
    "tool",
    ...("status_ref" in record ? ["status_ref"] : []),
  ].sort();
  if (keys.join() !== expected.join()) return null;
  const text = (k: string): string | null => (typeof record[k] === "string" ? record[k] : null);
  const [consumer, subject_id, tool, call_id, operation_id] = TEXT_FIELDS.map(text);
  const roles = record.roles;
  if (consumer == null || subject_id == null || tool == null || call_id == null || operation_id == null) return null;
  if (!Array.isArray(roles) || !roles.every((r): r is string => typeof r === "string")) return null;
  const statement: IdentityStatement = { consumer, subject_id, roles, tool, call_id, operation_id };
  if (!("status_ref" in record)) return statement;
  const statusRef = text("status_ref");
  return statusRef === null ? null : { ...statement, status_ref: statusRef };
}

/**
 * Verifies one request. `keysOf` answers the published keys this downstream holds for a
 * consumer (none: refused); the key must be one of the keys of the consumer the statement
 * names. `fresh` records a nonce and answers false if it was seen before (a replay).
 */
export async function verifyToolgateRequest(
  request: ReceivedRequest,
  keysOf: (consumer: string) => readonly PublishedKey[] | undefined,
  fresh: (nonce: string) => boolean,
): Promise<Verification> {
  const h = request.headers;
  const identity = h["toolgate-identity"];
  const digest = h["content-digest"];
  if (identity === undefined || digest === undefined || h.signature === undefined || h["signature-input"] === undefined)
    return { ok: false, reason: "unsigned" };
  if (!digestMatches(digest, request.body)) return { ok: false, reason: "content-digest mismatch" };
  const statement = decodeStatement(identity);
  if (statement === null) return { ok: false, reason: "malformed identity" };
  // Only the keys of the consumer the statement names: another consumer's key vouches for nothing here.
  const keys = keysOf(statement.consumer) ?? [];
  const accepted: SignatureParameters[] = [];
  let verified: boolean | null;
  try {
    verified = await httpbis.verifyMessage(
      {
        async keyLookup(params) {
          const jwk =
            params.tag === "toolgate" && params.alg === "ed25519"
              ? keys.find((k) => k.kid === params.keyid)
              : undefined;
          if (jwk === undefined) return null;
          accepted.push(params);
          const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: "jwk" });
          return { id: jwk.kid, algs: ["ed25519"], verify: createVerifier(key, "ed25519") };
        },
        requiredFields: REQUIRED_COMPONENTS,
        requiredParams: ["created", "expires", "nonce", "keyid", "alg", "tag"],
        tolerance: TOLERANCE_SECONDS,
        maxAge: MAX_AGE_SECONDS,
      },
      { method: request.method, url: request.url, headers: h },
    );
  } catch (error) {
    return { ok: false, reason: `signature refused: ${(error as Error).message}` };
  }
  // Exactly one toolgate signature, under a key this downstream holds for that consumer, and it verified.
  const params = accepted.length === 1 ? accepted[0] : undefined;
  if (verified !== true || params === undefined || typeof params.keyid !== "string")
    return { ok: false, reason: accepted.length === 0 ? "unknown key" : "bad signature" };
  if (typeof params.nonce !== "string" || !fresh(params.nonce)) return { ok: false, reason: "replayed nonce" };
  const key = h["idempotency-key"];
  if (key !== undefined && key !== `"${statement.status_ref ?? ""}"`)
    return { ok: false, reason: "idempotency key is not the statement's status_ref" };
  return { ok: true, keyid: params.keyid, statement };
}
