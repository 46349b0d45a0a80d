/**
 * The gate never signs a rewritten log: before a checkpoint is signed, the stored tree must
 * extend the latest signed checkpoint (stored with the log) and the witness bucket's newest, by
 * an RFC 9162 consistency proof. Here someone with write access to the object's SQLite rewrites
 * an entry, re-links the hash chain after it and rebuilds the tree (the object's backfill does
 * it on restart), so the log is internally consistent again; the next checkpoint is refused
 * with AUDIT_LOG_INCONSISTENT, nothing is signed or witnessed, and the admin reads the alarm.
 */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { entryDigest } from "../../../src/core/audit";
import { ADMIN_TOKEN, context, credential, pinClock, send, wipe } from "../../kit";

const STORED = "audit-rewrite-stored";
const WITNESSED = "audit-rewrite-witness";
const NOW = 1_800_000_000;
const stub = (consumer: string) => env.CONSUMER.get(env.CONSUMER.idFromName(consumer));
const agents = new Map<string, string>();
const auditors = new Map<string, string>();

async function call(consumer: string, id: string): Promise<void> {
  const res = await send("POST", `/v1/consumers/${consumer}/tool-calls`, agents.get(consumer) ?? "", {
    principal: { subject_id: "user-1", roles: [] },
    proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
    context: context(id),
  });
  expect(res.status).toBe(200);
}

async function checkpoint(consumer: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await send("GET", `/v1/consumers/${consumer}/audit/checkpoint`, auditors.get(consumer) ?? "");
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Rewrites entry `seq` (its time), re-links every later entry's digest, and drops the tree (rebuilt on restart). */
async function rewrite(consumer: string, seq: number, alsoCheckpoints: boolean): Promise<void> {
  await runInDurableObject(stub(consumer), (_o, state) => {
    const sql = state.storage.sql;
    const rows = [
      ...sql.exec<{ seq: number; kind: string; at: number; record: string; prev_sha256: string }>(
        "SELECT seq, kind, at, record, prev_sha256 FROM audit_chain WHERE seq >= ? ORDER BY seq",
        seq,
      ),
    ];
    let prev = rows[0]?.prev_sha256 ?? "";
    for (const row of rows) {
      const at = row.seq === seq ? row.at - 3600 : row.at;
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
    if (alsoCheckpoints) sql.exec("DELETE FROM audit_checkpoints");
  });
  await abortAllDurableObjects();
}

const storedSizes = (consumer: string) =>
  runInDurableObject(stub(consumer), (_o, state) =>
    [...state.storage.sql.exec<{ size: number }>("SELECT size FROM audit_checkpoints ORDER BY size")].map(
      (r) => r.size,
    ),
  );

async function witnessedSizes(consumer: string): Promise<number[]> {
  const listed = await env.AUDIT_WITNESS?.list({ prefix: `consumers/${consumer}/checkpoints/` });
  return (listed?.objects ?? []).map((o: R2Object) => Number(o.key.split("/").pop()));
}

beforeAll(async () => {
  await wipe(STORED, WITNESSED);
  for (const consumer of [STORED, WITNESSED]) {
    const old = await env.AUDIT_WITNESS?.list({ prefix: `consumers/${consumer}/` });
    for (const object of old?.objects ?? []) await env.AUDIT_WITNESS?.delete(object.key);
    const res = await send("PUT", `/v1/consumers/${consumer}`, ADMIN_TOKEN, {
      tools: ["get_order"],
      approver_subjects: [],
    });
    expect(res.status).toBe(200);
    agents.set(consumer, (await credential(consumer, "agent")).secret);
    auditors.set(consumer, (await credential(consumer, "auditor")).secret);
    for (let i = 0; i < 5; i++) await call(consumer, `call-${i}`);
  }
}, 60_000);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("signing checks the stored log against the signed checkpoints", () => {
  it("refuses to sign a log whose entry was rewritten below the stored checkpoint: AUDIT_LOG_INCONSISTENT, nothing signed, alarm raised", async () => {
    const first = await checkpoint(STORED);
    expect([first.status, first.body.size]).toEqual([200, 8]);
    await rewrite(STORED, 5, false);
    await pinClock(STORED, NOW);
    await call(STORED, "after-rewrite");
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const refused = await checkpoint(STORED);
    expect([refused.status, refused.body.code, refused.body.detail]).toEqual([
      500,
      "AUDIT_LOG_INCONSISTENT",
      "The stored log of 9 entries does not extend the stored checkpoint of size 8: entries were rewritten or removed, and no checkpoint is signed. The operator is alerted.",
    ]);
    expect(errors.mock.calls.map((args) => String(args[0]))).toEqual([
      `toolgate: {"level":"error","event":"audit.log_inconsistent","consumer":"${STORED}","against":"stored","reason":"rewritten","checkpoint_size":8,"tree_size":9}`,
    ]);
    expect(await storedSizes(STORED)).toEqual([8]);
    expect(await witnessedSizes(STORED)).toEqual([8]);
    // The export and a default inclusion proof ask for the same checkpoint: refused alike.
    const exported = await send("GET", `/v1/consumers/${STORED}/audit/export`, auditors.get(STORED) ?? "");
    expect([exported.status, ((await exported.json()) as { code: string }).code]).toEqual([
      500,
      "AUDIT_LOG_INCONSISTENT",
    ]);
    const details = await send("GET", `/v1/consumers/${STORED}`, ADMIN_TOKEN);
    expect(((await details.json()) as { audit_inconsistent: unknown }).audit_inconsistent).toEqual({
      refusals: 2,
      detected_at: NOW,
      checkpoint_size: 8,
      tree_size: 9,
      against: "stored",
    });
  });

  it("refuses against the witness's newest checkpoint when the stored checkpoints were deleted too", async () => {
    const first = await checkpoint(WITNESSED);
    expect([first.status, first.body.size]).toEqual([200, 8]);
    expect(await witnessedSizes(WITNESSED)).toEqual([8]);
    await rewrite(WITNESSED, 2, true);
    await call(WITNESSED, "after-rewrite");
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const refused = await checkpoint(WITNESSED);
    expect([refused.status, refused.body.code, refused.body.detail]).toEqual([
      500,
      "AUDIT_LOG_INCONSISTENT",
      "The stored log of 9 entries does not extend the witness checkpoint of size 8: entries were rewritten or removed, and no checkpoint is signed. The operator is alerted.",
    ]);
    expect(await storedSizes(WITNESSED)).toEqual([]);
    expect(await witnessedSizes(WITNESSED)).toEqual([8]);
  });

  it("still signs a log that extends its checkpoints, and shows no alarm", async () => {
    const fresh = "audit-rewrite-intact";
    await wipe(fresh);
    const old = await env.AUDIT_WITNESS?.list({ prefix: `consumers/${fresh}/` });
    for (const object of old?.objects ?? []) await env.AUDIT_WITNESS?.delete(object.key);
    expect(
      (await send("PUT", `/v1/consumers/${fresh}`, ADMIN_TOKEN, { tools: ["get_order"], approver_subjects: [] }))
        .status,
    ).toBe(200);
    agents.set(fresh, (await credential(fresh, "agent")).secret);
    auditors.set(fresh, (await credential(fresh, "auditor")).secret);
    await call(fresh, "one");
    expect((await checkpoint(fresh)).body.size).toBe(4);
    await abortAllDurableObjects();
    await call(fresh, "two");
    expect((await checkpoint(fresh)).body.size).toBe(5);
    expect(await witnessedSizes(fresh)).toEqual([4, 5]);
    const details = (await (await send("GET", `/v1/consumers/${fresh}`, ADMIN_TOKEN)).json()) as Record<
      string,
      unknown
    >;
    expect("audit_inconsistent" in details).toBe(false);
  });
});
