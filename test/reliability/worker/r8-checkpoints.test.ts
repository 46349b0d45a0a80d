/**
 * R8, the two classes the hash chain alone cannot see, now detected with signed checkpoints
 * (docs/audit.md): on a log of ≥ 1,000 entries,
 * - tail truncation: the attacker deletes the last entries with their tree nodes and signed
 *   checkpoints → the gate refuses to sign the shorter log (AUDIT_LOG_INCONSISTENT: it does not
 *   extend the witness's newest checkpoint), so no export of it verifies; an export that did
 *   come out would be found against a checkpoint the auditor saved earlier, and the witness;
 * - full recomputation: every entry after an edit rewritten, the chain and the tree recomputed,
 *   the stored checkpoints dropped → an export the attacker signs (without the gate's key) fails
 *   the signature; the gate refuses to sign the rewritten storage (the witness contradicts it).
 * The attacker writes the object's storage (through `runInDurableObject`); the object is then
 * restarted, so nothing cached in memory helps. The auditor uses only the routes, the published
 * verifier key and the core's verification functions.
 */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  appendNodes,
  decodeBase64,
  entryDigest,
  entryLine,
  formatCheckpoint,
  leafHash,
  MerkleTree,
  openNote,
  parseCheckpoint,
  parseVerifierKey,
  signerFromSeed,
  signNote,
  type Verifier,
} from "../../../src/core/audit";
import { nodePosition } from "../../../src/worker/features/audit/tree-key";
import { report } from "../support/figures";
import { callBody, send, tenant, type Tenant } from "./client";

const ENTRIES = 1_000;
const TRIALS = 5;
const encoder = new TextEncoder();

interface Row {
  seq: number;
  kind: string;
  at: number;
  record: string;
  prev_sha256: string;
  entry_sha256: string;
}
interface Snapshot {
  chain: Row[];
  tree: Array<{ pos: number; level: number; idx: number; hash: ArrayBuffer }>;
  checkpoints: Array<{ size: number; root: ArrayBuffer; note: string; signed_at: number }>;
}

const stubOf = (name: string) => env.CONSUMER.get(env.CONSUMER.idFromName(name));

async function fill(t: Tenant, entries: number): Promise<void> {
  for (let i = 0; i < entries; i += 25) {
    await Promise.all(
      Array.from({ length: 25 }, (_, j) =>
        send(
          "POST",
          `/v1/consumers/${t.name}/tool-calls`,
          t.agent,
          callBody({ callId: `k-${i + j}`, tool: "get_order", args: { order_ref: "ORDER-7" }, key: null }),
        ),
      ),
    );
  }
}

function snapshot(name: string): Promise<Snapshot> {
  return runInDurableObject(stubOf(name), (_o, state) => {
    const sql = state.storage.sql;
    return {
      chain: [
        ...sql.exec("SELECT seq, kind, at, record, prev_sha256, entry_sha256 FROM audit_chain ORDER BY seq"),
      ] as unknown as Row[],
      tree: [...sql.exec("SELECT pos, level, idx, hash FROM audit_tree")] as unknown as Snapshot["tree"],
      checkpoints: [
        ...sql.exec("SELECT size, root, note, signed_at FROM audit_checkpoints"),
      ] as unknown as Snapshot["checkpoints"],
    };
  });
}

/** Writes `s` as the object's whole audit storage, then restarts every object. */
async function store(name: string, s: Snapshot): Promise<void> {
  await runInDurableObject(stubOf(name), (_o, state) => {
    const sql = state.storage.sql;
    state.storage.transactionSync(() => {
      sql.exec("DELETE FROM audit_chain");
      sql.exec("DELETE FROM audit_tree");
      sql.exec("DELETE FROM audit_checkpoints");
      for (const r of s.chain)
        sql.exec(
          "INSERT INTO audit_chain (seq, kind, at, record, prev_sha256, entry_sha256) VALUES (?, ?, ?, ?, ?, ?)",
          r.seq,
          r.kind,
          r.at,
          r.record,
          r.prev_sha256,
          r.entry_sha256,
        );
      for (const n of s.tree)
        sql.exec("INSERT INTO audit_tree (pos, level, idx, hash) VALUES (?, ?, ?, ?)", n.pos, n.level, n.idx, n.hash);
      for (const c of s.checkpoints)
        sql.exec(
          "INSERT INTO audit_checkpoints (size, root, note, signed_at) VALUES (?, ?, ?, ?)",
          c.size,
          c.root,
          c.note,
          c.signed_at,
        );
    });
  });
  await abortAllDurableObjects();
}

/** The tree rows of `chain`, as the gate stores them (RFC 9162 complete nodes). */
function treeOf(chain: Row[]): Snapshot["tree"] {
  const nodes = new Map<string, Uint8Array>();
  const rows: Snapshot["tree"] = [];
  const reader = { node: (level: number, index: number) => nodes.get(`${level}/${index}`) as Uint8Array };
  chain.forEach((r, i) => {
    for (const n of appendNodes(i, leafHash(encoder.encode(entryLine(r))), reader)) {
      nodes.set(`${n.level}/${n.index}`, n.hash);
      rows.push({ pos: nodePosition(n.level, n.index), level: n.level, idx: n.index, hash: n.hash.slice().buffer });
    }
  });
  return rows;
}

/** What an auditor checks an export against: its own signature, its tree, and earlier checkpoints. */
interface Export {
  lines: string[];
  note: string;
}

/** The gate's refusal to sign a log that does not extend its signed checkpoints. */
const REFUSED = "refused";

async function exportOf(t: Tenant): Promise<Export | typeof REFUSED> {
  const res = await send("GET", `/v1/consumers/${t.name}/audit/export`, t.auditor);
  if (res.status === 500 && (res.json as { code?: string } | null)?.code === "AUDIT_LOG_INCONSISTENT") return REFUSED;
  if (res.status !== 200) throw new Error(`export: ${res.status} ${res.text.slice(0, 200)}`);
  const lines = res.text.trimEnd().split("\n");
  const last = JSON.parse(lines.pop() as string) as { checkpoint: string };
  return { lines, note: last.checkpoint };
}

/** The findings an offline verifier makes (the same checks as `toolgate audit verify`); a refused export is one. */
function findings(e: Export | typeof REFUSED, verifiers: Verifier[], saved: string[]): string[] {
  if (e === REFUSED) return ["the gate refused to sign: AUDIT_LOG_INCONSISTENT"];
  const found: string[] = [];
  const opened = openNote(e.note, verifiers);
  if (!opened.ok) return [`checkpoint signature: ${opened.error}`];
  const cp = parseCheckpoint(opened.value.text);
  if (!cp.ok) return [`checkpoint: ${cp.error}`];
  const tree = new MerkleTree();
  for (const line of e.lines) tree.append(leafHash(encoder.encode(line)));
  if (cp.value.size !== tree.size || !equal(cp.value.root, tree.root()))
    found.push("checkpoint does not cover the export");
  for (const note of saved) {
    const s = openNote(note, verifiers);
    const c = s.ok ? parseCheckpoint(s.value.text) : null;
    if (c === null || !c.ok) {
      found.push("saved checkpoint unreadable");
      continue;
    }
    if (c.value.size > tree.size) found.push(`truncated: ${tree.size} < ${c.value.size}`);
    else if (!equal(c.value.root, tree.root(c.value.size))) found.push(`rewritten at ${c.value.size}`);
  }
  return found;
}

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

async function witnessNotes(consumer: string): Promise<string[]> {
  const bucket = (env as unknown as { AUDIT_WITNESS: R2Bucket }).AUDIT_WITNESS;
  const listed = await bucket.list({ prefix: `consumers/${consumer}/checkpoints/` });
  const latest = listed.objects
    .map((o) => o.key)
    .sort()
    .at(-1);
  if (latest === undefined) return [];
  return [await ((await bucket.get(latest)) as R2ObjectBody).text()];
}

describe("R8 audit: truncation and recomputation against signed checkpoints", () => {
  it("detects tail truncation (saved checkpoint, witness alone) and full recomputation (signature, witness)", async () => {
    const t = await tenant("rel-r8-checkpoints");
    await fill(t, ENTRIES);
    const keys = (await send("GET", "/v1/audit/verifier-keys", null)).json as { keys: string[] };
    const verifiers = keys.keys.map((k) => {
      const v = parseVerifierKey(k);
      if (!v.ok) throw new Error(`verifier key: ${v.error}`);
      return v.value;
    });
    // The auditor saves the checkpoint (which also reaches the witness bucket).
    const saved = (
      (await send("GET", `/v1/consumers/${t.name}/audit/checkpoint`, t.auditor)).json as { checkpoint: string }
    ).checkpoint;
    const original = await snapshot(t.name);
    expect(original.chain.length).toBeGreaterThanOrEqual(ENTRIES);
    expect(findings(await exportOf(t), verifiers, [saved, ...(await witnessNotes(t.name))])).toEqual([]);

    let againstSaved = 0;
    let againstWitness = 0;
    let bySignature = 0;
    let recomputedAgainstWitness = 0;
    let refusedByGate = 0;
    for (let k = 0; k < TRIALS; k++) {
      // Truncation: the last 1 + 7k entries gone, with their nodes and every checkpoint covering them.
      const size = original.chain.length - 1 - 7 * k;
      const chain = original.chain.slice(0, size);
      await store(t.name, {
        chain,
        tree: treeOf(chain),
        checkpoints: original.checkpoints.filter((c) => c.size <= size),
      });
      const cut = await exportOf(t);
      if (cut === REFUSED) refusedByGate++;
      else expect(cut.lines.length).toBe(size);
      if (findings(cut, verifiers, [saved]).length > 0) againstSaved++;
      if (findings(cut, verifiers, await witnessNotes(t.name)).length > 0) againstWitness++;
      // Recomputation: one record edited, every later entry re-chained, the tree rebuilt.
      let prev = "0".repeat(64);
      const forged = original.chain.map((r, i) => {
        const record = i === 40 + k ? r.record.replace(/"tool_contract"/, '"tool_contracts"') : r.record;
        const sha = entryDigest(r.seq, r.kind, r.at, record, prev);
        const row = { ...r, record, prev_sha256: prev, entry_sha256: sha };
        prev = sha;
        return row;
      });
      // (a) An export the attacker assembles and signs without the gate's key.
      const attacker = signerFromSeed("toolgate-test", new Uint8Array(32).fill(7 + k));
      const tree = new MerkleTree();
      for (const r of forged) tree.append(leafHash(encoder.encode(entryLine(r))));
      const origin = parseCheckpoint((openNote(saved, verifiers) as { value: { text: string } }).value.text);
      if (!origin.ok) throw new Error("saved checkpoint");
      const forgedNote = signNote(
        formatCheckpoint({ origin: origin.value.origin, size: tree.size, root: tree.root() }),
        [attacker],
      );
      if (findings({ lines: forged.map(entryLine), note: forgedNote }, verifiers, []).length > 0) bySignature++;
      // (b) The rewritten storage: the gate refuses to sign it (the witness's checkpoint is not its prefix).
      await store(t.name, { chain: forged, tree: treeOf(forged), checkpoints: [] });
      const resigned = await exportOf(t);
      if (resigned === REFUSED) refusedByGate++;
      if (findings(resigned, verifiers, await witnessNotes(t.name)).length > 0) recomputedAgainstWitness++;
      await store(t.name, original);
    }
    expect(findings(await exportOf(t), verifiers, [saved])).toEqual([]);
    const n = original.chain.length;
    report({
      id: "R8",
      check: `audit: tail truncation (log of ${n})`,
      figure: `${againstSaved}/${TRIALS} detected against a saved checkpoint, ${againstWitness}/${TRIALS} against the witness alone`,
      pass: againstSaved === TRIALS && againstWitness === TRIALS,
    });
    report({
      id: "R8",
      check: `audit: full recomputation (log of ${n})`,
      figure: `${bySignature}/${TRIALS} detected by the signature (attacker-signed export), ${recomputedAgainstWitness}/${TRIALS} against the witness (rewritten storage)`,
      pass: bySignature === TRIALS && recomputedAgainstWitness === TRIALS,
    });
    report({
      id: "R8",
      check: `audit: the gate signs no rewritten log (log of ${n})`,
      figure: `${refusedByGate}/${2 * TRIALS} truncated or recomputed storages refused with AUDIT_LOG_INCONSISTENT`,
      pass: refusedByGate === 2 * TRIALS,
    });
    expect([againstSaved, againstWitness, bySignature, recomputedAgainstWitness, refusedByGate]).toEqual([
      TRIALS,
      TRIALS,
      TRIALS,
      TRIALS,
      2 * TRIALS,
    ]);
  });
});
