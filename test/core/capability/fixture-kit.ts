/**
 * Builders for capability-cases-v1 scenarios. Expected outcomes are written by hand
 * from the spec's rules; nothing here runs the engine.
 */
export const MAX = 18446744073709551615n;
export const C = "station.test";
export const A = "agent.primary";
export const GATE = "gate.browser";
export const CAP = "browser.page.snapshot";
export const SCOPE = "workspace:test/page:active";
export const I = 11;

export type Step = { op: unknown; expect?: unknown; repeat?: number; note?: string; expect_invalid?: boolean };

export const ok = (value: unknown) => ({ Ok: value });
export const errv = (value: unknown) => ({ Err: value });

export function gateProvider(
  id = GATE,
  capabilities: unknown[] = [{ id: CAP, class: "browser", description: "Read page state" }],
) {
  return { id, owner: "gate", capabilities };
}

export function register(descriptor: unknown = gateProvider()): Step {
  return { op: { "register-provider": { descriptor } }, expect: ok(null) };
}

export function setGeneration(instance = I, generation = 1, expect: unknown = ok(null)): Step {
  return { op: { "set-generation": { instance_id: instance, generation } }, expect };
}

export interface KeyOpts {
  consumer?: string;
  actor?: string;
  instance?: number;
  generation?: number;
  provider?: string;
  capability?: string;
  scope?: string;
}

export function policyKey(o: KeyOpts = {}) {
  return {
    consumer_id: o.consumer ?? C,
    actor_id: o.actor ?? A,
    instance_id: o.instance ?? I,
    generation: o.generation ?? 1,
    provider_id: o.provider ?? GATE,
    capability_id: o.capability ?? CAP,
    resource_scope_id: o.scope ?? SCOPE,
  };
}

export function authority(sequence: number | bigint, command: unknown, expect: unknown): Step {
  return { op: { authority: { sequence, command } }, expect };
}

export function grant(
  sequence: number,
  mode: "allow" | "require-approval" = "allow",
  o: KeyOpts = {},
  expect: unknown = ok("grant-set"),
): Step {
  return authority(sequence, { "set-grant": { grant: { key: policyKey(o), mode } } }, expect);
}

export interface RequestOpts extends KeyOpts {
  local?: number;
  deadline?: number | bigint;
  payload?: number[];
  summary?: string;
}

export function requestBody(o: RequestOpts = {}) {
  return {
    consumer_id: o.consumer ?? C,
    actor_id: o.actor ?? A,
    request: {
      local_id: o.local ?? 1,
      instance_id: o.instance ?? I,
      generation: o.generation ?? 1,
      provider_id: o.provider ?? GATE,
      capability_id: o.capability ?? CAP,
      resource_scope_id: o.scope ?? SCOPE,
      approval_summary: o.summary ?? "Read active page state",
      deadline_tick: o.deadline ?? 100,
      payload: o.payload ?? [123, 125],
    },
  };
}

export function request(o: RequestOpts, expect: unknown): Step {
  return { op: { request: requestBody(o) }, expect };
}

export function key(local = 1, consumer = C, actor = A) {
  return { consumer_id: consumer, actor_id: actor, local_id: local };
}

/** Expected effect envelope. */
export function effect(sequence: number | bigint, operation: number, o: RequestOpts, body: unknown) {
  return {
    sequence,
    operation_id: operation,
    request_key: key(o.local ?? 1, o.consumer ?? C, o.actor ?? A),
    instance_id: o.instance ?? I,
    generation: o.generation ?? 1,
    provider_id: o.provider ?? GATE,
    deadline_tick: o.deadline ?? 100,
    effect: body,
  };
}

export function invoke(o: RequestOpts = {}) {
  return {
    invoke: {
      consumer_id: o.consumer ?? C,
      actor_id: o.actor ?? A,
      capability_id: o.capability ?? CAP,
      resource_scope_id: o.scope ?? SCOPE,
      payload: o.payload ?? [123, 125],
    },
  };
}

/** Expected completion envelope. */
export function completion(
  sequence: number | bigint,
  accepted: number,
  operation: number | null,
  o: RequestOpts,
  outcome: unknown,
) {
  return {
    sequence,
    accepted_sequence: accepted,
    operation_id: operation,
    request_key: key(o.local ?? 1, o.consumer ?? C, o.actor ?? A),
    instance_id: o.instance ?? I,
    generation: o.generation ?? 1,
    provider_id: o.provider ?? GATE,
    outcome,
  };
}

export function batch(
  completions: unknown[],
  nextSequence: number | bigint,
  dropped = 0,
  total = 0,
  exhausted = false,
) {
  return ok({
    completions,
    dropped_since_last_drain: dropped,
    total_dropped: total,
    next_sequence: nextSequence,
    sequence_exhausted: exhausted,
  });
}

export function observe(
  operation: number,
  o: RequestOpts,
  observation: unknown,
  expect: unknown,
  at: { instance?: number; generation?: number; provider?: string } = {},
): Step {
  return {
    op: {
      observe: {
        operation_id: operation,
        request_key: key(o.local ?? 1, o.consumer ?? C, o.actor ?? A),
        instance_id: at.instance ?? o.instance ?? I,
        generation: at.generation ?? o.generation ?? 1,
        provider_id: at.provider ?? o.provider ?? GATE,
        observation,
      },
    },
    expect,
  };
}

export function succeeded(
  bytes: number[] = [123, 125],
  extra: Partial<{
    media_type: string | null;
    redacted_summary: string | null;
    truncated: boolean;
    byte_len: number;
  }> = {},
) {
  return {
    succeeded: {
      result: {
        metadata: {
          byte_len: extra.byte_len ?? bytes.length,
          media_type: extra.media_type ?? "application/json",
          truncated: extra.truncated ?? false,
          redacted_summary: extra.redacted_summary ?? null,
        },
        delivery: { inline: { bytes } },
      },
    },
  };
}

export function metadataOf(obs: { succeeded: { result: { metadata: unknown } } }) {
  return obs.succeeded.result.metadata;
}

/** Expected request snapshot record. */
export function record(
  o: RequestOpts,
  accepted: number,
  tick: number,
  decision: unknown,
  status: unknown,
  payloadBytes = 2,
) {
  const summary = o.summary ?? "Read active page state";
  return {
    key: key(o.local ?? 1, o.consumer ?? C, o.actor ?? A),
    accepted_sequence: accepted,
    accepted_at_tick: tick,
    instance_id: o.instance ?? I,
    generation: o.generation ?? 1,
    provider_id: o.provider ?? GATE,
    capability_id: o.capability ?? CAP,
    resource_scope_id: o.scope ?? SCOPE,
    approval_summary: summary,
    approval_summary_bytes: new TextEncoder().encode(summary).length,
    deadline_tick: o.deadline ?? 100,
    payload_bytes: payloadBytes,
    policy_decision: decision,
    status,
  };
}

export function subject(o: RequestOpts, accepted: number) {
  return {
    request_key: key(o.local ?? 1, o.consumer ?? C, o.actor ?? A),
    accepted_sequence: accepted,
    instance_id: o.instance ?? I,
    generation: o.generation ?? 1,
    provider_id: o.provider ?? GATE,
    capability_id: o.capability ?? CAP,
    resource_scope_id: o.scope ?? SCOPE,
  };
}

export function snapshotOf(requestKey: unknown, expect: unknown): Step {
  return { op: { "request-snapshot": { key: requestKey } }, expect };
}

/** Register the gate provider, start instance 11 at generation 1, optionally grant. */
export function base(mode: "allow" | "require-approval" | null = "allow"): Step[] {
  const steps = [register(), setGeneration()];
  if (mode !== null) steps.push(grant(1, mode));
  return steps;
}
