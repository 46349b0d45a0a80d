/**
 * An end user's JWT (RFC 7519) in JWS compact form (RFC 7515), verified with the runtime's Web
 * Crypto against the issuer's JWKS (RFC 7517). Its header and claims are read with the strict
 * JSON reader like any other untrusted text: a token that names a claim twice (`sub` twice, the
 * parser-differential trick) is not a JWT here. Asymmetric algorithms only (the contract's list:
 * never `none`, never HMAC); a key is a candidate only where its type, curve, `alg`, `use` and
 * `key_ops` fit the token's algorithm, and only its public members are imported; an RSA key
 * under 2,048 bits is never one. The claims follow RFC 7519 §4.1 as jose's `jwtVerify` checks
 * them: `exp` required, `iss` and `aud` matched, `exp` and `nbf` within the skew, `iat` a number
 * when present.
 * @module
 */
import { PyFloat, readJson, type Json, type JsonObject } from "../../../core/json";
import { isJsonObject } from "../../../core/tool-schema/scalars";
import { decodeBase64Url } from "../../../core/wire/base64url";

/** Largest token read, in characters (a JWT rides in a call's body; 16 KiB is far beyond any issuer's). */
export const MAX_TOKEN_CHARS = 16_384;

/** Why a token was refused; a claim failure names the claim and jose's reason word. */
export type JwtFailure =
  | { readonly kind: "malformed" | "algorithm" | "no-key" | "signature" | "expired" }
  | { readonly kind: "claim"; readonly claim: string; readonly reason: "missing" | "invalid" | "check_failed" };

/** What a token must satisfy; times in seconds since the epoch. */
export interface JwtChecks {
  readonly issuer: string;
  readonly audience: string;
  readonly algorithms: readonly string[];
  readonly skewSeconds: number;
  readonly now: number;
}

export type JwtResult =
  { readonly ok: true; readonly claims: JsonObject } | { readonly ok: false; readonly failure: JwtFailure };

/** A JWS algorithm: the key type (and curve) it needs, and its Web Crypto parameters to import and verify. */
interface Algorithm {
  readonly kty: "RSA" | "EC" | "OKP";
  readonly crv?: string;
  readonly importAs: { readonly name: string; readonly hash?: string; readonly namedCurve?: string };
  readonly verifyAs: { readonly name: string; readonly hash?: string; readonly saltLength?: number };
}

const rsa = (name: "RSASSA-PKCS1-v1_5" | "RSA-PSS", bits: 256 | 384 | 512): Algorithm => ({
  kty: "RSA",
  importAs: { name, hash: `SHA-${bits}` },
  verifyAs: name === "RSA-PSS" ? { name, saltLength: bits / 8 } : { name },
});
const ec = (crv: "P-256" | "P-384" | "P-521", bits: 256 | 384 | 512): Algorithm => ({
  kty: "EC",
  crv,
  importAs: { name: "ECDSA", namedCurve: crv },
  verifyAs: { name: "ECDSA", hash: `SHA-${bits}` },
});
const ed25519: Algorithm = { kty: "OKP", crv: "Ed25519", importAs: { name: "Ed25519" }, verifyAs: { name: "Ed25519" } };

/** The contract's algorithms (`PRINCIPAL_TOKEN_ALGORITHMS`) in Web Crypto's terms (RFC 7518 §3, RFC 8037). */
const ALGORITHMS: ReadonlyMap<string, Algorithm> = new Map([
  ["RS256", rsa("RSASSA-PKCS1-v1_5", 256)],
  ["RS384", rsa("RSASSA-PKCS1-v1_5", 384)],
  ["RS512", rsa("RSASSA-PKCS1-v1_5", 512)],
  ["PS256", rsa("RSA-PSS", 256)],
  ["PS384", rsa("RSA-PSS", 384)],
  ["PS512", rsa("RSA-PSS", 512)],
  ["ES256", ec("P-256", 256)],
  ["ES384", ec("P-384", 384)],
  ["ES512", ec("P-521", 512)],
  ["EdDSA", ed25519],
  ["Ed25519", ed25519],
]);

/** The smallest RSA modulus accepted, in bits (RFC 7518 §3.3). */
const MIN_RSA_BITS = 2048;

const refused = (failure: JwtFailure): JwtResult => ({ ok: false, failure });
const claimFailure = (claim: string, reason: "missing" | "invalid" | "check_failed"): JwtResult =>
  refused({ kind: "claim", claim, reason });

/** A JSON object from one base64url segment, or null (not canonical base64url, not strict JSON, not an object). */
function segmentObject(segment: string): JsonObject | null {
  const bytes = decodeBase64Url(segment);
  if (bytes === null) return null;
  const read = readJson(bytes, { maxBytes: MAX_TOKEN_CHARS });
  return read.ok && isJsonObject(read.value) ? read.value : null;
}

/** A JSON number as a JS number (`1.0` reads as a float), else undefined. */
function numeric(value: Json | undefined): number | undefined {
  if (typeof value === "number") return value;
  if (value instanceof PyFloat) return value.value;
  return undefined;
}

/** The keys of `jwks` that may verify a token of `alg` and `kid` (jose's selection from a local JWKS). */
function candidates(keys: readonly JsonObject[], alg: Algorithm, algName: string, kid: Json | undefined): JsonObject[] {
  return keys.filter((jwk) => {
    if (jwk["kty"] !== alg.kty) return false;
    if (typeof kid === "string" && jwk["kid"] !== kid) return false;
    if (typeof jwk["alg"] === "string" && jwk["alg"] !== algName) return false;
    if (typeof jwk["use"] === "string" && jwk["use"] !== "sig") return false;
    const ops = jwk["key_ops"];
    if (Array.isArray(ops) && !ops.includes("verify")) return false;
    return alg.crv === undefined || jwk["crv"] === alg.crv;
  });
}

/** The key's public members only (a private JWK never imports as a private key here). */
function publicJwk(jwk: JsonObject, alg: Algorithm): JsonWebKey | null {
  const member = (name: string): string | null => {
    const value = jwk[name];
    return typeof value === "string" && decodeBase64Url(value) !== null ? value : null;
  };
  if (alg.kty === "RSA") {
    const n = member("n");
    const e = member("e");
    if (n === null || e === null || modulusBits(n) < MIN_RSA_BITS) return null;
    return { kty: "RSA", n, e };
  }
  const x = member("x");
  if (x === null || alg.crv === undefined) return null;
  if (alg.kty === "OKP") return { kty: "OKP", crv: alg.crv, x };
  const y = member("y");
  return y === null ? null : { kty: "EC", crv: alg.crv, x, y };
}

/** The bit length of a base64url big-endian modulus. */
function modulusBits(n: string): number {
  const bytes = decodeBase64Url(n) ?? new Uint8Array();
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  const lead = bytes[i];
  return lead === undefined ? 0 : (bytes.length - i - 1) * 8 + (32 - Math.clz32(lead));
}

/**
 * Each issuer key imported once per algorithm (null: it does not import), as long as its JWK
 * object lives: the consumer's configuration and the fetched key set keep theirs between calls.
 */
const importedKeys = new WeakMap<JsonObject, Map<string, CryptoKey | null>>();

async function importedKey(jwk: JsonObject, alg: Algorithm, algName: string): Promise<CryptoKey | null> {
  let byAlgorithm = importedKeys.get(jwk);
  if (byAlgorithm === undefined) {
    byAlgorithm = new Map();
    importedKeys.set(jwk, byAlgorithm);
  }
  const known = byAlgorithm.get(algName);
  if (known !== undefined) return known;
  const material = publicJwk(jwk, alg);
  let key: CryptoKey | null = null;
  if (material !== null) {
    try {
      key = await crypto.subtle.importKey("jwk", material, alg.importAs, false, ["verify"]);
    } catch {
      // A point off its curve, a malformed modulus: this key verifies nothing.
    }
  }
  byAlgorithm.set(algName, key);
  return key;
}

/**
 * Whether one of `keys` verifies `signature` over `input`; `"no-key"` when none of them imports
 * (an RSA modulus under 2,048 bits, a point off its curve, members that are not base64url).
 */
async function verifiedByAny(
  keys: readonly JsonObject[],
  alg: Algorithm,
  algName: string,
  signature: Uint8Array,
  input: Uint8Array,
): Promise<boolean | "no-key"> {
  let imported = 0;
  for (const jwk of keys) {
    const key = await importedKey(jwk, alg, algName);
    if (key === null) continue;
    imported++;
    try {
      if (await crypto.subtle.verify(alg.verifyAs, key, signature, input)) return true;
    } catch {
      // A signature of the wrong length for the key: it does not verify.
    }
  }
  return imported === 0 ? "no-key" : false;
}

/** The registered claims' checks, in jose's order. */
function checkClaims(claims: JsonObject, checks: JwtChecks): JwtResult {
  if (!Object.hasOwn(claims, "exp")) return claimFailure("exp", "missing");
  if (claims["iss"] !== checks.issuer) return claimFailure("iss", "check_failed");
  const aud = claims["aud"];
  const audienceMatches =
    typeof aud === "string" ? aud === checks.audience : Array.isArray(aud) && aud.includes(checks.audience);
  if (!audienceMatches) return claimFailure("aud", "check_failed");
  if (claims["iat"] !== undefined && numeric(claims["iat"]) === undefined) return claimFailure("iat", "invalid");
  if (claims["nbf"] !== undefined) {
    const nbf = numeric(claims["nbf"]);
    if (nbf === undefined) return claimFailure("nbf", "invalid");
    if (nbf > checks.now + checks.skewSeconds) return claimFailure("nbf", "check_failed");
  }
  const exp = numeric(claims["exp"]);
  if (exp === undefined) return claimFailure("exp", "invalid");
  if (exp <= checks.now - checks.skewSeconds) return refused({ kind: "expired" });
  return { ok: true, claims };
}

/**
 * Verifies `token` under `keys` (the issuer's JWKS members, each an object with `kty`): its
 * header (strict JSON, an allowed `alg`, no `crit`, no unencoded payload), a signature one
 * fitting key verifies, then its claims. Never throws for a token's content.
 */
export async function verifyJwt(token: string, keys: readonly JsonObject[], checks: JwtChecks): Promise<JwtResult> {
  if (token.length > MAX_TOKEN_CHARS) return refused({ kind: "malformed" });
  const parts = token.split(".");
  if (parts.length !== 3) return refused({ kind: "malformed" });
  const [head = "", body = "", sig = ""] = parts;
  const header = segmentObject(head);
  const signature = decodeBase64Url(sig);
  if (header === null || signature === null || signature.length === 0 || body === "")
    return refused({ kind: "malformed" });
  // No extension is understood, so none may be critical (RFC 7515 §4.1.11); `b64` (RFC 7797) needs one.
  if (header["crit"] !== undefined || (header["b64"] !== undefined && header["b64"] !== true))
    return refused({ kind: "malformed" });
  const algName = header["alg"];
  if (typeof algName !== "string") return refused({ kind: "malformed" });
  const alg = ALGORITHMS.get(algName);
  if (alg === undefined || !checks.algorithms.includes(algName)) return refused({ kind: "algorithm" });
  const fitting = candidates(keys, alg, algName, header["kid"]);
  if (fitting.length === 0) return refused({ kind: "no-key" });
  const input = new TextEncoder().encode(`${head}.${body}`);
  const verified = await verifiedByAny(fitting, alg, algName, signature, input);
  if (verified !== true) return refused({ kind: verified === "no-key" ? "no-key" : "signature" });
  // The claims are read once the signature holds, as jose reads them.
  const claims = segmentObject(body);
  return claims === null ? refused({ kind: "malformed" }) : checkClaims(claims, checks);
}
