import { describe, expect, it } from "vitest";
import { decodeBase64, encodeBase64, formatCheckpoint, parseCheckpoint } from "../../../src/core/audit";

const ROOT = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
const ROOT_B64 = "//79/Pv6+fj39vX08/Lx8O/u7ezr6uno5+bl5OPi4eA=";

describe("checkpoints", () => {
  it("are written as origin, size and base64 root lines", () => {
    expect(formatCheckpoint({ origin: "toolgate/consumers/acme", size: 1234, root: ROOT })).toBe(
      `toolgate/consumers/acme\n1234\n${ROOT_B64}\n`,
    );
    expect(formatCheckpoint({ origin: "o", size: 0, root: ROOT })).toBe(`o\n0\n${ROOT_B64}\n`);
  });

  it("read back with their extension lines", () => {
    expect(parseCheckpoint(`toolgate/consumers/acme\n1234\n${ROOT_B64}\n`)).toEqual({
      ok: true,
      value: { origin: "toolgate/consumers/acme", size: 1234, root: ROOT, extensions: [] },
    });
    expect(parseCheckpoint(`o\n0\n${ROOT_B64}\nx-ext one\nx-ext two\n`)).toEqual({
      ok: true,
      value: { origin: "o", size: 0, root: ROOT, extensions: ["x-ext one", "x-ext two"] },
    });
    expect(parseCheckpoint(`o\n9007199254740991\n${ROOT_B64}\n`)).toMatchObject({
      ok: true,
      value: { size: 9007199254740991 },
    });
  });

  it("refuse any other spelling", () => {
    const bad = [
      `o\n1\n${ROOT_B64}`,
      `\n1\n${ROOT_B64}\n`,
      `o\n01\n${ROOT_B64}\n`,
      `o\n+1\n${ROOT_B64}\n`,
      `o\n-1\n${ROOT_B64}\n`,
      `o\n 1\n${ROOT_B64}\n`,
      `o\n1.0\n${ROOT_B64}\n`,
      `o\n9007199254740992\n${ROOT_B64}\n`,
      `o\n1\n${ROOT_B64.slice(0, -1)}\n`,
      `o\n1\n${encodeBase64(ROOT.subarray(1))}\n`,
      `o\n1\n${ROOT_B64.replace("+", "-")}\n`,
      `o\n1\n${ROOT_B64}\n\n`,
      `o\n1\n`,
      "",
    ];
    expect(bad.map(parseCheckpoint)).toEqual(bad.map(() => ({ ok: false, error: "checkpoint_malformed" })));
  });

  it("cannot be written with an origin, size or root out of shape", () => {
    expect(() => formatCheckpoint({ origin: "", size: 1, root: ROOT })).toThrow(RangeError);
    expect(() => formatCheckpoint({ origin: "a\nb", size: 1, root: ROOT })).toThrow(RangeError);
    expect(() => formatCheckpoint({ origin: "o", size: -1, root: ROOT })).toThrow(RangeError);
    expect(() => formatCheckpoint({ origin: "o", size: 1, root: ROOT.subarray(1) })).toThrow(RangeError);
  });
});

describe("standard base64", () => {
  const vectors: Array<[string, string]> = [
    ["", ""],
    ["f", "Zg=="],
    ["fo", "Zm8="],
    ["foo", "Zm9v"],
    ["foob", "Zm9vYg=="],
    ["fooba", "Zm9vYmE="],
    ["foobar", "Zm9vYmFy"],
  ];

  it("encodes and decodes the RFC 4648 §10 vectors", () => {
    expect(vectors.map(([plain]) => encodeBase64(new TextEncoder().encode(plain)))).toEqual(
      vectors.map(([, coded]) => coded),
    );
    expect(vectors.map(([, coded]) => new TextDecoder().decode(decodeBase64(coded) ?? new Uint8Array([0xff])))).toEqual(
      vectors.map(([plain]) => plain),
    );
  });

  it("agrees with Node's encoder on every length up to 100", () => {
    const bytes = Uint8Array.from({ length: 100 }, (_, i) => (i * 151 + 7) % 256);
    const wrong = Array.from({ length: 101 }, (_, n) => n).filter((n) => {
      const slice = bytes.subarray(0, n);
      const coded = encodeBase64(slice);
      return (
        coded !== Buffer.from(slice).toString("base64") ||
        Buffer.from(decodeBase64(coded) ?? []).toString("hex") !== Buffer.from(slice).toString("hex")
      );
    });
    expect(wrong).toEqual([]);
  });

  it("refuses non-canonical text", () => {
    expect(
      ["Zg", "Zh==", "Zm9=", "Zm9v\n", "Zm-v", "Z===", "Zg=a", "=Zg=", " Zg==", "Zm9vYg"].map(decodeBase64),
    ).toEqual(Array(10).fill(null));
  });
});
