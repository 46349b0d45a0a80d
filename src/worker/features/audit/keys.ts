/**
 * The audit log's signing keys, from the Worker's secrets: the signer of checkpoints
 * (`TOOLGATE_AUDIT_SIGNING_KEY`, C2SP signer key text) and the verifier keys published at
 * `GET /v1/audit/verifier-keys` (the current one, then the previous one during a rotation).
 * Each key text is parsed once per isolate; no key text ever reaches a log line or an answer
 * (only verifier keys, which are public, are answered).
 * @module
 */
import { noteKeys, verifierKeyOf, type Signer, type Verifier } from "../../../core/audit";
import { nativeEd25519 } from "../../ed25519";
import type { Env } from "../../env";

/** The key texts are read with the runtime's Ed25519 (../../ed25519.ts), not the core's JavaScript one. */
const { parseSignerKey, parseVerifierKey } = noteKeys(nativeEd25519);

/** The first part of every checkpoint origin when the deployment names none. */
export const DEFAULT_AUDIT_LOG_NAME = "toolgate";

let signerCache: { text: string; signer: Signer | null } | undefined;
let previousCache: { text: string; key: string | null } | undefined;

/** The checkpoint signer, or null when the secret is unset or is not signer key text. */
export function auditSigner(env: Env): Signer | null {
  const text = env.TOOLGATE_AUDIT_SIGNING_KEY;
  if (text === undefined || text === "") return null;
  if (signerCache?.text !== text) {
    const parsed = parseSignerKey(text);
    // A malformed secret is a deployment error; say so without the secret's text.
    if (!parsed.ok)
      console.error("toolgate: TOOLGATE_AUDIT_SIGNING_KEY is not a signer key; checkpoints are not signed");
    signerCache = { text, signer: parsed.ok ? parsed.value : null };
  }
  return signerCache.signer;
}

/** The previous key's verifier key text (its signer key text, or its verifier key text as given). */
function previousVerifierKey(env: Env): string | null {
  const text = env.TOOLGATE_AUDIT_SIGNING_KEY_PREVIOUS;
  if (text === undefined || text === "") return null;
  if (previousCache?.text !== text) {
    const signer = text.startsWith("PRIVATE+KEY+") ? parseSignerKey(text) : null;
    const key =
      signer === null ? (parseVerifierKey(text).ok ? text : null) : signer.ok ? verifierKeyOf(signer.value) : null;
    previousCache = { text, key };
  }
  return previousCache.key;
}

/** The published verifier keys: the current key's first, then the previous key's, if set. */
export function verifierKeys(env: Env): string[] {
  const signer = auditSigner(env);
  const previous = previousVerifierKey(env);
  const keys = signer === null ? [] : [verifierKeyOf(signer)];
  if (previous !== null && !keys.includes(previous)) keys.push(previous);
  return keys;
}

/** The published verifier keys, parsed: what opens a checkpoint the gate signed. */
export function auditVerifiers(env: Env): Verifier[] {
  return verifierKeys(env).flatMap((key) => {
    const parsed = parseVerifierKey(key);
    return parsed.ok ? [parsed.value] : [];
  });
}

/** The checkpoint origin of a consumer's log: `<log name>/consumers/<consumer>`. */
export function auditOrigin(env: Env, consumer: string): string {
  const name = env.TOOLGATE_AUDIT_LOG_NAME;
  return `${name === undefined || name === "" ? DEFAULT_AUDIT_LOG_NAME : name}/consumers/${consumer}`;
}
