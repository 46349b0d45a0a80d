import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  archivedNodeBound,
  decodeEntryBundle,
  decodeHashTile,
  encodeEntryBundle,
  encodeHashTile,
  entryLine,
  entryTilePath,
  hashTilePath,
  MerkleTree,
  nodeInTile,
  readEntryLine,
  subtreeOfTile,
  tileIndexPath,
  tilesCompletedBy,
  type ChainEntry,
} from "../../../src/core/audit";

const sha = (...parts: Uint8Array[]) => new Uint8Array(createHash("sha256").update(Buffer.concat(parts)).digest());
const leaf = (i: number) => sha(new Uint8Array([0]), new TextEncoder().encode(`entry ${i}`));
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** RFC 9162 §2.1.1 MTH over leaf hashes, written here apart from the code under test. */
function mth(leaves: Uint8Array[]): Uint8Array {
  if (leaves.length === 1) return leaves[0] as Uint8Array;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha(new Uint8Array([1]), mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

describe("tile paths (C2SP tlog-tiles)", () => {
  it("encode the index in 3-digit elements, all but the last prefixed with x", () => {
    expect([0, 5, 999, 1000, 1234067, 256].map(tileIndexPath)).toEqual([
      "000",
      "005",
      "999",
      "x001/000",
      "x001/x234/067",
      "256",
    ]);
  });

  it("name hash tiles by level and entry bundles under tile/entries, partial widths as .p/W", () => {
    expect(hashTilePath(0, 1234)).toBe("tile/0/x001/234");
    expect(hashTilePath(1, 5, 7)).toBe("tile/1/005.p/7");
    expect(entryTilePath(1234067)).toBe("tile/entries/x001/x234/067");
    expect(entryTilePath(2, 255)).toBe("tile/entries/002.p/255");
    expect(() => hashTilePath(64, 0)).toThrow(RangeError);
    expect(() => entryTilePath(0, 0)).toThrow(RangeError);
    expect(() => tileIndexPath(-1)).toThrow(RangeError);
  });
});

describe("tile bytes", () => {
  it("a hash tile is its hashes concatenated, 32 bytes each", () => {
    const hashes = Array.from({ length: 256 }, (_, i) => leaf(i));
    const bytes = encodeHashTile(hashes);
    expect(bytes.length).toBe(8192);
    expect(hex(bytes.slice(32, 64))).toBe(hex(leaf(1)));
    expect(decodeHashTile(bytes)?.map(hex)).toEqual(hashes.map(hex));
    expect(decodeHashTile(bytes.slice(1))).toBeNull();
    expect(decodeHashTile(bytes.slice(0, 64), 2)?.length).toBe(2);
  });

  it("an entry bundle is each entry after its big-endian uint16 length", () => {
    const entries = [new Uint8Array([0x61]), new Uint8Array(0), new Uint8Array(300).fill(7)];
    const bytes = encodeEntryBundle(entries);
    expect(bytes === null ? null : [...bytes.slice(0, 6)]).toEqual([0x00, 0x01, 0x61, 0x00, 0x00, 0x01]);
    expect(bytes?.length).toBe(2 + 1 + 2 + 0 + 2 + 300);
    expect(bytes?.[6]).toBe(0x2c);
    expect(decodeEntryBundle(bytes as Uint8Array, 3)?.map((e) => e.length)).toEqual([1, 0, 300]);
    expect(decodeEntryBundle(bytes as Uint8Array, 2)).toBeNull();
    expect(decodeEntryBundle((bytes as Uint8Array).slice(0, -1), 3)).toBeNull();
    expect(encodeEntryBundle([new Uint8Array(65_535)])?.length).toBe(65_537);
    expect(encodeEntryBundle([new Uint8Array(65_536)])).toBeNull();
  });
});

describe("which tile holds a tree node", () => {
  it("maps a node of levels 8L … 8L+7 to a stretch of a level-L tile", () => {
    expect(nodeInTile(0, 300)).toEqual({ tileLevel: 0, tileIndex: 1, start: 44, count: 1 });
    expect(nodeInTile(3, 40)).toEqual({ tileLevel: 0, tileIndex: 1, start: 64, count: 8 });
    expect(nodeInTile(8, 300)).toEqual({ tileLevel: 1, tileIndex: 1, start: 44, count: 1 });
    expect(nodeInTile(10, 3)).toEqual({ tileLevel: 1, tileIndex: 0, start: 12, count: 4 });
  });

  it("hashes a node up from its tile's hashes, as RFC 9162 defines it", () => {
    const leaves = Array.from({ length: 512 }, (_, i) => leaf(i));
    const tree = new MerkleTree();
    for (const l of leaves) tree.append(l);
    const tile1 = leaves.slice(256, 512);
    for (const [level, index] of [
      [0, 300],
      [3, 40],
      [7, 3],
      [8, 1],
    ] as const) {
      const at = nodeInTile(level, index);
      const hashes =
        at.tileLevel === 0
          ? at.tileIndex === 1
            ? tile1
            : leaves.slice(0, 256)
          : [mth(leaves.slice(0, 256)), mth(tile1)];
      expect([level, index, hex(subtreeOfTile(hashes, at.start, at.count))]).toEqual([
        level,
        index,
        hex(mth(leaves.slice(index * 2 ** level, (index + 1) * 2 ** level))),
      ]);
      expect(hex(tree.node(level, index))).toBe(hex(subtreeOfTile(hashes, at.start, at.count)));
    }
    expect(() => subtreeOfTile(tile1, 0, 3)).toThrow(RangeError);
  });

  it("says which nodes full tiles hold, and which hash tiles an entry tile completes", () => {
    expect([0, 1, 7, 8, 9].map((level) => archivedNodeBound(level, 512))).toEqual([512, 256, 4, 0, 0]);
    expect([0, 8, 15, 16].map((level) => archivedNodeBound(level, 65_536))).toEqual([65_536, 256, 2, 0]);
    expect(archivedNodeBound(3, 0)).toBe(0);
    expect(tilesCompletedBy(0)).toEqual([{ level: 0, index: 0 }]);
    expect(tilesCompletedBy(255)).toEqual([
      { level: 0, index: 255 },
      { level: 1, index: 0 },
    ]);
    expect(tilesCompletedBy(65_535)).toEqual([
      { level: 0, index: 65_535 },
      { level: 1, index: 255 },
      { level: 2, index: 0 },
    ]);
  });
});

describe("reading an entry line back", () => {
  const entry: ChainEntry = {
    seq: 7,
    kind: "tool_call",
    at: 1_700_000_000,
    record: '{"a":[1,1.0,"é"],"b":null}',
    prev_sha256: "ab".repeat(32),
    entry_sha256: "cd".repeat(32),
  };

  it("answers the entry of its canonical line, as text or UTF-8 bytes", () => {
    const line = entryLine(entry);
    expect(readEntryLine(line)).toEqual(entry);
    expect(readEntryLine(new TextEncoder().encode(line))).toEqual(entry);
  });

  it("refuses any other spelling or shape", () => {
    const line = entryLine(entry);
    expect(readEntryLine(line.replace('"seq":7', '"seq": 7'))).toBeNull();
    expect(readEntryLine(line.replace('{"at"', '{"x":1,"at"'))).toBeNull();
    expect(readEntryLine(line.replace('"seq":7', '"seq":7.5'))).toBeNull();
    expect(readEntryLine(line.slice(0, -1))).toBeNull();
    expect(readEntryLine(new Uint8Array([0xff]))).toBeNull();
    expect(readEntryLine("[]")).toBeNull();
  });
});
