// The audit tree keeps its right edge in memory: an append reads no stored node, the roots stay
// RFC 9162's (checked against an independent recursive definition over WebCrypto SHA-256), and a
// reset (a rolled-back transaction) forgets the edge so nodes are read from the table again.
import { describe, expect, it } from "vitest";
import { entryLeafHash, rootHash } from "../../../src/core/audit";
import type { AuditStore } from "../../../src/worker/features/audit/store";
import { AuditTree } from "../../../src/worker/features/audit/tree";
import { hex, mth, sampleEntry } from "../../support/merkle-definition";

/** The table a tree writes to, counting the node reads it is asked for. */
function table() {
  const rows = new Map<string, Uint8Array>();
  const counts = { reads: 0, writes: 0 };
  const store = {
    treeSize: () => [...rows.keys()].filter((k) => k.startsWith("0/")).length,
    node(level: number, idx: number) {
      counts.reads++;
      const hash = rows.get(`${level}/${idx}`);
      if (hash === undefined) throw new Error(`node (${level}, ${idx}) is missing`);
      return hash;
    },
    putNodes(nodes: Array<{ level: number; index: number; hash: Uint8Array }>) {
      counts.writes++;
      for (const node of nodes) rows.set(`${node.level}/${node.index}`, node.hash);
    },
  };
  return { store: store as unknown as AuditStore, rows, counts };
}

describe("AuditTree's right edge", () => {
  it("appends 13 leaves without reading a stored node, one write each; every root is RFC 9162's", async () => {
    const { store, rows, counts } = table();
    const tree = new AuditTree(store);
    const leaves: Uint8Array[] = [];
    for (let seq = 1; seq <= 13; seq++) leaves.push(tree.append(sampleEntry(seq)));
    expect(counts).toEqual({ reads: 0, writes: 13 });
    expect(rows.size).toBe(13 + 6 + 3 + 1);
    for (const size of [1, 2, 3, 7, 8, 13])
      expect(hex(rootHash(tree, size))).toBe(hex(await mth(leaves.slice(0, size))));
    expect(hex(leaves[12] as Uint8Array)).toBe(hex(entryLeafHash(sampleEntry(13))));
  });

  it("forgets the edge on reset: the next append reads its left siblings from the table", () => {
    const { store, counts } = table();
    const tree = new AuditTree(store);
    for (let seq = 1; seq <= 7; seq++) tree.append(sampleEntry(seq));
    tree.reset();
    tree.append(sampleEntry(8));
    expect(counts.reads).toBe(3);
  });
});
