import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  appendNodes,
  consistencyProof,
  EMPTY_ROOT,
  inclusionProof,
  leafHash,
  MerkleTree,
  nodeHash,
  rootHash,
  verifyConsistency,
  verifyInclusion,
  type NodeReader,
} from "../../../src/core/audit";

// An independent RFC 9162 §2.1 implementation: node:crypto SHA-256, the recursive definitions
// of §2.1.1, §2.1.3.1 and §2.1.4.1, and the verification loops of §2.1.3.2 and §2.1.4.2.
function H(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(createHash("sha256").update(Buffer.concat(parts)).digest());
}
const refLeaf = (entry: Uint8Array) => H(Uint8Array.of(0), entry);
const refNode = (left: Uint8Array, right: Uint8Array) => H(Uint8Array.of(1), left, right);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const same = (a: Uint8Array, b: Uint8Array) => hex(a) === hex(b);

const entries = Array.from({ length: 64 }, (_, i) => new TextEncoder().encode(`entry number ${i}`));
const leaves = entries.map(refLeaf);

function largestPowerBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[start:end]) over the leaf hashes, memoized per range. */
const memo = new Map<number, Uint8Array>();
function refMth(start: number, end: number): Uint8Array {
  const n = end - start;
  if (n === 0) return H();
  if (n === 1) return leaves[start] as Uint8Array;
  const known = memo.get(start * 1000 + end);
  if (known !== undefined) return known;
  const k = largestPowerBelow(n);
  const hash = refNode(refMth(start, start + k), refMth(start + k, end));
  memo.set(start * 1000 + end, hash);
  return hash;
}

/** PATH(m, D[start:end]), m relative to start. */
function refPath(m: number, start: number, end: number): Uint8Array[] {
  const n = end - start;
  if (n <= 1) return [];
  const k = largestPowerBelow(n);
  if (m < k) return [...refPath(m, start, start + k), refMth(start + k, end)];
  return [...refPath(m - k, start + k, end), refMth(start, start + k)];
}

/** SUBPROOF(m, D[start:end], b), m relative to start. */
function refSubproof(m: number, start: number, end: number, b: boolean): Uint8Array[] {
  const n = end - start;
  if (m === n) return b ? [] : [refMth(start, end)];
  const k = largestPowerBelow(n);
  if (m <= k) return [...refSubproof(m, start, start + k, b), refMth(start + k, end)];
  return [...refSubproof(m - k, start + k, end, false), refMth(start, start + k)];
}

function refProof(m: number, n: number): Uint8Array[] {
  return m === 0 || m === n ? [] : refSubproof(m, 0, n, true);
}

function refVerifyInclusion(
  hash: Uint8Array,
  index: number,
  size: number,
  path: Uint8Array[],
  root: Uint8Array,
): boolean {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = hash;
  for (const p of path) {
    if (sn === 0) return false;
    if ((fn & 1) === 1 || fn === sn) {
      r = refNode(p, r);
      while ((fn & 1) === 0 && fn !== 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else {
      r = refNode(r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 && same(r, root);
}

function refVerifyConsistency(
  first: number,
  second: number,
  path: Uint8Array[],
  firstHash: Uint8Array,
  secondHash: Uint8Array,
): boolean {
  if (first > second) return false;
  if (first === second) return path.length === 0 && same(firstHash, secondHash);
  if (first === 0) return path.length === 0;
  if (path.length === 0) return false;
  const full = (first & (first - 1)) === 0 ? [firstHash, ...path] : [...path];
  let fn = first - 1;
  let sn = second - 1;
  while ((fn & 1) === 1) {
    fn >>= 1;
    sn >>= 1;
  }
  let fr = full[0] as Uint8Array;
  let sr = full[0] as Uint8Array;
  for (const c of full.slice(1)) {
    if (sn === 0) return false;
    if ((fn & 1) === 1 || fn === sn) {
      fr = refNode(c, fr);
      sr = refNode(c, sr);
      while ((fn & 1) === 0 && fn !== 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else {
      sr = refNode(sr, c);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return same(fr, firstHash) && same(sr, secondHash) && sn === 0;
}

const tree = new MerkleTree();
for (const leaf of entries.map(leafHash)) tree.append(leaf);
const flip = (proof: Uint8Array[], at: number): Uint8Array[] =>
  proof.map((p, i) => (i === at ? p.map((b, j) => (j === 0 ? b ^ 1 : b)) : p));

describe("the Merkle hashes", () => {
  it("hash leaves, nodes and the empty tree as RFC 9162 says", () => {
    expect(hex(EMPTY_ROOT)).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(hex(leafHash(entries[0] as Uint8Array))).toBe(hex(leaves[0] as Uint8Array));
    expect(hex(nodeHash(leaves[0] as Uint8Array, leaves[1] as Uint8Array))).toBe(
      hex(refNode(leaves[0] as Uint8Array, leaves[1] as Uint8Array)),
    );
    expect(hex(rootHash(tree, 0))).toBe(hex(EMPTY_ROOT));
  });

  it("gives every size's root as the recursive MTH does", () => {
    expect(tree.size).toBe(64);
    const wrong = Array.from({ length: 64 }, (_, i) => i + 1).filter((n) => !same(tree.root(n), refMth(0, n)));
    expect(wrong).toEqual([]);
  });
});

describe("inclusion proofs for every (index, size) up to 64 leaves", () => {
  const pairs = Array.from({ length: 64 }, (_, s) =>
    Array.from({ length: s + 1 }, (_, i) => [i, s + 1] as const),
  ).flat();

  it("equal RFC 9162's PATH and verify by both verifiers", () => {
    let checked = 0;
    const failures: string[] = [];
    for (const [i, n] of pairs) {
      const proof = inclusionProof(tree, i, n);
      const root = refMth(0, n);
      const leaf = leaves[i] as Uint8Array;
      if (proof.map(hex).join() !== refPath(i, 0, n).map(hex).join()) failures.push(`path ${i}/${n}`);
      if (!refVerifyInclusion(leaf, i, n, proof, root)) failures.push(`reference ${i}/${n}`);
      if (!verifyInclusion(leaf, i, n, proof, root)) failures.push(`own ${i}/${n}`);
      checked++;
    }
    expect(failures).toEqual([]);
    expect(checked).toBe(2080);
  });

  it("are refused with a flipped byte, a wrong index or a wrong size", () => {
    const accepted: string[] = [];
    let refused = 0;
    for (const [i, n] of pairs) {
      const proof = inclusionProof(tree, i, n);
      const root = refMth(0, n);
      const leaf = leaves[i] as Uint8Array;
      const cases: Array<[string, number, number, Uint8Array[]]> = proof.map((_, at) => [
        `flip ${at}`,
        i,
        n,
        flip(proof, at),
      ]);
      for (let j = 0; j <= n; j++) if (j !== i) cases.push([`index ${j}`, j, n, proof]);
      // A size whose path for this index has another length cannot verify (same-shaped sizes can).
      for (let m = i + 1; m <= 64; m++)
        if (m !== n && refPath(i, 0, m).length !== proof.length) cases.push([`size ${m}`, i, m, proof]);
      for (const [label, index, size, p] of cases) {
        if (refVerifyInclusion(leaf, index, size, p, root)) accepted.push(`reference ${i}/${n} ${label}`);
        if (verifyInclusion(leaf, index, size, p, root)) accepted.push(`own ${i}/${n} ${label}`);
        refused++;
      }
    }
    expect(accepted).toEqual([]);
    expect(refused > 50_000).toBe(true);
  }, 60_000);

  it("agree with the reference verifier for every claimed size", () => {
    const disagreements: string[] = [];
    for (const [i, n] of pairs) {
      const proof = inclusionProof(tree, i, n);
      const root = refMth(0, n);
      for (let m = 1; m <= 64; m++) {
        if (
          verifyInclusion(leaves[i] as Uint8Array, i, m, proof, root) !==
          refVerifyInclusion(leaves[i] as Uint8Array, i, m, proof, root)
        )
          disagreements.push(`${i}/${n} as ${m}`);
      }
    }
    expect(disagreements).toEqual([]);
  }, 60_000);

  it("are refused for an index at or past the size", () => {
    expect(() => inclusionProof(tree, 3, 3)).toThrow(RangeError);
    expect(verifyInclusion(leaves[3] as Uint8Array, 3, 3, [], tree.root(3))).toBe(false);
  });
});

describe("consistency proofs for every (m, n) up to 64 leaves", () => {
  const pairs = Array.from({ length: 64 }, (_, s) =>
    Array.from({ length: s + 1 }, (_, m) => [m + 1, s + 1] as const),
  ).flat();

  it("equal RFC 9162's PROOF and verify by both verifiers", () => {
    let checked = 0;
    const failures: string[] = [];
    for (const [m, n] of pairs) {
      const proof = consistencyProof(tree, m, n);
      const oldRoot = refMth(0, m);
      const newRoot = refMth(0, n);
      if (proof.map(hex).join() !== refProof(m, n).map(hex).join()) failures.push(`proof ${m}/${n}`);
      if (!refVerifyConsistency(m, n, proof, oldRoot, newRoot)) failures.push(`reference ${m}/${n}`);
      if (!verifyConsistency(m, n, proof, oldRoot, newRoot)) failures.push(`own ${m}/${n}`);
      checked++;
    }
    expect(failures).toEqual([]);
    expect(checked).toBe(2080);
  });

  it("are refused with a flipped byte, a wrong size or a wrong root", () => {
    const accepted: string[] = [];
    let refused = 0;
    for (const [m, n] of pairs) {
      const proof = consistencyProof(tree, m, n);
      const oldRoot = refMth(0, m);
      const newRoot = refMth(0, n);
      const cases: Array<[string, number, number, Uint8Array[], Uint8Array]> = proof.map((_, at) => [
        `flip ${at}`,
        m,
        n,
        flip(proof, at),
        oldRoot,
      ]);
      for (let k = 1; k <= 64; k++) {
        if (k !== m && k <= n && refProof(k, n).length !== proof.length)
          cases.push([`old size ${k}`, k, n, proof, oldRoot]);
        if (k !== n && k >= m && refProof(m, k).length !== proof.length)
          cases.push([`new size ${k}`, m, k, proof, oldRoot]);
      }
      if (m > 1) cases.push(["old root", m, n, proof, refMth(0, m - 1)]);
      for (const [label, first, second, p, old] of cases) {
        if (refVerifyConsistency(first, second, p, old, newRoot)) accepted.push(`reference ${m}/${n} ${label}`);
        if (verifyConsistency(first, second, p, old, newRoot)) accepted.push(`own ${m}/${n} ${label}`);
        refused++;
      }
    }
    expect(accepted).toEqual([]);
    expect(refused > 50_000).toBe(true);
  }, 60_000);

  it("treat the empty old tree and a larger old size as the RFC does", () => {
    expect(consistencyProof(tree, 0, 5)).toEqual([]);
    expect(verifyConsistency(0, 5, [], EMPTY_ROOT, tree.root(5))).toBe(true);
    expect(verifyConsistency(0, 5, [], tree.root(1), tree.root(5))).toBe(false);
    expect(verifyConsistency(6, 5, [], tree.root(6), tree.root(5))).toBe(false);
    expect(() => consistencyProof(tree, 6, 5)).toThrow(RangeError);
  });
});

describe("appendNodes", () => {
  it("reproduces the tree's nodes and roots through a Map-backed reader, 1 + trailing ones rows per append", () => {
    const rows = new Map<string, Uint8Array>();
    const reader: NodeReader = {
      node(level, index) {
        const hash = rows.get(`${level}:${index}`);
        if (hash === undefined) throw new Error(`missing node ${level}:${index}`);
        return hash;
      },
    };
    const failures: string[] = [];
    for (let size = 0; size < 64; size++) {
      const added = appendNodes(size, leaves[size] as Uint8Array, reader);
      const trailingOnes = size.toString(2).length - size.toString(2).replace(/1+$/, "").length;
      if (added.length !== 1 + trailingOnes) failures.push(`rows at ${size}`);
      for (const { level, index, hash } of added) {
        rows.set(`${level}:${index}`, hash);
        if (!same(hash, tree.node(level, index))) failures.push(`node ${level}:${index}`);
        if (!same(hash, refMth(index * 2 ** level, (index + 1) * 2 ** level)))
          failures.push(`subtree ${level}:${index}`);
      }
      if (!same(rootHash(reader, size + 1), refMth(0, size + 1))) failures.push(`root ${size + 1}`);
    }
    expect(failures).toEqual([]);
    expect(rows.size).toBe(127);
    expect(() => tree.node(0, 64)).toThrow(RangeError);
  });
});
