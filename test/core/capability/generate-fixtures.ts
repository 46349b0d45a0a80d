/**
 * Writes fixtures/capability/*.json. Every expected outcome below is derived by hand
 * from the capability engine spec; this script never runs the engine.
 * Run: node tools/run.js test/core/capability/generate-fixtures.ts
 */
import { writeFileSync } from "node:fs";
import { writeWireJson } from "../../../src/core/capability/wire-json";
import * as k from "./fixture-kit";
import {
  A,
  C,
  CAP,
  GATE,
  I,
  MAX,
  SCOPE,
  authority,
  base,
  batch,
  completion,
  effect,
  errv,
  gateProvider,
  grant,
  invoke,
  key,
  observe,
  ok,
  policyKey,
  record,
  register,
  request,
  requestBody,
  setGeneration,
  snapshotOf,
  succeeded,
  type Step,
} from "./fixture-kit";

const scenarios: Record<string, { description: string; steps: Step[] }> = {};
function add(name: string, description: string, steps: Step[]) {
  scenarios[name] = { description, steps };
}
const denyCompletion = (reason: unknown, o: k.RequestOpts = {}, seq = 1, accepted = 1) =>
  completion(seq, accepted, null, o, { "policy-denied": { reason } });
const val = (e: unknown) => errv({ validation: e });
const drainEffects = (effects: unknown[]): Step => ({ op: "drain-effects", expect: ok(effects) });
const drainCompletions = (expect: unknown): Step => ({ op: "drain-completions", expect });
const counters = (values: Record<string, unknown>): Step => ({ op: { "set-counters": values }, expect: ok(null) });
const resolve = (
  seq: number | bigint,
  decision: string,
  o: { local?: number; accepted?: number; instance?: number; generation?: number } = {},
) => ({
  "resolve-approval": {
    resolution: {
      request_key: key(o.local ?? 1),
      accepted_sequence: o.accepted ?? 1,
      instance_id: o.instance ?? I,
      generation: o.generation ?? 1,
      decision,
    },
  },
});
const runtime = (sequence: number | bigint, command: unknown, expect: unknown): Step => ({
  op: { "provider-runtime": { sequence, command } },
  expect,
});
const dummy = effect(9999, 9999, { local: 9999, deadline: MAX }, { cancel: { reason: "deadline-elapsed" } });

// --- PolicyDenial, in the evaluation order -------------------------------------------
add("deny-unknown-instance", "An instance without a generation is denied first; the denial completes immediately.", [
  register(),
  request({ instance: 99 }, ok({ deny: "unknown-instance" })),
  snapshotOf(
    key(1),
    ok(record({ instance: 99 }, 1, 0, { deny: "unknown-instance" }, { denied: { reason: "unknown-instance" } })),
  ),
  drainCompletions(batch([denyCompletion("unknown-instance", { instance: 99 })], 2)),
  drainEffects([]),
]);
add("deny-inactive-instance", "An inactive instance is denied before its generation is compared.", [
  ...base(null),
  { op: { "set-instance-state": { instance_id: I, generation: 1, state: "inactive" } }, expect: ok(null) },
  request({ generation: 7 }, ok({ deny: "inactive-instance" })),
]);
add("deny-stale-generation", "A request for an older generation is denied with the current one.", [
  ...base(null),
  setGeneration(I, 2),
  request({}, ok({ deny: { "stale-generation": { current: 2 } } })),
  drainCompletions(batch([denyCompletion({ "stale-generation": { current: 2 } })], 2)),
]);
add("deny-unknown-provider", "An unregistered provider is denied.", [
  ...base(null),
  request({ provider: "gate.other" }, ok({ deny: "unknown-provider" })),
]);
add(
  "deny-provider-owner-mismatch",
  "A consumer-owned provider serves only its owner; the owner check precedes the capability check.",
  [
    register({
      id: "station.browser",
      owner: { consumer: "other.app" },
      capabilities: [{ id: CAP, class: "browser", description: "Owned" }],
    }),
    setGeneration(),
    request(
      { provider: "station.browser", capability: "browser.not.offered" },
      ok({ deny: "provider-owner-mismatch" }),
    ),
    grant(
      1,
      "allow",
      { provider: "station.browser" },
      errv({
        "provider-owner-mismatch": { provider_id: "station.browser", owner: "other.app", requested_consumer: C },
      }),
    ),
  ],
);
add("deny-unknown-capability", "A capability the provider does not offer is denied; granting it fails too.", [
  ...base(null),
  request({ capability: "browser.dom.read" }, ok({ deny: "unknown-capability" })),
  grant(
    1,
    "allow",
    { capability: "browser.dom.read" },
    errv({ "unknown-policy-capability": { provider_id: GATE, capability_id: "browser.dom.read" } }),
  ),
]);
add(
  "deny-missing-grant",
  "Without an exact grant the request is denied (no wildcards: another scope does not match).",
  [
    ...base(null),
    grant(1, "allow", { scope: "workspace:test/page:other" }),
    request({}, ok({ deny: "missing-grant" })),
  ],
);

// --- Dispatch, observation, approval -----------------------------------------------
const obs = succeeded();
add(
  "allow-dispatch-succeed",
  "An allowed request queues an Invoke; a success observation completes it with the full result.",
  [
    ...base("allow"),
    request({}, ok("allow")),
    drainEffects([effect(1, 1, {}, invoke())]),
    observe(1, {}, obs, ok("applied")),
    drainCompletions(batch([completion(1, 1, 1, {}, obs)], 2)),
    snapshotOf(key(1), ok(record({}, 1, 0, "allow", { succeeded: { operation_id: 1, result: k.metadataOf(obs) } }))),
  ],
);
const failure = { failed: { failure: { kind: "execution", redacted_message: "boom" } } };
add("approval-approve-then-fail", "Approve-once dispatches the stored payload; a failure observation completes it.", [
  ...base("require-approval"),
  request({}, ok("require-approval")),
  snapshotOf(key(1), ok(record({}, 1, 0, "require-approval", "awaiting-approval"))),
  drainEffects([]),
  authority(2, resolve(2, "approve-once"), ok("approval-resolved")),
  snapshotOf(key(1), ok(record({}, 1, 0, "require-approval", { dispatched: { operation_id: 1 } }))),
  drainEffects([effect(1, 1, {}, invoke())]),
  observe(1, {}, failure, ok("applied")),
  drainCompletions(batch([completion(1, 1, 1, {}, failure)], 2)),
  snapshotOf(
    key(1),
    ok(record({}, 1, 0, "require-approval", { failed: { operation_id: 1, failure: failure.failed.failure } })),
  ),
]);
add("approval-deny", "Denying an approval completes the request without an operation.", [
  ...base("require-approval"),
  request({}, ok("require-approval")),
  authority(2, resolve(2, "deny"), ok("approval-resolved")),
  snapshotOf(key(1), ok(record({}, 1, 0, "require-approval", "approval-denied"))),
  drainCompletions(batch([completion(1, 1, null, {}, "approval-denied")], 2)),
  drainEffects([]),
]);
add("approval-errors", "Approval checks in order; a failed envelope does not consume its sequence.", [
  ...base("require-approval"),
  request({}, ok("require-approval")),
  authority(2, resolve(2, "approve-once", { local: 9 }), errv({ "unknown-request": { request_key: key(9) } })),
  authority(
    2,
    resolve(2, "approve-once", { accepted: 5 }),
    errv({ "approval-nonce-mismatch": { request_key: key(1), expected: 1, actual: 5 } }),
  ),
  authority(
    2,
    resolve(2, "approve-once", { generation: 2 }),
    errv({ "approval-generation-stale": { current: 1, actual: 2 } }),
  ),
  authority(
    2,
    resolve(2, "approve-once", { instance: 12 }),
    errv({ "approval-scope-mismatch": { request_key: key(1) } }),
  ),
  authority(2, resolve(2, "approve-once"), ok("approval-resolved")),
  authority(3, resolve(3, "approve-once"), errv({ "request-not-awaiting-approval": { request_key: key(1) } })),
  authority(2, resolve(2, "deny"), errv({ "authority-sequence-regressed": { current: 2, requested: 2 } })),
  authority(0, resolve(0, "deny"), val({ "zero-identifier": { field: "tool authority sequence" } })),
]);
add("approval-expired", "An approval past its deadline times the request out and still consumes the sequence.", [
  ...base("require-approval"),
  request({ deadline: 5 }, ok("require-approval")),
  counters({ current_tick: 5 }),
  authority(2, resolve(2, "approve-once"), ok({ "approval-expired": { request_key: key(1), accepted_sequence: 1 } })),
  snapshotOf(
    key(1),
    ok(
      record({ deadline: 5 }, 1, 0, "require-approval", {
        "timed-out": { operation_id: null, cancellation: "not-required" },
      }),
    ),
  ),
  drainCompletions(
    batch([completion(1, 1, null, { deadline: 5 }, { "timed-out": { cancellation: "not-required" } })], 2),
  ),
  authority(2, resolve(2, "deny"), errv({ "authority-sequence-regressed": { current: 2, requested: 2 } })),
]);

// --- Closures and cancellation dispositions -----------------------------------------
const other = "workspace:test/page:other";
add(
  "timeout-dispositions",
  "Timeouts in key order: drained invoke → cancel queued, queued invoke → removed, approval → not required.",
  [
    ...base("allow"),
    grant(2, "require-approval", { scope: other }),
    request({ deadline: 10 }, ok("allow")),
    drainEffects([effect(1, 1, { deadline: 10 }, invoke())]),
    request({ local: 2, deadline: 10 }, ok("allow")),
    request({ local: 3, deadline: 10, scope: other }, ok("require-approval")),
    { op: { "advance-time": { tick: 9 } }, expect: ok(null) },
    { op: { "advance-time": { tick: 10 } }, expect: ok(null) },
    snapshotOf(
      key(1),
      ok(
        record({ deadline: 10 }, 1, 0, "allow", {
          "timed-out": { operation_id: 1, cancellation: "cancel-queued-unconfirmed" },
        }),
      ),
    ),
    snapshotOf(
      key(2),
      ok(
        record({ local: 2, deadline: 10 }, 2, 0, "allow", {
          "timed-out": { operation_id: 2, cancellation: "queued-invoke-removed" },
        }),
      ),
    ),
    snapshotOf(
      key(3),
      ok(
        record({ local: 3, deadline: 10, scope: other }, 3, 0, "require-approval", {
          "timed-out": { operation_id: null, cancellation: "not-required" },
        }),
      ),
    ),
    drainEffects([effect(3, 1, { deadline: 10 }, { cancel: { reason: "deadline-elapsed" } })]),
    drainCompletions(
      batch(
        [
          completion(1, 1, 1, { deadline: 10 }, { "timed-out": { cancellation: "cancel-queued-unconfirmed" } }),
          completion(2, 2, 2, { local: 2, deadline: 10 }, { "timed-out": { cancellation: "queued-invoke-removed" } }),
          completion(3, 3, null, { local: 3, deadline: 10 }, { "timed-out": { cancellation: "not-required" } }),
        ],
        4,
      ),
    ),
    {
      op: { "advance-time": { tick: 3 } },
      expect: errv({ "clock-regressed": { current_tick: 10, requested_tick: 3 } }),
    },
    { op: { "advance-time": { tick: 10 } }, expect: ok(null) },
  ],
);
add(
  "grant-revoked",
  "Revoking a grant closes its dispatched request with a cancel; revoking an absent key reports existed=false.",
  [
    ...base("allow"),
    request({}, ok("allow")),
    drainEffects([effect(1, 1, {}, invoke())]),
    authority(2, { "revoke-grant": { key: policyKey() } }, ok({ "grant-revoked": { existed: true } })),
    snapshotOf(
      key(1),
      ok(
        record({}, 1, 0, "allow", { "grant-revoked": { operation_id: 1, cancellation: "cancel-queued-unconfirmed" } }),
      ),
    ),
    drainEffects([effect(2, 1, {}, { cancel: { reason: "grant-revoked" } })]),
    drainCompletions(
      batch([completion(1, 1, 1, {}, { "grant-revoked": { cancellation: "cancel-queued-unconfirmed" } })], 2),
    ),
    authority(3, { "revoke-grant": { key: policyKey() } }, ok({ "grant-revoked": { existed: false } })),
    request({ local: 2 }, ok({ deny: "missing-grant" })),
  ],
);
add("grant-mode-change", "Changing a grant's mode revokes open requests under it; the same mode again is a no-op.", [
  ...base("require-approval"),
  request({}, ok("require-approval")),
  grant(2, "require-approval"),
  snapshotOf(key(1), ok(record({}, 1, 0, "require-approval", "awaiting-approval"))),
  grant(3, "allow"),
  snapshotOf(
    key(1),
    ok(record({}, 1, 0, "require-approval", { "grant-revoked": { operation_id: null, cancellation: "not-required" } })),
  ),
  drainCompletions(batch([completion(1, 1, null, {}, { "grant-revoked": { cancellation: "not-required" } })], 2)),
  request({ local: 2 }, ok("allow")),
]);
add("superseded", "A new generation supersedes open requests (queued invoke removed) and purges old grants.", [
  ...base("allow"),
  request({}, ok("allow")),
  setGeneration(I, 2),
  snapshotOf(
    key(1),
    ok(
      record({}, 1, 0, "allow", {
        superseded: { operation_id: 1, cancellation: "queued-invoke-removed", current_generation: 2 },
      }),
    ),
  ),
  drainEffects([]),
  drainCompletions(
    batch(
      [completion(1, 1, 1, {}, { superseded: { current_generation: 2, cancellation: "queued-invoke-removed" } })],
      2,
    ),
  ),
  setGeneration(I, 1, errv({ "generation-regressed": { instance_id: I, current: 2, requested: 1 } })),
  setGeneration(I, 2),
  request({ local: 2, generation: 2 }, ok({ deny: "missing-grant" })),
]);
add("instance-closed", "Deactivating an instance closes its requests; removal reports whether it existed.", [
  ...base("allow"),
  request({}, ok("allow")),
  drainEffects([effect(1, 1, {}, invoke())]),
  { op: { "set-instance-state": { instance_id: I, generation: 1, state: "inactive" } }, expect: ok(null) },
  snapshotOf(
    key(1),
    ok(
      record({}, 1, 0, "allow", { "instance-closed": { operation_id: 1, cancellation: "cancel-queued-unconfirmed" } }),
    ),
  ),
  drainEffects([effect(2, 1, {}, { cancel: { reason: "instance-closed" } })]),
  {
    op: { "set-instance-state": { instance_id: I, generation: 2, state: "active" } },
    expect: errv({ "policy-generation-mismatch": { instance_id: I, current: 1, requested: 2 } }),
  },
  {
    op: { "set-instance-state": { instance_id: 99, generation: 1, state: "active" } },
    expect: errv({ "unknown-policy-instance": { instance_id: 99 } }),
  },
  { op: { "set-instance-state": { instance_id: I, generation: 1, state: "active" } }, expect: ok(null) },
  grant(2, "allow"),
  { op: { "remove-instance": { instance_id: I } }, expect: ok(true) },
  { op: { "remove-instance": { instance_id: I } }, expect: ok(false) },
  { op: "instance-ids", expect: ok([]) },
  snapshotOf(
    key(1),
    ok(
      record({}, 1, 0, "allow", { "instance-closed": { operation_id: 1, cancellation: "cancel-queued-unconfirmed" } }),
    ),
  ),
]);
add("client-closed", "Closing a client purges its grants and closes its open requests; other actors are untouched.", [
  ...base("allow"),
  grant(2, "allow", { actor: "agent.other" }),
  request({}, ok("allow")),
  request({ actor: "agent.other" }, ok("allow")),
  authority(
    3,
    { "close-client": { consumer_id: C, actor_id: A } },
    ok({ "client-closed": { purged_grant_count: 1, closed_request_count: 1 } }),
  ),
  snapshotOf(
    key(1),
    ok(record({}, 1, 0, "allow", { "client-closed": { operation_id: 1, cancellation: "queued-invoke-removed" } })),
  ),
  drainEffects([effect(2, 2, { actor: "agent.other" }, invoke({ actor: "agent.other" }))]),
  drainCompletions(batch([completion(1, 1, 1, {}, { "client-closed": { cancellation: "queued-invoke-removed" } })], 2)),
  request({ local: 2 }, ok({ deny: "missing-grant" })),
]);
const bound = (binding: number | null, o: k.RequestOpts, expect: unknown): Step => ({
  op: { "bound-request": { provider_binding_id: binding, request: requestBody(o) } },
  expect,
});
add(
  "provider-runtime-detach",
  "Detach closes the provider's requests without queueing cancels; the runtime lane's checks in order.",
  [
    ...base("allow"),
    runtime(1, { attach: { binding_id: 1, provider_id: GATE } }, ok("attached")),
    bound(1, {}, ok("allow")),
    { op: "drain-bound-effects", expect: ok([{ binding_id: 1, effect: effect(1, 1, {}, invoke()) }]) },
    bound(1, { local: 2 }, ok("allow")),
    runtime(2, { detach: { binding_id: 1, provider_id: GATE } }, ok({ detached: { closed_request_count: 2 } })),
    snapshotOf(
      key(1),
      ok(
        record({}, 1, 0, "allow", {
          "provider-detached": { operation_id: 1, cancellation: "provider-detached-unconfirmed" },
        }),
      ),
    ),
    snapshotOf(
      key(2),
      ok(
        record({ local: 2 }, 2, 0, "allow", {
          "provider-detached": { operation_id: 2, cancellation: "queued-invoke-removed" },
        }),
      ),
    ),
    drainCompletions(
      batch(
        [
          completion(1, 1, 1, {}, { "provider-detached": { cancellation: "provider-detached-unconfirmed" } }),
          completion(2, 2, 2, { local: 2 }, { "provider-detached": { cancellation: "queued-invoke-removed" } }),
        ],
        3,
      ),
    ),
    { op: "provider-runtime-snapshot", expect: ok({ last_sequence: 2, sequence_exhausted: false, bindings: [] }) },
    bound(null, { local: 3 }, errv({ "provider-unavailable": { provider_id: GATE } })),
    runtime(
      3,
      { attach: { binding_id: 5, provider_id: GATE } },
      errv({ "invalid-attach-binding": { sequence: 3, binding_id: 5 } }),
    ),
    runtime(
      3,
      { attach: { binding_id: 3, provider_id: GATE } },
      errv({ "sequence-regressed": { current: 3, requested: 3 } }),
    ),
    runtime(4, { attach: { binding_id: 4, provider_id: GATE } }, ok("attached")),
    runtime(
      5,
      { attach: { binding_id: 5, provider_id: GATE } },
      errv({ "already-attached": { provider_id: GATE, binding_id: 4 } }),
    ),
    bound(5, { local: 3 }, errv({ "provider-binding-mismatch": { provider_id: GATE, current: 4, requested: 5 } })),
    bound(
      null,
      { local: 3 },
      errv({ "provider-binding-mismatch": { provider_id: GATE, current: 4, requested: null } }),
    ),
    bound(0, { local: 3 }, val({ "zero-identifier": { field: "provider binding id" } })),
    bound(null, { local: 3, provider: "gate.none" }, ok({ deny: "unknown-provider" })),
    runtime(
      6,
      { detach: { binding_id: 5, provider_id: GATE } },
      errv({ "binding-mismatch": { provider_id: GATE, current: 4, requested: 5 } }),
    ),
    runtime(
      7,
      { attach: { binding_id: 7, provider_id: "gate.none" } },
      errv({ "unknown-provider": { provider_id: "gate.none" } }),
    ),
    runtime(
      8,
      { detach: { binding_id: 8, provider_id: "gate.none" } },
      errv({ "unknown-provider": { provider_id: "gate.none" } }),
    ),
    runtime(
      0,
      { attach: { binding_id: 9, provider_id: GATE } },
      val({ "zero-identifier": { field: "provider runtime sequence" } }),
    ),
    runtime(
      9,
      { detach: { binding_id: 0, provider_id: GATE } },
      val({ "zero-identifier": { field: "provider binding id" } }),
    ),
    {
      op: "provider-runtime-snapshot",
      expect: ok({ last_sequence: 8, sequence_exhausted: false, bindings: [{ binding_id: 4, provider_id: GATE }] }),
    },
    {
      op: { "detach-provider-runtime": { provider_id: "gate.none" } },
      expect: errv({ "unknown-runtime-provider": { provider_id: "gate.none" } }),
    },
  ],
);
add(
  "provider-runtime-observe",
  "Observations through the runtime lane need the exact binding; an unbound effect blocks the release.",
  [
    ...base("allow"),
    request({}, ok("allow")),
    {
      op: "drain-bound-effects",
      expect: errv({ "tool-effect-provider-unbound": { operation_id: 1, provider_id: GATE } }),
    },
    drainEffects([]),
    runtime(1, { attach: { binding_id: 1, provider_id: GATE } }, ok("attached")),
    runtime(
      2,
      {
        observe: {
          binding_id: 2,
          observation: observe(1, {}, obs, null).op && (observe(1, {}, obs, null).op as { observe: unknown }).observe,
        },
      },
      errv({ "binding-mismatch": { provider_id: GATE, current: 1, requested: 2 } }),
    ),
    runtime(
      3,
      { observe: { binding_id: 1, observation: (observe(1, {}, obs, null).op as { observe: unknown }).observe } },
      ok({ "observation-applied": { operation_id: 1, request_key: key(1) } }),
    ),
    runtime(
      4,
      { observe: { binding_id: 1, observation: (observe(1, {}, obs, null).op as { observe: unknown }).observe } },
      ok({ "observation-ignored": { operation_id: 1, request_key: key(1), reason: "request-not-dispatched" } }),
    ),
  ],
);
add(
  "disposition-dropped-queue-full",
  "With 1024 effects queued, a cancel cannot be queued: dropped-queue-full; new allows fail.",
  [
    ...base("allow"),
    request({}, ok("allow")),
    drainEffects([effect(1, 1, {}, invoke())]),
    { op: { "inject-effects": { count: 1024, effect: dummy } }, expect: ok(null) },
    request({ local: 2 }, errv("effect-capacity-exceeded")),
    { op: { "advance-time": { tick: 100 } }, expect: ok(null) },
    snapshotOf(
      key(1),
      ok(record({}, 1, 0, "allow", { "timed-out": { operation_id: 1, cancellation: "dropped-queue-full" } })),
    ),
    drainCompletions(batch([completion(1, 1, 1, {}, { "timed-out": { cancellation: "dropped-queue-full" } })], 2)),
  ],
);
add(
  "effect-sequence-exhausted",
  "The effect sequence u64::MAX is used once; then allows fail and cancels are dropped.",
  [
    ...base("allow"),
    counters({ next_effect_sequence: MAX }),
    request({}, ok("allow")),
    drainEffects([effect(MAX, 1, {}, invoke())]),
    request({ local: 2 }, errv("effect-sequence-exhausted")),
    { op: { "advance-time": { tick: 100 } }, expect: ok(null) },
    snapshotOf(
      key(1),
      ok(record({}, 1, 0, "allow", { "timed-out": { operation_id: 1, cancellation: "dropped-sequence-exhausted" } })),
    ),
    drainEffects([]),
  ],
);
add("effect-queue-limit", "The effect queue holds 1024: the 1024th effect is accepted, the 1025th refused.", [
  ...base("allow"),
  { op: { "inject-effects": { count: 1023, effect: dummy } }, expect: ok(null) },
  request({}, ok("allow")),
  request({ local: 2 }, errv("effect-capacity-exceeded")),
  request({ local: 2, scope: other }, ok({ deny: "missing-grant" })),
]);

// --- Observation ignored reasons ------------------------------------------------------
const ign = (reason: string) => ok({ ignored: { reason } });
add("observation-ignored-reasons", "Each ignored reason in check order; the first that matches wins.", [
  ...base("allow"),
  request({}, ok("allow")),
  drainEffects([effect(1, 1, {}, invoke())]),
  observe(1, { local: 9 }, obs, ign("unknown-request")),
  observe(1, {}, obs, ign("stale-generation"), { generation: 2, instance: 12 }),
  observe(1, {}, obs, ign("instance-mismatch"), { instance: 12, provider: "gate.other" }),
  observe(1, {}, obs, ign("provider-mismatch"), { provider: "gate.other" }),
  observe(5, {}, obs, ign("operation-mismatch")),
  observe(0, {}, obs, val({ "zero-identifier": { field: "tool operation id" } })),
  observe(1, {}, obs, ok("applied")),
  observe(1, {}, obs, ign("request-not-dispatched")),
  request({ local: 2, deadline: 10 }, ok("allow")),
  counters({ current_tick: 10 }),
  observe(2, { local: 2, deadline: 10 }, obs, ign("deadline-elapsed")),
  snapshotOf(
    key(2),
    ok(
      record({ local: 2, deadline: 10 }, 2, 0, "allow", {
        "timed-out": { operation_id: 2, cancellation: "queued-invoke-removed" },
      }),
    ),
  ),
  drainCompletions(
    batch(
      [
        completion(1, 1, 1, {}, obs),
        completion(2, 2, 2, { local: 2, deadline: 10 }, { "timed-out": { cancellation: "queued-invoke-removed" } }),
      ],
      3,
    ),
  ),
]);
const pcv = { failed: { failure: { kind: "provider-contract-violation", redacted_message: null } } };
add(
  "observation-contract-violation",
  "Invalid observation content fails the request as a provider contract violation.",
  [
    ...base("allow"),
    request({}, ok("allow")),
    observe(1, {}, succeeded([1, 2, 3], { byte_len: 2 }), ok("applied")),
    snapshotOf(key(1), ok(record({}, 1, 0, "allow", { failed: { operation_id: 1, failure: pcv.failed.failure } }))),
    drainCompletions(batch([completion(1, 1, 1, {}, pcv)], 2)),
  ],
);

// --- Limits at and one past their bound ----------------------------------------------
function resultCase(local: number, observation: unknown, applied: boolean): Step[] {
  return [
    request({ local }, ok("allow")),
    observe(local, { local }, observation, ok("applied")),
    snapshotOf(
      key(local),
      ok(
        record(
          { local },
          local,
          0,
          "allow",
          applied
            ? {
                succeeded: {
                  operation_id: local,
                  result: (observation as { succeeded: { result: { metadata: unknown } } }).succeeded.result.metadata,
                },
              }
            : { failed: { operation_id: local, failure: pcv.failed.failure } },
        ),
      ),
    ),
  ];
}
const opaque = (byteLen: number | bigint, reference: string, extra: Record<string, unknown> = {}) => ({
  succeeded: {
    result: {
      metadata: { byte_len: byteLen, media_type: null, truncated: true, redacted_summary: null, ...extra },
      delivery: { "opaque-reference": { reference } },
    },
  },
});
const failWith = (message: string) => ({ failed: { failure: { kind: "rejected", redacted_message: message } } });
add(
  "limit-result-fields",
  "Declared result size, reference, media type, summary and failure message at and past their bounds.",
  [
    ...base("allow"),
    ...resultCase(1, opaque(16777216, "ref:1"), true),
    ...resultCase(2, opaque(16777217, "ref:2"), false),
    ...resultCase(3, opaque(10, "r".repeat(2048)), true),
    ...resultCase(4, opaque(10, "r".repeat(2049)), false),
    ...resultCase(5, opaque(10, "ref", { media_type: "m".repeat(256) }), true),
    ...resultCase(6, opaque(10, "ref", { media_type: "m".repeat(257) }), false),
    ...resultCase(7, opaque(10, "ref", { redacted_summary: "s".repeat(4096) }), true),
    ...resultCase(8, opaque(10, "ref", { redacted_summary: "s".repeat(4097) }), false),
    ...resultCase(9, opaque(10, "   "), false),
    ...resultCase(10, opaque(10, "ref", { media_type: "" }), true),
    request({ local: 11 }, ok("allow")),
    observe(11, { local: 11 }, failWith("f".repeat(4096)), ok("applied")),
    snapshotOf(
      key(11),
      ok(
        record({ local: 11 }, 11, 0, "allow", {
          failed: { operation_id: 11, failure: failWith("f".repeat(4096)).failed.failure },
        }),
      ),
    ),
    request({ local: 12 }, ok("allow")),
    observe(12, { local: 12 }, failWith("f".repeat(4097)), ok("applied")),
    snapshotOf(
      key(12),
      ok(record({ local: 12 }, 12, 0, "allow", { failed: { operation_id: 12, failure: pcv.failed.failure } })),
    ),
    request({ local: 13 }, ok("allow")),
    observe(13, { local: 13 }, failWith("bell\u0007"), ok("applied")),
    snapshotOf(
      key(13),
      ok(record({ local: 13 }, 13, 0, "allow", { failed: { operation_id: 13, failure: pcv.failed.failure } })),
    ),
  ],
);
const zeros = (n: number) => new Array<number>(n).fill(0);
add("limit-payload", "A 65,536-byte payload is accepted, 65,537 bytes are refused.", [
  ...base("allow"),
  request({ payload: zeros(65536) }, ok("allow")),
  request(
    { local: 2, payload: zeros(65537) },
    val({ "too-large": { field: "tool request payload", max: 65536, actual: 65537 } }),
  ),
  snapshotOf(key(1), ok(record({}, 1, 0, "allow", { dispatched: { operation_id: 1 } }, 65536))),
]);
add("limit-approval-summary", "Approval summaries: UTF-8 byte bound, Rust whitespace, control characters.", [
  ...base("require-approval"),
  request({ summary: "é".repeat(512) }, ok("require-approval")),
  request(
    { local: 2, summary: "é".repeat(512) + "a" },
    val({ "too-large": { field: "tool approval summary", max: 1024, actual: 1025 } }),
  ),
  request({ local: 2, summary: " \t\u0085\u3000" }, val({ required: { field: "tool approval summary" } })),
  request({ local: 2, summary: "ring\u0007" }, val({ "control-character": { field: "tool approval summary" } })),
  request({ local: 2, summary: "\u009f" }, val({ "control-character": { field: "tool approval summary" } })),
  request({ local: 2, summary: "\ufeff" }, ok("require-approval")),
  snapshotOf(key(1), ok(record({ summary: "é".repeat(512) }, 1, 0, "require-approval", "awaiting-approval"))),
]);
add("request-validation-order", "Request validation: zero id, then deadline, then payload, then summary.", [
  ...base("allow"),
  request({ local: 0, deadline: 0, summary: "" }, val({ "zero-identifier": { field: "tool request id" } })),
  request({ deadline: 0, summary: "" }, val({ "deadline-elapsed": { current_tick: 0, deadline_tick: 0 } })),
  request(
    { payload: zeros(65537), summary: "" },
    val({ "too-large": { field: "tool request payload", max: 65536, actual: 65537 } }),
  ),
  request({ summary: "" }, val({ required: { field: "tool approval summary" } })),
  request({ deadline: 1 }, ok("allow")),
  request({}, errv({ "duplicate-request": { request_key: key(1) } })),
]);
const cap = (id: string, description = "A capability", klass = "browser") => ({ id, class: klass, description });
const regErr = (descriptor: unknown, e: unknown): Step => ({ op: { "register-provider": { descriptor } }, expect: e });
add("provider-validation", "Provider descriptor checks and their order; description bound in UTF-8 bytes.", [
  regErr(gateProvider("p.empty", []), val({ required: { field: "tool provider capabilities" } })),
  regErr(
    gateProvider(
      "p.many",
      Array.from({ length: 257 }, (_, n) => cap(`browser.c${n}`)),
    ),
    val({ "too-many": { field: "tool provider capabilities", max: 256, actual: 257 } }),
  ),
  regErr(
    gateProvider(
      "p.max",
      Array.from({ length: 256 }, (_, n) => cap(`browser.c${n}`)),
    ),
    ok(null),
  ),
  regErr(
    gateProvider("p.dup", [cap("browser.a", ""), cap("browser.a")]),
    val({ "duplicate-identifier": { field: "tool capability id" } }),
  ),
  regErr(gateProvider("p.case", [cap("browser.a"), cap("Browser.a")]), ok(null)),
  regErr(
    gateProvider("p.desc", [cap("browser.a", "d".repeat(2049))]),
    val({ "too-large": { field: "tool capability description", max: 2048, actual: 2049 } }),
  ),
  regErr(gateProvider("p.desc2", [cap("browser.a", "d".repeat(2048))]), ok(null)),
  regErr(gateProvider("p.blank", [cap("browser.a", " ")]), val({ required: { field: "tool capability description" } })),
  regErr(
    gateProvider("p.ctl", [cap("browser.a", "a\nb")]),
    val({ "control-character": { field: "tool capability description" } }),
  ),
  regErr(
    gateProvider("p.order", [cap("browser.a", ""), cap("browser.shell.x")]),
    val({ required: { field: "tool capability description" } }),
  ),
  regErr(
    gateProvider("p.class", [cap("browser.a", "x", "consumer-state")]),
    val({ "capability-outside-admission": { capability_id: "browser.a" } }),
  ),
  regErr(gateProvider("p.state", [cap("Consumer-State.selection.read", "x", "consumer-state")]), ok(null)),
  regErr(gateProvider("p.max"), errv({ "duplicate-provider": { provider_id: "p.max" } })),
  {
    op: { "provider-descriptor": { provider_id: "p.case" } },
    expect: ok(gateProvider("p.case", [cap("Browser.a"), cap("browser.a")])),
  },
  { op: { "provider-exists": { provider_id: "p.dup" } }, expect: ok(false) },
]);
const forbidden = [
  "browser.file-system.read",
  "browser.f-i-l-e-s-y-s-t-e-m.read",
  "browser.s-h-e-l-l.exec",
  "browser.m-c-p.call",
  "browser.f-s.read",
  "browser.fs",
  "browser.f--s.x",
  "browser.refre-shell",
  "browser.xmcpy",
  "BROWSER.SHELL",
  "browser.f.s",
  "consumer-state.fs",
];
const allowed = [
  "browser.page.snapshot",
  "browser.frame.offset.read",
  "browser.dom.forms.inspect",
  "browser.f.x.s",
  "browser.ffs",
  "browser.fsx",
];
add("capability-admission", "Shell, filesystem, MCP and fs namespaces are refused even when split by separators.", [
  ...forbidden.map((id, n) =>
    regErr(
      gateProvider(`p.f${n}`, [
        cap(id, "x", id.toLowerCase().startsWith("consumer-state") ? "consumer-state" : "browser"),
      ]),
      val({ "capability-outside-admission": { capability_id: id } }),
    ),
  ),
  ...allowed.map((id, n) => regErr(gateProvider(`p.a${n}`, [cap(id)]), ok(null))),
]);
add("limit-providers", "64 providers can be registered; the 65th is refused.", [
  ...Array.from({ length: 64 }, (_, n) => register(gateProvider(`gate.p${String(n).padStart(2, "0")}`))),
  regErr(gateProvider("gate.p64"), errv("provider-capacity-exceeded")),
]);
const longId = (n: number) => "a".repeat(n);
add(
  "limit-identifiers",
  "Identifier bounds in UTF-8 bytes and the identifier alphabet; invalid ids are refused by the contract.",
  [
    ...base(null),
    request({ actor: longId(256) }, ok({ deny: "missing-grant" })),
    { op: { request: requestBody({ actor: longId(257) }) }, expect_invalid: true },
    request({ consumer: longId(256) }, ok({ deny: "missing-grant" })),
    { op: { request: requestBody({ consumer: longId(257) }) }, expect_invalid: true },
    request({ scope: longId(512) }, ok({ deny: "missing-grant" })),
    { op: { request: requestBody({ scope: longId(513) }) }, expect_invalid: true },
    request({ local: 2, provider: "p." + longId(254) }, ok({ deny: "unknown-provider" })),
    { op: { request: requestBody({ provider: "p." + longId(255) }) }, expect_invalid: true },
    request({ local: 3, capability: "browser." + longId(248) }, ok({ deny: "unknown-capability" })),
    { op: { request: requestBody({ capability: "browser." + longId(249) }) }, expect_invalid: true },
    { op: { request: requestBody({ actor: "agent primary" }) }, expect_invalid: true },
    { op: { request: requestBody({ actor: " " }) }, expect_invalid: true },
    { op: { request: requestBody({ actor: "agent.é" }) }, expect_invalid: true },
    request({ local: 4, actor: "A-z_0.9:/" }, ok({ deny: "missing-grant" })),
  ],
);
add(
  "limit-client-requests",
  "32 open requests per (consumer, actor); denials are never quota-limited; other actors unaffected.",
  [
    ...base("allow"),
    ...Array.from({ length: 32 }, (_, n) => request({ local: n + 1 }, ok("allow"))),
    request({ local: 33 }, errv({ "client-request-capacity-exceeded": { consumer_id: C, actor_id: A, max: 32 } })),
    request({ local: 33, scope: other }, ok({ deny: "missing-grant" })),
    request({ local: 1, actor: "agent.other" }, ok({ deny: "missing-grant" })),
  ],
);
add("limit-completions", "The completion queue holds 128; the 129th is dropped but its sequence is consumed.", [
  register(),
  setGeneration(),
  ...Array.from({ length: 129 }, (_, n) => request({ local: n + 1 }, ok({ deny: "missing-grant" }))),
  drainCompletions(
    batch(
      Array.from({ length: 128 }, (_, n) => denyCompletion("missing-grant", { local: n + 1 }, n + 1, n + 1)),
      130,
      1,
      1,
    ),
  ),
  request({ local: 130 }, ok({ deny: "missing-grant" })),
  drainCompletions(batch([denyCompletion("missing-grant", { local: 130 }, 130, 130)], 131, 0, 1)),
]);
add("completion-sequence-exhausted", "The completion sequence u64::MAX is used once; later completions are dropped.", [
  register(),
  setGeneration(),
  counters({ next_completion_sequence: MAX }),
  request({}, ok({ deny: "missing-grant" })),
  request({ local: 2 }, ok({ deny: "missing-grant" })),
  drainCompletions(batch([denyCompletion("missing-grant", {}, MAX as unknown as number, 1)], MAX, 1, 1, true)),
]);
add("request-sequence-exhausted", "The accepted sequence u64::MAX is never allocated.", [
  ...base("allow"),
  counters({ next_request_sequence: MAX - 1n }),
  request({}, ok("allow")),
  request({ local: 2 }, errv({ "counter-exhausted": { counter: "tool request sequence" } })),
  request({ local: 2, scope: other }, errv({ "counter-exhausted": { counter: "tool request sequence" } })),
  snapshotOf(
    key(1),
    ok({ ...record({}, 0, 0, "allow", { dispatched: { operation_id: 1 } }), accepted_sequence: MAX - 1n }),
  ),
]);
add(
  "operation-id-exhausted",
  "The operation id u64::MAX is never allocated; denials and approvals that need none still work.",
  [
    ...base("allow"),
    grant(2, "require-approval", { scope: other }),
    counters({ next_operation_id: MAX }),
    request({}, errv({ "counter-exhausted": { counter: "tool operation id" } })),
    request({ local: 2, scope: other }, ok("require-approval")),
    authority(
      3,
      resolve(3, "approve-once", { local: 2, accepted: 1 }),
      errv({ "counter-exhausted": { counter: "tool operation id" } }),
    ),
    authority(3, resolve(3, "deny", { local: 2, accepted: 1 }), ok("approval-resolved")),
  ],
);
add("authority-sequences", "Authority sequences strictly increase, gaps allowed, u64::MAX usable once.", [
  ...base(null),
  grant(5, "allow"),
  grant(5, "require-approval", {}, errv({ "authority-sequence-regressed": { current: 5, requested: 5 } })),
  grant(4, "require-approval", {}, errv({ "authority-sequence-regressed": { current: 5, requested: 4 } })),
  grant(6, "allow", { provider: "gate.none" }, errv({ "unknown-policy-provider": { provider_id: "gate.none" } })),
  grant(6, "allow", { instance: 12 }, errv({ "unknown-policy-instance": { instance_id: 12 } })),
  grant(
    6,
    "allow",
    { generation: 0 },
    errv({ "policy-generation-mismatch": { instance_id: I, current: 1, requested: 0 } }),
  ),
  authority(MAX, { "revoke-grant": { key: policyKey({ scope: other }) } }, ok({ "grant-revoked": { existed: false } })),
  authority(
    MAX,
    { "close-client": { consumer_id: C, actor_id: A } },
    errv({ "authority-sequence-regressed": { current: MAX, requested: MAX } }),
  ),
]);
add("inactive-grant-refused", "Grants need an active instance; re-activation does not restore purged grants.", [
  ...base("allow"),
  { op: { "set-instance-state": { instance_id: I, generation: 1, state: "inactive" } }, expect: ok(null) },
  grant(2, "allow", {}, errv({ "inactive-policy-instance": { instance_id: I } })),
  { op: { "set-instance-state": { instance_id: I, generation: 1, state: "active" } }, expect: ok(null) },
  request({}, ok({ deny: "missing-grant" })),
]);
add("terminal-key-reuse", "A terminal key is replaced by a brand-new request with a new accepted sequence.", [
  ...base("allow"),
  request({}, ok("allow")),
  observe(1, {}, obs, ok("applied")),
  request({}, ok("allow")),
  snapshotOf(key(1), ok(record({}, 2, 0, "allow", { dispatched: { operation_id: 2 } }))),
  drainEffects([effect(1, 1, {}, invoke()), effect(2, 2, {}, invoke())]),
]);
const sub = k.subject;
const audit = (sequence: number | bigint, subject: unknown, event: unknown, tick = 0) => ({
  sequence,
  tick,
  subject,
  event,
});
const emptySnapshot = {
  revision: 0,
  current_tick: 0,
  generations: [],
  instance_states: [],
  providers: [],
  grants: [],
  requests: [],
  audit_events: [],
  dropped_audit_events: 0,
  revision_overflow_count: 0,
  next_completion_sequence: 1,
  dropped_completions: 0,
  effect_sequence_exhausted: false,
  completion_sequence_exhausted: false,
  audit_sequence_exhausted: false,
};
add("snapshot-after-dispatch", "The snapshot shape after one dispatched request, with its audit trail.", [
  ...base("allow"),
  request({}, ok("allow")),
  {
    op: "snapshot",
    expect: ok({
      ...emptySnapshot,
      revision: 4,
      generations: [[I, 1]],
      instance_states: [[I, "active"]],
      providers: [gateProvider()],
      grants: [{ key: policyKey(), mode: "allow" }],
      requests: [record({}, 1, 0, "allow", { dispatched: { operation_id: 1 } })],
      audit_events: [
        audit(1, null, { "provider-registered": { provider_id: GATE, owner: "gate", capability_count: 1 } }),
        audit(2, null, {
          "generation-advanced": { instance_id: I, previous: null, current: 1, purged_grant_count: 0 },
        }),
        audit(3, null, { "grant-set": { grant: { key: policyKey(), mode: "allow" } } }),
        audit(4, sub({}, 1), { "request-evaluated": { decision: "allow", payload_bytes: 2 } }),
        audit(5, sub({}, 1), { "invocation-dispatched": { operation_id: 1 } }),
      ],
    }),
  },
]);
add("audit-overflow", "The audit ring keeps the newest 4096 events and counts the dropped ones.", [
  register(),
  {
    op: { observe: (observe(1, { local: 9 }, obs, null).op as { observe: unknown }).observe },
    repeat: 4096,
    expect: ign("unknown-request"),
  },
  {
    op: "snapshot",
    expect: ok({
      ...emptySnapshot,
      revision: 4097,
      providers: [gateProvider()],
      audit_events: Array.from({ length: 4096 }, (_, n) =>
        audit(n + 2, null, { "observation-ignored": { operation_id: 1, reason: "unknown-request" } }),
      ),
      dropped_audit_events: 1,
    }),
  },
]);
add(
  "audit-and-revision-exhausted",
  "Audit sequence u64::MAX is recorded once, then audits are only counted; the revision saturates.",
  [
    counters({ next_audit_sequence: MAX, revision: MAX }),
    register(),
    {
      op: { observe: (observe(1, { local: 9 }, obs, null).op as { observe: unknown }).observe },
      expect: ign("unknown-request"),
    },
    {
      op: "snapshot",
      expect: ok({
        ...emptySnapshot,
        revision: MAX,
        revision_overflow_count: 2,
        providers: [gateProvider()],
        audit_events: [
          audit(MAX, null, { "provider-registered": { provider_id: GATE, owner: "gate", capability_count: 1 } }),
        ],
        dropped_audit_events: 1,
        audit_sequence_exhausted: true,
      }),
    },
  ],
);
add(
  "provider-sequence-exhausted",
  "A provider-runtime sequence of u64::MAX is used once; then every binding is retired.",
  [
    ...base("allow"),
    runtime(MAX - 1n, { attach: { binding_id: MAX - 1n, provider_id: GATE } }, ok("attached")),
    bound((MAX - 1n) as unknown as number, {}, ok("allow")),
    drainEffects([effect(1, 1, {}, invoke())]),
    runtime(
      MAX,
      { attach: { binding_id: 5, provider_id: GATE } },
      errv({ "invalid-attach-binding": { sequence: MAX, binding_id: 5 } }),
    ),
    snapshotOf(
      key(1),
      ok(
        record({}, 1, 0, "allow", {
          "provider-detached": { operation_id: 1, cancellation: "provider-detached-unconfirmed" },
        }),
      ),
    ),
    runtime(MAX, { attach: { binding_id: MAX, provider_id: GATE } }, errv("sequence-exhausted")),
    { op: "provider-runtime-snapshot", expect: ok({ last_sequence: MAX, sequence_exhausted: true, bindings: [] }) },
  ],
);
add(
  "limit-requests-evict",
  "At 512 records the oldest terminal record is evicted for a new key; with none terminal the request fails.",
  [
    register(),
    setGeneration(),
    ...Array.from({ length: 512 }, (_, n) => request({ local: n + 1 }, ok({ deny: "missing-grant" }))),
    request({ local: 513 }, ok({ deny: "missing-grant" })),
    snapshotOf(key(1), ok(null)),
    snapshotOf(
      key(2),
      ok(record({ local: 2 }, 2, 0, { deny: "missing-grant" }, { denied: { reason: "missing-grant" } })),
    ),
  ],
);
const actors = Array.from({ length: 16 }, (_, n) => `agent.a${String(n).padStart(2, "0")}`);
add("limit-requests-full", "512 open requests and no terminal record: the next new key fails, even for a denial.", [
  register(),
  setGeneration(),
  ...actors.map((actor, n) => grant(n + 1, "require-approval", { actor })),
  ...actors.flatMap((actor) =>
    Array.from({ length: 32 }, (_, n) => request({ local: n + 1, actor }, ok("require-approval"))),
  ),
  request({ local: 99 }, errv("request-capacity-exceeded")),
]);
add("limit-grants", "4096 grants can be stored; a new 4097th key fails, a mode change of an existing one does not.", [
  register(),
  setGeneration(),
  ...Array.from({ length: 4096 }, (_, n) => grant(n + 1, "allow", { scope: `s${n}` })),
  grant(4097, "allow", { scope: "s4096" }, errv("policy-capacity-exceeded")),
  grant(4097, "require-approval", { scope: "s0" }),
]);
add(
  "detach-purges-queued-cancels",
  "Detach also purges cancels queued earlier for requests that are already terminal.",
  [
    ...base("allow"),
    request({}, ok("allow")),
    drainEffects([effect(1, 1, {}, invoke())]),
    { op: { "advance-time": { tick: 100 } }, expect: ok(null) },
    { op: { "detach-provider-runtime": { provider_id: GATE } }, expect: ok(0) },
    drainEffects([]),
    { op: { "detach-provider-runtime": { provider_id: GATE } }, expect: ok(0) },
  ],
);

for (const [name, scenario] of Object.entries(scenarios)) {
  const document = { format: "capability-cases-v1", name, description: scenario.description, steps: scenario.steps };
  writeFileSync(`fixtures/capability/${name}.json`, writeWireJson(document) + "\n");
}
console.log(`wrote ${Object.keys(scenarios).length} scenarios`);
void SCOPE;
