/**
 * C2SP signed notes with Ed25519 keys, as Go's `golang.org/x/mod/sumdb/note` writes and reads
 * them: a text ending in a newline, a blank line, then one `— <name> <base64(keyId ‖ signature)>`
 * line per signer. A key is named and identified by `keyId` = the first four bytes of
 * SHA-256(name ‖ "\n" ‖ 0x01 ‖ publicKey), so a verifier holding many keys picks the right one.
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { isWellFormed } from "../json";
import { err, ok, type Result } from "../result";
import { decodeBase64, encodeBase64 } from "./base64";

/** A key that signs notes. It never reveals its private half. */
export interface Signer {
  readonly name: string;
  readonly keyId: number;
  readonly publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

/** A key that checks notes' signatures. */
export interface Verifier {
  readonly name: string;
  readonly keyId: number;
  verify(message: Uint8Array, signature: Uint8Array): boolean;
}

/** Why a key text was refused. */
export type KeyCode = "key_malformed" | "key_algorithm_unknown" | "key_id_mismatch";

/**
 * Why a note was refused: `note_malformed` (not a signed note), `note_unverified` (no signature
 * by a known key), `note_signature_invalid` (a known key's signature does not verify).
 */
export type NoteCode = "note_malformed" | "note_unverified" | "note_signature_invalid";

/** A note whose signatures by known keys all verify. */
export interface OpenedNote {
  readonly text: string;
  /** `<name>+<8 hex key id>` of each known key that signed, in the order of the signature lines. */
  readonly verifiedBy: string[];
}

const ALG_ED25519 = 1;
const SIGNATURE_PREFIX = "\u2014 ";
const MAX_SIGNATURES = 100;
const encoder = new TextEncoder();
// Go's unicode.IsSpace: a name holds none of these.
const SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;
const HEX8 = /^[0-9a-fA-F]{8}$/;
// Any ASCII control character but the newline.
const CONTROL = /[\u0000-\u0009\u000b-\u001f]/;

function validName(name: string): boolean {
  return name.length > 0 && isWellFormed(name) && !SPACE.test(name) && !name.includes("+");
}

/** The key id of a named Ed25519 public key. */
function keyIdOf(name: string, publicKey: Uint8Array): number {
  const nameBytes = encoder.encode(name);
  const input = new Uint8Array(nameBytes.length + 2 + publicKey.length);
  input.set(nameBytes, 0);
  input[nameBytes.length] = 0x0a;
  input[nameBytes.length + 1] = ALG_ED25519;
  input.set(publicKey, nameBytes.length + 2);
  const hash = sha256(input);
  return (
    (((hash[0] as number) << 24) | ((hash[1] as number) << 16) | ((hash[2] as number) << 8) | (hash[3] as number)) >>> 0
  );
}

function hex8(keyId: number): string {
  return keyId.toString(16).padStart(8, "0");
}

function withAlg(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(1 + key.length);
  out[0] = ALG_ED25519;
  out.set(key, 1);
  return out;
}

/** Splits `text` at the first `sep`, as Go's `chop`. */
function chop(text: string, sep: string): [string, string] {
  const at = text.indexOf(sep);
  return at < 0 ? [text, ""] : [text.slice(0, at), text.slice(at + sep.length)];
}

/** Reads `<name>+<hex>+<base64(0x01 ‖ key32)>` into its parts. */
function keyParts(text: string): Result<{ name: string; keyId: number; key: Uint8Array }, KeyCode> {
  const [name, rest] = chop(text, "+");
  const [hex, key64] = chop(rest, "+");
  const raw = decodeBase64(key64);
  if (!validName(name) || !HEX8.test(hex) || raw === null || raw.length === 0) return err("key_malformed");
  if (raw[0] !== ALG_ED25519) return err("key_algorithm_unknown");
  if (raw.length !== 33) return err("key_malformed");
  return ok({ name, keyId: Number.parseInt(hex, 16), key: raw.subarray(1) });
}

/**
 * What note keys need of Ed25519 (RFC 8032), so a runtime can bring its own: the core's is
 * JavaScript (./note-noble.ts); the Worker's is the runtime's native one (src/worker/ed25519.ts).
 * Signatures are deterministic, so every implementation signs the same bytes.
 */
export interface Ed25519 {
  /** The key pair of a 32-byte seed: its public key, and its signatures of a message. */
  keyPair(seed: Uint8Array): { readonly publicKey: Uint8Array; sign(message: Uint8Array): Uint8Array };
  /**
   * What checks a public key's signatures, or `null` when the key is not the canonical encoding
   * of a curve point (RFC 8032 §5.1.3). The check never throws; it refuses a signature not of
   * 64 bytes, one with S ≥ L or a non-canonical R, and every signature under a small-order key.
   */
  verifier(publicKey: Uint8Array): ((message: Uint8Array, signature: Uint8Array) => boolean) | null;
}

/** The key constructors of signed notes over one {@link Ed25519}. */
export interface NoteKeys {
  /** The signer of a 32-byte Ed25519 seed under `name`. Throws for a bad name or seed (a bug). */
  signerFromSeed(name: string, seed32: Uint8Array): Signer;
  /** Reads a signer key text `PRIVATE+KEY+<name>+<8 hex>+<base64(0x01 ‖ seed32)>`; the id must match the key. */
  parseSignerKey(text: string): Result<Signer, KeyCode>;
  /** Reads a verifier key text `<name>+<8 hex>+<base64(0x01 ‖ publicKey32)>`; the id must match the key. */
  parseVerifierKey(text: string): Result<Verifier, KeyCode>;
  /** The signer key text of a seed (how a deployment's secret is written). */
  signerKeyText(name: string, seed32: Uint8Array): string;
}

/** The key constructors of signed notes, signing and verifying with `ed`. */
export function noteKeys(ed: Ed25519): NoteKeys {
  function signerFromSeed(name: string, seed32: Uint8Array): Signer {
    if (!validName(name)) throw new RangeError("a key name is non-empty, without spaces or '+'");
    if (seed32.length !== 32) throw new RangeError("an Ed25519 seed is 32 bytes");
    const pair = ed.keyPair(seed32.slice());
    return {
      name,
      keyId: keyIdOf(name, pair.publicKey),
      publicKey: pair.publicKey,
      sign: (message) => pair.sign(message),
    };
  }
  return {
    signerFromSeed,
    parseSignerKey(text) {
      const [private1, rest1] = chop(text, "+");
      const [private2, rest2] = chop(rest1, "+");
      if (private1 !== "PRIVATE" || private2 !== "KEY") return err("key_malformed");
      const parts = keyParts(rest2);
      if (!parts.ok) return parts;
      const signer = signerFromSeed(parts.value.name, parts.value.key);
      if (signer.keyId !== parts.value.keyId) return err("key_id_mismatch");
      return ok(signer);
    },
    parseVerifierKey(text) {
      const parts = keyParts(text);
      if (!parts.ok) return parts;
      const { name, keyId, key } = parts.value;
      const verify = ed.verifier(key.slice());
      if (verify === null) return err("key_malformed");
      if (keyIdOf(name, key) !== keyId) return err("key_id_mismatch");
      return ok({ name, keyId, verify });
    },
    signerKeyText(name, seed32) {
      const signer = signerFromSeed(name, seed32);
      return `PRIVATE+KEY+${name}+${hex8(signer.keyId)}+${encodeBase64(withAlg(seed32))}`;
    },
  };
}

/** The verifier key text of a signer, the value a log publishes. */
export function verifierKeyOf(signer: Signer): string {
  return `${signer.name}+${hex8(signer.keyId)}+${encodeBase64(withAlg(signer.publicKey))}`;
}

/**
 * Signs `text` (which ends with a newline) by each signer: the text, a blank line, one signature
 * line per signer. Throws for a text or signer set out of shape (a bug).
 */
export function signNote(text: string, signers: Signer[]): string {
  if (!text.endsWith("\n") || !isWellFormed(text) || CONTROL.test(text))
    throw new RangeError("a note's text is UTF-8 ending in a newline, without control characters");
  if (signers.length === 0) throw new RangeError("a note needs a signer");
  const message = encoder.encode(text);
  const seen = new Set<string>();
  let lines = "";
  for (const signer of signers) {
    const id = `${signer.name}+${hex8(signer.keyId)}`;
    if (seen.has(id)) throw new RangeError("two signatures by one key");
    seen.add(id);
    if (!validName(signer.name)) throw new RangeError("a key name is non-empty, without spaces or '+'");
    const signature = signer.sign(message);
    const blob = new Uint8Array(4 + signature.length);
    new DataView(blob.buffer).setUint32(0, signer.keyId);
    blob.set(signature, 4);
    lines += `${SIGNATURE_PREFIX}${signer.name} ${encodeBase64(blob)}\n`;
  }
  return `${text}\n${lines}`;
}

/**
 * Opens a signed note: splits it at the last blank line, reads every signature line, and checks
 * each one whose (name, key id) is a known verifier's. Lines by unknown keys are skipped; a note
 * with no verified signature, a malformed line, or a known key's invalid signature is refused.
 */
export function openNote(signed: string, verifiers: Verifier[]): Result<OpenedNote, NoteCode> {
  if (!isWellFormed(signed) || CONTROL.test(signed)) return err("note_malformed");
  const split = signed.lastIndexOf("\n\n");
  if (split < 0) return err("note_malformed");
  const text = signed.slice(0, split + 1);
  const block = signed.slice(split + 2);
  if (block.length === 0 || !block.endsWith("\n")) return err("note_malformed");
  const lines = block.slice(0, -1).split("\n");
  if (lines.length > MAX_SIGNATURES) return err("note_malformed");
  const message = encoder.encode(text);
  const verifiedBy: string[] = [];
  for (const line of lines) {
    if (!line.startsWith(SIGNATURE_PREFIX)) return err("note_malformed");
    const [name, b64] = chop(line.slice(SIGNATURE_PREFIX.length), " ");
    const blob = decodeBase64(b64);
    if (!validName(name) || blob === null || blob.length < 5) return err("note_malformed");
    const keyId = new DataView(blob.buffer, blob.byteOffset, 4).getUint32(0);
    const verifier = verifiers.find((v) => v.name === name && v.keyId === keyId);
    if (verifier === undefined) continue;
    const id = `${name}+${hex8(keyId)}`;
    if (verifiedBy.includes(id)) continue;
    if (!verifier.verify(message, blob.subarray(4))) return err("note_signature_invalid");
    verifiedBy.push(id);
  }
  if (verifiedBy.length === 0) return err("note_unverified");
  return ok({ text, verifiedBy });
}
