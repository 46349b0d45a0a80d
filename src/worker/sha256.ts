/**
 * SHA-256 on a call's path: the runtime's native digest (`node:crypto`, loaded on first use
 * through `process.getBuiltinModule`, so it costs nothing at start) for inputs of
 * {@link NATIVE_FROM_BYTES} bytes or more, where it is several times faster than the JavaScript
 * one; shorter inputs, and a runtime without it, use the core's (noble). The bytes hashed are
 * the same UTF-8 either way (encoded here by `TextEncoder`), so every digest is identical.
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { sha256Hex } from "../core/json";
import { builtinModule } from "./builtin";

/** From this many UTF-8 bytes on, the native digest is used (below it, its call costs more than it saves). */
export const NATIVE_FROM_BYTES = 512;

/** What this module uses of `node:crypto`. */
interface NativeHash {
  update(data: Uint8Array): NativeHash;
  digest(): Uint8Array;
  digest(encoding: "hex"): string;
}
interface NativeCrypto {
  createHash(algorithm: "sha256"): NativeHash;
}

let native: NativeCrypto | null | undefined;

function nativeCrypto(): NativeCrypto | null {
  if (native === undefined) {
    const crypto = builtinModule("node:crypto");
    native =
      typeof crypto === "object" &&
      crypto !== null &&
      typeof (crypto as Partial<NativeCrypto>).createHash === "function"
        ? (crypto as NativeCrypto)
        : null;
  }
  return native;
}

const encoder = new TextEncoder();
let scratch = new Uint8Array(16 * 1024);

/** The UTF-8 bytes of `text` in a reused buffer (valid until the next call). */
function utf8(text: string): Uint8Array {
  if (text.length * 3 > scratch.length) scratch = new Uint8Array(text.length * 3);
  return scratch.subarray(0, encoder.encodeInto(text, scratch).written);
}

/** Lowercase hex SHA-256 of a string's UTF-8 bytes: the core's `sha256Hex`, natively for long texts. */
export function fastSha256Hex(text: string): string {
  // A text of fewer UTF-16 units than a third of the threshold is shorter than it in UTF-8 too.
  if (text.length * 3 < NATIVE_FROM_BYTES) return sha256Hex(text);
  const crypto = nativeCrypto();
  if (crypto === null) return sha256Hex(text);
  const bytes = utf8(text);
  if (bytes.length < NATIVE_FROM_BYTES) return sha256Hex(text);
  return crypto.createHash("sha256").update(bytes).digest("hex");
}

/** SHA-256 of bytes: natively for long inputs. */
export function fastSha256(bytes: Uint8Array): Uint8Array {
  const crypto = bytes.length < NATIVE_FROM_BYTES ? null : nativeCrypto();
  return crypto === null ? sha256(bytes) : new Uint8Array(crypto.createHash("sha256").update(bytes).digest());
}

/** Whether this runtime offers the native digest (tests check that workerd's is the one used). */
export function hasNativeSha256(): boolean {
  return nativeCrypto() !== null;
}
