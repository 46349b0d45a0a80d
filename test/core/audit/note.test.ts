import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  openNote,
  parseSignerKey,
  parseVerifierKey,
  signerFromSeed,
  signerKeyText,
  signNote,
  verifierKeyOf,
  type Verifier,
} from "../../../src/core/audit";

// Keys and signatures computed independently with node:crypto.
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const sha256 = (...parts: Uint8Array[]) => createHash("sha256").update(Buffer.concat(parts)).digest();

interface NodeKey {
  name: string;
  seed: Uint8Array;
  privateKey: KeyObject;
  publicKey: KeyObject;
  raw: Buffer;
  idHex: string;
  vkey: string;
  skey: string;
}

function nodeKey(name: string, seedByte: number): NodeKey {
  const seed = new Uint8Array(32).fill(seedByte);
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: "der", type: "pkcs8" });
  const publicKey = createPublicKey(privateKey);
  const raw = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  const idHex = sha256(Buffer.from(`${name}\n`), Buffer.from([1]), raw)
    .subarray(0, 4)
    .toString("hex");
  return {
    name,
    seed,
    privateKey,
    publicKey,
    raw,
    idHex,
    vkey: `${name}+${idHex}+${b64(Buffer.concat([Buffer.from([1]), raw]))}`,
    skey: `PRIVATE+KEY+${name}+${idHex}+${b64(Buffer.concat([Buffer.from([1]), seed]))}`,
  };
}

/** A signed note written by node:crypto. */
function nodeSigned(text: string, key: NodeKey): string {
  const sig = sign(null, Buffer.from(text, "utf8"), key.privateKey);
  return `${text}\n\u2014 ${key.name} ${b64(Buffer.concat([Buffer.from(key.idHex, "hex"), sig]))}\n`;
}

function verifierOf(text: string): Verifier {
  const parsed = parseVerifierKey(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

const alice = nodeKey("example.com/log", 7);
const other = nodeKey("example.com/log", 8); // same name, other key
const stranger = nodeKey("elsewhere.org/log", 9);
const TEXT = "example.com/log\n12\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n";

describe("note keys", () => {
  it("name, identify and spell a key as computed independently", () => {
    const signer = signerFromSeed(alice.name, alice.seed);
    expect(signer.keyId.toString(16).padStart(8, "0")).toBe(alice.idHex);
    expect(Buffer.from(signer.publicKey).equals(alice.raw)).toBe(true);
    expect(verifierKeyOf(signer)).toBe(alice.vkey);
    expect(signerKeyText(alice.name, alice.seed)).toBe(alice.skey);
    const parsed = parseSignerKey(alice.skey);
    expect(parsed.ok && verifierKeyOf(parsed.value)).toBe(alice.vkey);
    const verifier = verifierOf(alice.vkey);
    expect([verifier.name, verifier.keyId.toString(16).padStart(8, "0")]).toEqual([alice.name, alice.idHex]);
  });

  it("read the C2SP / Go note example key into its published verifier key", () => {
    const parsed = parseSignerKey("PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz");
    expect(parsed.ok && verifierKeyOf(parsed.value)).toBe(
      "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
    );
  });

  it("are refused when malformed, of another algorithm or with a wrong id", () => {
    const raw = b64(Buffer.concat([Buffer.from([1]), alice.raw]));
    expect(parseVerifierKey("nonsense")).toEqual({ ok: false, error: "key_malformed" });
    expect(parseVerifierKey(`${alice.name}+${alice.idHex}`)).toEqual({ ok: false, error: "key_malformed" });
    expect(parseVerifierKey(`bad name+${alice.idHex}+${raw}`)).toEqual({ ok: false, error: "key_malformed" });
    expect(
      parseVerifierKey(`${alice.name}+${alice.idHex}+${b64(Buffer.concat([Buffer.from([2]), alice.raw]))}`),
    ).toEqual({ ok: false, error: "key_algorithm_unknown" });
    expect(
      parseVerifierKey(`${alice.name}+${alice.idHex}+${b64(Buffer.concat([Buffer.from([1]), alice.raw.subarray(1)]))}`),
    ).toEqual({ ok: false, error: "key_malformed" });
    expect(parseVerifierKey(`${alice.name}+00000000+${raw}`)).toEqual({ ok: false, error: "key_id_mismatch" });
    expect(parseVerifierKey(`other+${alice.idHex}+${raw}`)).toEqual({ ok: false, error: "key_id_mismatch" });
    expect(parseSignerKey(alice.vkey)).toEqual({ ok: false, error: "key_malformed" });
    expect(parseSignerKey(alice.skey.replace(alice.idHex, other.idHex))).toEqual({
      ok: false,
      error: "key_id_mismatch",
    });
  });
});

describe("signed notes", () => {
  const signer = signerFromSeed(alice.name, alice.seed);
  const verifier = verifierOf(alice.vkey);

  it("sign byte for byte as node:crypto does, and node:crypto verifies the signature", () => {
    const note = signNote(TEXT, [signer]);
    expect(note).toBe(nodeSigned(TEXT, alice));
    const blob = Buffer.from(note.slice(note.lastIndexOf(" ") + 1, -1), "base64");
    expect(blob.subarray(0, 4).toString("hex")).toBe(alice.idHex);
    expect(verify(null, Buffer.from(TEXT, "utf8"), alice.publicKey, blob.subarray(4))).toBe(true);
  });

  it("open a note node:crypto signed", () => {
    expect(openNote(nodeSigned(TEXT, alice), [verifier])).toEqual({
      ok: true,
      value: { text: TEXT, verifiedBy: [`${alice.name}+${alice.idHex}`] },
    });
  });

  it("reproduce and open the C2SP / Go example note", () => {
    const text =
      "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
    const goNote = `${text}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;
    const parsed = parseSignerKey("PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz");
    if (!parsed.ok) throw new Error(parsed.error);
    expect(signNote(text, [parsed.value])).toBe(goNote);
    const peter = verifierOf("PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW");
    expect(openNote(goNote, [peter])).toEqual({ ok: true, value: { text, verifiedBy: ["PeterNeumann+c74f20a3"] } });
    expect(openNote(goNote.replace("cryptography", "cryptographY"), [peter])).toEqual({
      ok: false,
      error: "note_signature_invalid",
    });
  });

  it("refuse a wrong key, an altered text, an altered signature and an unknown signer", () => {
    const note = signNote(TEXT, [signer]);
    expect(openNote(note, [verifierOf(other.vkey)])).toEqual({ ok: false, error: "note_unverified" });
    expect(openNote(note.replace("\n12\n", "\n13\n"), [verifier])).toEqual({
      ok: false,
      error: "note_signature_invalid",
    });
    const blob = Buffer.from(note.slice(note.lastIndexOf(" ") + 1, -1), "base64");
    blob[10] = (blob[10] as number) ^ 1;
    const altered = `${note.slice(0, note.lastIndexOf(" ") + 1)}${blob.toString("base64")}\n`;
    expect(openNote(altered, [verifier])).toEqual({ ok: false, error: "note_signature_invalid" });
    expect(openNote(nodeSigned(TEXT, stranger), [verifier])).toEqual({ ok: false, error: "note_unverified" });
    expect(openNote(note, [])).toEqual({ ok: false, error: "note_unverified" });
  });

  it("skip signatures by unknown keys beside a known one, and verify each known key", () => {
    const both = signNote(TEXT, [signerFromSeed(stranger.name, stranger.seed), signer]);
    expect(openNote(both, [verifier])).toEqual({
      ok: true,
      value: { text: TEXT, verifiedBy: [`${alice.name}+${alice.idHex}`] },
    });
    expect(openNote(both, [verifier, verifierOf(stranger.vkey)])).toEqual({
      ok: true,
      value: { text: TEXT, verifiedBy: [`${stranger.name}+${stranger.idHex}`, `${alice.name}+${alice.idHex}`] },
    });
  });

  it("refuse text that is not a signed note", () => {
    const note = signNote(TEXT, [signer]);
    const malformed = [
      TEXT,
      note.slice(0, -1),
      note.replace("\u2014 ", "- "),
      note.replace(`${alice.name} `, `${alice.name}  `),
      note.replace(/ \S+\n$/, " not*base64\n"),
      note.replace(/ \S+\n$/, " AAAA\n"),
      `${note}\n`,
      note.replace("12", "1\t2"),
    ];
    expect(malformed.map((text) => openNote(text, [verifier]))).toEqual(
      malformed.map(() => ({ ok: false, error: "note_malformed" })),
    );
  });

  it("refuse to sign a text without its final newline or with no signer", () => {
    expect(() => signNote("no newline", [signer])).toThrow(RangeError);
    expect(() => signNote(TEXT, [])).toThrow(RangeError);
    expect(() => signNote(TEXT, [signer, signer])).toThrow(RangeError);
  });
});
