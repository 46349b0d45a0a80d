/**
 * Retention (docs/storage.md, "Retention"): a long call stream through a consumer with a 60 s
 * window, its object's clock pinned and moved by hand, the alarm run by the test. After each
 * sweep the rows of every expiring table are counted exactly: they level off while replays
 * inside the window, a pending approval, an unreconciled unknown outcome and the audit log's
 * verification keep working; after expiry the same key runs as a new call. The database size
 * is printed at each point (bytes vary with SQLite's page reuse; the rows do not).
 */
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { RUNTIME_MIGRATIONS } from "../../../src/worker/features/runtime/store";
import { TOOL_CALL_MIGRATIONS } from "../../../src/worker/features/tool-calls/store";
import { ToolCallRequest } from "../../../src/contracts/tool-call";
import { INVOICE, LOOKUP } from "../../support/ledger-tools";
import { ADMIN_TOKEN, context, credential, pinClock, send, wipe } from "../../kit";
import { objectRpc } from "../../../src/worker/kernel/object-rpc";

const C = "retention-a";
const SCRATCH = "retention-upgrade";
const T0 = 1_784_419_200;
const WINDOW = 60;
/** Calls sent at once (the object still runs them one at a time). */
const PARALLEL = 25;

type Answer = { status: number; body: Record<string, any> };

const stub = () => env.CONSUMER.get(env.CONSUMER.idFromName(C));

async function ledger(path: string, body?: unknown): Promise<Record<string, any>> {
  const res = await fetch(
    `https://ledger.test${path}`,
    body === undefined ? {} : { method: "POST", body: JSON.stringify(body) },
  );
  return (await res.json()) as Record<string, any>;
}

async function call(
  agent: string,
  name: string,
  args: Record<string, unknown>,
  callId: string,
  key: string | null = null,
): Promise<Answer> {
  const res = await send("POST", `/v1/consumers/${C}/tool-calls`, agent, {
    principal: { subject_id: "user-1", roles: [] },
    proposal: { name, arguments: args },
    context: context(callId, { key }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/**
 * `count` reads with fresh call ids (`prefix-1` …), a few at a time, handed to the object's
 * `toolCall` as the route does after validating the body (this pool version slows every
 * request through the Worker's fetch as their number grows); answers how many succeeded.
 */
async function reads(agent: string, prefix: string, count: number): Promise<number> {
  let succeeded = 0;
  const read = async (callId: string) => {
    const body = {
      principal: { subject_id: "user-1", roles: [] },
      proposal: { name: "lookup_customer", arguments: { customer: "acme" } },
      context: context(callId),
    };
    const answer = await objectRpc(stub()).toolCall(C, agent, { value: ToolCallRequest.parse(body), floats: [] });
    return (
      answer.ok &&
      (JSON.parse(answer.value) as { model_result: { status: string } }).model_result.status === "succeeded"
    );
  };
  for (let i = 0; i < count; i += PARALLEL) {
    const batch = Array.from({ length: Math.min(PARALLEL, count - i) }, (_, j) => read(`${prefix}-${i + j + 1}`));
    for (const ok of await Promise.all(batch)) if (ok) succeeded++;
  }
  return succeeded;
}

interface Rows {
  records: Record<string, number>;
  approvals: Record<string, number>;
  bytes: number;
}

/** Rows of the expiring tables (records by engine table, approvals by state) and the database size. */
function counted(sql: SqlStorage): Rows {
  const grouped = (query: string) =>
    Object.fromEntries(
      sql
        .exec<{ k: string; n: number }>(query)
        .toArray()
        .map((row) => [row.k, row.n]),
    );
  return {
    records: grouped("SELECT tbl AS k, COUNT(*) AS n FROM records GROUP BY tbl ORDER BY tbl"),
    approvals: grouped("SELECT state AS k, COUNT(*) AS n FROM approvals GROUP BY state ORDER BY state"),
    bytes: sql.databaseSize,
  };
}

async function rows(): Promise<Rows> {
  return runInDurableObject(stub(), (_object, state) => counted(state.storage.sql));
}

/**
 * Pins the object's clock and runs its alarm handler, counting the rows right after the
 * handler's first, synchronous step (the retention sweep): nothing else runs in between, not even
 * an alarm the audit log asked for meanwhile, which would sweep too.
 */
async function sweepAt(seconds: number): Promise<Rows> {
  return runInDurableObject(stub(), async (object, state) => {
    object.clock.pinnedSeconds = seconds;
    const handler = object.alarm();
    const after = counted(state.storage.sql);
    await handler;
    return after;
  });
}

/** Walks `audit/verify` to its end; answers every step's `ok` and the last `count`. */
async function verify(auditor: string): Promise<{ oks: boolean[]; count: number }> {
  const oks: boolean[] = [];
  let cursor: string | null = null;
  let count = 0;
  do {
    const res = await send(
      "GET",
      `/v1/consumers/${C}/audit/verify${cursor === null ? "" : `?cursor=${encodeURIComponent(cursor)}`}`,
      auditor,
    );
    const body = (await res.json()) as { ok: boolean; count: number; next_cursor: string | null };
    oks.push(res.status === 200 && body.ok);
    count = body.count;
    cursor = body.next_cursor;
  } while (cursor !== null && oks.length < 20);
  return { oks, count };
}

const sizes: Array<[string, number]> = [];

beforeEach(async () => {
  await wipe(C, SCRATCH);
  await ledger("/_control", { reset: true, token: null });
});

describe("retention", () => {
  it(
    "keeps the rows of a long call stream level, while replays, a pending approval, an unknown outcome and the audit log keep working",
    { timeout: 180_000 },
    async () => {
      const admin = (method: string, path: string, body?: unknown) =>
        send(method, `/v1/consumers/${C}${path}`, ADMIN_TOKEN, body);
      expect((await admin("PUT", "", { tools: [], approver_subjects: ["rev-1"] })).status).toBe(200);
      expect((await admin("PUT", "/tools/lookup_customer", LOOKUP)).status).toBe(200);
      expect((await admin("PUT", "/tools/create_invoice", INVOICE)).status).toBe(200);
      const limits = { retention_seconds: WINDOW, calls_per_second: 100_000, call_burst: 100_000 };
      expect(
        (await admin("PUT", "", { tools: ["lookup_customer", "create_invoice"], approver_subjects: ["rev-1"], limits }))
          .status,
      ).toBe(200);
      expect(
        ((await (await admin("GET", "")).json()) as { limits: Record<string, number> }).limits.retention_seconds,
      ).toBe(WINDOW);
      await pinClock(C, T0);
      const agent = (await credential(C, "agent")).secret;
      const approver = (await credential(C, "approver", "rev-1")).secret;
      const auditor = (await credential(C, "auditor")).secret;
      const decide = async (approvalId: string) => {
        const list = (await (await send("GET", `/v1/consumers/${C}/approvals`, approver)).json()) as {
          approvals: Array<{ approval_id: string; approval_digest: string }>;
        };
        const digest = list.approvals.find((a) => a.approval_id === approvalId)?.approval_digest;
        return (
          await send("POST", `/v1/consumers/${C}/approvals/${approvalId}`, approver, {
            decision: "approve",
            approval_digest: digest,
          })
        ).status;
      };
      const invoice = (key: string, amount: number) =>
        call(agent, "create_invoice", { customer: "acme", amount }, `call-${key}`, key);
      // Status, delivery of a result (null for a refusal or an unknown outcome), invoice or error code.
      const outcome = (a: Answer) => {
        const r = a.body.model_result;
        return [r.status, r.status === "succeeded" ? r.execution.delivery : null, r.data?.invoice_id ?? r.error?.code];
      };

      // T0: three writes run; a replay of the first is local; one write waits for an approver; one's outcome is lost after its commit.
      expect(outcome(await invoice("k-1", 10))).toEqual(["succeeded", "fresh", "INV-1"]);
      // The first call armed the sweep (nothing else in this object asks for the alarm yet).
      expect(await runInDurableObject(stub(), async (_o, state) => (await state.storage.getAlarm()) !== null)).toBe(
        true,
      );
      expect(outcome(await invoice("k-2", 20))).toEqual(["succeeded", "fresh", "INV-2"]);
      expect(outcome(await invoice("k-3", 30))).toEqual(["succeeded", "fresh", "INV-3"]);
      expect(outcome(await invoice("k-1", 10))).toEqual(["succeeded", "local_replay", "INV-1"]);
      const big = await invoice("k-big", 500);
      expect(outcome(big)).toEqual(["failed", null, "APPROVAL_REQUIRED"]);
      await ledger("/_control", { mode: "error_after_commit" });
      const lost = await invoice("k-lost", 40);
      await ledger("/_control", { mode: "ok" });
      expect(outcome(lost)).toEqual(["unknown", null, "OUTCOME_UNKNOWN"]);

      // T0 + 10: 600 reads; a call id reused with other arguments conflicts inside the window.
      await pinClock(C, T0 + 10);
      expect(await reads(agent, "r", 600)).toBe(600);
      expect((await call(agent, "lookup_customer", { customer: "other" }, "r-1")).body.model_result.error.code).toBe(
        "CALL_ID_CONFLICT",
      );
      const results = { idempotency_records: 3, downstream_receipts: 3 };
      const unknown = { uncertain_outcomes: 1, status_refs: 1 };
      const wave1 = await rows();
      sizes.push(["after 600 reads", wave1.bytes]);
      expect([wave1.records, wave1.approvals]).toEqual([
        { call_fingerprints: 605, ...results, ...unknown },
        { pending: 1 },
      ]);
      // The calls armed the alarm; nothing has expired yet, so its sweep deletes nothing.
      expect(await runDurableObjectAlarm(stub())).toBe(true);
      expect((await rows()).records).toEqual(wave1.records);

      // T0 + 100: every call identity is older than the window; a run deletes at most 500 per rule.
      expect((await sweepAt(T0 + 100)).records).toEqual({ call_fingerprints: 105, ...results, ...unknown });
      const swept1 = await sweepAt(T0 + 100);
      sizes.push(["after the sweep", swept1.bytes]);
      expect([swept1.records, swept1.approvals]).toEqual([{ ...results, ...unknown }, { pending: 1 }]);
      // Idempotent: another run at the same second deletes nothing more.
      expect(await sweepAt(T0 + 100)).toEqual(swept1);
      // Inside the window a replay is local, with the same result; the reused call id is free again.
      expect(outcome(await invoice("k-1", 10))).toEqual(["succeeded", "local_replay", "INV-1"]);
      expect((await call(agent, "lookup_customer", { customer: "other" }, "r-1")).body.model_result.data).toEqual({
        customer: "other",
        tier: "gold",
      });

      // T0 + 150: another 600 reads (the two calls of T0 + 100 are not expired yet); T0 + 300:
      // swept again, the rows are where they were after the first sweep.
      await pinClock(C, T0 + 150);
      expect(await reads(agent, "s", 600)).toBe(600);
      const wave2 = await rows();
      sizes.push(["after 600 more reads", wave2.bytes]);
      expect(wave2.records).toEqual({ call_fingerprints: 602, ...results, ...unknown });
      expect((await sweepAt(T0 + 300)).records).toEqual({ call_fingerprints: 102, ...results, ...unknown });
      const swept2 = await sweepAt(T0 + 300);
      sizes.push(["after the second sweep", swept2.bytes]);
      expect([swept2.records, swept2.approvals]).toEqual([swept1.records, swept1.approvals]);

      // The pending approval survived both sweeps: it is decided and its call runs.
      expect(await decide(big.body.approval_id)).toBe(200);
      expect(outcome(await invoice("k-big", 500))).toEqual(["succeeded", "fresh", "INV-5"]);

      // T0 + 4000: the results (kept at least an hour) and the decided approval are gone; the
      // unreconciled unknown outcome stays (30 days).
      const expired = await sweepAt(T0 + 4000);
      sizes.push(["after the results expired", expired.bytes]);
      expect([expired.records, expired.approvals]).toEqual([unknown, {}]);
      // After expiry the same key runs as a new call: the gate sends the write again (the ledger,
      // keyed by the same status_ref, answers its first invoice) and a write that needs an approver
      // asks for a new approval.
      expect(outcome(await invoice("k-1", 10))).toEqual(["succeeded", "fresh", "INV-1"]);
      const again = await invoice("k-big", 500);
      expect([outcome(again), again.body.approval_id === big.body.approval_id]).toEqual([
        ["failed", null, "APPROVAL_REQUIRED"],
        false,
      ]);
      const posts = (await ledger("/_state")).posts as Record<string, number>;
      expect(Object.values(posts).sort()).toEqual([1, 1, 1, 1, 2]);
      // Its position continues after the expired ones (never reused).
      expect(
        await runInDurableObject(stub(), (_o, state) =>
          state.storage.sql
            .exec<{ seq: number }>("SELECT seq FROM approvals")
            .toArray()
            .map((r) => r.seq),
        ),
      ).toEqual([2]);
      // The unknown outcome is still reconciled by its status query.
      const status = await send("POST", `/v1/consumers/${C}/tool-calls/status`, agent, {
        principal: { subject_id: "user-1", roles: [] },
        proposal: { name: "create_invoice", arguments: { customer: "acme", amount: 40 } },
        context: context("status-1", { key: "k-lost" }),
        status_ref: lost.body.status_ref,
      });
      const reconciled = (await status.json()) as Record<string, any>;
      expect([
        reconciled.model_result.status,
        reconciled.model_result.execution.delivery,
        reconciled.model_result.data.invoice_id,
      ]).toEqual(["succeeded", "receipt_reconciled", "INV-4"]);

      // The audit log still verifies from its first entry to its last.
      const verified = await verify(auditor);
      const last = await runInDurableObject(
        stub(),
        (_o, state) => state.storage.sql.exec<{ seq: number }>("SELECT MAX(seq) AS seq FROM audit_chain").one().seq,
      );
      expect([verified.oks.every((ok) => ok), verified.count]).toEqual([true, last]);
      console.log(`retention: database bytes ${sizes.map(([at, bytes]) => `${at} ${bytes}`).join(", ")}`);
    },
  );

  it("the v14 migration stamps the records stored before it and holds each by what it is", async () => {
    const scratch = env.CONSUMER.get(env.CONSUMER.idFromName(SCRATCH));
    const upgraded = await runInDurableObject(scratch, (_object, state) => {
      const sql = state.storage.sql;
      // Back to the v13 shape of the two planes' v14 parts, with rows stored then.
      for (const index of [
        "records_by_age",
        "approvals_by_end",
        "runtime_actions_by_end",
        "runtime_purges_by_completion",
      ])
        sql.exec(`DROP INDEX ${index}`);
      sql.exec("ALTER TABLE records DROP COLUMN stored_at");
      sql.exec("ALTER TABLE records DROP COLUMN hold");
      sql.exec("DELETE FROM counters");
      const rows: Array<[string, string]> = [
        ["call_fingerprints", "a"],
        ["idempotency_records", "b"],
        ["downstream_receipts", "b"],
        ["downstream_receipts", "c"],
        ["uncertain_outcomes", "c"],
        ["status_refs", "status_c"],
        ["in_flight", "d"],
      ];
      for (const [tbl, key] of rows) sql.exec("INSERT INTO records (tbl, key, value) VALUES (?, ?, '{}')", tbl, key);
      sql.exec(
        "INSERT INTO approvals (approval_id, binding_key, state, subject_id, tool, arguments, call, requested_at, expires_at, seq) VALUES ('apr_1', 'b', 'denied', 'user-1', 't', '{}', '{}', 1, 901, 7)",
      );
      for (const part of [...TOOL_CALL_MIGRATIONS, ...RUNTIME_MIGRATIONS]) if (part.version === 14) sql.exec(part.sql);
      return {
        records: sql
          .exec<{ tbl: string; hold: number; stamped: number }>(
            "SELECT tbl, hold, stored_at > 0 AS stamped FROM records ORDER BY rowid",
          )
          .toArray(),
        seq: sql.exec<{ value: number }>("SELECT value FROM counters WHERE name = 'toolgate.approvals.seq'").one()
          .value,
      };
    });
    expect(upgraded).toEqual({
      records: [
        { tbl: "call_fingerprints", hold: 0, stamped: 1 },
        { tbl: "idempotency_records", hold: 1, stamped: 1 },
        { tbl: "downstream_receipts", hold: 1, stamped: 1 },
        { tbl: "downstream_receipts", hold: 2, stamped: 1 },
        { tbl: "uncertain_outcomes", hold: 2, stamped: 1 },
        { tbl: "status_refs", hold: 2, stamped: 1 },
        { tbl: "in_flight", hold: 3, stamped: 1 },
      ],
      seq: 7,
    });
  });
});
