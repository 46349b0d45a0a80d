/**
 * The identity every HTTP tool and MCP target request carries to its downstream: a statement
 * of consumer, subject, roles, tool and call (`Toolgate-Identity`), the body's digest
 * (`Content-Digest`, RFC 9530) and an HTTP Message Signature over both and the method and
 * target URI (RFC 9421, `ed25519`) under the consumer's private key (signing-keys.ts), whose
 * public key the gate publishes. docs/http-tools.md is the downstream's side of this contract.
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { canonicalJson } from "../../../core/json";
import type { Principal, ToolCall } from "../../../core/tool-result/types";
import { encodeBase64Url } from "../../../core/wire/base64url";
import { keyPairOf, usableSecret } from "./signing-keys";

// One encoder for every request this signs (noble's `utf8ToBytes` builds a new one and copies each time).
const encoder = new TextEncoder();
const utf8ToBytes = (text: string): Uint8Array => encoder.encode(text);

/** The signature algorithm (RFC 9421 §3.3.6). */
export const SIGNATURE_ALGORITHM = "ed25519";

/** The signature's label in `Signature-Input`/`Signature`, and its `tag` parameter. */
export const SIGNATURE_LABEL = "toolgate";

/** Seconds from `created` to `expires`: a captured request is refused soon after. */
export const SIGNATURE_LIFETIME_SECONDS = 60;

/** The components every signature covers, in this order. */
export const COVERED_COMPONENTS = ["@method", "@target-uri", "content-digest", "toolgate-identity"] as const;

/**
 * What the gate vouches for on one downstream request: the consumer (the principal's
 * `tenant_id`), the verified subject and roles, the tool, the call's correlation ids, and for a
 * write or a status query its `status_ref` (the `Idempotency-Key`).
 */
export interface IdentityStatement {
  readonly consumer: string;
  readonly subject_id: string;
  readonly roles: readonly string[];
  readonly tool: string;
  readonly call_id: string;
  readonly operation_id: string;
  readonly status_ref?: string;
}

/** The headers that make a request carry its statement. */
export interface IdentityHeaders {
  readonly "content-digest": string;
  readonly "toolgate-identity": string;
  readonly "signature-input": string;
  readonly signature: string;
}

/** What is signed of one request (the body as sent, `""` for none). */
export interface SignedRequestParts {
  readonly method: string;
  readonly url: string;
  readonly body: string;
}

/** A statement ready to send: its consumer (whose key signs it) and its `Toolgate-Identity` value. */
export interface EncodedIdentity {
  readonly consumer: string;
  readonly header: string;
}

/** Signs downstream requests: the gate's side of the scheme. */
export interface DownstreamSigner {
  /** The identity headers of one request; call it for each request sent (fresh `created`, `nonce`). */
  sign(request: SignedRequestParts, identity: EncodedIdentity): Promise<IdentityHeaders>;
}

/** The statement of a call made for `principal` (`statusRef`: the write's key or the queried one). */
export function identityStatement(
  principal: Principal,
  tool: string,
  call: ToolCall,
  statusRef: string | null,
): IdentityStatement {
  const base = {
    consumer: principal.tenant_id,
    subject_id: principal.subject_id,
    roles: [...principal.roles],
    tool,
    call_id: call.call_id,
    operation_id: call.operation_id,
  };
  return statusRef === null ? base : { ...base, status_ref: statusRef };
}

/**
 * `Toolgate-Identity`: unpadded base64url of the statement's canonical JSON (UTF-8). Throws for
 * a statement outside the JSON domain or a consumer name that is not printable ASCII (bugs: both
 * were validated long before).
 */
export function encodeIdentity(statement: IdentityStatement): EncodedIdentity {
  sfString(statement.consumer);
  return { consumer: statement.consumer, header: encodeBase64Url(utf8ToBytes(canonicalJson(statement))) };
}

function base64(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

/** `Content-Digest` of a body (RFC 9530): `sha-256=:<base64 of SHA-256>:`. */
export function contentDigest(body: string): string {
  return `sha-256=:${base64(sha256(utf8ToBytes(body)))}:`;
}

/** An RFC 8941 string; the values quoted here (consumer names, base64url, fixed words) are printable ASCII. */
function sfString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) throw new Error("a signature parameter is not printable ASCII");
  return `"${value.replace(/[\\"]/g, "\\$&")}"`;
}

/** The `@signature-params` value (also the member of `Signature-Input`). */
export function signatureParams(created: number, nonce: string, keyid: string): string {
  const components = COVERED_COMPONENTS.map((c) => `"${c}"`).join(" ");
  const expires = created + SIGNATURE_LIFETIME_SECONDS;
  return `(${components});created=${created};expires=${expires};nonce=${sfString(nonce)};keyid=${sfString(keyid)};alg="${SIGNATURE_ALGORITHM}";tag=${sfString(SIGNATURE_LABEL)}`;
}

/** The RFC 9421 signature base: one `"name": value` line per component, then `@signature-params`. */
export function signatureBase(
  method: string,
  targetUri: string,
  headers: Pick<IdentityHeaders, "content-digest" | "toolgate-identity">,
  params: string,
): string {
  const values: Record<(typeof COVERED_COMPONENTS)[number], string> = {
    "@method": method.toUpperCase(),
    "@target-uri": targetUri,
    "content-digest": headers["content-digest"],
    "toolgate-identity": headers["toolgate-identity"],
  };
  const lines = COVERED_COMPONENTS.map((c) => `"${c}": ${values[c]}`);
  return [...lines, `"@signature-params": ${params}`].join("\n");
}

function randomNonce(): string {
  return encodeBase64Url(crypto.getRandomValues(new Uint8Array(16)));
}

/**
 * The signer of a gate, or `undefined` when `secret` is unset or shorter than
 * `MIN_SIGNING_KEY_LENGTH` (then HTTP tools send nothing). Each request is signed with its
 * consumer's Ed25519 key (derived once per isolate; `keyid` is the key's published `kid`).
 * `nowMs` is the wall clock the downstream checks `created`/`expires` against — never a test's
 * pinned object clock; `nonce` draws each request's nonce (16 random bytes; a test may fix it
 * for a known answer).
 */
export function downstreamSigner(
  secret: string | undefined,
  nowMs: () => number = Date.now,
  nonce: () => string = randomNonce,
): DownstreamSigner | undefined {
  if (!usableSecret(secret)) return undefined;
  return {
    async sign(request, identity) {
      const pair = keyPairOf(secret, identity.consumer);
      const digested = { "content-digest": contentDigest(request.body), "toolgate-identity": identity.header };
      const params = signatureParams(Math.floor(nowMs() / 1000), nonce(), pair.publicKey.kid);
      const base = signatureBase(request.method, new URL(request.url).href, digested, params);
      const signature = await pair.sign(utf8ToBytes(base));
      return {
        ...digested,
        "signature-input": `${SIGNATURE_LABEL}=${params}`,
        signature: `${SIGNATURE_LABEL}=:${base64(signature)}:`,
      };
    },
  };
}
