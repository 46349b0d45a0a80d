/**
 * Compares two strings in time that depends only on their lengths, not on where they differ,
 * so a digest or secret comparison leaks no prefix through timing. Digests are fixed-length hex,
 * so the length itself is public.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
