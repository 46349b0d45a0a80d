import { describe, expect, it } from "vitest";
import { sameBytes } from "../../../src/core/audit";

describe("sameBytes", () => {
  it("is true only for the same length and the same bytes", () => {
    const tile = Uint8Array.from({ length: 8192 }, (_, i) => (i * 31) & 0xff);
    const copy = Uint8Array.from(tile);
    const lastDiffers = Uint8Array.from(tile);
    lastDiffers[8191] = (lastDiffers[8191] ?? 0) ^ 1;
    expect(sameBytes(tile, copy)).toBe(true);
    expect(sameBytes(new Uint8Array(0), new Uint8Array(0))).toBe(true);
    expect(sameBytes(tile, lastDiffers)).toBe(false);
    expect(sameBytes(Uint8Array.of(1, 2, 3), Uint8Array.of(1, 2, 4))).toBe(false);
    // A prefix is not the same bytes, in either order.
    expect(sameBytes(tile.subarray(0, 32), tile)).toBe(false);
    expect(sameBytes(tile, tile.subarray(0, 32))).toBe(false);
    expect(sameBytes(new Uint8Array(0), Uint8Array.of(0))).toBe(false);
  });
});
