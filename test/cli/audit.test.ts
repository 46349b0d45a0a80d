/**
 * `toolgate audit verify|prove` against exports built here, independently of the code under test:
 * SHA-256 and Ed25519 from node:crypto, RFC 9162's Merkle tree hash and inclusion check written
 * from the RFC, C2SP signed notes written by hand.
 */
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io";
import { main, nodeIo } from "../../src/cli/main";

const dir = mkdtempSync(join(tmpdir(), "toolgate-audit-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ORIGIN = "toolgate/consumers/acme-audit-cli";

function sha256(...parts: Array<Uint8Array | string>): Buffer {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest();
}

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64");
const leafOf = (line: string): Buffer => sha256(Buffer.from([0]), line);
const node = (left: Uint8Array, right: Uint8Array): Buffer => sha256(Buffer.from([1]), left, right);

/** RFC 9162 §2.1.1 MTH over leaf hashes. */
function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return sha256("");
  if (leaves.length === 1) return leaves[0] as Buffer;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return node(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** RFC 9162 §2.1.3.2: verifying an inclusion proof. */
function inclusionHolds(leaf: Buffer, index: number, size: number, proof: Buffer[], root: Buffer): boolean {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = node(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else r = node(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

interface NoteKey {
  readonly verifier: string;
  readonly id: string;
  signNote(text: string): string;
}

/** An Ed25519 note key from a fixed seed (PKCS#8 DER prefix + seed), in C2SP's key and note formats. */
function noteKey(name: string, seedByte: number): NoteKey {
  const der = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), Buffer.alloc(32, seedByte)]);
  const privateKey: KeyObject = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
  const publicKey = createPublicKey(privateKey).export({ format: "der", type: "spki" }).subarray(-32);
  const keyId = sha256(name, "\n", Buffer.from([1]), publicKey).subarray(0, 4);
  return {
    verifier: `${name}+${keyId.toString("hex")}+${b64(Buffer.concat([Buffer.from([1]), publicKey]))}`,
    id: `${name}+${keyId.toString("hex")}`,
    signNote: (text) =>
      `${text}\n\u2014 ${name} ${b64(Buffer.concat([keyId, sign(null, Buffer.from(text), privateKey)]))}\n`,
  };
}

const KEY = noteKey("toolgate-test", 7);
const OTHER = noteKey("toolgate-test", 8);

/** Entry lines with a valid hash chain: the digest is SHA-256 of the text chain.ts's entryDigest documents. */
function entryLines(
  n: number,
  record = (seq: number) => `{"call_id":"call-${seq}","status":"succeeded","tool":"get_order"}`,
): string[] {
  const lines: string[] = [];
  let prev = "0".repeat(64);
  for (let seq = 1; seq <= n; seq++) {
    const kind = seq % 5 === 0 ? "credential.issued" : "tool_call";
    const at = 1_700_000_000_000 + seq * 1_000;
    const digest = sha256(
      `{"at":${at},"kind":"${kind}","prev_sha256":"${prev}","record":${record(seq)},"seq":${seq}}`,
    ).toString("hex");
    lines.push(
      `{"at":${at},"entry_sha256":"${digest}","kind":"${kind}","prev_sha256":"${prev}","record":${record(seq)},"seq":${seq}}`,
    );
    prev = digest;
  }
  return lines;
}

/** The signed checkpoint note of the first `size` lines. */
function checkpointOf(lines: string[], key: NoteKey, size = lines.length): string {
  return key.signNote(`${ORIGIN}\n${size}\n${b64(mth(lines.slice(0, size).map(leafOf)))}\n`);
}

function exportText(lines: string[], note: string): string {
  return `${lines.join("\n")}\n${JSON.stringify({ checkpoint: note })}\n`;
}

let files = 0;
function file(content: string): string {
  const path = join(dir, `f${++files}`);
  writeFileSync(path, content);
  return path;
}

async function run(args: string[], chunkBytes?: number): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: CliIo = { ...nodeIo, stdout: (text) => void (out += text), stderr: (text) => void (err += text) };
  if (chunkBytes !== undefined) {
    io.readChunks = (path) => {
      const bytes = readFileSync(path);
      const parts: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += chunkBytes) parts.push(bytes.subarray(i, i + chunkBytes));
      return parts;
    };
  }
  const code = await main(["audit", ...args], io);
  return { code, out, err };
}

const GOOD = entryLines(1_200);
const GOOD_NOTE = checkpointOf(GOOD, KEY);
const GOOD_FILE = file(exportText(GOOD, GOOD_NOTE));
const GOOD_ROOT = b64(mth(GOOD.map(leafOf)));
const SAVED_1000 = file(checkpointOf(GOOD, KEY, 1_000));
const SAVED_1200 = file(GOOD_NOTE);

/** The warning of an ok without a saved checkpoint (written here, not read from the CLI). */
const NO_CHECKPOINT_WARNING =
  "toolgate audit verify: warning: no earlier checkpoint given (--checkpoint): this proves the export's internal consistency and its checkpoint's signature only, " +
  "not that the log was not rewritten or truncated before that checkpoint; pass checkpoints saved earlier (or the witness bucket's copies) to prove that.\n";

describe("toolgate audit verify", () => {
  it("passes a good export of 1,200 entries, with the checkpoints saved along the way (exit 0)", async () => {
    const result = await run([
      "verify",
      "--export",
      GOOD_FILE,
      "--key",
      KEY.verifier,
      "--checkpoint",
      SAVED_1000,
      `--checkpoint=${SAVED_1200}`,
    ]);
    expect(result).toEqual({
      code: 0,
      err: "",
      out: [
        `export:      ${GOOD_FILE}`,
        "entries:     1200",
        `tree root:   ${GOOD_ROOT}`,
        `checkpoint:  ${ORIGIN}, size 1200, root ${GOOD_ROOT}`,
        `signed by:   ${KEY.id}`,
        `saved:       ${SAVED_1000}: consistent (size 1000, signed by ${KEY.id})`,
        `saved:       ${SAVED_1200}: consistent (size 1200, signed by ${KEY.id})`,
        "findings:    none",
        "result:      ok",
        "",
      ].join("\n"),
    });
  });

  it("reads the export in chunks that split lines anywhere, with the same report", async () => {
    const whole = await run(["verify", "--export", GOOD_FILE, "--key", OTHER.verifier, "--key", KEY.verifier]);
    expect(whole.code).toBe(0);
    expect(await run(["verify", "--export", GOOD_FILE, "--key", OTHER.verifier, "--key", KEY.verifier], 997)).toEqual(
      whole,
    );
  });

  it("names entry 417 when one byte of its record changed (exit 1)", async () => {
    const lines = [...GOOD];
    lines[416] = (lines[416] as string).replace('"call_id":"call-417"', '"call_id":"call-418"');
    expect(lines[416]).not.toBe(GOOD[416]);
    const path = file(exportText(lines, GOOD_NOTE));
    expect(readFileSync(path).length).toBe(readFileSync(GOOD_FILE).length);
    const changedRoot = b64(mth(lines.map(leafOf)));
    expect(await run(["verify", "--export", path, "--key", KEY.verifier])).toEqual({
      code: 1,
      err: "",
      out: [
        `export:      ${path}`,
        "entries:     1200",
        `tree root:   ${changedRoot}`,
        `checkpoint:  ${ORIGIN}, size 1200, root ${GOOD_ROOT}`,
        `signed by:   ${KEY.id}`,
        "findings:    2",
        "  entry 417 (line 417): entry_sha256 does not match the entry's contents (the entry was changed)",
        `  checkpoint: the root of the export's entries is ${changedRoot}, the checkpoint's is ${GOOD_ROOT}`,
        "result:      FAILED",
        "",
      ].join("\n"),
    });
  });

  it("names a removed entry, a non-canonical line and a line that is not JSON", async () => {
    const lines = [...GOOD];
    lines[9] = (lines[9] as string).replace('{"at":', '{ "at":');
    lines[19] = "{not json";
    lines.splice(29, 1);
    const path = file(exportText(lines, GOOD_NOTE));
    const result = await run(["verify", "--export", path, "--key", KEY.verifier]);
    expect(result.code).toBe(1);
    const findings = result.out.split("\n").filter((line) => line.startsWith("  "));
    expect(findings.slice(0, 5)).toEqual([
      "  entry 10 (line 10): the line is not the canonical form of its entry (bytes were added, removed or reordered)",
      "  line 20: not valid JSON: expected a string key (at offset 1)",
      "  entry 31 (line 30): sequence number 31 where 30 was expected (an entry is missing, added or moved)",
      "  entry 31 (line 30): prev_sha256 does not link to the entry on line 29",
      "  entry 32 (line 31): sequence number 32 where 31 was expected (an entry is missing, added or moved)",
    ]);
    expect(findings.at(-1)).toBe("  checkpoint: it commits to 1200 entries, the export has 1199");
  });

  it("finds tail truncation against a saved checkpoint, although the shorter log is re-signed (exit 1)", async () => {
    const short = GOOD.slice(0, 1_195);
    const path = file(exportText(short, checkpointOf(short, KEY)));
    const shortRoot = b64(mth(short.map(leafOf)));
    const alone = await run(["verify", "--export", path, "--key", KEY.verifier]);
    // Without a saved checkpoint, a truncated, re-signed log is self-consistent: why witnesses exist.
    expect(alone.code).toBe(0);
    expect(
      await run([
        "verify",
        "--export",
        path,
        "--key",
        KEY.verifier,
        "--checkpoint",
        SAVED_1200,
        "--checkpoint",
        SAVED_1000,
      ]),
    ).toEqual({
      code: 1,
      err: "",
      out: [
        `export:      ${path}`,
        "entries:     1195",
        `tree root:   ${shortRoot}`,
        `checkpoint:  ${ORIGIN}, size 1195, root ${shortRoot}`,
        `signed by:   ${KEY.id}`,
        `saved:       ${SAVED_1200}: FAILED: truncated: the export has 1195 entries, a saved checkpoint commits to 1200`,
        `saved:       ${SAVED_1000}: consistent (size 1000, signed by ${KEY.id})`,
        "findings:    1",
        `  saved checkpoint ${SAVED_1200}: truncated: the export has 1195 entries, a saved checkpoint commits to 1200`,
        "result:      FAILED",
        "",
      ].join("\n"),
    });
  });

  it("finds a fully recomputed log by its signature, and a saved checkpoint shows it rewritten (exit 1)", async () => {
    const forged = entryLines(1_200, (seq) => `{"call_id":"call-${seq}","status":"refunded","tool":"get_order"}`);
    const path = file(exportText(forged, checkpointOf(forged, OTHER)));
    const forgedRoot = b64(mth(forged.map(leafOf)));
    const forged1000 = b64(mth(forged.slice(0, 1_000).map(leafOf)));
    const good1000 = b64(mth(GOOD.slice(0, 1_000).map(leafOf)));
    expect(await run(["verify", "--export", path, "--key", KEY.verifier, "--checkpoint", SAVED_1000])).toEqual({
      code: 1,
      err: "",
      out: [
        `export:      ${path}`,
        "entries:     1200",
        `tree root:   ${forgedRoot}`,
        `checkpoint:  ${ORIGIN}, size 1200, root ${forgedRoot}`,
        "signed by:   (no given key)",
        `saved:       ${SAVED_1000}: FAILED: rewritten: the root of the first 1000 of the export's entries is ${forged1000}, the saved checkpoint's is ${good1000}`,
        "findings:    2",
        "  checkpoint: signature: no signature by a given key (signed by another key, or the key was not given)",
        `  saved checkpoint ${SAVED_1000}: rewritten: the root of the first 1000 of the export's entries is ${forged1000}, the saved checkpoint's is ${good1000}`,
        "result:      FAILED",
        "",
      ].join("\n"),
    });
  });

  it("refuses a good export under a wrong verifier key (exit 1)", async () => {
    const result = await run(["verify", "--export", GOOD_FILE, "--key", OTHER.verifier]);
    expect(result.code).toBe(1);
    expect(result.out).toContain(
      "signed by:   (no given key)\nfindings:    1\n  checkpoint: signature: no signature by a given key",
    );
  });

  it("finds an altered checkpoint note: its signature no longer verifies", async () => {
    const altered = GOOD_NOTE.replace(`\n1200\n`, `\n1201\n`);
    const result = await run(["verify", "--export", file(exportText(GOOD, altered)), "--key", KEY.verifier]);
    expect(result.code).toBe(1);
    expect(result.out.split("\n").filter((line) => line.startsWith("  "))).toEqual([
      "  checkpoint: signature: a given key's signature does not verify (the note was altered)",
      "  checkpoint: it commits to 1201 entries, the export has 1200",
    ]);
  });

  it.each([
    [
      "a missing export",
      () => ["--export", join(dir, "missing.ndjson"), "--key", KEY.verifier],
      `cannot read ${join(dir, "missing.ndjson")} (ENOENT)`,
    ],
    [
      "a missing saved checkpoint",
      () => ["--export", GOOD_FILE, "--key", KEY.verifier, "--checkpoint", join(dir, "gone")],
      `cannot read saved checkpoint ${join(dir, "gone")} (ENOENT)`,
    ],
    [
      "a garbage key",
      () => ["--export", GOOD_FILE, "--key", "not-a-key"],
      "--key 1 is not a verifier key <name>+<8 hex>+<base64> (key_malformed)",
    ],
    [
      "a key with a wrong id",
      () => ["--export", GOOD_FILE, "--key", KEY.verifier.replace(/\+[0-9a-f]{8}\+/, "+00000000+")],
      "--key 1 is not a verifier key <name>+<8 hex>+<base64> (key_id_mismatch)",
    ],
    [
      "a signer key, never echoed",
      () => ["--export", GOOD_FILE, "--key", "PRIVATE+KEY+toolgate-test+0badc0de+AQ=="],
      "--key 1 is a signer (private) key; pass its verifier key",
    ],
    [
      "an export without a checkpoint line",
      () => ["--export", file(`${GOOD.join("\n")}\n`), "--key", KEY.verifier],
      'is not the checkpoint line {"checkpoint":"…"}: not an audit export',
    ],
    [
      "a file that is not NDJSON",
      () => ["--export", file('{\n  "checkpoint": "x"\n}\n'), "--key", KEY.verifier],
      'the last line (line 3) is not the checkpoint line {"checkpoint":"…"}: not an audit export',
    ],
    ["an empty file", () => ["--export", file(""), "--key", KEY.verifier], "the export is empty"],
  ])("exits 2 on bad input: %s", async (_name, args, message) => {
    const result = await run(["verify", ...args()]);
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expect(result.err).toContain(message);
    expect(result.err).not.toContain("PRIVATE");
  });

  it.each([
    [["verify"]],
    [["verify", "--export", "x"]],
    [["verify", "--key", "k"]],
    [["verify", "--export"]],
    [["verify", "--bogus", "1"]],
    [["check"]],
    [[]],
  ])("exits 2 with usage for %j", async (args) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expect(result.err).toContain("usage: toolgate audit verify --export FILE --key VERIFIER_KEY");
  });

  it("writes a progress line on stderr every 10,000 entries", async () => {
    const lines = entryLines(10_001);
    const path = file(exportText(lines, checkpointOf(lines, KEY)));
    const result = await run(["verify", "--export", path, "--key", KEY.verifier]);
    expect(result.code).toBe(0);
    expect(result.err).toBe(`toolgate audit verify: 10000 entries read\n${NO_CHECKPOINT_WARNING}`);
  });

  it("warns on stderr that an ok without --checkpoint proves internal consistency only; exit 0, report unchanged", async () => {
    const alone = await run(["verify", "--export", GOOD_FILE, "--key", KEY.verifier]);
    expect([alone.code, alone.err]).toEqual([0, NO_CHECKPOINT_WARNING]);
    expect(alone.out.split("\n").slice(-2)).toEqual(["result:      ok", ""]);
    const withSaved = await run(["verify", "--export", GOOD_FILE, "--key", KEY.verifier, "--checkpoint", SAVED_1000]);
    expect([withSaved.code, withSaved.err]).toEqual([0, ""]);
  });
});

describe("toolgate audit prove", () => {
  const leaves = GOOD.map(leafOf);

  it.each([
    [1, undefined],
    [417, undefined],
    [1_200, undefined],
    [417, 417],
    [417, 1_000],
    [1, 1],
    [6, 7],
  ])("proves entry %i in the tree of the first %s entries, checked by RFC 9162's algorithm", async (seq, size) => {
    const result = await run([
      "prove",
      "--export",
      GOOD_FILE,
      "--seq",
      String(seq),
      ...(size === undefined ? [] : ["--size", String(size)]),
    ]);
    expect(result.code).toBe(0);
    expect(result.err).toBe("");
    expect(result.out.endsWith("}\n")).toBe(true);
    const answer = JSON.parse(result.out) as {
      seq: number;
      leaf_index: number;
      tree_size: number;
      leaf_hash: string;
      root: string;
      proof: string[];
    };
    const treeSize = size ?? 1_200;
    const root = mth(leaves.slice(0, treeSize));
    expect({ ...answer, proof: undefined }).toEqual({
      seq,
      leaf_index: seq - 1,
      tree_size: treeSize,
      leaf_hash: b64(leaves[seq - 1] as Buffer),
      root: b64(root),
      proof: undefined,
    });
    const proof = answer.proof.map((p) => Buffer.from(p, "base64"));
    expect(inclusionHolds(leaves[seq - 1] as Buffer, seq - 1, treeSize, proof, root)).toBe(true);
    // The proof is tight: one hash fewer or another leaf does not verify.
    if (proof.length > 0)
      expect(inclusionHolds(leaves[seq - 1] as Buffer, seq - 1, treeSize, proof.slice(1), root)).toBe(false);
    expect(inclusionHolds(leafOf("other"), seq - 1, treeSize, proof, root)).toBe(false);
  });

  it("prints the exact proof of entry 3 in a tree of 5", async () => {
    const five = GOOD.slice(0, 5);
    const path = file(exportText(five, checkpointOf(five, KEY)));
    const l = five.map(leafOf);
    // RFC 9162 §2.1.3.1: PATH(2, D[0:5]) = PATH(0, D[2:4]) : MTH(D[0:2]) : MTH(D[4:5]).
    const expected = {
      seq: 3,
      leaf_index: 2,
      tree_size: 5,
      leaf_hash: b64(l[2] as Buffer),
      root: b64(mth(l)),
      proof: [b64(l[3] as Buffer), b64(node(l[0] as Buffer, l[1] as Buffer)), b64(l[4] as Buffer)],
    };
    expect(await run(["prove", "--export", path, "--seq", "3"])).toEqual({
      code: 0,
      err: "",
      out: `${JSON.stringify(expected)}\n`,
    });
  });

  it.each([
    [["--export", "GOOD", "--seq", "1201"], "toolgate audit prove: --seq 1201 is beyond the tree of 1200 entries\n"],
    [
      ["--export", "GOOD", "--seq", "5", "--size", "4"],
      "toolgate audit prove: --seq 5 is beyond the tree of 4 entries\n",
    ],
    [
      ["--export", "GOOD", "--seq", "1", "--size", "1201"],
      "toolgate audit prove: --size 1201 exceeds the export's 1200 entries\n",
    ],
  ])("exits 2 for %j", async (args, message) => {
    expect(await run(["prove", ...args.map((a) => (a === "GOOD" ? GOOD_FILE : a))])).toEqual({
      code: 2,
      out: "",
      err: message,
    });
  });

  it.each([
    [["prove", "--export", "x"]],
    [["prove", "--seq", "1"]],
    [["prove", "--export", "x", "--seq", "0"]],
    [["prove", "--export", "x", "--seq", "1", "--size", "-1"]],
  ])("exits 2 with usage for %j", async (args) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.err).toContain("usage: toolgate audit verify");
  });

  it("exits 2 for a missing export", async () => {
    const missing = join(dir, "nothing.ndjson");
    expect(await run(["prove", "--export", missing, "--seq", "1"])).toEqual({
      code: 2,
      out: "",
      err: `toolgate audit prove: cannot read ${missing} (ENOENT)\n`,
    });
  });
});
