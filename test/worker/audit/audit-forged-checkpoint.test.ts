/**
 * A stored checkpoint row counts only by its signed note: a forged row (a note no published key
 * opens, or a genuine note under columns that lie about its size and root) neither hides the
 * witness nor the rewrite from the consistency check, and is never served as the latest.
 */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { entryDigest, rootHash } from "../../../src/core/audit";
import { ADMIN_TOKEN, context, credential, send, wipe } from "../../kit";

const stub = (c: string) => env.CONSUMER.get(env.CONSUMER.idFromName(c));

interface Consumer {
  readonly name: string;
  readonly agent: string;
  readonly auditor: string;
}

async function setUp(name: string): Promise<Consumer> {
  await wipe(name);
  const old = await env.AUDIT_WITNESS?.list({ prefix: `consumers/${name}/` });
  for (const object of old?.objects ?? []) await env.AUDIT_WITNESS?.delete(object.key);
  expect(
    (await send("PUT", `/v1/consumers/${name}`, ADMIN_TOKEN, { tools: ["get_order"], approver_subjects: [] })).status,
  ).toBe(200);
  const consumer = {
    name,
    agent: (await credential(name, "agent")).secret,
    auditor: (await credential(name, "auditor")).secret,
  };
  for (let i = 0; i < 5; i++) await call(consumer, `call-${i}`);
  return consumer;
}

async function call(c: Consumer, id: string): Promise<void> {
  const res = await send("POST", `/v1/consumers/${c.name}/tool-calls`, c.agent, {
    principal: { subject_id: "user-1", roles: [] },
    proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
    context: context(id),
  });
  expect(res.status).toBe(200);
}

async function checkpoint(c: Consumer): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await send("GET", `/v1/consumers/${c.name}/audit/checkpoint`, c.auditor);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Rewrites entry 2 (its time), re-links the chain, drops the tree (rebuilt on restart) and the checkpoints. */
async function rewrite(c: Consumer): Promise<void> {
  await runInDurableObject(stub(c.name), (_o, state) => {
    const sql = state.storage.sql;
    const rows = [
      ...sql.exec<{ seq: number; kind: string; at: number; record: string; prev_sha256: string }>(
        "SELECT seq, kind, at, record, prev_sha256 FROM audit_chain WHERE seq >= 2 ORDER BY seq",
      ),
    ];
    let prev = rows[0]?.prev_sha256 ?? "";
    for (const row of rows) {
      const at = row.seq === 2 ? row.at - 3600 : row.at;
      const digest = entryDigest(row.seq, row.kind, at, row.record, prev);
      sql.exec(
        "UPDATE audit_chain SET at = ?, prev_sha256 = ?, entry_sha256 = ? WHERE seq = ?",
        at,
        prev,
        digest,
        row.seq,
      );
      prev = digest;
    }
    sql.exec("DELETE FROM audit_tree");
    sql.exec("DELETE FROM audit_checkpoints");
  });
  await abortAllDurableObjects();
}

/** Inserts a checkpoint row of `size` (the tree's own size when omitted) with the rewritten tree's root and `note`. */
async function forgeRow(c: Consumer, note: string, size?: number): Promise<number> {
  return runInDurableObject(stub(c.name), (_o, state) => {
    const sql = state.storage.sql;
    const reader = {
      node(level: number, index: number): Uint8Array {
        const row = [
          ...sql.exec<{ hash: ArrayBuffer }>("SELECT hash FROM audit_tree WHERE level = ? AND idx = ?", level, index),
        ][0];
        if (row === undefined) throw new Error(`missing node ${level}/${index}`);
        return new Uint8Array(row.hash);
      },
    };
    const tree = [...sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM audit_chain")][0]?.n ?? 0;
    sql.exec(
      "INSERT INTO audit_checkpoints (size, root, note, signed_at) VALUES (?, ?, ?, ?)",
      size ?? tree,
      rootHash(reader, tree),
      note,
      0,
    );
    return tree;
  });
}

const storedNote = (c: Consumer) =>
  runInDurableObject(
    stub(c.name),
    (_o, state) =>
      [...state.storage.sql.exec<{ note: string }>("SELECT note FROM audit_checkpoints ORDER BY size DESC LIMIT 1")][0]
        ?.note ?? "",
  );

describe("forged stored checkpoint", () => {
  it("refuses to sign a rewritten log even when the stored checkpoint row was replaced", async () => {
    const c = await setUp("audit-forged-unsigned");
    const first = await checkpoint(c);
    expect([first.status, first.body.size]).toEqual([200, 8]);
    await rewrite(c);
    await call(c, "after-rewrite"); // tree rebuilt from the rewritten chain, now 9 entries
    // Forge the stored checkpoint: size 9 (>= the witness's newest, 8), root of the rewritten tree.
    expect(await forgeRow(c, "not a signed note")).toBe(9);
    await abortAllDurableObjects();
    await call(c, "after-forgery"); // 10 entries
    const signed = await checkpoint(c);
    expect([signed.status, signed.body.code]).toEqual([500, "AUDIT_LOG_INCONSISTENT"]);
  });

  it("checks a genuine note's own size and root, not the row's columns", async () => {
    const c = await setUp("audit-forged-columns");
    const first = await checkpoint(c);
    expect([first.status, first.body.size]).toEqual([200, 8]);
    const genuine = await storedNote(c); // the gate's signed note of size 8, over the original tree
    await rewrite(c);
    await call(c, "after-rewrite");
    expect(await forgeRow(c, genuine)).toBe(9); // columns: size 9, the rewritten root; note: size 8
    await abortAllDurableObjects();
    await call(c, "after-forgery");
    const signed = await checkpoint(c);
    expect([signed.status, signed.body.code, signed.body.detail]).toEqual([
      500,
      "AUDIT_LOG_INCONSISTENT",
      "The stored log of 10 entries does not extend the stored checkpoint of size 8: entries were rewritten or removed, and no checkpoint is signed. The operator is alerted.",
    ]);
  });

  it("never serves a row larger than the tree whose note does not open", async () => {
    const c = await setUp("audit-forged-larger");
    await forgeRow(c, "not a signed note", 100);
    await abortAllDurableObjects();
    const served = await checkpoint(c);
    expect([served.status, served.body.code, served.body.detail]).toEqual([
      500,
      "AUDIT_LOG_INCONSISTENT",
      "The stored checkpoint of size 100 does not open with a published verifier key: the log's storage was rewritten, and no checkpoint is signed. The operator is alerted.",
    ]);
  });
});
