/**
 * The audit log's Merkle tree written from its definition, over WebCrypto SHA-256, for tests that
 * check the gate's tree apart from the code under test (which hashes with @noble/hashes or the
 * runtime's digest), and a sample audit entry to append.
 */
import type { ChainEntry } from "../../src/core/audit";
import { sha256 } from "./web-sha256";

/** MTH(D[n]) of RFC 9162 §2.1.1, recursively over the leaf hashes (the empty tree: SHA-256 of nothing). */
export async function mth(leaves: Uint8Array[]): Promise<Uint8Array> {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return leaves[0] as Uint8Array;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha256(new Uint8Array([1]), await mth(leaves.slice(0, k)), await mth(leaves.slice(k)));
}

/** An audit entry with sequence `seq` (its digests are placeholders: the tree hashes its export line). */
export const sampleEntry = (seq: number): ChainEntry => ({
  seq,
  kind: "tool_call",
  at: 1_784_419_200 + seq,
  record: `{"n":${seq}}`,
  prev_sha256: "0".repeat(64),
  entry_sha256: "1".repeat(64),
});

/** Lowercase hex of bytes. */
export const hex = (bytes: Uint8Array): string => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
