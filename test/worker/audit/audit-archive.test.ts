/**
 * The audit archive in workerd, with miniflare's R2: a chain of 4,696 entries (the 4,096 kept in
 * SQLite plus 600), a checkpoint signed and witnessed, then the alarm writes the two full
 * C2SP tlog-tiles below it (entries 1..512) to AUDIT_TILES and deletes their rows. Everything an
 * auditor uses answers the same afterwards: the export byte for byte, pages, proofs (their hashes
 * now from hash tiles), the verify walk across the boundary, and the offline verifier. The tiles
 * are read back and checked against the format here, and one inclusion proof is checked with an
 * RFC 9162 §2.1.3.2 verifier written in this file.
 */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { entryDigest, entryLine, type ChainEntry } from "../../../src/core/audit";
import { runAudit } from "../../../src/cli/audit";
import { AUDIT_KEEP_ENTRIES } from "../../../src/worker/features/audit/archive";
import { ADMIN_TOKEN, createConsumer, credential, send, wipe } from "../../kit";
import { sha256 } from "../../support/web-sha256";

const CONSUMER = "audit-archive";
/** Entries of the chain: the kept ones and 600 more, so two full tiles (512 entries) can go. */
const TOTAL = 4_696;
const ARCHIVED = 512;
const TEST_VERIFIER_KEY = "toolgate-test+f62e6223+AXm1Vi6P5lT5QHixEuipi6eQH4U65pW+1+DjkQutBJZk";
const PREFIX = `consumers/${CONSUMER}/`;
/** A second consumer whose first tile holds an entry too long for an entry bundle. */
const HELD = "audit-archive-held";
const stub = (name = CONSUMER) => env.CONSUMER.get(env.CONSUMER.idFromName(name));
const tilesBucket = () => (env as unknown as { AUDIT_TILES: R2Bucket }).AUDIT_TILES;
const witnessBucket = () => (env as unknown as { AUDIT_WITNESS: R2Bucket }).AUDIT_WITNESS;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const leafOf = (line: string) => sha256(new Uint8Array([0]), encoder.encode(line));
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

/** RFC 9162 §2.1.3.2, written here apart from the code under test. */
async function inclusionHolds(
  leaf: Uint8Array,
  index: number,
  size: number,
  proof: Uint8Array[],
  root: Uint8Array,
): Promise<boolean> {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await sha256(new Uint8Array([1]), p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = await sha256(new Uint8Array([1]), r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameBytes(r, root);
}

/** An entry bundle split by its big-endian uint16 length prefixes, as a tlog-tiles client reads it. */
function bundleEntries(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length;) {
    const length = ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0);
    out.push(bytes.slice(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return out;
}

/** Runs SQL in the object and answers the rows. */
function query<T>(sql: string, name = CONSUMER): Promise<T[]> {
  return runInDurableObject(stub(name), (_o, state) => state.storage.sql.exec(sql).toArray() as T[]);
}

const count = async (sql: string, name = CONSUMER) => (await query<{ n: number }>(sql, name))[0]?.n;

const envOf = (o: unknown) => (o as { env: Record<string, unknown> }).env;

/** Sets (or with undefined, removes) one var of the object's env. */
function setVar(name: string, value: string | undefined, consumer = CONSUMER): Promise<void> {
  return runInDurableObject(stub(consumer), (o) => {
    const vars = envOf(o);
    if (value === undefined) delete vars[name];
    else vars[name] = value;
  });
}

const runAlarm = (name = CONSUMER) => runInDurableObject(stub(name), (o) => o.alarm());

/** Extends a consumer's chain to `total` correctly linked entries straight in its table, then restarts (the start builds their tree). */
async function fillChain(name: string, total: number, record: (seq: number) => string): Promise<void> {
  await runInDurableObject(stub(name), (_o, state) => {
    const sql = state.storage.sql;
    const head = sql
      .exec<{ seq: number; entry_sha256: string }>(
        "SELECT seq, entry_sha256 FROM audit_chain ORDER BY seq DESC LIMIT 1",
      )
      .one();
    let prev = head.entry_sha256;
    state.storage.transactionSync(() => {
      for (let seq = head.seq + 1; seq <= total; seq++) {
        const sha = entryDigest(seq, "test.filler", 1_700_000_000 + seq, record(seq), prev);
        sql.exec(
          "INSERT INTO audit_chain (seq, kind, at, record, prev_sha256, entry_sha256) VALUES (?, ?, ?, ?, ?, ?)",
          seq,
          "test.filler",
          1_700_000_000 + seq,
          record(seq),
          prev,
          sha,
        );
        prev = sha;
      }
    });
  });
  await abortAllDurableObjects();
}

interface Snapshot {
  exportBytes: Uint8Array;
  pages: unknown[];
  inclusion: unknown[];
  consistency: unknown[];
}

let auditor = "";

async function get(path: string, name = CONSUMER, token = auditor): Promise<unknown> {
  const res = await send("GET", `/v1/consumers/${name}${path}`, token);
  expect([path, res.status]).toEqual([path, 200]);
  return res.json();
}

async function exportBytes(name = CONSUMER, token = auditor): Promise<Uint8Array> {
  const res = await send("GET", `/v1/consumers/${name}/audit/export`, token);
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/** What an auditor sees of the first TOTAL entries. */
async function snapshot(): Promise<Snapshot> {
  const pages = [];
  for (const after of [0, 250, 500, 4_600]) pages.push(await get(`/audit?after=${after}&limit=100`));
  const inclusion = [];
  for (const [seq, size] of [
    [1, TOTAL],
    [100, TOTAL],
    [256, TOTAL],
    [257, TOTAL],
    [512, TOTAL],
    [513, TOTAL],
    [TOTAL, TOTAL],
    [5, 10],
    [300, 600],
  ] as const) {
    inclusion.push(await get(`/audit/proof/inclusion?seq=${seq}&size=${size}`));
  }
  const consistency = [];
  for (const [from, to] of [
    [100, TOTAL],
    [300, TOTAL],
    [512, TOTAL],
    [600, TOTAL],
    [10, 300],
  ] as const)
    consistency.push(await get(`/audit/proof/consistency?from=${from}&to=${to}`));
  return { exportBytes: await exportBytes(), pages, inclusion, consistency };
}

/** Walks `audit/verify` to the head; answers each step without its (opaque) cursor. */
async function walk(): Promise<
  Array<{ ok: boolean; count: number; head: string; broken_at: number | null; more: boolean }>
> {
  const steps = [];
  let cursor: string | null = null;
  do {
    const step = (await get(`/audit/verify${cursor === null ? "" : `?cursor=${encodeURIComponent(cursor)}`}`)) as {
      ok: boolean;
      count: number;
      head: string;
      broken_at: number | null;
      next_cursor: string | null;
    };
    steps.push({
      ok: step.ok,
      count: step.count,
      head: step.head,
      broken_at: step.broken_at,
      more: step.next_cursor !== null,
    });
    cursor = step.next_cursor;
  } while (cursor !== null && steps.length < 20);
  return steps;
}

/** The number of complete nodes of a tree of `n` leaves: ⌊n / 2^level⌋ summed over the levels. */
function treeNodes(n: number): number {
  let total = 0;
  for (let width = 1; width <= n; width *= 2) total += Math.floor(n / width);
  return total;
}

let digests: string[] = [];
let before: Snapshot;
let checkpointNote = "";

beforeAll(async () => {
  await wipe(CONSUMER, HELD);
  await createConsumer(CONSUMER, [], []);
  auditor = (await credential(CONSUMER, "auditor")).secret;
  // Entries 3..TOTAL written straight into the chain (correctly linked); the restart builds their tree.
  await fillChain(CONSUMER, TOTAL, (seq) => `{"n":${seq},"note":"entry ${seq} é"}`);
  digests = [
    "",
    ...(await query<{ entry_sha256: string }>("SELECT entry_sha256 FROM audit_chain ORDER BY seq")).map(
      (r) => r.entry_sha256,
    ),
  ];
  // Nothing may be archived while the "before" view is taken: keep every entry for now.
  await setVar("TOOLGATE_AUDIT_KEEP_ENTRIES", "1000000");
  checkpointNote = ((await get("/audit/checkpoint")) as { checkpoint: string }).checkpoint;
  before = await snapshot();
  await setVar("TOOLGATE_AUDIT_KEEP_ENTRIES", undefined);
}, 120_000);

describe("the audit archive", () => {
  it("keeps 4,096 entries by default, and the chain and checkpoint are in place", async () => {
    expect(AUDIT_KEEP_ENTRIES).toBe(4_096);
    expect(digests.length).toBe(TOTAL + 1);
    expect(checkpointNote.split("\n").slice(0, 2)).toEqual([`toolgate/consumers/${CONSUMER}`, String(TOTAL)]);
    const witnessed = await witnessBucket().get(`${PREFIX}checkpoints/${String(TOTAL).padStart(20, "0")}`);
    expect(await witnessed?.text()).toBe(checkpointNote);
    expect(await count("SELECT COUNT(*) AS n FROM audit_chain")).toBe(TOTAL);
    expect(await count("SELECT COUNT(*) AS n FROM audit_tree")).toBe(treeNodes(TOTAL));
    expect((await tilesBucket().list({ prefix: PREFIX })).objects.length).toBe(0);
  });

  it("archives the full tiles below the witnessed checkpoint, rewrites a tile left by a crashed run, and deletes exactly their rows", async () => {
    // A run that crashed after writing left something at a tile's key: the next run writes it again.
    await tilesBucket().put(`${PREFIX}tile/entries/000`, "left by a crashed run");
    await runAlarm();
    const keys = (await tilesBucket().list({ prefix: PREFIX })).objects.map((o) => o.key.slice(PREFIX.length));
    expect(keys).toEqual(["tile/0/000", "tile/0/001", "tile/entries/000", "tile/entries/001"]);
    expect(await count("SELECT COUNT(*) AS n FROM audit_chain")).toBe(TOTAL - ARCHIVED);
    expect(await count("SELECT MIN(seq) AS n FROM audit_chain")).toBe(ARCHIVED + 1);
    // Levels 0..7 of the two tiles: 512 + 256 + … + 4 = 1,020 rows; level 8 stays (tile level 1 is not full).
    expect(await count("SELECT COUNT(*) AS n FROM audit_tree")).toBe(treeNodes(TOTAL) - 1_020);
    expect(await count("SELECT COUNT(*) AS n FROM audit_tree WHERE level = 8 AND idx < 2")).toBe(2);
    expect(await query("SELECT prefix, entries, last_sha256 FROM audit_archive")).toEqual([
      { prefix: PREFIX, entries: ARCHIVED, last_sha256: digests[ARCHIVED] },
    ]);
    expect(await count("SELECT COUNT(*) AS n FROM audit_archive_held")).toBe(0);
    // Idempotent: a second run finds nothing to do.
    await runAlarm();
    expect((await tilesBucket().list({ prefix: PREFIX })).objects.length).toBe(4);
    expect(await count("SELECT COUNT(*) AS n FROM audit_chain")).toBe(TOTAL - ARCHIVED);
  });

  it("writes tiles in the tlog-tiles format: entry bundles of the export's lines, hash tiles of their leaf hashes", async () => {
    const lines = decoder.decode(before.exportBytes).split("\n").slice(0, TOTAL);
    for (const tile of [0, 1]) {
      const bundle = new Uint8Array(await (await tilesBucket().get(`${PREFIX}tile/entries/00${tile}`))!.arrayBuffer());
      const entries = bundleEntries(bundle);
      expect(entries.length).toBe(256);
      expect(entries.map((e) => decoder.decode(e))).toEqual(lines.slice(tile * 256, tile * 256 + 256));
      const hashes = new Uint8Array(await (await tilesBucket().get(`${PREFIX}tile/0/00${tile}`))!.arrayBuffer());
      expect(hashes.length).toBe(256 * 32);
      for (const i of [0, 1, 128, 255])
        expect(hex(hashes.slice(i * 32, i * 32 + 32))).toBe(hex(await leafOf(lines[tile * 256 + i] as string)));
    }
  });

  it("answers the same export (byte for byte), pages and proofs after the rows are gone", async () => {
    const after = await snapshot();
    expect(sameBytes(after.exportBytes, before.exportBytes)).toBe(true);
    expect(hex(await sha256(after.exportBytes))).toBe(hex(await sha256(before.exportBytes)));
    expect(after.pages).toEqual(before.pages);
    expect(after.inclusion).toEqual(before.inclusion);
    expect(after.consistency).toEqual(before.consistency);
    expect(
      ((after.pages[0] as { entries: Array<{ seq: number }> }).entries ?? []).map((e) => e.seq).slice(0, 3),
    ).toEqual([1, 2, 3]);
  });

  it("serves an inclusion proof that an independent verifier accepts with the leaf hash from the hash tile", async () => {
    const proof = (await get(`/audit/proof/inclusion?seq=100&size=${TOTAL}`)) as { leaf_hash: string; proof: string[] };
    const tile = new Uint8Array(await (await tilesBucket().get(`${PREFIX}tile/0/000`))!.arrayBuffer());
    const leaf = tile.slice(99 * 32, 100 * 32);
    expect(proof.leaf_hash).toBe(b64(leaf));
    const root = unb64(((await get("/audit/checkpoint")) as { root: string }).root);
    expect(await inclusionHolds(leaf, 99, TOTAL, proof.proof.map(unb64), root)).toBe(true);
    expect(await inclusionHolds(leaf, 98, TOTAL, proof.proof.map(unb64), root)).toBe(false);
  });

  it("walks the chain from the archive's last entry, and still finds a broken link at the boundary", async () => {
    expect((await walk()).at(-1)).toEqual({
      ok: true,
      count: TOTAL,
      head: digests[TOTAL],
      broken_at: null,
      more: false,
    });
    expect((await walk())[0]).toEqual({
      ok: true,
      count: ARCHIVED + 1_000,
      head: digests[ARCHIVED + 1_000],
      broken_at: null,
      more: true,
    });
    await runInDurableObject(
      stub(),
      (_o, state) =>
        void state.storage.sql.exec(
          "UPDATE audit_chain SET prev_sha256 = ? WHERE seq = ?",
          "f".repeat(64),
          ARCHIVED + 1,
        ),
    );
    try {
      expect(await walk()).toEqual([
        { ok: false, count: ARCHIVED, head: digests[ARCHIVED], broken_at: ARCHIVED + 1, more: false },
      ]);
    } finally {
      await runInDurableObject(
        stub(),
        (_o, state) =>
          void state.storage.sql.exec(
            "UPDATE audit_chain SET prev_sha256 = ? WHERE seq = ?",
            digests[ARCHIVED] ?? "",
            ARCHIVED + 1,
          ),
      );
    }
  });

  it("keeps appending after the archive, and the offline verifier passes the new export against the witness", async () => {
    const res = await send("POST", `/v1/consumers/${CONSUMER}/credentials`, ADMIN_TOKEN, { kind: "auditor" });
    expect(res.status).toBe(201);
    const bytes = await exportBytes();
    const text = decoder.decode(bytes);
    expect(text.startsWith(decoder.decode(before.exportBytes).split("\n").slice(0, TOTAL).join("\n"))).toBe(true);
    const lines = text.trimEnd().split("\n");
    expect(lines.length).toBe(TOTAL + 2);
    expect(JSON.parse(lines[TOTAL] as string)).toMatchObject({
      seq: TOTAL + 1,
      kind: "credential.created",
      prev_sha256: digests[TOTAL],
    });
    const files = new Map<string, Uint8Array>([
      ["export.ndjson", bytes],
      ["witness.txt", encoder.encode(checkpointNote)],
    ]);
    let stdout = "";
    const status = runAudit(
      ["verify", "--export", "export.ndjson", "--key", TEST_VERIFIER_KEY, "--checkpoint", "witness.txt"],
      {
        stdout: (t) => void (stdout += t),
        stderr: () => undefined,
        readFile: (path) => files.get(path) ?? new Uint8Array(0),
      },
    );
    expect(stdout.split("\n").filter((l) => /^(entries|saved|findings|result):/.test(l))).toEqual([
      `entries:     ${TOTAL + 1}`,
      `saved:       witness.txt: consistent (size ${TOTAL}, signed by toolgate-test+f62e6223)`,
      "findings:    none",
      "result:      ok",
    ]);
    expect(status).toBe(0);
  });
});

describe("a tile with an entry too long for an entry bundle", () => {
  it("is held: its hash tile goes to R2 and its tree rows go, its entries' rows stay, and everything answers the same", async () => {
    await createConsumer(HELD, [], []);
    const token = (await credential(HELD, "auditor")).secret;
    // Entry 100 is over 80,000 bytes (a bundle carries at most 65,535), in strings the JSON domain allows.
    const pad = (seq: number) => (seq === 100 ? "x".repeat(40_000) : "");
    await fillChain(HELD, 300, (seq) => `{"n":${seq},"pad":"${pad(seq)}","pad2":"${pad(seq)}"}`);
    await setVar("TOOLGATE_AUDIT_KEEP_ENTRIES", "1000000", HELD);
    const exportBefore = await exportBytes(HELD, token);
    const pageBefore = await get("/audit?after=90&limit=20", HELD, token);
    const proofBefore = await get("/audit/proof/inclusion?seq=100&size=300", HELD, token);
    await setVar("TOOLGATE_AUDIT_KEEP_ENTRIES", "0", HELD);
    await runAlarm(HELD);
    const prefix = `consumers/${HELD}/`;
    expect((await tilesBucket().list({ prefix })).objects.map((o) => o.key.slice(prefix.length))).toEqual([
      "tile/0/000",
    ]);
    expect(await query("SELECT tile FROM audit_archive_held", HELD)).toEqual([{ tile: 0 }]);
    expect(await query("SELECT entries FROM audit_archive", HELD)).toEqual([{ entries: 256 }]);
    expect(await count("SELECT COUNT(*) AS n FROM audit_chain", HELD)).toBe(300);
    expect(await count("SELECT COUNT(*) AS n FROM audit_tree WHERE level < 8 AND idx * (1 << level) < 256", HELD)).toBe(
      0,
    );
    expect(sameBytes(await exportBytes(HELD, token), exportBefore)).toBe(true);
    expect(await get("/audit?after=90&limit=20", HELD, token)).toEqual(pageBefore);
    expect(await get("/audit/proof/inclusion?seq=100&size=300", HELD, token)).toEqual(proofBefore);
    expect(((await get("/audit/verify", HELD, token)) as { ok: boolean; count: number }).count).toBe(300);
    // The objects share one env: the var goes back as it was for whatever runs next.
    await setVar("TOOLGATE_AUDIT_KEEP_ENTRIES", undefined, HELD);
  });
});

describe("a tile whose stored rows do not verify", () => {
  it("is not archived while an entry's digest or its leaf hash is wrong, and is once both are right again", async () => {
    const name = "audit-archive-tampered";
    await wipe(name);
    await createConsumer(name, [], []);
    await fillChain(name, 300, (seq) => `{"n":${seq},"note":"entry ${seq} with some words in it ${"w".repeat(600)}"}`);
    const prefix = `consumers/${name}/`;
    const exec = (sql: string, ...args: unknown[]) =>
      runInDurableObject(stub(name), (_o, state) => void state.storage.sql.exec(sql, ...args));
    const [row] = await query<ChainEntry>(
      "SELECT seq, kind, at, record, prev_sha256, entry_sha256 FROM audit_chain WHERE seq = 10",
      name,
    );
    if (row === undefined) throw new Error("entry 10 is missing");
    const [leaf] = await query<{ hash: ArrayBuffer }>("SELECT hash FROM audit_tree WHERE level = 0 AND idx = 9", name);
    const archived = async () => ({
      tiles: (await tilesBucket().list({ prefix })).objects.length,
      entries: (await query<{ entries: number }>("SELECT entries FROM audit_archive", name))[0]?.entries ?? 0,
      rows: await count("SELECT COUNT(*) AS n FROM audit_chain", name),
    });
    await setVar("TOOLGATE_AUDIT_KEEP_ENTRIES", "0", name);
    try {
      // Entry 10's record rewritten, and its leaf hash with it: only its chain digest tells.
      const rewritten = `{"n":10,"note":"rewritten"}`;
      await exec("UPDATE audit_chain SET record = ? WHERE seq = 10", rewritten);
      await exec(
        "UPDATE audit_tree SET hash = ? WHERE level = 0 AND idx = 9",
        await leafOf(entryLine({ ...row, record: rewritten })),
      );
      await runAlarm(name);
      expect(await archived()).toEqual({ tiles: 0, entries: 0, rows: 300 });
      await exec("UPDATE audit_chain SET record = ? WHERE seq = 10", row.record);
      // The record is back, but its stored leaf hash is another one.
      await exec("UPDATE audit_tree SET hash = ? WHERE level = 0 AND idx = 9", new Uint8Array(32).fill(7));
      await runAlarm(name);
      expect(await archived()).toEqual({ tiles: 0, entries: 0, rows: 300 });
      await exec("UPDATE audit_tree SET hash = ? WHERE level = 0 AND idx = 9", leaf?.hash);
      await runAlarm(name);
      expect(await archived()).toEqual({ tiles: 2, entries: 256, rows: 44 });
    } finally {
      await setVar("TOOLGATE_AUDIT_KEEP_ENTRIES", undefined, name);
    }
  });
});
