/**
 * R1, R1b, R1c — duplicates and idempotency conflicts, black box: the real gate under
 * `wrangler dev --persist-to` on 127.0.0.1, the `submit_refund` HTTP tool reaching the counting
 * refunds service through `TOOLGATE_DOWNSTREAM_URL`, side effects counted at the downstream.
 *
 * - R1: 200 rounds; each round one approved write (approved through the approval routes, in
 *   blocks of 20 rounds), then 64 identical copies released together on 64 connections, the
 *   downstream answering after a seeded 0–5 ms. Pass: exactly one side effect and one POST per round; every other answer
 *   is the original result (`local_replay`, same model result) or `409 IDEMPOTENCY_IN_PROGRESS`.
 * - R1b: the same key with different arguments; R1c: the same key and arguments from another
 *   provider profile (provider, api_family and adapter_revision are bound in the idempotency
 *   record; tool and subject are part of the scope, so they name another key, not a conflict).
 *   Each on every path: after completion, while the first is in flight (downstream held),
 *   racing the first (every racer approved, released together), and after a SIGKILL restart on
 *   the same state (one key in flight at the kill, one completed). Pass: every conflicting
 *   request answers `IDEMPOTENCY_CONFLICT` (a model-level error: HTTP 200, `model_result`), and
 *   no conflicting request reaches the downstream.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_SIGNING_SECRET } from "../../support/identity-verifier";
import { startDev, type DevServer } from "../../blackbox/wrangler-dev";
import { prng, report, seedOf } from "../support/figures";
import { RefundsService } from "../../support/refunds-service";
import { LoopbackClient, type Prepared, type Reply } from "./support/loopback-client";

const ROOT = resolve(__dirname, "..", "..", "..");
const LOG_DIR = join(ROOT, ".toolgate", "reliability-logs");
const LOG_FILE = join(LOG_DIR, "r1.log");

const ADMIN = randomBytes(24).toString("base64url");
const CONSUMER = "r1-tenant";
const SUBJECT = "user-1";
const REVIEWER = "human-reviewer-1";
const CALLS = `/v1/consumers/${CONSUMER}/tool-calls`;

const ROUNDS = 200;
const COPIES = 64;
/** Conflicting requests per (check, path). */
const CONFLICTS = 8;
const RACES = 20;
/** Rounds approved together before their bursts (an approval is valid 60 s from the decision). */
const APPROVAL_BLOCK = 20;

const SEED = seedOf(1001);
const REASONS = ["duplicate", "damaged", "other"] as const;

type Profile = { provider: string; api_family: string; adapter_revision: string };
const OPENAI: Profile = { provider: "openai", api_family: "responses", adapter_revision: "openai-responses-v1" };
const ANTHROPIC: Profile = { provider: "anthropic", api_family: "messages", adapter_revision: "anthropic-messages-v1" };
const GEMINI: Profile = { provider: "google", api_family: "interactions", adapter_revision: "gemini-interactions-v1" };

type Args = { order_ref: string; reason: string };

function writeCall(callId: string, key: string, args: Args, profile: Profile = OPENAI) {
  return {
    principal: { subject_id: SUBJECT, roles: [] as string[] },
    proposal: { name: "submit_refund", arguments: args },
    context: {
      call_id: callId,
      operation_id: `op-${callId}`,
      idempotency_key: key,
      response_id: `resp-${callId}`,
      ...profile,
    },
  };
}
type Call = ReturnType<typeof writeCall>;

const refunds = new RefundsService();
let downstream: Server;
let downstreamBase: string;
let persistTo: string;
let dev: DevServer | undefined;
let client: LoopbackClient;
let agent: string;
let approver: string;

async function boot(): Promise<void> {
  dev = await startDev(persistTo, ADMIN, {
    vars: { TOOLGATE_DOWNSTREAM_URL: downstreamBase, TOOLGATE_SIGNING_KEY: TEST_SIGNING_SECRET },
    logFile: LOG_FILE,
  });
  client = new LoopbackClient(dev.base, 64);
}

/**
 * `wrangler dev` rebuilds and restarts the Worker (Durable Objects included) when a source file
 * changes, and answers a request cut by that with this 503. A restart mid-check turns in-flight
 * writes into unknown outcomes, so the figures say how many such answers were seen.
 */
const RELOADED = "Your worker restarted mid-request";
let reloads = 0;

/** Sends a request; a socket failure is an answer with status 0 (counted, never thrown). */
async function fire(p: Prepared): Promise<Reply> {
  const r = await client.fire(p);
  if (r.status === 503 && r.text.startsWith(RELOADED)) reloads += 1;
  return r;
}

/** A short, secret-free description of an unexpected answer. */
function describeReply(r: Reply): string {
  return `HTTP ${r.status} ${String(r.json?.code ?? r.json?.model_result?.error?.code ?? r.text.slice(0, 40))}`;
}

function burst(prepared: readonly Prepared[]): Promise<Reply[]> {
  return Promise.all(prepared.map(fire));
}

function callRequest(body: Call): Prepared {
  return client.prepare({ method: "POST", path: CALLS, token: agent, body });
}

/** Every POST the downstream has received. */
function totalPosts(): number {
  let n = 0;
  for (const count of refunds.posts.values()) n += count;
  return n;
}

/** Keys the downstream received since a snapshot of its key set. */
function newKeys(before: ReadonlySet<string>): string[] {
  return [...refunds.posts.keys()].filter((k) => !before.has(k));
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 2));
  }
  return true;
}

/**
 * Asks for each write (each opens its own pending approval), lists the pending approvals once
 * and approves each with the digest shown, as the reviewer would. Answers nothing; throws on
 * any unexpected answer (codes only, never a credential).
 */
async function approveAll(bodies: readonly Call[]): Promise<void> {
  const asked = await burst(bodies.map(callRequest));
  const ids = asked.map((a) => {
    const code = a.json?.model_result?.error?.code;
    if (code !== "APPROVAL_REQUIRED") throw new Error(`expected APPROVAL_REQUIRED, got ${describeReply(a)}`);
    return a.json.approval_id as string;
  });
  const list = await client.send({
    method: "GET",
    path: `/v1/consumers/${CONSUMER}/approvals?state=pending`,
    token: approver,
  });
  const shown = new Map(
    (list.json?.approvals as Array<{ approval_id: string; approval_digest: string }> | undefined)?.map((a) => [
      a.approval_id,
      a.approval_digest,
    ]),
  );
  const decisions = ids.map((id) => {
    const digest = shown.get(id);
    if (digest === undefined) throw new Error(`approval not listed (${describeReply(list)})`);
    return client.prepare({
      method: "POST",
      path: `/v1/consumers/${CONSUMER}/approvals/${id}`,
      token: approver,
      body: { decision: "approve", approval_digest: digest },
    });
  });
  for (const decided of await burst(decisions)) {
    if (decided.status !== 200) throw new Error(`approval decision failed: ${describeReply(decided)}`);
  }
}

function approve(body: Call): Promise<void> {
  return approveAll([body]);
}

function delivery(r: Reply): string | undefined {
  return r.status === 200 && r.json?.model_result?.status === "succeeded"
    ? r.json.model_result.execution?.delivery
    : undefined;
}

/** The model result with its delivery blanked: a replay must equal the original in everything else. */
function resultBody(r: Reply): string {
  const m = r.json.model_result;
  return JSON.stringify({ ...m, execution: { ...m.execution, delivery: "-" } });
}

function isInProgress(r: Reply): boolean {
  return (
    r.status === 409 &&
    r.contentType.startsWith("application/problem+json") &&
    r.json?.code === "IDEMPOTENCY_IN_PROGRESS" &&
    r.json?.status === 409 &&
    r.retryAfter === "1"
  );
}

/** IDEMPOTENCY_CONFLICT as the catalog says: a model-level error, HTTP 200, no approval or status ref. */
function isConflict(r: Reply): boolean {
  return (
    r.status === 200 &&
    r.contentType.startsWith("application/json") &&
    r.json?.model_result?.status === "failed" &&
    r.json.model_result.error?.code === "IDEMPOTENCY_CONFLICT" &&
    r.json.model_result.execution?.outcome === "not_started" &&
    r.json.approval_id === undefined &&
    r.json.status_ref === undefined
  );
}

/** Figure suffix when `wrangler dev` restarted the Worker mid-check (a source file changed). */
function reloadNote(n: number): string {
  return n === 0 ? "" : `; ${n} answers cut by a wrangler dev reload`;
}

function grouped(n: number): string {
  return n.toLocaleString("en-US");
}

beforeAll(async () => {
  mkdirSync(LOG_DIR, { recursive: true });
  writeFileSync(LOG_FILE, "");
  ({ server: downstream, base: downstreamBase } = await refunds.listen());
  persistTo = mkdtempSync(join(tmpdir(), "toolgate-r1-"));
  await boot();
  const admin = async (method: string, path: string, body: unknown) => {
    const r = await client.send({ method, path: `/v1/consumers/${CONSUMER}${path}`, token: ADMIN, body });
    if (r.status !== 200 && r.status !== 201) throw new Error(`admin ${method} ${path}: ${describeReply(r)}`);
    return r.json as { secret: string };
  };
  // Hundreds of rounds each open an approval for the same subject and fire thousands of calls
  // through one credential: the rate limit and the approval quota have their own tests.
  await admin("PUT", "", {
    tools: ["submit_refund"],
    approver_subjects: [REVIEWER],
    limits: { calls_per_second: 1_000_000, call_burst: 1_000_000, pending_approvals_per_subject: 10_000 },
  });
  agent = (await admin("POST", "/credentials", { kind: "agent" })).secret;
  approver = (await admin("POST", "/credentials", { kind: "approver", subject_id: REVIEWER })).secret;
});

afterAll(async () => {
  refunds.release();
  client?.close();
  await dev?.kill();
  if (downstream !== undefined) {
    const closed = new Promise<void>((done) => downstream.close(() => done()));
    downstream.closeAllConnections();
    await closed;
  }
  if (persistTo !== undefined) rmSync(persistTo, { recursive: true, force: true });
});

describe("R1 duplicates over wrangler dev", () => {
  it("R1: 200 rounds × 64 identical approved writes released together → one side effect per round", async () => {
    const random = prng(SEED);
    refunds.seed(random);
    refunds.jitterMs = 6;
    let fresh = 0;
    let replays = 0;
    let inProgress = 0;
    let other = 0;
    let roundsWithOneEffect = 0;
    let roundsWithOnePost = 0;
    let differing = 0;
    /** Unexpected answers by kind (status and code), with their count. */
    const others: Record<string, number> = {};
    const effectsBefore = refunds.effects;
    const reloadsBefore = reloads;
    const started = Date.now();
    for (let block = 0; block < ROUNDS; block += APPROVAL_BLOCK) {
      const bodies: Call[] = [];
      for (let round = block; round < Math.min(ROUNDS, block + APPROVAL_BLOCK); round++) {
        const args = {
          order_ref: `ORDER-${round}-${Math.floor(random() * 1e6)}`,
          reason: REASONS[Math.floor(random() * REASONS.length)] as string,
        };
        bodies.push(writeCall(`r1-call-${round}`, `r1-key-${round}`, args));
      }
      await approveAll(bodies);
      for (const body of bodies) {
        const keys = new Set(refunds.posts.keys());
        const effects = refunds.effects;
        const posts = totalPosts();
        const prepared = Array.from({ length: COPIES }, () => callRequest(body));
        const replies = await burst(prepared);
        if (refunds.effects - effects === 1) roundsWithOneEffect += 1;
        const added = newKeys(keys);
        if (added.length === 1 && totalPosts() - posts === 1) roundsWithOnePost += 1;
        // The original result: the receipt the downstream committed for this round's key.
        const receipt = added.length === 1 ? refunds.committed.get(added[0] as string) : undefined;
        const firsts = replies.filter((r) => delivery(r) === "fresh");
        const original = firsts.length === 1 ? resultBody(firsts[0] as Reply) : undefined;
        for (const r of replies) {
          const d = delivery(r);
          if (d === "fresh") {
            fresh += 1;
            if (!isDeepStrictEqual(r.json.model_result.data, receipt?.data)) differing += 1;
          } else if (d === "local_replay") {
            replays += 1;
            if (resultBody(r) !== original || !isDeepStrictEqual(r.json.model_result.data, receipt?.data))
              differing += 1;
          } else if (isInProgress(r)) {
            inProgress += 1;
          } else {
            other += 1;
            others[describeReply(r)] = (others[describeReply(r)] ?? 0) + 1;
          }
        }
      }
    }
    const seconds = (Date.now() - started) / 1000;
    const effects = refunds.effects - effectsBefore;
    const duplicatePosts = refunds.duplicates().length;
    refunds.jitterMs = 0;
    const pass =
      effects === ROUNDS &&
      roundsWithOneEffect === ROUNDS &&
      roundsWithOnePost === ROUNDS &&
      fresh === ROUNDS &&
      replays + inProgress === ROUNDS * (COPIES - 1) &&
      other === 0 &&
      differing === 0 &&
      duplicatePosts === 0;
    report({
      id: "R1",
      check: "concurrent identical writes (wrangler dev, submit_refund → counting downstream)",
      figure:
        `${ROUNDS} rounds × ${COPIES}: ${grouped(effects)} effects (${roundsWithOneEffect}/${ROUNDS} rounds with exactly 1), ` +
        `${grouped(fresh)} fresh, ${grouped(replays)} replays, ${differing} answers differing from the original, ${grouped(inProgress)} × 409, ` +
        `${other} other, ${duplicatePosts} duplicate POSTs; ${seconds.toFixed(1)} s${reloadNote(reloads - reloadsBefore)}`,
      pass,
      seed: SEED,
    });
    expect(others).toEqual({});
    expect(effects).toBe(ROUNDS);
    expect(roundsWithOneEffect).toBe(ROUNDS);
    expect(roundsWithOnePost).toBe(ROUNDS);
    expect(fresh).toBe(ROUNDS);
    expect(replays + inProgress).toBe(ROUNDS * (COPIES - 1));
    expect(other).toBe(0);
    expect(differing).toBe(0);
    expect(refunds.duplicates()).toEqual([]);
  });

  it("R1b (different arguments) and R1c (another provider profile): IDEMPOTENCY_CONFLICT after completion, in flight, racing, and after a SIGKILL restart", async () => {
    const random = prng(SEED ^ 0x1b1c);
    const reloadsBefore = reloads;
    interface Tally {
      /** Conflicting requests sent / answered IDEMPOTENCY_CONFLICT, per path. */
      paths: Record<"completed" | "in_flight" | "racing" | "restart_completed" | "restart_in_flight", [number, number]>;
      raceWinners: number;
      raceRoundsOnePost: number;
      /** Downstream POSTs caused by a conflicting request (or a second execution). */
      strayPosts: number;
      /** Answers of the original writes that were not what their path requires. */
      originals: string[];
      other: string[];
    }
    const emptyTally = (): Tally => ({
      paths: {
        completed: [0, 0],
        in_flight: [0, 0],
        racing: [0, 0],
        restart_completed: [0, 0],
        restart_in_flight: [0, 0],
      },
      raceWinners: 0,
      raceRoundsOnePost: 0,
      strayPosts: 0,
      originals: [],
      other: [],
    });
    const checks = {
      R1b: {
        base: (tag: string): { args: Args; profile: Profile } => ({
          args: { order_ref: `ORDER-${tag}`, reason: "duplicate" },
          profile: OPENAI,
        }),
        variants: (tag: string): Array<{ args: Args; profile: Profile }> => [
          { args: { order_ref: `ORDER-${tag}-x`, reason: "duplicate" }, profile: OPENAI },
          { args: { order_ref: `ORDER-${tag}`, reason: "damaged" }, profile: OPENAI },
          { args: { order_ref: `ORDER-${tag}`, reason: "other" }, profile: OPENAI },
          { args: { order_ref: `ORDER-${tag}-x`, reason: "damaged" }, profile: OPENAI },
        ],
        tally: emptyTally(),
      },
      R1c: {
        base: (tag: string): { args: Args; profile: Profile } => ({
          args: { order_ref: `ORDER-${tag}`, reason: "duplicate" },
          profile: OPENAI,
        }),
        variants: (tag: string): Array<{ args: Args; profile: Profile }> => [
          { args: { order_ref: `ORDER-${tag}`, reason: "duplicate" }, profile: ANTHROPIC },
          { args: { order_ref: `ORDER-${tag}`, reason: "duplicate" }, profile: GEMINI },
        ],
        tally: emptyTally(),
      },
    };
    type CheckId = keyof typeof checks;
    const ids: CheckId[] = ["R1b", "R1c"];

    /** CONFLICTS conflicting requests for a key (variants in turn, each its own call id). */
    const conflicting = (id: CheckId, tag: string, key: string): Call[] => {
      const variants = checks[id].variants(tag);
      return Array.from({ length: CONFLICTS }, (_, i) => {
        const v = variants[i % variants.length] as { args: Args; profile: Profile };
        return writeCall(`${id}-${tag}-c${i}`, key, v.args, v.profile);
      });
    };
    const original = (id: CheckId, tag: string, key: string): Call => {
      const b = checks[id].base(tag);
      return writeCall(`${id}-${tag}-a`, key, b.args, b.profile);
    };
    const tallyConflicts = (t: Tally, path: keyof Tally["paths"], replies: Reply[]): void => {
      t.paths[path][0] += replies.length;
      for (const r of replies) {
        if (isConflict(r)) t.paths[path][1] += 1;
        else t.other.push(`${path}: ${describeReply(r)}`);
      }
    };
    const expectOriginal = (t: Tally, what: string, r: Reply, want: string): void => {
      const got = delivery(r) ?? describeReply(r);
      if (got !== want) t.originals.push(`${what}: ${got}`);
    };

    for (const id of ids) {
      const t = checks[id].tally;
      // (1) After completion.
      {
        const key = `${id}-key-completed`;
        const first = original(id, "completed", key);
        await approve(first);
        expectOriginal(t, "completed first", await fire(callRequest(first)), "fresh");
        const posts = totalPosts();
        tallyConflicts(t, "completed", await burst(conflicting(id, "completed", key).map(callRequest)));
        t.strayPosts += totalPosts() - posts;
      }
      // (2) While the first is in flight: the downstream holds its POST (under the tool's 2 s timeout).
      {
        const key = `${id}-key-in-flight`;
        const first = original(id, "in-flight", key);
        await approve(first);
        const posts = totalPosts();
        refunds.hold();
        let settled = false;
        const pending = fire(callRequest(first)).then((r) => {
          settled = true;
          return r;
        });
        const arrived = await until(() => totalPosts() === posts + 1, 1_500);
        if (!arrived) t.originals.push("in-flight first: its POST did not reach the downstream");
        tallyConflicts(t, "in_flight", await burst(conflicting(id, "in-flight", key).map(callRequest)));
        if (settled) t.originals.push("in-flight first: answered before the downstream was released");
        refunds.release();
        expectOriginal(t, "in-flight first", await pending, "fresh");
        t.strayPosts += Math.max(0, totalPosts() - posts - 1);
      }
      // (3) Racing: the original and every variant approved, then released together in a seeded order.
      const races = Array.from({ length: RACES }, (_, race) => {
        const tag = `race-${race}`;
        const key = `${id}-key-${tag}`;
        return [
          original(id, tag, key),
          ...checks[id].variants(tag).map((v, i) => writeCall(`${id}-${tag}-v${i}`, key, v.args, v.profile)),
        ];
      });
      await approveAll(races.flat());
      for (const racers of races) {
        for (let i = racers.length - 1; i > 0; i--) {
          const j = Math.floor(random() * (i + 1));
          [racers[i], racers[j]] = [racers[j] as Call, racers[i] as Call];
        }
        const posts = totalPosts();
        const keys = new Set(refunds.posts.keys());
        const replies = await burst(racers.map(callRequest));
        const winners = replies.filter((r) => delivery(r) === "fresh");
        if (winners.length === 1) t.raceWinners += 1;
        // One POST, and it carried the winner's arguments (no loser executed in its place).
        const winner = replies.findIndex((r) => delivery(r) === "fresh");
        const added = newKeys(keys);
        const committed = added.length === 1 ? refunds.committed.get(added[0] as string)?.data : undefined;
        const winnerArgs = racers[winner]?.proposal.arguments;
        if (
          totalPosts() - posts === 1 &&
          committed?.order_ref === winnerArgs?.order_ref &&
          committed?.reason === winnerArgs?.reason
        )
          t.raceRoundsOnePost += 1;
        t.strayPosts += Math.max(0, totalPosts() - posts - 1);
        // Every racer but the first winner must conflict (a second winner counts as "other").
        tallyConflicts(
          t,
          "racing",
          replies.filter((_, i) => i !== winner),
        );
      }
    }

    // (4) SIGKILL restart on the same state: per check one completed key and one in flight at the kill.
    const restartKeys = new Map<CheckId, { completed: Reply; inFlight: Call; completedCall: Call }>();
    const restartCalls = ids.map((id) => ({
      id,
      completedCall: original(id, "restart-completed", `${id}-key-restart-completed`),
      inFlight: original(id, "restart-in-flight", `${id}-key-restart-in-flight`),
    }));
    await approveAll(restartCalls.flatMap((c) => [c.completedCall, c.inFlight]));
    for (const { id, completedCall, inFlight } of restartCalls) {
      const completed = await fire(callRequest(completedCall));
      expectOriginal(checks[id].tally, "restart completed first", completed, "fresh");
      restartKeys.set(id, { completed, inFlight, completedCall });
    }
    const postsBeforeKill = totalPosts();
    refunds.hold();
    const killed = ids.map((id) => fire(callRequest((restartKeys.get(id) as { inFlight: Call }).inFlight)));
    const bothArrived = await until(() => totalPosts() === postsBeforeKill + ids.length, 1_500);
    await dev?.kill();
    const killedReplies = await Promise.all(killed);
    client.close();
    refunds.release();
    await boot();
    const postsAfterRestart = totalPosts();
    for (const id of ids) {
      const t = checks[id].tally;
      const keys = restartKeys.get(id) as { completed: Reply; inFlight: Call; completedCall: Call };
      if (!bothArrived)
        t.originals.push("restart in-flight first: its POST did not reach the downstream before the kill");
      const killedReply = killedReplies[ids.indexOf(id)] as Reply;
      if (killedReply.status !== 0)
        t.originals.push(`restart in-flight first: answered ${describeReply(killedReply)} before the kill`);
      tallyConflicts(
        t,
        "restart_completed",
        await burst(conflicting(id, "restart-completed", `${id}-key-restart-completed`).map(callRequest)),
      );
      tallyConflicts(
        t,
        "restart_in_flight",
        await burst(conflicting(id, "restart-in-flight", `${id}-key-restart-in-flight`).map(callRequest)),
      );
      // The originals after the restart: the completed one replays, the one killed in flight is an unknown outcome.
      const replay = await fire(callRequest(keys.completedCall));
      expectOriginal(t, "restart completed first, again", replay, "local_replay");
      if (delivery(replay) === "local_replay" && resultBody(replay) !== resultBody(keys.completed))
        t.originals.push("restart completed first: replay differs");
      const unknown = await fire(callRequest(keys.inFlight));
      const unknownCode = unknown.json?.model_result?.error?.code;
      if (unknownCode !== "OUTCOME_UNKNOWN" || typeof unknown.json?.status_ref !== "string")
        t.originals.push(`restart in-flight first, again: ${describeReply(unknown)}`);
    }
    const restartStray = totalPosts() - postsAfterRestart;

    const figures = ids.map((id) => {
      const t = checks[id].tally;
      const sent = Object.values(t.paths).reduce((n, [s]) => n + s, 0);
      const conflicts = Object.values(t.paths).reduce((n, [, c]) => n + c, 0);
      const stray = t.strayPosts + restartStray;
      const racers = checks[id].variants("x").length + 1;
      const p = t.paths;
      const what =
        id === "R1b" ? "different arguments" : "another provider profile (provider, api_family, adapter_revision)";
      const figure =
        `${grouped(conflicts)}/${grouped(sent)} IDEMPOTENCY_CONFLICT (HTTP 200 model_result): completed ${p.completed[1]}/${p.completed[0]}, ` +
        `in flight ${p.in_flight[1]}/${p.in_flight[0]}, racing ${RACES} × ${racers} ${p.racing[1]}/${p.racing[0]} (${t.raceWinners}/${RACES} with one winner, ${t.raceRoundsOnePost}/${RACES} with one POST of the winner's request), ` +
        `after SIGKILL restart completed ${p.restart_completed[1]}/${p.restart_completed[0]} + in flight ${p.restart_in_flight[1]}/${p.restart_in_flight[0]}; ` +
        `${t.other.length} other, ${t.originals.length} original-write faults, ${stray} POSTs from conflicting requests${reloadNote(reloads - reloadsBefore)}`;
      return { id, t, sent, conflicts, stray, figure, what };
    });
    for (const f of figures) {
      report({
        id: f.id,
        check: `same idempotency key, ${f.what}: completed / in flight / racing / SIGKILL restart`,
        figure: f.figure,
        pass:
          f.conflicts === f.sent &&
          f.t.other.length === 0 &&
          f.t.originals.length === 0 &&
          f.stray === 0 &&
          f.t.raceWinners === RACES &&
          f.t.raceRoundsOnePost === RACES,
        seed: SEED,
      });
    }
    for (const f of figures) {
      const racers = checks[f.id].variants("x").length + 1;
      expect(f.t.other).toEqual([]);
      expect(f.t.originals).toEqual([]);
      expect(f.t.paths).toEqual({
        completed: [CONFLICTS, CONFLICTS],
        in_flight: [CONFLICTS, CONFLICTS],
        racing: [RACES * (racers - 1), RACES * (racers - 1)],
        restart_completed: [CONFLICTS, CONFLICTS],
        restart_in_flight: [CONFLICTS, CONFLICTS],
      });
      expect(f.t.raceWinners).toBe(RACES);
      expect(f.t.raceRoundsOnePost).toBe(RACES);
      expect(f.stray).toBe(0);
    }
    expect(refunds.duplicates()).toEqual([]);
  });
});
