import { bytesToHex } from "@noble/hashes/utils.js";

/** `bytes` random bytes as lowercase hex: the object's own ids (MCP sessions and tasks, webhook endpoints and deliveries, console CSRF tokens). */
export function randomHex(bytes: number): string {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(bytes)));
}
