/**
 * R4: running the alarm twice, or after failures, leaves the same state as running it once.
 *
 * What uses the alarm: only the capability plane (`ConsumerObject.alarm` → `CapabilityService.alarm`):
 * it advances the engine to now, which times out requests past their deadline (queuing cancels
 * for dispatched ones) and detaches long-poll providers whose lease ran out, then reschedules.
 * Tool-call approvals expire lazily against the clock, without an alarm.
 *
 * Each seeded scenario builds the same capability state in several objects (same consumer
 * name, routed by the test to distinct objects, so every stored byte can match): a provider with a
 * lease, a grant (allow or require-approval), 1–4 requests with deadlines, some approved, some
 * already observed, effects partly acknowledged; then the clock moves past some deadlines
 * and/or the lease. Variants, each compared with the first by exact equality of a snapshot of
 * every SQLite table of the object (engine checkpoint + log, outbox, leases, audit chain with
 * its digests, store records, approvals) plus the engine state as decoded and whether an alarm
 * is scheduled:
 *  - once: `runDurableObjectAlarm` (and the same object again after a second run: unchanged);
 *  - twice: `runDurableObjectAlarm`, then the handler again;
 *  - fail in the transaction at the first audit append, then the alarm;
 *  - fail in the transaction when persisting the engine, then the alarm;
 *  - fail after the commit (setting the next alarm throws, as a failed handler workerd retries), then the alarm;
 *  - evicted (all objects reset, SQLite kept) before the alarm, and again between two runs;
 *  - and apart: a restart whose first alarm fails, then the alarm, against a restart and the
 *    alarm (a lease-less binding — a WebSocket provider — whose socket is gone must be detached
 *    either way; before the fix in CapabilityService the failed step's rollback left it attached).
 * Failures are injected by replacing, on the live instance inside `runInDurableObject`, the
 * audit chain's `append`, the capability store's persistence, or the host's `setAlarm` for one
 * call — no product code path changes.
 */
import { env } from "cloudflare:workers";
import {
  abortAllDurableObjects,
  createExecutionContext,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { encodeState } from "../../../src/core/capability";
import worker from "../../../src/worker/index";
import type { Env } from "../../../src/worker/env";
import { prng, report, seedOf } from "../support/figures";
import { ADMIN } from "./client";

const SEED = seedOf(4004);
const SCENARIOS = 8;
const RESTART_CASES = 3;
const T0 = 1_000_000;
const S0 = 1_900_000_000;
const PROVIDER = "browser-1";
const CAP = "browser.page.snapshot";
const VARIANTS = ["once", "twice", "failAudit", "failPersist", "failAfterCommit", "evicted"] as const;
type Variant = (typeof VARIANTS)[number];

/** The object that serves consumer `name` in variant `variant` (each variant its own object). */
function objectName(scenario: number, variant: Variant): string {
  return `r4-${SEED}-${scenario}-${variant}`;
}

/** The gate's fetch handler with CONSUMER routed to the variant's object: the consumer name stays the same. */
function gateFor(objectKey: string) {
  const routed: Env = {
    ...(env as unknown as Env),
    CONSUMER: {
      idFromName: () => env.CONSUMER.idFromName(objectKey),
      get: (id: DurableObjectId) => env.CONSUMER.get(id),
    } as unknown as Env["CONSUMER"],
  };
  return async (
    method: string,
    path: string,
    token: string | null,
    body?: unknown,
  ): Promise<{ status: number; json: any; text: string }> => {
    const headers: Record<string, string> = {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await worker.fetch(
      new Request(`http://gate${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
      routed,
      createExecutionContext(),
    );
    const text = await res.text();
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    return { status: res.status, json, text };
  };
}

function stubOf(objectKey: string) {
  return env.CONSUMER.get(env.CONSUMER.idFromName(objectKey));
}

async function pin(objectKey: string, ms: number): Promise<void> {
  await runInDurableObject(stubOf(objectKey), (o) => {
    o.capability.pinnedMillis = ms;
    o.clock.pinnedSeconds = S0;
  });
}

const TABLES = [
  "capability_state",
  "capability_log",
  "capability_outbox",
  "capability_leases",
  "audit_chain",
  "records",
  "counters",
  "approvals",
  "consumer",
];

/**
 * Every relevant table, the decoded engine state, and whether an alarm is set: `raw` exactly
 * as stored; `portable` the same with what differs between two objects built alike removed
 * (credential ids are random, so the audit digests that chain over them differ: the rows keep
 * seq, kind, at and record, plus whether the chain is dense and linked).
 */
async function snapshot(objectKey: string): Promise<{ raw: string; portable: string }> {
  return runInDurableObject(stubOf(objectKey), async (o, state) => {
    const tables: Record<string, Array<Record<string, unknown>>> = {};
    for (const t of TABLES)
      tables[t] = state.storage.sql.exec(`SELECT * FROM ${t}`).toArray() as Array<Record<string, unknown>>;
    const engine = encodeState(o.capability.peek());
    const alarm = (await state.storage.getAlarm()) !== null;
    const raw = JSON.stringify({ tables, engine, alarm });
    const audit = tables.audit_chain ?? [];
    const linked = audit.every(
      (row, i) => row.seq === i + 1 && row.prev_sha256 === (i === 0 ? "0".repeat(64) : audit[i - 1]?.entry_sha256),
    );
    const portableAudit = audit.map((row) => {
      const record = JSON.parse(row.record as string) as Record<string, unknown>;
      return {
        seq: row.seq,
        kind: row.kind,
        at: row.at,
        record: row.kind === "credential.created" ? { kind: record.kind, subject_id: record.subject_id } : record,
      };
    });
    return {
      raw,
      portable: JSON.stringify({ tables: { ...tables, audit_chain: portableAudit }, linked, engine, alarm }),
    };
  });
}

interface Plan {
  mode: "allow" | "require-approval";
  deadlines: number[];
  approve: boolean[];
  observe: boolean[];
  ackAll: boolean;
  advance: number;
}

function planOf(scenario: number): Plan {
  const rnd = prng(SEED * 1000 + scenario);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const n = 1 + Math.floor(rnd() * 4);
  const deadlines = Array.from({ length: n }, () => T0 + 1000 * (1 + Math.floor(rnd() * 9)));
  return {
    mode: scenario % 2 === 0 ? "allow" : "require-approval",
    deadlines,
    approve: deadlines.map(() => rnd() < 0.6),
    observe: deadlines.map(() => rnd() < 0.4),
    ackAll: rnd() < 0.5,
    // Before every deadline, between them, after all of them, after the lease (60 s).
    advance: pick([500, 4_500, 9_500, 61_000, 120_000]),
  };
}

/** Builds the scenario's state in one object; answers the number of failed setup steps. */
async function build(scenario: number, variant: Variant, plan: Plan, objectKey?: string): Promise<string[]> {
  const key = objectKey ?? objectName(scenario, variant);
  const consumer = `r4c-${scenario}`;
  const send = gateFor(key);
  const problems: string[] = [];
  const expectStatus = (what: string, r: { status: number; text: string }, status: number) => {
    if (r.status !== status) problems.push(`${what}: ${r.status} ${r.text.slice(0, 200)}`);
  };
  await pin(key, T0);
  expectStatus(
    "consumer",
    await send("PUT", `/v1/consumers/${consumer}`, ADMIN, { tools: ["get_order"], approver_subjects: ["approver-1"] }),
    200,
  );
  const mint = async (kind: string, subject?: string) => {
    const r = await send(
      "POST",
      `/v1/consumers/${consumer}/credentials`,
      ADMIN,
      subject === undefined ? { kind } : { kind, subject_id: subject },
    );
    expectStatus(`credential ${kind}`, r, 201);
    return r.json?.secret as string;
  };
  const agent = await mint("agent", "agent-1");
  const approver = await mint("approver", "approver-1");
  const provider = await mint("provider", PROVIDER);
  const base = `/v1/consumers/${consumer}/capability`;
  const descriptor = {
    id: PROVIDER,
    owner: { consumer },
    capabilities: [{ id: CAP, class: "browser", description: "Read page state" }],
  };
  expectStatus("provider", await send("POST", `${base}/providers`, ADMIN, { descriptor }), 201);
  expectStatus("instance", await send("PUT", `${base}/instances/7`, ADMIN, { generation: 1, state: "active" }), 200);
  const grantKey = {
    consumer_id: consumer,
    actor_id: "agent-1",
    instance_id: 7,
    generation: 1,
    provider_id: PROVIDER,
    capability_id: CAP,
    resource_scope_id: "tab:1",
  };
  expectStatus(
    "grant",
    await send("POST", `${base}/authority`, approver, {
      command: { "set-grant": { grant: { key: grantKey, mode: plan.mode } } },
    }),
    200,
  );
  expectStatus("attach", await send("POST", `${base}/providers/${PROVIDER}/attach`, provider), 200);
  for (const [i, deadline] of plan.deadlines.entries()) {
    const localId = i + 1;
    const body = {
      actor_id: "agent-1",
      request: {
        local_id: localId,
        instance_id: 7,
        generation: 1,
        provider_id: PROVIDER,
        capability_id: CAP,
        resource_scope_id: "tab:1",
        approval_summary: "Read the active tab",
        deadline_tick: deadline,
        payload: [123, 125],
      },
    };
    const asked = await send("POST", `${base}/requests`, agent, body);
    expectStatus(`request ${localId}`, asked, 200);
    if (plan.mode === "require-approval" && plan.approve[i] === true) {
      const resolution = {
        request_key: { consumer_id: consumer, actor_id: "agent-1", local_id: localId },
        accepted_sequence: asked.json?.accepted_sequence,
        instance_id: 7,
        generation: 1,
        decision: "approve-once",
      };
      expectStatus(
        `approve ${localId}`,
        await send("POST", `${base}/authority`, approver, { command: { "resolve-approval": { resolution } } }),
        200,
      );
    }
  }
  const polled = await send("GET", `${base}/providers/${PROVIDER}/effects?binding_id=1&wait=0`, provider);
  expectStatus("poll", polled, 200);
  const effects = (polled.json?.effects ?? []) as Array<{
    effect: { sequence: number; operation_id: number; request_key: { local_id: number } };
  }>;
  for (const e of effects) {
    if (plan.observe[e.effect.request_key.local_id - 1] !== true) continue;
    const observation = {
      operation_id: e.effect.operation_id,
      request_key: e.effect.request_key,
      instance_id: 7,
      generation: 1,
      provider_id: PROVIDER,
      observation: {
        succeeded: {
          result: {
            metadata: { byte_len: 2, media_type: "application/json", truncated: false, redacted_summary: null },
            delivery: { inline: { bytes: [123, 125] } },
          },
        },
      },
    };
    expectStatus(
      `observe ${e.effect.operation_id}`,
      await send("POST", `${base}/providers/${PROVIDER}/observations`, provider, { binding_id: 1, observation }),
      200,
    );
  }
  if (plan.ackAll && effects.length > 0) {
    const last = Math.max(...effects.map((e) => e.effect.sequence));
    expectStatus(
      "ack",
      await send("GET", `${base}/providers/${PROVIDER}/effects?binding_id=1&after=${last}&wait=0`, provider),
      200,
    );
  }
  await pin(key, T0 + plan.advance);
  return problems;
}

/** Runs the handler once on the live instance with one dependency replaced; answers whether it threw. */
async function failing(objectKey: string, where: "audit" | "persist" | "afterCommit"): Promise<boolean> {
  return runInDurableObject(stubOf(objectKey), async (o) => {
    const host = o.capability as unknown as {
      deps: { audit: { append: (...a: unknown[]) => number }; setAlarm: (ms: number | null) => void };
      store: { appendLog: (...a: unknown[]) => void; saveCheckpoint: (...a: unknown[]) => void };
    };
    const boom = () => {
      throw new Error("injected failure");
    };
    const saved = {
      append: host.deps.audit.append,
      setAlarm: host.deps.setAlarm,
      appendLog: host.store.appendLog,
      saveCheckpoint: host.store.saveCheckpoint,
    };
    if (where === "audit") host.deps.audit.append = boom;
    if (where === "persist") {
      host.store.appendLog = boom;
      host.store.saveCheckpoint = boom;
    }
    if (where === "afterCommit") host.deps.setAlarm = boom;
    try {
      await o.alarm();
      return false;
    } catch {
      return true;
    } finally {
      host.deps.audit.append = saved.append;
      host.deps.setAlarm = saved.setAlarm;
      host.store.appendLog = saved.appendLog;
      host.store.saveCheckpoint = saved.saveCheckpoint;
    }
  });
}

async function handlerAgain(objectKey: string): Promise<void> {
  await runInDurableObject(stubOf(objectKey), (o) => o.alarm());
}

async function evict(objectKey: string, ms: number): Promise<void> {
  await abortAllDurableObjects();
  await pin(objectKey, ms);
}

/**
 * A restart whose first alarm fails: a provider attached over a WebSocket holds its binding
 * without a lease; the test drops the lease and restarts the object (the socket is gone). The
 * first step after a restart detaches such bindings; if that step fails and rolls back, the
 * next one must detach them again. Compared with a restart whose first alarm succeeds.
 */
async function restartCases(cases: number): Promise<{ equal: number; detachedOnce: number; problems: string[] }> {
  const problems: string[] = [];
  let equal = 0;
  let detachedOnce = 0;
  for (let s = 0; s < cases; s++) {
    const plan = { ...planOf(s), mode: "allow" as const, advance: 500 };
    const snaps: string[] = [];
    for (const v of ["restartOnce", "restartFail"] as const) {
      const key = `r4-${SEED}-rs${s}-${v}`;
      problems.push(...(await build(100 + s, v === "restartOnce" ? "once" : "twice", plan, key)));
      // A provider attached over a WebSocket holds its binding without a lease; the test
      // leaves the binding and drops the lease, then restarts: the socket is gone.
      await runInDurableObject(stubOf(key), (_o, state) => {
        state.storage.sql.exec("DELETE FROM capability_leases");
      });
      await evict(key, T0 + plan.advance);
      if (v === "restartFail") {
        if (!(await failing(key, "persist"))) problems.push(`${key}: the injected failure did not fire`);
      }
      if (!(await runDurableObjectAlarm(stubOf(key)))) problems.push(`${key}: no alarm scheduled`);
      const snap = await snapshot(key);
      const bindings = await runInDurableObject(
        stubOf(key),
        (o) => o.capability.peek().provider_runtime.bindings.length,
      );
      if (v === "restartOnce" && bindings === 0) detachedOnce++;
      snaps.push(snap.portable);
    }
    if (snaps[0] === snaps[1]) equal++;
  }
  return { equal, detachedOnce, problems };
}

describe("R4 alarm idempotence", () => {
  it(`${SCENARIOS} seeded scenarios × ${VARIANTS.length} variants, and ${RESTART_CASES} restarts whose first alarm fails: the same state as one run`, async () => {
    const started = performance.now();
    const setupProblems: string[] = [];
    const differences: string[] = [];
    let comparisons = 0;
    let equal = 0;
    let changedByAlarm = 0;
    const injected = { audit: 0, persist: 0, afterCommit: 0 };
    const firstRuns: boolean[] = [];
    let completeInstead = 0;
    for (let s = 0; s < SCENARIOS; s++) {
      const plan = planOf(s);
      const snaps = new Map<Variant, string>();
      for (const v of VARIANTS) {
        const key = objectName(s, v);
        setupProblems.push(...(await build(s, v, plan)).map((p) => `s${s}/${v}: ${p}`));
        const now = T0 + plan.advance;
        if (v === "once") {
          const before = await snapshot(key);
          firstRuns.push(await runDurableObjectAlarm(stubOf(key)));
          const once = await snapshot(key);
          if (once.raw !== before.raw) changedByAlarm++;
          // The same object, run again: byte for byte unchanged (digests included).
          await handlerAgain(key);
          comparisons++;
          if ((await snapshot(key)).raw === once.raw) equal++;
          else differences.push(`s${s}/once: a second run on the same object changed it`);
          snaps.set(v, once.portable);
          continue;
        }
        if (v === "twice") {
          firstRuns.push(await runDurableObjectAlarm(stubOf(key)));
          await handlerAgain(key);
        } else if (v === "failAudit" || v === "failPersist" || v === "failAfterCommit") {
          const where = v === "failAudit" ? "audit" : v === "failPersist" ? "persist" : "afterCommit";
          if (await failing(key, where)) {
            injected[where]++;
            firstRuns.push(await runDurableObjectAlarm(stubOf(key)));
          } else {
            // Nothing reached the replaced step (no audit event to append): that was one
            // complete run (which may have deleted the scheduled alarm); the next is a second.
            completeInstead++;
            await handlerAgain(key);
          }
        } else {
          await evict(key, now);
          firstRuns.push(await runDurableObjectAlarm(stubOf(key)));
          await evict(key, now);
          await handlerAgain(key);
        }
        snaps.set(v, (await snapshot(key)).portable);
      }
      const reference = snaps.get("once") as string;
      for (const v of VARIANTS) {
        if (v === "once") continue;
        comparisons++;
        if (snaps.get(v) === reference) equal++;
        else {
          const a = JSON.parse(reference);
          const b = JSON.parse(snaps.get(v) as string);
          const parts = [
            ...Object.keys(a.tables).filter((t) => JSON.stringify(a.tables[t]) !== JSON.stringify(b.tables[t])),
            ...["engine", "alarm", "linked"].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])),
          ];
          differences.push(`s${s}/${v}: differs in ${parts.join(",")}`);
        }
      }
    }
    const restart = await restartCases(RESTART_CASES);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const ran = firstRuns.filter((x) => x).length;
    report({
      id: "R4",
      check:
        "alarm run twice / after an injected failure (audit append, persist, after commit) / after eviction = run once",
      figure: `${SCENARIOS} scenarios × ${VARIANTS.length} variants: ${equal}/${comparisons} snapshots identical to one run (${changedByAlarm}/${SCENARIOS} alarms changed state; failures injected: audit append ${injected.audit} (${completeInstead} alarms appended nothing), persist ${injected.persist}, after commit ${injected.afterCommit}); ${ran}/${firstRuns.length} scheduled alarms ran; restart + failed first alarm: ${restart.equal}/${RESTART_CASES} identical to restart + alarm (stale binding detached in ${restart.detachedOnce}/${RESTART_CASES}); ${seconds} s`,
      pass:
        setupProblems.length === 0 &&
        differences.length === 0 &&
        equal === comparisons &&
        ran === firstRuns.length &&
        restart.problems.length === 0 &&
        restart.equal === RESTART_CASES &&
        restart.detachedOnce === RESTART_CASES,
      seed: SEED,
    });
    expect(setupProblems.slice(0, 10)).toEqual([]);
    expect(differences).toEqual([]);
    expect(equal).toBe(SCENARIOS * VARIANTS.length);
    expect(ran).toBe(SCENARIOS * VARIANTS.length - completeInstead);
    expect(injected.audit + completeInstead).toBe(SCENARIOS);
    expect(injected.persist).toBe(SCENARIOS);
    expect(injected.afterCommit).toBe(SCENARIOS);
    expect(restart.problems).toEqual([]);
    expect(restart.detachedOnce).toBe(RESTART_CASES);
    expect(restart.equal).toBe(RESTART_CASES);
  });
});
