/**
 * Whether two byte strings are equal: hashes, roots and tiles compared by verifiers and the
 * archive (public values, so no constant-time compare is needed).
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
