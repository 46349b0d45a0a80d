/**
 * The downstream's side of the gate's request identity (docs/http-tools.md), written
 * independently of src/: `http-message-signatures` checks the RFC 9421 signature, node:crypto
 * derives the consumer's key and checks `Content-Digest`. Used by the test refunds service.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { createVerifier, httpbis, type SignatureParameters } from "http-message-signatures";

/** The `TOOLGATE_SIGNING_KEY` bound in vitest.config.ts and test/reliability/vitest.config.ts. */
export const TEST_SIGNING_SECRET = "test-signing-key-0123456789abcdef012345";

/** The components a toolgate signature must cover. */
const REQUIRED_COMPONENTS = ["@method", "@target-uri", "content-digest", "toolgate-identity"];
/** Clock skew accepted on `created`/`expires`, and the oldest `created` accepted. */
const TOLERANCE_SECONDS = 5;
const MAX_AGE_SECONDS = 65;

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

/** A consumer's key: `HMAC-SHA256(secret, "toolgate downstream v1\n" + consumer)`. */
export function consumerKey(secret: string, consumer: string): Buffer {
  return createHmac("sha256", secret).update(`toolgate downstream v1\n${consumer}`).digest();
}

function digestMatches(header: string, body: Uint8Array): boolean {
  const expected = createHash("sha256").update(body).digest();
  const member = header.split(",").map((m) => m.trim()).find((m) => m.startsWith("sha-256="));
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
  const expected = ["call_id", "consumer", "operation_id", "roles", "subject_id", "tool", ...("status_ref" in record ? ["status_ref"] : [])].sort();
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
 * Verifies one request. `keyOf` answers the key this downstream holds for a consumer (none:
 * refused); `fresh` records a nonce and answers false if it was seen before (a replay).
 */
export async function verifyToolgateRequest(request: ReceivedRequest, keyOf: (consumer: string) => Buffer | undefined, fresh: (nonce: string) => boolean): Promise<Verification> {
  const h = request.headers;
  const identity = h["toolgate-identity"];
  const digest = h["content-digest"];
  if (identity === undefined || digest === undefined || h.signature === undefined || h["signature-input"] === undefined) return { ok: false, reason: "unsigned" };
  if (!digestMatches(digest, request.body)) return { ok: false, reason: "content-digest mismatch" };
  const statement = decodeStatement(identity);
  if (statement === null) return { ok: false, reason: "malformed identity" };
  const accepted: SignatureParameters[] = [];
  let verified: boolean | null;
  try {
    verified = await httpbis.verifyMessage(
      {
        async keyLookup(params) {
          const key = params.tag === "toolgate" && params.alg === "hmac-sha256" && typeof params.keyid === "string" ? keyOf(params.keyid) : undefined;
          if (key === undefined) return null;
          accepted.push(params);
          return { id: params.keyid, algs: ["hmac-sha256"], verify: createVerifier(key, "hmac-sha256") };
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
  // Exactly one toolgate signature, under a key this downstream holds, and it verified.
  const params = accepted.length === 1 ? accepted[0] : undefined;
  if (verified !== true || params === undefined) return { ok: false, reason: accepted.length === 0 ? "unknown key" : "bad signature" };
  if (params.keyid !== statement.consumer) return { ok: false, reason: "key of another consumer" };
  if (typeof params.nonce !== "string" || !fresh(params.nonce)) return { ok: false, reason: "replayed nonce" };
  const key = h["idempotency-key"];
  if (key !== undefined && key !== `"${statement.status_ref ?? ""}"`) return { ok: false, reason: "idempotency key is not the statement's status_ref" };
  return { ok: true, keyid: params.keyid, statement };
}
