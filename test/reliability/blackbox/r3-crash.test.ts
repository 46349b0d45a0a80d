/**
 * R3 — crash cycles, black box. The real gate under `wrangler dev --persist-to`, in front of a
 * loopback refunds service that outlives the gate and counts what it really received. Each
 * cycle runs a seeded, concurrent workload (approved `submit_refund` writes with fresh keys,
 * `create_refund_draft` demo writes, reads) while the downstream holds writes in flight, kills
 * the process group with SIGKILL at a random moment, restarts on the same persisted state, and
 * resolves every call whose outcome the client could not know (no answer, or OUTCOME_UNKNOWN)
 * by replaying it with the same key and, if still unknown, by status queries.
 *
 * After all cycles: every acknowledged effect replays the same result and (for refunds) is
 * committed downstream; no key was POSTed twice and no order has two refunds; draft ids are
 * dense and distinct; the audit chain is dense 1..N and verifies; every indeterminate call is
 * resolved — a write whose POST never reached the downstream is settled by the status query's
 * fence as never executed, and must have no effect anywhere.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_SIGNING_SECRET } from "../../support/identity-verifier";
import { freePort, startDev, type DevServer } from "../../blackbox/wrangler-dev";
import { prng, report, seedOf } from "../support/figures";
import { RefundsService } from "../../support/refunds-service";
import {
  APPROVER_SUBJECT,
  devProxyRestart,
  gate5xx,
  modelCode,
  send,
  sleep,
  succeeded,
  toolCall,
  type Sent,
} from "./support/r3-gate";

const ROOT = resolve(__dirname, "..", "..", "..");
const LOG_DIR = join(ROOT, ".toolgate", "reliability-logs");
const LOG_FILE = join(LOG_DIR, "r3.log");
const ADMIN = randomBytes(24).toString("base64url");
const SEED = seedOf(3003);
const CYCLES = 20;
const REASONS = ["duplicate", "damaged", "other"] as const;
const DRAFT_ARGS = { order_ref: "ORDER-7", reason: "duplicate" };

type WriteTool = "submit_refund" | "create_refund_draft";

/** What the client knows of one write. */
interface Write {
  readonly cycle: number;
  readonly tool: WriteTool;
  readonly callId: string;
  readonly key: string;
  readonly args: Record<string, string>;
  /** `abandoned`: the crash came before the approved call was sent (no effect allowed). */
  phase: "planned" | "abandoned" | "sent";
  live?: "ack" | "refused" | "indeterminate";
  why?: string;
  statusRef?: string;
  /** The acknowledged result (live, or learned while resolving). */
  ack?: { data: unknown; delivery: string };
  resolvedBy?: "replay" | "status";
  /**
   * The crash fell after the write was durably marked in flight and before its POST reached the
   * downstream: the status query fenced the key and settled the call as never executed
   * (`TOOL_ERROR`, not started; docs/http-api.md, "HTTP tools").
   */
  notExecuted?: boolean;
  unresolved?: string;
}

const refunds = new RefundsService();
let server: Server | undefined;
let dev: DevServer | undefined;
let persistTo: string | undefined;

afterAll(async () => {
  await dev?.kill();
  await new Promise<void>((done) => (server === undefined ? done() : server.close(() => done())));
  if (persistTo !== undefined) rmSync(persistTo, { recursive: true, force: true });
});

function body(w: Write, callId = w.callId) {
  return toolCall(w.tool, w.args, callId, w.key);
}

function ackOf(sent: Sent): { data: unknown; delivery: string } {
  const result = sent.kind === "answer" ? sent.body.model_result : undefined;
  return { data: result?.data, delivery: String(result?.execution?.delivery) };
}

/** Runs `work` over `items`, at most `width` at a time. */
async function pool<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await work(item);
      }
    }),
  );
}

describe("R3: SIGKILL wrangler dev at random moments, restart on the same state", () => {
  it(`${CYCLES} crash cycles lose no acknowledged effect, execute no write twice, and leave nothing unresolved`, async () => {
    const started = Date.now();
    mkdirSync(LOG_DIR, { recursive: true });
    writeFileSync(LOG_FILE, "");
    refunds.seed(prng(SEED ^ 0x5eed));
    refunds.delayMs = 30;
    refunds.jitterMs = 600;
    const listening = await refunds.listen();
    server = listening.server;
    persistTo = mkdtempSync(join(tmpdir(), "toolgate-r3-"));
    const port = await freePort();
    let startRetries = 0;
    // Other `wrangler dev` processes on this machine can take the inspector port between
    // wrangler's check and workerd's bind ("Address already in use"): start again, bounded.
    const boot = async (): Promise<DevServer> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await startDev(persistTo as string, ADMIN, {
            vars: { TOOLGATE_DOWNSTREAM_URL: listening.base, TOOLGATE_SIGNING_KEY: TEST_SIGNING_SECRET },
            logFile: LOG_FILE,
            port,
          });
        } catch (error) {
          if (attempt >= 4) throw error;
          startRetries += 1;
          await sleep(500);
        }
      }
    };
    const startups: number[] = [];
    let t0 = Date.now();
    dev = await boot();
    startups.push(Date.now() - t0);
    const base = dev.base;

    const admin = async (method: string, path: string, payload: unknown) => {
      const sent = await send(base, method, path, ADMIN, payload);
      if (sent.kind !== "answer" || sent.status >= 300) throw new Error(`admin setup ${method} ${path} failed`);
      return sent.body;
    };
    await admin("PUT", "", {
      tools: ["get_order", "create_refund_draft", "submit_refund", "lookup_refund"],
      approver_subjects: [APPROVER_SUBJECT],
      // Quotas are not what R3 checks: a write whose approval a crash left pending keeps counting
      // against its subject's pending approvals (20 by default), which a run can reach.
      limits: {
        calls_per_second: 1_000_000,
        call_burst: 1_000_000,
        pending_approvals_per_subject: 10_000,
        pending_approvals_per_credential: 100_000,
      },
    });
    const agent = (await admin("POST", "/credentials", { kind: "agent" })).secret as string;
    const approver = (await admin("POST", "/credentials", { kind: "approver", subject_id: APPROVER_SUBJECT }))
      .secret as string;
    const auditor = (await admin("POST", "/credentials", { kind: "auditor" })).secret as string;

    const rng = prng(SEED);
    const writes: Write[] = [];
    const reads = { sent: 0, ok: 0, noAnswer: 0, other: 0 };
    const fiveXX: string[] = [];
    const devRestarts: string[] = [];
    const oddAnswers: string[] = [];
    const killDelays: number[] = [];

    const note5xx = (where: string, sent: Sent) => {
      if (gate5xx(sent))
        fiveXX.push(`${where}: ${(sent as { status: number }).status} ${String((sent as { body: any }).body?.code)}`);
      if (devProxyRestart(sent)) devRestarts.push(where);
    };
    /** No HTTP answer, or the dev proxy's "restarted mid-request": the client cannot know. */
    const noAnswer = (sent: Sent) => sent.kind === "no_answer" || devProxyRestart(sent);

    /** Sends an approved write and records what the client saw. */
    async function sendApproved(w: Write): Promise<void> {
      w.phase = "sent";
      const answer = await send(base, "POST", "/tool-calls", agent, body(w));
      note5xx("call", answer);
      if (noAnswer(answer)) {
        w.live = "indeterminate";
        w.why = "no answer";
      } else if (gate5xx(answer)) {
        w.live = "indeterminate";
        w.why = "5xx";
      } else if (succeeded(answer)) {
        w.live = "ack";
        w.ack = ackOf(answer);
      } else if (modelCode(answer) === "OUTCOME_UNKNOWN") {
        w.live = "indeterminate";
        w.why = "OUTCOME_UNKNOWN";
        w.statusRef = (answer as { body: any }).body.status_ref;
      } else {
        w.live = "refused";
        w.why = String(modelCode(answer) ?? (answer as { body: any }).body?.code);
      }
    }

    /** Asks each write once (APPROVAL_REQUIRED), then approves them as the approver does. */
    async function approveAhead(ws: readonly Write[]): Promise<Set<Write>> {
      const byApproval = new Map<string, Write>();
      await Promise.all(
        ws.map(async (w) => {
          const asked = await send(base, "POST", "/tool-calls", agent, body(w));
          note5xx("ask", asked);
          if (
            modelCode(asked) === "APPROVAL_REQUIRED" &&
            asked.kind === "answer" &&
            typeof asked.body.approval_id === "string"
          )
            byApproval.set(asked.body.approval_id, w);
          else if (!noAnswer(asked)) oddAnswers.push(`ask ${w.callId}: ${String(modelCode(asked))}`);
        }),
      );
      const approved = new Set<Write>();
      const listed = await send(base, "GET", "/approvals?state=pending", approver);
      note5xx("list", listed);
      if (listed.kind !== "answer" || listed.status !== 200) return approved;
      await Promise.all(
        (listed.body.approvals as Array<{ approval_id: string; approval_digest: string }>)
          .filter((a) => byApproval.has(a.approval_id))
          .map(async (a) => {
            const decided = await send(base, "POST", `/approvals/${a.approval_id}`, approver, {
              decision: "approve",
              approval_digest: a.approval_digest,
            });
            note5xx("decide", decided);
            if (decided.kind === "answer" && decided.status === 200)
              approved.add(byApproval.get(a.approval_id) as Write);
          }),
      );
      return approved;
    }

    /** A write whose whole approval flow runs inside the crash window: ask, approve, send. */
    async function runFullFlow(w: Write, startAt: number, stopped: () => boolean): Promise<void> {
      await sleep(startAt);
      if (stopped()) return;
      const asked = await send(base, "POST", "/tool-calls", agent, body(w));
      note5xx("ask", asked);
      if (noAnswer(asked) || stopped()) return;
      if (
        modelCode(asked) !== "APPROVAL_REQUIRED" ||
        asked.kind !== "answer" ||
        typeof asked.body.approval_id !== "string"
      ) {
        oddAnswers.push(`ask ${w.callId}: ${String(modelCode(asked))}`);
        return;
      }
      const listed = await send(base, "GET", "/approvals?state=pending", approver);
      note5xx("list", listed);
      if (listed.kind !== "answer" || listed.status !== 200 || stopped()) return;
      const shown = (listed.body.approvals as Array<{ approval_id: string; approval_digest: string }>).find(
        (a) => a.approval_id === asked.body.approval_id,
      );
      if (shown === undefined) {
        oddAnswers.push(`approval of ${w.callId} not listed`);
        return;
      }
      const decided = await send(base, "POST", `/approvals/${shown.approval_id}`, approver, {
        decision: "approve",
        approval_digest: shown.approval_digest,
      });
      note5xx("decide", decided);
      if (decided.kind !== "answer" || decided.status !== 200 || stopped()) return;
      await sendApproved(w);
    }

    async function runRead(startAt: number, lookup: boolean, stopped: () => boolean): Promise<void> {
      await sleep(startAt);
      if (stopped()) return;
      reads.sent += 1;
      const readCall = lookup
        ? toolCall("lookup_refund", { refund_id: "RF-1" }, `r3-read-${reads.sent}`, null)
        : toolCall("get_order", { order_ref: "ORDER-7" }, `r3-read-${reads.sent}`, null);
      const answer = await send(base, "POST", "/tool-calls", agent, readCall);
      note5xx("read", answer);
      if (noAnswer(answer)) reads.noAnswer += 1;
      else if (succeeded(answer)) reads.ok += 1;
      else reads.other += 1;
    }

    /** Resolves one indeterminate write: replay with the same key, then status queries. */
    async function resolveWrite(w: Write): Promise<void> {
      let statusRef = w.why === "OUTCOME_UNKNOWN" ? w.statusRef : undefined;
      if (statusRef === undefined) {
        for (let attempt = 0; attempt < 8 && w.resolvedBy === undefined && statusRef === undefined; attempt++) {
          const replay = await send(base, "POST", "/tool-calls", agent, body(w));
          note5xx("replay", replay);
          if (replay.kind === "no_answer" || replay.status >= 500) {
            await sleep(500);
          } else if (replay.status === 409 && replay.body?.code === "IDEMPOTENCY_IN_PROGRESS") {
            await sleep(1_000);
          } else if (succeeded(replay)) {
            w.ack = ackOf(replay);
            w.resolvedBy = "replay";
          } else if (modelCode(replay) === "OUTCOME_UNKNOWN") {
            statusRef = replay.body.status_ref;
          } else {
            // A definitive refusal: nothing ran (checked below against the downstream's truth).
            oddAnswers.push(`replay ${w.callId}: ${replay.status} ${String(modelCode(replay) ?? replay.body?.code)}`);
            w.resolvedBy = "replay";
          }
        }
        if (w.resolvedBy !== undefined) return;
        if (statusRef === undefined) {
          w.unresolved = "replays got no answer";
          return;
        }
      }
      w.statusRef = statusRef;
      for (let attempt = 0; attempt < 10; attempt++) {
        const status = await send(base, "POST", "/tool-calls/status", agent, {
          ...body(w, `${w.callId}-status`),
          status_ref: statusRef,
        });
        note5xx("status", status);
        if (succeeded(status)) {
          w.ack = ackOf(status);
          w.resolvedBy = "status";
          return;
        }
        if (
          status.kind === "answer" &&
          status.status === 200 &&
          modelCode(status) === "TOOL_ERROR" &&
          status.body?.model_result?.execution?.outcome === "not_started"
        ) {
          w.notExecuted = true;
          w.resolvedBy = "status";
          return;
        }
        if (status.kind === "answer" && status.status < 500 && modelCode(status) !== "OUTCOME_UNKNOWN") {
          w.unresolved = `status answered ${status.status} ${String(modelCode(status) ?? status.body?.code)}`;
          return;
        }
        await sleep(400);
      }
      w.unresolved = "OUTCOME_UNKNOWN after status queries";
    }

    let toResolve: Write[] = [];
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      // The plan of the cycle comes from the seed alone (timing decides what the crash hits).
      const planned: Write[] = [];
      const refundCount = 9 + Math.floor(rng() * 6);
      for (let i = 1; i <= refundCount; i++) {
        const reason = REASONS[Math.floor(rng() * REASONS.length)] as string;
        planned.push({
          cycle,
          tool: "submit_refund",
          callId: `r3-c${cycle}-s${i}`,
          key: `r3-key-c${cycle}-s${i}`,
          args: { order_ref: `R3-C${cycle}-S${i}`, reason },
          phase: "planned",
        });
      }
      const draftCount = 1 + Math.floor(rng() * 3);
      for (let i = 1; i <= draftCount; i++) {
        planned.push({
          cycle,
          tool: "create_refund_draft",
          callId: `r3-c${cycle}-d${i}`,
          key: `r3-key-c${cycle}-d${i}`,
          args: DRAFT_ARGS,
          phase: "planned",
        });
      }
      // A few writes run their whole approval flow inside the crash window.
      const fullFlow = new Set(planned.filter(() => rng() < 0.15));
      const starts = new Map(planned.map((w) => [w, Math.floor(rng() * (fullFlow.has(w) ? 500 : 800))]));
      const readStarts = Array.from({ length: 2 + Math.floor(rng() * 3) }, () => ({
        at: Math.floor(rng() * 900),
        lookup: rng() < 0.5,
      }));
      const killAfter = 100 + Math.floor(rng() * 900);
      killDelays.push(killAfter);
      writes.push(...planned);

      // The previous cycle's indeterminate calls are resolved while this cycle's writes are
      // approved (distinct keys); both finish before the next crash window opens.
      const [approved] = await Promise.all([
        approveAhead(planned.filter((w) => !fullFlow.has(w))),
        pool(toResolve, 4, resolveWrite),
      ]);
      toResolve = [];
      let stopped = false;
      const isStopped = () => stopped;
      const tasks = [
        ...planned.map(async (w) => {
          if (fullFlow.has(w)) return runFullFlow(w, starts.get(w) ?? 0, isStopped);
          if (!approved.has(w)) return;
          await sleep(starts.get(w) ?? 0);
          if (!stopped) await sendApproved(w);
        }),
        ...readStarts.map((r) => runRead(r.at, r.lookup, isStopped)),
      ];
      await sleep(killAfter);
      stopped = true;
      await dev.kill();
      await Promise.all(tasks);
      for (const w of planned) if (w.phase === "planned") w.phase = "abandoned";

      t0 = Date.now();
      dev = await boot();
      startups.push(Date.now() - t0);

      toResolve = planned.filter((w) => w.live === "indeterminate");
    }
    await pool(toResolve, 4, resolveWrite);

    // (a) every acknowledged effect is still there: the replay answers the same result, and a
    // refund is committed downstream with the same id.
    const acked = writes.filter(
      (w) => w.ack !== undefined && w.unresolved === undefined && (w.live === "ack" || w.resolvedBy !== undefined),
    );
    let lostAcks = 0;
    const lostWhy: string[] = [];
    const commitsByOrder = new Map<string, string[]>();
    for (const receipt of refunds.committed.values()) {
      commitsByOrder.set(receipt.data.order_ref, [
        ...(commitsByOrder.get(receipt.data.order_ref) ?? []),
        receipt.data.refund_id,
      ]);
    }
    await pool(acked, 12, async (w) => {
      let replay: Sent = { kind: "no_answer", error: "not sent" };
      for (let attempt = 0; attempt < 3 && noAnswer(replay); attempt++)
        replay = await send(base, "POST", "/tool-calls", agent, body(w));
      note5xx("final replay", replay);
      const again = ackOf(replay);
      const sameResult =
        succeeded(replay) &&
        again.delivery === "local_replay" &&
        JSON.stringify(again.data) === JSON.stringify(w.ack?.data);
      const committed =
        w.tool !== "submit_refund" ||
        JSON.stringify(commitsByOrder.get(w.args.order_ref as string)) ===
          JSON.stringify([(w.ack?.data as { refund_id?: string })?.refund_id]);
      if (!sameResult || !committed) {
        lostAcks += 1;
        lostWhy.push(`${w.callId}: replay ${again.delivery}, committed ${String(committed)}`);
      }
    });

    // (b) no write executed twice: no key POSTed twice, no order refunded twice, no draft id
    // reused or skipped; and no effect the client cannot account for.
    const duplicatePosts = refunds.duplicates();
    const twiceRefunded = [...commitsByOrder].filter(([, ids]) => ids.length > 1).map(([order]) => order);
    const draftIds = acked
      .filter((w) => w.tool === "create_refund_draft")
      .map((w) => (w.ack?.data as { draft_id: string }).draft_id);
    const draftNumbers = [...new Set(draftIds)].map((id) => Number(id.replace("DRAFT-", ""))).sort((a, b) => a - b);
    const draftsDense = draftNumbers.every((n, i) => n === i + 1) && draftNumbers.length === draftIds.length;
    const doubleExecutions = duplicatePosts.length + twiceRefunded.length + (draftIds.length - new Set(draftIds).size);
    const ackedOrders = new Set(acked.filter((w) => w.tool === "submit_refund").map((w) => w.args.order_ref));
    const unaccounted = [...commitsByOrder.keys()].filter((order) => !ackedOrders.has(order));

    // (d) every indeterminate call resolved.
    const indeterminate = writes.filter((w) => w.live === "indeterminate");
    const byReplay = indeterminate.filter((w) => w.resolvedBy === "replay").length;
    const byStatus = indeterminate.filter((w) => w.resolvedBy === "status").length;
    const unresolved = indeterminate.filter((w) => w.resolvedBy === undefined);
    const noAnswerCount = indeterminate.filter((w) => w.why === "no answer").length;
    // A write settled as never executed must match the truth: nothing committed downstream for
    // it, the late POST (if any) refused, and a replay of the key answers the same settlement.
    const settled = indeterminate.filter((w) => w.notExecuted === true);
    const settledBroken: string[] = [];
    for (const w of settled) {
      const replay = await send(base, "POST", "/tool-calls", agent, body(w));
      const same =
        modelCode(replay) === "TOOL_ERROR" &&
        replay.kind === "answer" &&
        replay.body.model_result?.execution?.outcome === "not_started";
      if (!same || refunds.committed.has(w.statusRef as string) || commitsByOrder.has(w.args.order_ref as string))
        settledBroken.push(w.callId);
    }

    // (e) demo writes acknowledged before a crash replay the same draft id after it.
    const draftsBeforeCrash = writes.filter((w) => w.tool === "create_refund_draft" && w.live === "ack");
    const draftsSame = draftsBeforeCrash.filter((w) => !lostWhy.some((why) => why.startsWith(`${w.callId}:`))).length;

    // (c) the audit chain: dense 1..N, no duplicate, and it verifies.
    const seqs: number[] = [];
    let after = 0;
    let lastDigest = "";
    for (let page = 0; page < 200; page++) {
      const got = await send(base, "GET", `/audit?after=${after}&limit=500`, auditor);
      if (got.kind !== "answer" || got.status !== 200) throw new Error("audit page failed");
      const entries = got.body.entries as Array<{ seq: number; entry_sha256: string }>;
      for (const e of entries) seqs.push(e.seq);
      if (entries.length > 0) lastDigest = (entries[entries.length - 1] as { entry_sha256: string }).entry_sha256;
      if (got.body.next_after === null || got.body.next_after === undefined || entries.length === 0) break;
      after = got.body.next_after as number;
    }
    const auditDense = seqs.every((s, i) => s === i + 1);
    // `audit/verify` checks at most page_items × 10 entries per call: walk it to the head.
    let verified = false;
    let cursor: string | null = null;
    for (let step = 0; step < 100; step++) {
      const verify = await send(base, "GET", `/audit/verify${cursor === null ? "" : `?cursor=${cursor}`}`, auditor);
      if (verify.kind !== "answer" || verify.status !== 200 || verify.body.ok !== true) break;
      cursor = typeof verify.body.next_cursor === "string" ? verify.body.next_cursor : null;
      if (cursor === null) {
        verified = verify.body.count === seqs.length && verify.body.head === lastDigest;
        break;
      }
    }

    const sent = writes.filter((w) => w.phase === "sent");
    const abandoned = writes.filter((w) => w.phase === "abandoned").length;
    const refused = writes.filter((w) => w.live === "refused");
    const elapsed = Math.round((Date.now() - started) / 1000);
    const sortedStartups = [...startups].sort((a, b) => a - b);
    const figure =
      `${CYCLES} kill/restart cycles, ${sent.length} writes sent (${sent.filter((w) => w.tool === "submit_refund").length} submit_refund, ${sent.filter((w) => w.tool === "create_refund_draft").length} create_refund_draft; ${abandoned} abandoned before sending), ${reads.sent} reads: ` +
      `${acked.length} acked, ${lostAcks} lost acks, ${doubleExecutions} double executions, ${unaccounted.length} unaccounted effects, ` +
      `${indeterminate.length} indeterminate (${noAnswerCount} no answer, ${indeterminate.filter((w) => w.why === "OUTCOME_UNKNOWN").length} OUTCOME_UNKNOWN, ${indeterminate.filter((w) => w.why === "5xx").length} 5xx) → ${byReplay} replay + ${byStatus} status (${settled.length} settled as never executed by a fence, ${settled.length - settledBroken.length}/${settled.length} without any effect), ${unresolved.length} unresolved, ` +
      `${draftsSame}/${draftsBeforeCrash.length} drafts acked before a crash replay the same DRAFT id, ` +
      `audit 1..${seqs.length} ${auditDense ? "dense" : "NOT dense"}, verify ${verified ? "ok" : "FAILED"}, ${fiveXX.length} 5xx; ` +
      `${elapsed} s, ${Math.round(startups.reduce((a, b) => a + b, 0) / 1000)} s of it in ${startups.length} wrangler dev starts (median ${sortedStartups[Math.floor(sortedStartups.length / 2)]} ms, ${startRetries} start retries, ${devRestarts.length} dev-proxy 503s)`;
    const pass =
      lostAcks === 0 &&
      doubleExecutions === 0 &&
      unaccounted.length === 0 &&
      unresolved.length === 0 &&
      settledBroken.length === 0 &&
      oddAnswers.length === 0 &&
      draftsDense &&
      auditDense &&
      verified &&
      fiveXX.length === 0 &&
      refused.length === 0 &&
      draftsSame === draftsBeforeCrash.length;
    report({
      id: "R3",
      check: `SIGKILL wrangler dev at random moments × ${CYCLES}, restart on the same state`,
      figure,
      pass,
      seed: SEED,
    });

    expect(lostWhy).toEqual([]);
    expect(lostAcks).toBe(0);
    expect(duplicatePosts).toEqual([]);
    expect(twiceRefunded).toEqual([]);
    expect(draftIds.length - new Set(draftIds).size).toBe(0);
    expect(draftsDense).toBe(true);
    expect(unaccounted).toEqual([]);
    expect(unresolved.map((w) => `${w.callId}: ${w.unresolved}`)).toEqual([]);
    expect(settledBroken).toEqual([]);
    expect(byReplay + byStatus).toBe(indeterminate.length);
    expect(draftsSame).toBe(draftsBeforeCrash.length);
    expect(refused.map((w) => `${w.callId}: ${w.why}`)).toEqual([]);
    expect(fiveXX).toEqual([]);
    expect(oddAnswers).toEqual([]);
    expect(auditDense).toBe(true);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(verified).toBe(true);
    expect(startups.length).toBe(CYCLES + 1);
  });
});
