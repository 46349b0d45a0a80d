import { beforeAll, describe, expect, it } from "vitest";
import { AgentClient, ApproverClient, inlineResult, ProviderPoller, type BoundEffect } from "../../../src/client";
import { gateFetch, wipe } from "../../kit";
import {
  PROVIDER,
  requestBody,
  requestKey,
  setupCapabilityConsumer,
  T0,
  type CapabilityConsumer,
} from "../capability-support";

describe("the client's long-poll provider, agent and approver against the gate", () => {
  let c: CapabilityConsumer;
  beforeAll(async () => {
    await wipe("cap-client");
    c = await setupCapabilityConsumer("cap-client");
  });

  it("approves a capability request, the poller answers its effect, the agent drains the completion", async () => {
    const options = { baseUrl: "http://gate", consumer: c.consumer, fetch: gateFetch };
    const approver = new ApproverClient({ ...options, token: c.approver });
    const agent = new AgentClient({ ...options, token: c.agent });
    const seen: BoundEffect[] = [];
    const outcomes: unknown[] = [];
    const poller = new ProviderPoller({
      ...options,
      token: c.provider,
      providerId: PROVIDER,
      onEffect: (bound) => {
        seen.push(bound);
        return inlineResult([1, 2, 3], "application/octet-stream");
      },
      onOutcome: (outcome) => outcomes.push(outcome),
    });
    const key = {
      consumer_id: c.consumer,
      actor_id: "agent-1",
      instance_id: 7,
      generation: 1,
      provider_id: PROVIDER,
      capability_id: "browser.page.snapshot",
      resource_scope_id: "tab:1",
    };
    expect(await approver.authority({ "set-grant": { grant: { key, mode: "require-approval" } } })).toEqual({
      ok: true,
      value: { sequence: 1, outcome: "grant-set" },
    });
    expect(await poller.attach()).toEqual({
      ok: true,
      value: { provider_id: PROVIDER, binding_id: 1, lease_ms: 60000 },
    });
    const { request } = requestBody(1, T0 + 5000);
    expect(await agent.requestCapability("agent-1", request)).toEqual({
      ok: true,
      value: { request_key: requestKey(c.consumer, 1), accepted_sequence: 1, decision: "require-approval", tick: T0 },
    });
    expect(await poller.pollOnce(0)).toEqual({ ok: true, value: 0 });
    expect(await approver.resolveCapability(requestKey(c.consumer, 1), 1, 7, 1, "approve-once")).toEqual({
      ok: true,
      value: { sequence: 2, outcome: "approval-resolved" },
    });
    expect(await poller.pollOnce(0)).toEqual({ ok: true, value: 1 });
    expect(seen.map((b) => [b.binding_id, b.effect.operation_id, "invoke" in b.effect.effect])).toEqual([[1, 1, true]]);
    expect(outcomes).toEqual([
      { outcome: { "observation-applied": { operation_id: 1, request_key: requestKey(c.consumer, 1) } } },
    ]);
    const drained = await agent.drainCompletions();
    expect(drained.ok && drained.value.completions.map((x) => x.outcome)).toEqual([
      inlineResult([1, 2, 3], "application/octet-stream"),
    ]);
    expect(await poller.stop()).toEqual({ ok: true, value: { outcome: { detached: { closed_request_count: 0 } } } });
    const refused = await agent.requestCapability("agent-2", request);
    expect(refused).toEqual({
      ok: false,
      problem: { status: 403, code: "FORBIDDEN", detail: "This agent credential acts only as its own subject." },
    });
  });
});
