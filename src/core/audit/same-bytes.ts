/**
 * Whether two byte strings are equal: hashes, roots and tiles compared by verifiers and the
 * archive (public values, so no constant-time compare is needed).
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  // A plain loop: the archive compares whole tiles (up to 256 entries) as they read back from R2,
  // where a callback per byte was a visible share of the object's CPU.
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
