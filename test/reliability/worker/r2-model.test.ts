/**
 * R2: a fast-check command model of the consumer object. Commands: reads, writes (the demo
 * write `create_refund_draft` and `submit_refund` through the DOWNSTREAM binding; keys from a
 * small pool, so fresh keys, replays and same-key-other-request conflicts all occur), approve
 * and deny (as the approver, with the digest shown), status queries (the host's observation of
 * an unknown outcome), advancing the pinned clock past approval and request expiry, downstream
 * failure modes (ok / error / error_after_commit), a write held in flight by the downstream
 * while a duplicate and a conflicting request arrive, and **eviction**.
 *
 * Eviction: `cloudflare:test` 0.15.1 has no per-object eviction helper (no `evictDurableObject`);
 * it offers `abortAllDurableObjects()`, which resets every object instance (in-memory state,
 * caches, the pinned clock) while SQLite survives — the equivalent of an eviction or a crash.
 * Plain evictions happen between requests; a "held eviction" aborts the object while a
 * `submit_refund` is in flight downstream, then lets the downstream commit.
 *
 * The model is the test's own: per key none / completed (result) / unknown (status_ref, and
 * whether the downstream committed), per exact call its approval, the draft counter, the
 * downstream's refund counter (read from the test's refunds service, the oracle) and the audit
 * entries each step must append. Every answer is compared to the model (HTTP status, result
 * status, error code, delivery, data, approval id, status_ref). At the end of each run: every
 * completed key replays its result, every unknown key is queried (a committed one must
 * reconcile from the receipt; one the downstream never committed is fenced there and settles
 * as never executed, TOOL_ERROR — then and on every replay of the key), the
 * downstream saw each key POSTed at most once and exactly the model's number of POSTs and
 * commits, and the run's audit entries (paged) are dense after the previous head, linked, each
 * digest recomputed by the test, their number and kinds as the model predicts; the object's own
 * `verify` runs every 10 runs and after the last.
 *
 * One object for all runs: `create_refund_draft` authorizes only the demo orders' tenants, and
 * in this pool version every Durable Object instance created (a new name or a restart) makes
 * each later call slower (its wrapper nests one more prototype Proxy per instance), so 300
 * fresh objects plus the evictions would not fit the budget. Consumer `tenant-b` (order
 * ORDER-9) is wiped once; each run acts as its own subject `user-r<run>` (support_admin), with
 * keys `r<run>-k0|k1`, and starts 1,000 s after the previous run ended (nothing of an earlier
 * run is still pending). Runs thus share no key, call id, approval or downstream key; they
 * share the draft counter, the clock and the chain, which the model carries over.
 */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import * as fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { report, seedOf } from "../support/figures";
import { ADMIN, callBody, pinClock, send } from "./client";

const SEED = seedOf(2002);
const RUNS = 300;
const MAX_COMMANDS = 30;
const VERIFY_EVERY = 10;
const CONSUMER = "tenant-b";
const ORDER = "ORDER-9";
const APPROVER = "human-reviewer-1";
const PENDING_SECONDS = 900;
const APPROVAL_TTL = 60;
const HOLD_WAIT_MS = 1_500;

type Tool = "create_refund_draft" | "submit_refund";
type Reason = "duplicate" | "damaged";
type Mode = "ok" | "error" | "error_after_commit";
const TOOLS: readonly Tool[] = ["create_refund_draft", "submit_refund"];
const KEYS = ["k0", "k1"] as const;
const REASONS: readonly Reason[] = ["duplicate", "damaged"];

type Data = Record<string, string>;
type KeyState =
  | { kind: "none" }
  | { kind: "done"; reason: Reason; data: Data; statusRef: string | null }
  | { kind: "unknown"; reason: Reason; statusRef: string; committed: Data | null; settled: boolean };

interface ApprovalState {
  id: string;
  state: "pending" | "approved" | "denied";
  requestedAt: number;
  validUntil: number | null;
  digest: string | null;
}

interface Model {
  now: number;
  mode: Mode;
  drafts: number;
  /** POSTs and commits the downstream must have seen for this run. */
  posts: number;
  commits: number;
  keys: Map<string, KeyState>;
  approvals: Map<string, ApprovalState>;
  audit: Map<string, number>;
  seenApprovalIds: Set<string>;
}

/** The run's credentials (agent, approver, auditor: all a run uses). */
interface Creds {
  name: string;
  agent: string;
  approver: string;
  auditor: string;
}

async function setup(): Promise<Creds> {
  const put = await send("PUT", `/v1/consumers/${CONSUMER}`, ADMIN, {
    tools: ["get_order", "create_refund_draft", "submit_refund", "lookup_refund"],
    approver_subjects: [APPROVER],
    // The model drives thousands of calls through one credential: its rate limit is not under test here.
    limits: { calls_per_second: 1_000_000, call_burst: 1_000_000 },
  });
  if (put.status !== 200) throw new Error(`consumer setup failed: ${put.status}`);
  const mint = async (kind: string, subject?: string): Promise<string> => {
    const r = await send(
      "POST",
      `/v1/consumers/${CONSUMER}/credentials`,
      ADMIN,
      subject === undefined ? { kind, ...(kind === "agent" ? { roles: ROLES } : {}) } : { kind, subject_id: subject },
    );
    if (r.status !== 201) throw new Error(`credential setup failed: ${r.status}`);
    return r.json.secret as string;
  };
  return {
    name: CONSUMER,
    agent: await mint("agent"),
    approver: await mint("approver", APPROVER),
    auditor: await mint("auditor"),
  };
}

interface Real {
  t: Creds;
  run: number;
  reads: number;
}

/** Totals over the whole check. */
const totals = {
  runs: 0,
  commands: 0,
  evictions: 0,
  heldEvictions: 0,
  heldDuplicates: 0,
  freshWrites: 0,
  replays: 0,
  unknowns: 0,
  reconciled: 0,
  settled: 0,
  unresolved: 0,
  lostAcks: 0,
  doublePosts: 0,
  auditOk: 0,
  mismatches: 0,
  verifies: 0,
};
const violations: string[] = [];
/**
 * What runs share: the object's draft counter, the clock (each run starts 1,000 s after the
 * last one ended, so no earlier request is still pending), the audit chain's head. The clock
 * starts at the wall clock: an evicted object restarts on the wall clock until it is pinned
 * again, and what it stores then (a recovered unknown outcome) must not look years older than
 * the pinned clock to the retention sweep (a production object has one clock).
 */
const shared = { drafts: 0, now: Math.floor(Date.now() / 1000), auditSeq: 0, auditHead: "0".repeat(64) };
const phase = { pin: 0, cmds: 0, finish: 0 };
let runViolations: string[] = [];

function violation(what: string): void {
  runViolations.push(what);
  if (violations.length < 50) violations.push(what);
}

function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

/** Compares an observation with the model's expectation; a mismatch is a violation. */
function same(label: string, actual: unknown, expected: unknown): boolean {
  if (stable(actual) === stable(expected)) return true;
  totals.mismatches++;
  violation(`${label}: expected ${stable(expected).slice(0, 400)} got ${stable(actual).slice(0, 400)}`);
  return false;
}

function bump(m: Model, kind: string, n = 1): void {
  m.audit.set(kind, (m.audit.get(kind) ?? 0) + n);
}

/** Each run acts as its own subject (a support admin of tenant-b), so runs share no key, call id or approval. */
const subjectOf = (r: Real) => `user-r${r.run}`;
const ROLES = ["support_admin"];
const keyId = (tool: Tool, key: string) => `${tool}|${key}`;
const requestId = (tool: Tool, key: string, reason: Reason) => `${tool}|${key}|${reason}`;
const short = (tool: Tool) => (tool === "create_refund_draft" ? "d" : "s");
const other = (reason: Reason): Reason => (reason === "duplicate" ? "damaged" : "duplicate");

/** The exact call of (tool, key, reason): the same request is always the same call. */
function writeBody(r: Real, tool: Tool, key: string, reason: Reason) {
  return callBody({
    callId: `c-${short(tool)}-${key}-${reason}`,
    key: `r${r.run}-${key}`,
    tool,
    args: { order_ref: ORDER, reason },
    subject: subjectOf(r),
    roles: ROLES,
  });
}

function statusBody(r: Real, tool: Tool, key: string, reason: Reason, statusRef: string) {
  return {
    ...callBody({
      callId: `q-${short(tool)}-${key}-${reason}`,
      key: `r${r.run}-${key}`,
      tool,
      args: { order_ref: ORDER, reason },
      subject: subjectOf(r),
      roles: ROLES,
    }),
    status_ref: statusRef,
  };
}

interface Answer {
  status: number;
  text: string;
  json: any;
}

/** What the model predicts of an answer. */
function project(a: Answer) {
  if (a.status !== 200) return { http: a.status, code: a.json?.code ?? null };
  const mr = a.json?.model_result;
  const succeeded = mr?.status === "succeeded";
  return {
    http: 200,
    status: mr?.status ?? null,
    code: mr?.error?.code ?? null,
    delivery: succeeded ? mr.execution.delivery : null,
    data: mr?.data ?? null,
    approval_id: a.json?.approval_id ?? null,
    status_ref: a.json?.status_ref ?? null,
  };
}

const ok = (delivery: string, data: Data) => ({
  http: 200,
  status: "succeeded",
  code: null,
  delivery,
  data,
  approval_id: null,
  status_ref: null,
});
const failed = (code: string, approvalId: string | null = null) => ({
  http: 200,
  status: "failed",
  code,
  delivery: null,
  data: null,
  approval_id: approvalId,
  status_ref: null,
});
const unknown = (statusRef: string, code = "OUTCOME_UNKNOWN") => ({
  http: 200,
  status: "unknown",
  code,
  delivery: null,
  data: null,
  approval_id: null,
  status_ref: statusRef,
});
const problemOf = (http: number, code: string) => ({ http, code });

async function downstream(path: string, body?: unknown): Promise<any> {
  const res = await env.DOWNSTREAM!.fetch(
    new Request(`http://downstream${path}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) }),
  );
  return res.json();
}

async function stats(): Promise<{ effects: number; posts: Record<string, number>; committed: string[] }> {
  return downstream("/_stats");
}

const calls = (r: Real) => `/v1/consumers/${r.t.name}/tool-calls`;

function keyState(m: Model, tool: Tool, key: string): KeyState {
  return m.keys.get(keyId(tool, key)) ?? { kind: "none" };
}

/** The model's answer to a write, for everything decided before the handler; `execute` if it runs. */
function expectWrite(
  m: Model,
  tool: Tool,
  key: string,
  reason: Reason,
): { expect: ReturnType<typeof ok | typeof failed | typeof unknown> } | { execute: true } | { opens: true } {
  const ks = keyState(m, tool, key);
  if (ks.kind === "done")
    return { expect: ks.reason === reason ? ok("local_replay", ks.data) : failed("IDEMPOTENCY_CONFLICT") };
  if (ks.kind === "unknown")
    return {
      expect:
        ks.reason !== reason
          ? failed("IDEMPOTENCY_CONFLICT")
          : ks.settled
            ? failed("TOOL_ERROR")
            : unknown(ks.statusRef),
    };
  const ap = m.approvals.get(requestId(tool, key, reason));
  if (ap === undefined) return { opens: true };
  if (ap.state === "pending")
    return {
      expect:
        m.now < ap.requestedAt + PENDING_SECONDS ? failed("APPROVAL_REQUIRED", ap.id) : failed("APPROVAL_INVALID"),
    };
  if (ap.state === "approved" && ap.validUntil !== null && m.now < ap.validUntil) return { execute: true };
  return { expect: failed("APPROVAL_INVALID") };
}

/** Runs a write whose outcome the model predicts completely (also the one that executes, unless held). */
async function write(m: Model, r: Real, tool: Tool, key: string, reason: Reason, label: string): Promise<void> {
  const predicted = expectWrite(m, tool, key, reason);
  const before = tool === "submit_refund" && "execute" in predicted ? await stats() : null;
  const a = await send("POST", calls(r), r.t.agent, writeBody(r, tool, key, reason));
  const got = project(a);
  bump(m, "tool_call");
  if ("expect" in predicted) {
    same(label, got, predicted.expect);
    if (predicted.expect.delivery === "local_replay") totals.replays++;
    return;
  }
  if ("opens" in predicted) {
    const id = typeof a.json?.approval_id === "string" ? (a.json.approval_id as string) : "";
    const fresh = /^apr_[0-9a-f]{32}$/.test(id) && !m.seenApprovalIds.has(id);
    if (same(label, { ...got, approval_id: fresh ? "<new id>" : id }, failed("APPROVAL_REQUIRED", "<new id>"))) {
      m.seenApprovalIds.add(id);
      m.approvals.set(requestId(tool, key, reason), {
        id,
        state: "pending",
        requestedAt: m.now,
        validUntil: null,
        digest: null,
      });
    }
    return;
  }
  // Executes.
  if (tool === "create_refund_draft") {
    m.drafts++;
    shared.drafts++;
    const data = { draft_id: `DRAFT-${shared.drafts}`, order_ref: ORDER, reason };
    same(label, got, ok("fresh", data));
    m.keys.set(keyId(tool, key), { kind: "done", reason, data, statusRef: null });
    totals.freshWrites++;
    return;
  }
  const after = await stats();
  const ref = newPost(before!, after);
  m.posts++;
  if (ref === null) {
    violation(`${label}: no new POST seen downstream`);
    return;
  }
  const data = { refund_id: `RF-${before!.effects + 1}`, order_ref: ORDER, reason };
  if (m.mode === "ok") {
    m.commits++;
    totals.freshWrites++;
    same(label, got, ok("fresh", data));
    m.keys.set(keyId(tool, key), { kind: "done", reason, data, statusRef: null });
  } else {
    const committed = m.mode === "error_after_commit" ? data : null;
    if (committed !== null) m.commits++;
    totals.unknowns++;
    same(label, got, unknown(ref));
    m.keys.set(keyId(tool, key), { kind: "unknown", reason, statusRef: ref, committed, settled: false });
  }
}

/** The one status_ref POSTed between two downstream snapshots. */
function newPost(before: { posts: Record<string, number> }, after: { posts: Record<string, number> }): string | null {
  const added = Object.keys(after.posts).filter((k) => before.posts[k] === undefined);
  return added.length === 1 ? (added[0] as string) : null;
}

async function waitFor(predicate: () => Promise<boolean>): Promise<boolean> {
  const end = Date.now() + HOLD_WAIT_MS;
  while (Date.now() < end) {
    if (await predicate()) return true;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return false;
}

type Cmd = fc.AsyncCommand<Model, Real>;

/** Requests the model knows (an approval, or a recorded key), in a stable order. */
function knownRequests(m: Model): Array<[Tool, string, Reason]> {
  const out: Array<[Tool, string, Reason]> = [];
  for (const t of TOOLS) {
    for (const k of KEYS) {
      const ks = keyState(m, t, k);
      for (const x of REASONS) {
        if (m.approvals.has(requestId(t, k, x)) || (ks.kind !== "none" && ks.reason === x)) out.push([t, k, x]);
      }
    }
  }
  return out;
}

/** A write: either a request from the pools, or (`pick`) one the model already knows — a replay, an approved call, a decided one. */
class WriteCmd implements Cmd {
  constructor(
    readonly tool: Tool,
    readonly key: string,
    readonly reason: Reason,
    readonly pick: number | null,
  ) {}
  #target(m: Model): [Tool, string, Reason] | undefined {
    if (this.pick === null) return [this.tool, this.key, this.reason];
    const known = knownRequests(m);
    return known[this.pick % Math.max(1, known.length)];
  }
  check(m: Readonly<Model>): boolean {
    return this.#target(m as Model) !== undefined;
  }
  async run(m: Model, r: Real): Promise<void> {
    const [t, k, x] = this.#target(m) as [Tool, string, Reason];
    await write(m, r, t, k, x, `${this.toString()}=${t},${k},${x}`);
  }
  toString(): string {
    return this.pick === null ? `write(${this.tool},${this.key},${this.reason})` : `write(pick ${this.pick})`;
  }
}

class ReadCmd implements Cmd {
  constructor(readonly which: "own" | "foreign" | "lookup") {}
  check(): boolean {
    return true;
  }
  async run(m: Model, r: Real): Promise<void> {
    r.reads++;
    const callId = `r-${r.reads}`;
    const body =
      this.which === "lookup"
        ? callBody({
            callId,
            key: null,
            tool: "lookup_refund",
            args: { refund_id: "RF-1" },
            subject: subjectOf(r),
            roles: ROLES,
          })
        : callBody({
            callId,
            key: null,
            tool: "get_order",
            args: { order_ref: this.which === "own" ? ORDER : "ORDER-7" },
            subject: subjectOf(r),
            roles: ROLES,
          });
    const a = await send("POST", calls(r), r.t.agent, body);
    bump(m, "tool_call");
    const expected =
      this.which === "own"
        ? ok("fresh", { order_ref: ORDER, status: "paid" })
        : this.which === "lookup"
          ? ok("fresh", { refund_id: "RF-1", state: "submitted" })
          : failed("NOT_FOUND");
    same(this.toString(), project(a), expected);
  }
  toString(): string {
    return `read(${this.which})`;
  }
}

class DecideCmd implements Cmd {
  constructor(
    readonly pick: number,
    readonly decision: "approve" | "deny",
  ) {}
  check(m: Readonly<Model>): boolean {
    return m.approvals.size > 0;
  }
  async run(m: Model, r: Real): Promise<void> {
    const ap = [...m.approvals.values()][this.pick % m.approvals.size] as ApprovalState;
    const list = await send("GET", `/v1/consumers/${r.t.name}/approvals?state=pending`, r.t.approver);
    const listed = (
      (list.json?.approvals ?? []) as Array<{ approval_id: string; approval_digest: string; expires_at: number }>
    )
      .map((x) => x.approval_id)
      .sort();
    const expectedListed = [...m.approvals.values()]
      .filter((x) => x.state === "pending" && m.now < x.requestedAt + PENDING_SECONDS)
      .map((x) => x.id)
      .sort();
    same(`${this.toString()} listing`, listed, expectedListed);
    const shown = ((list.json?.approvals ?? []) as Array<{ approval_id: string; approval_digest: string }>).find(
      (x) => x.approval_id === ap.id,
    );
    if (shown !== undefined) ap.digest = shown.approval_digest;
    const digest = ap.digest ?? "0".repeat(64);
    const a = await send("POST", `/v1/consumers/${r.t.name}/approvals/${ap.id}`, r.t.approver, {
      decision: this.decision,
      approval_digest: digest,
    });
    if (ap.state !== "pending") {
      same(this.toString(), project(a), problemOf(409, "APPROVAL_ALREADY_DECIDED"));
      return;
    }
    if (m.now >= ap.requestedAt + PENDING_SECONDS) {
      same(this.toString(), project(a), problemOf(409, "APPROVAL_EXPIRED"));
      return;
    }
    const approved = this.decision === "approve";
    const validUntil = approved ? m.now + APPROVAL_TTL : null;
    same(
      this.toString(),
      { status: a.status, body: a.json },
      {
        status: 200,
        body: {
          approval_id: ap.id,
          state: approved ? "approved" : "denied",
          approver_id: APPROVER,
          decided_at: m.now,
          valid_until: validUntil,
          bound_to_request: true,
        },
      },
    );
    ap.state = approved ? "approved" : "denied";
    ap.validUntil = validUntil;
    bump(m, "approval.decision");
  }
  toString(): string {
    return `${this.decision}(pick ${this.pick})`;
  }
}

/** The host observes an unknown outcome: `tool-calls/status`. */
class StatusCmd implements Cmd {
  constructor(
    readonly pick: number,
    readonly variant: "same" | "other" | "bogus",
  ) {}
  #keys(m: Model): string[] {
    return KEYS.filter((k) => {
      const ks = keyState(m, "submit_refund", k);
      return ks.kind === "unknown" || (ks.kind === "done" && ks.statusRef !== null);
    });
  }
  check(m: Readonly<Model>): boolean {
    return this.variant === "bogus" || this.#keys(m as Model).length > 0;
  }
  async run(m: Model, r: Real): Promise<void> {
    const keys = this.#keys(m);
    const key = this.variant === "bogus" ? "k0" : (keys[this.pick % keys.length] as string);
    await status(m, r, key, this.variant === "bogus" ? "bogus" : this.variant, `${this.toString()}=${key}`);
  }
  toString(): string {
    return `status(pick ${this.pick},${this.variant})`;
  }
}

async function status(
  m: Model,
  r: Real,
  key: string,
  variant: "same" | "other" | "bogus",
  label: string,
): Promise<"reconciled" | "settled" | "other"> {
  const ks = keyState(m, "submit_refund", key);
  bump(m, "tool_call.status");
  if (variant === "bogus" || ks.kind === "none") {
    const a = await send(
      "POST",
      `${calls(r)}/status`,
      r.t.agent,
      statusBody(r, "submit_refund", key, "duplicate", `status_${"0".repeat(32)}`),
    );
    same(label, project(a), failed("NOT_FOUND"));
    return "other";
  }
  const statusRef = ks.statusRef as string;
  const reason = variant === "same" ? ks.reason : other(ks.reason);
  const a = await send("POST", `${calls(r)}/status`, r.t.agent, statusBody(r, "submit_refund", key, reason, statusRef));
  if (variant === "other") {
    // The catalog's STATUS_CONFLICT is an unknown outcome (human review), with its status_ref.
    same(label, project(a), unknown(statusRef, "STATUS_CONFLICT"));
    return "other";
  }
  if (ks.kind === "done") {
    same(label, project(a), ok("receipt_reconciled", ks.data));
    return "reconciled";
  }
  if (ks.committed !== null) {
    same(label, project(a), ok("receipt_reconciled", ks.committed));
    m.keys.set(keyId("submit_refund", key), { kind: "done", reason: ks.reason, data: ks.committed, statusRef });
    return "reconciled";
  }
  // Never committed: the gate fences the key at the downstream, which confirms it never ran;
  // the call is settled as not started (TOOL_ERROR), now and on every replay of the key.
  same(label, project(a), failed("TOOL_ERROR"));
  ks.settled = true;
  return "settled";
}

class ClockCmd implements Cmd {
  constructor(readonly seconds: number) {}
  check(): boolean {
    return true;
  }
  async run(m: Model, r: Real): Promise<void> {
    m.now += this.seconds;
    await pinClock(r.t.name, m.now);
  }
  toString(): string {
    return `clock(+${this.seconds})`;
  }
}

class ModeCmd implements Cmd {
  constructor(readonly mode: Mode) {}
  check(): boolean {
    return true;
  }
  async run(m: Model): Promise<void> {
    await downstream("/_control", { mode: this.mode });
    m.mode = this.mode;
  }
  toString(): string {
    return `mode(${this.mode})`;
  }
}

class EvictCmd implements Cmd {
  check(): boolean {
    return true;
  }
  async run(m: Model, r: Real): Promise<void> {
    await abortAllDurableObjects();
    totals.evictions++;
    // The pinned clock is instance state: it is lost with the instance, like everything in memory.
    await pinClock(r.t.name, m.now);
  }
  toString(): string {
    return "evict";
  }
}

/** A submit_refund that would run, held downstream: a duplicate waits (409), a conflicting request conflicts; then either released or evicted. */
class HeldCmd implements Cmd {
  key = "";
  reason: Reason = "duplicate";
  constructor(
    readonly pick: number,
    readonly end: "release" | "evict",
  ) {}
  #runnable(m: Model): Array<[string, Reason]> {
    const out: Array<[string, Reason]> = [];
    for (const k of KEYS)
      for (const x of REASONS) if ("execute" in expectWrite(m, "submit_refund", k, x)) out.push([k, x]);
    return out;
  }
  check(m: Readonly<Model>): boolean {
    return this.#runnable(m as Model).length > 0;
  }
  async run(m: Model, r: Real): Promise<void> {
    const runnable = this.#runnable(m);
    [this.key, this.reason] = runnable[this.pick % runnable.length] as [string, Reason];
    const label = `${this.toString()}=${this.key},${this.reason}`;
    const before = await stats();
    await downstream("/_control", { mode: "hold" });
    const held = send("POST", calls(r), r.t.agent, writeBody(r, "submit_refund", this.key, this.reason)).then(
      (a) => a,
      (error: unknown) => ({ status: -1, text: String(error), json: null }) as Answer,
    );
    let ref: string | null = null;
    const arrived = await waitFor(async () => {
      ref = newPost(before, await stats());
      return ref !== null;
    });
    m.posts++;
    if (!arrived || ref === null) {
      await downstream("/_control", { release: true });
      await held;
      violation(`${label}: the held POST never arrived`);
      return;
    }
    const statusRef: string = ref;
    const dup = await send("POST", calls(r), r.t.agent, writeBody(r, "submit_refund", this.key, this.reason));
    same(`${label} duplicate`, project(dup), problemOf(409, "IDEMPOTENCY_IN_PROGRESS"));
    const conflict = await send(
      "POST",
      calls(r),
      r.t.agent,
      writeBody(r, "submit_refund", this.key, other(this.reason)),
    );
    same(`${label} conflict`, project(conflict), failed("IDEMPOTENCY_CONFLICT"));
    bump(m, "tool_call");
    const data = { refund_id: `RF-${before.effects + 1}`, order_ref: ORDER, reason: this.reason };
    m.commits++;
    m.mode = "ok"; // release puts the downstream back in "ok"
    if (this.end === "release") {
      await downstream("/_control", { release: true });
      const a = await held;
      same(label, project(a), ok("fresh", data));
      bump(m, "tool_call");
      totals.heldDuplicates++;
      totals.freshWrites++;
      m.keys.set(keyId("submit_refund", this.key), { kind: "done", reason: this.reason, data, statusRef: null });
      return;
    }
    await abortAllDurableObjects();
    totals.evictions++;
    totals.heldEvictions++;
    const a = await held;
    // Never acknowledged: the caller got no result for this write.
    same(`${label} unacknowledged`, a.status === 200, false);
    await downstream("/_control", { release: true });
    await waitFor(async () => (await stats()).committed.includes(statusRef));
    // The restarted object turns the in-flight write into an unknown outcome (one audit entry).
    await pinClock(r.t.name, m.now);
    bump(m, "tool_call.recovered");
    totals.unknowns++;
    m.keys.set(keyId("submit_refund", this.key), {
      kind: "unknown",
      reason: this.reason,
      statusRef,
      committed: data,
      settled: false,
    });
  }
  toString(): string {
    return `held(pick ${this.pick},${this.end})`;
  }
}

const key = fc.constantFrom(...KEYS);
const tool = fc.constantFrom(...TOOLS);
const reason = fc.constantFrom(...REASONS);
const pick = fc.nat(11);
const freshWrite = fc.tuple(tool, key, reason).map(([t, k, x]) => new WriteCmd(t, k, x, null));
const rewrite = pick.map((i) => new WriteCmd("create_refund_draft", "k0", "duplicate", i));
const decide = fc
  .tuple(pick, fc.constantFrom<"approve" | "deny">("approve", "approve", "approve", "deny"))
  .map(([i, d]) => new DecideCmd(i, d));
const observe = fc
  .tuple(pick, fc.constantFrom<"same" | "other" | "bogus">("same", "same", "other", "bogus"))
  .map(([i, v]) => new StatusCmd(i, v));
const held = fc
  .tuple(pick, fc.constantFrom<"release" | "evict">("release", "evict"))
  .map(([i, e]) => new HeldCmd(i, e));
/** Uniform over the entries: repeats weight the approval flow (ask → approve → repeat the call). */
const commands = [
  freshWrite,
  freshWrite,
  rewrite,
  rewrite,
  rewrite,
  decide,
  decide,
  decide,
  observe,
  observe,
  held,
  held,
  fc.constantFrom<"own" | "foreign" | "lookup">("own", "foreign", "lookup").map((w) => new ReadCmd(w)),
  fc.constantFrom(1, 30, 61, 61, 901).map((x) => new ClockCmd(x)),
  fc.constantFrom<Mode>("ok", "error", "error_after_commit").map((x) => new ModeCmd(x)),
  fc.constant(new EvictCmd()),
];

async function wipe(): Promise<void> {
  const stub = env.CONSUMER.get(env.CONSUMER.idFromName(CONSUMER));
  await runInDurableObject(stub, async (_instance, state) => {
    await state.storage.deleteAll();
  });
  await abortAllDurableObjects();
}

/** End of a run: replays, status of every unknown, downstream counts, the audit chain. */
async function sha256(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function finish(
  m: Model,
  r: Real,
  before: { effects: number; posts: Record<string, number> },
  last: boolean,
): Promise<void> {
  await downstream("/_control", { mode: "ok" });
  for (const t of TOOLS) {
    for (const k of KEYS) {
      const ks = keyState(m, t, k);
      if (ks.kind === "done") {
        const a = await send("POST", calls(r), r.t.agent, writeBody(r, t, k, ks.reason));
        bump(m, "tool_call");
        if (!same(`final replay ${t},${k}`, project(a), ok("local_replay", ks.data))) totals.lostAcks++;
      } else if (ks.kind === "unknown") {
        const committed = ks.committed !== null;
        const outcome = await status(m, r, k, "same", `final status ${t},${k}`);
        if (outcome === "reconciled") totals.reconciled++;
        if (outcome === "settled") totals.settled++;
        if (outcome !== (committed ? "reconciled" : "settled")) totals.unresolved++;
      }
    }
  }
  const after = await stats();
  const posted = Object.keys(after.posts).filter((k) => before.posts[k] === undefined);
  const doubles = posted.filter((k) => (after.posts[k] ?? 0) > 1);
  totals.doublePosts += doubles.length;
  same(
    "downstream POSTs of the run",
    { posts: posted.length, doubles, commits: after.effects - before.effects },
    { posts: m.posts, doubles: [], commits: m.commits },
  );

  // The run's part of the audit chain, paged: dense after the last run's head, linked to it,
  // its size and kinds as the model predicts; then `verify` over the whole chain.
  const entries: Array<{
    seq: number;
    kind: string;
    at: number;
    record: unknown;
    prev_sha256: string;
    entry_sha256: string;
  }> = [];
  let cursor = shared.auditSeq;
  for (let page = 0; page < 100; page++) {
    const a = await send("GET", `/v1/consumers/${r.t.name}/audit?after=${cursor}&limit=100`, r.t.auditor);
    entries.push(...(a.json?.entries ?? []));
    if (a.json?.next_after === null || a.json?.next_after === undefined) break;
    cursor = a.json.next_after as number;
  }
  const dense = entries.every((e, i) => e.seq === shared.auditSeq + i + 1);
  const linked = entries.every((e, i) => e.prev_sha256 === (i === 0 ? shared.auditHead : entries[i - 1]?.entry_sha256));
  // Each entry's digest recomputed by the test (docs/reliability.md: over seq, kind, at, record, previous digest).
  let digests = true;
  for (const e of entries)
    digests =
      digests &&
      (await sha256(
        `{"at":${e.at},"kind":${JSON.stringify(e.kind)},"prev_sha256":"${e.prev_sha256}","record":${stable(e.record)},"seq":${e.seq}}`,
      )) === e.entry_sha256;
  const kinds: Record<string, number> = {};
  for (const e of entries) kinds[e.kind] = (kinds[e.kind] ?? 0) + 1;
  // The whole chain is shared by the runs, so the object's own `verify` (linear in its length) runs every VERIFY_EVERY runs and after the last.
  const verify =
    last || r.run % VERIFY_EVERY === 0
      ? await verifyAll(r.t.name, r.t.auditor)
      : {
          json: {
            ok: true,
            count: shared.auditSeq + entries.length,
            head: entries.at(-1)?.entry_sha256 ?? shared.auditHead,
          },
        };
  if (last || r.run % VERIFY_EVERY === 0) totals.verifies++;
  const expectedCount = [...m.audit.values()].reduce((sum, x) => sum + x, 0);
  const auditGood = same(
    "audit chain",
    {
      dense,
      linked,
      digests,
      kinds,
      verify: { ok: verify.json?.ok, count: verify.json?.count, head: verify.json?.head },
    },
    {
      dense: true,
      linked: true,
      digests: true,
      kinds: Object.fromEntries([...m.audit].filter(([, x]) => x > 0)),
      verify: {
        ok: true,
        count: shared.auditSeq + expectedCount,
        head: entries.at(-1)?.entry_sha256 ?? shared.auditHead,
      },
    },
  );
  if (auditGood) totals.auditOk++;
  shared.auditSeq = typeof verify.json?.count === "number" ? verify.json.count : shared.auditSeq;
  shared.auditHead = typeof verify.json?.head === "string" ? verify.json.head : shared.auditHead;
  shared.now = m.now + 1_000;
}

/** `audit/verify` walked to the head (one call checks at most page_items × 10 entries): the last step, `ok` only if every step was. */
async function verifyAll(name: string, auditor: string): Promise<{ json: any }> {
  let ok = true;
  let cursor: string | null = null;
  for (let step = 0; step < 1_000; step++) {
    const v = await send(
      "GET",
      `/v1/consumers/${name}/audit/verify${cursor === null ? "" : `?cursor=${cursor}`}`,
      auditor,
    );
    ok &&= v.json?.ok === true;
    cursor = typeof v.json?.next_cursor === "string" ? v.json.next_cursor : null;
    if (cursor === null) return { json: { ...v.json, ok } };
  }
  throw new Error("the audit verify walk did not reach the head");
}

describe("R2 command model of the consumer object", () => {
  let creds: Creds;
  beforeAll(async () => {
    await downstream("/_control", { mode: "ok" });
    await wipe();
    creds = await setup();
    const head = await verifyAll(CONSUMER, creds.auditor);
    shared.auditSeq = head.json.count as number;
    shared.auditHead = head.json.head as string;
  });
  afterAll(async () => {
    await downstream("/_control", { mode: "ok" });
    await wipe();
  });

  it(`${RUNS} runs: no acknowledged effect lost, no double POST, every unknown resolved, audit dense and verified`, async () => {
    const started = performance.now();
    let runNo = 0;
    let failure: unknown = null;
    try {
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { maxCommands: MAX_COMMANDS, size: "max" }), async (cmds) => {
          runNo++;
          runViolations = [];
          await downstream("/_control", { mode: "ok" });
          const t = creds;
          const p0 = performance.now();
          await pinClock(t.name, shared.now);
          phase.pin += performance.now() - p0;
          const model: Model = {
            now: shared.now,
            mode: "ok",
            drafts: 0,
            posts: 0,
            commits: 0,
            keys: new Map(),
            approvals: new Map(),
            audit: new Map(),
            seenApprovalIds: new Set(),
          };
          const real: Real = { t, run: runNo, reads: 0 };
          const before = await stats();
          let executed = 0;
          const counted = [...cmds].map((c) => ({
            check: (m: Readonly<Model>) => c.check(m),
            run: async (m: Model, x: Real) => {
              executed++;
              await c.run(m, x);
            },
            toString: () => c.toString(),
          }));
          let p1 = performance.now();
          await fc.asyncModelRun(() => ({ model, real }), counted);
          phase.cmds += performance.now() - p1;
          p1 = performance.now();
          await finish(model, real, before, runNo === RUNS);
          phase.finish += performance.now() - p1;
          totals.runs++;
          totals.commands += executed;
          if (runViolations.length > 0) throw new Error(`run ${runNo}: ${runViolations.slice(0, 3).join(" | ")}`);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    } catch (error) {
      failure = error;
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const n = (x: number) => x.toLocaleString("en-US");
    report({
      id: "R2",
      check:
        "fast-check command model of the consumer object (dispatch, approve/deny, status, clock, downstream modes, evict)",
      figure: `${totals.runs} runs, ${n(totals.commands)} commands (${n(totals.evictions)} evictions, ${totals.heldEvictions} mid-write): ${totals.lostAcks} lost acks, ${totals.doublePosts} double POSTs, ${totals.unresolved} unresolved (${totals.reconciled} reconciled from the receipt, ${totals.settled} settled as never executed), ${totals.mismatches} model mismatches, audit dense+linked+digests in ${totals.auditOk}/${totals.runs} runs, verify ok ${totals.verifies}×; ${seconds} s`,
      pass:
        failure === null &&
        totals.runs >= RUNS &&
        totals.lostAcks === 0 &&
        totals.doublePosts === 0 &&
        totals.unresolved === 0 &&
        totals.mismatches === 0 &&
        totals.auditOk === totals.runs,
      seed: SEED,
    });
    console.log(`R2 detail: ${JSON.stringify(totals)} ${JSON.stringify(phase)}`);
    expect(violations.slice(0, 10)).toEqual([]);
    expect(failure === null ? null : String(failure).slice(0, 2000)).toBe(null);
    expect(totals.runs).toBe(RUNS);
    expect(totals.lostAcks).toBe(0);
    expect(totals.doublePosts).toBe(0);
    expect(totals.unresolved).toBe(0);
    expect(totals.auditOk).toBe(RUNS);
  });
});
