/**
 * SHA-256 of the concatenated parts by WebCrypto, for tests that check the gate's digests and
 * Merkle hashes apart from the code under test (which hashes with @noble/hashes).
 */
export async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", all));
}
