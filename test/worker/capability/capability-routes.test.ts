import { env } from "cloudflare:workers";
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeState } from "../../../src/core/capability";
import { ADMIN_TOKEN, send, wipe } from "../../kit";
import {
  grant,
  invokeEffect,
  pinMillis,
  PROVIDER,
  requestBody,
  requestKey,
  setupCapabilityConsumer,
  succeeded,
  T0,
  type CapabilityConsumer,
} from "../capability-support";

const base = (c: CapabilityConsumer) => `/v1/consumers/${c.consumer}/capability`;

async function json(res: Response): Promise<{ status: number; body: unknown }> {
  return { status: res.status, body: await res.json() };
}

describe("capability routes (long-poll provider, agent, approver, auditor)", () => {
  let c: CapabilityConsumer;
  beforeAll(async () => {
    await wipe("cap-http");
    c = await setupCapabilityConsumer("cap-http");
  });

  it("refuses a provider registration by a non-admin credential, and the forbidden namespaces", async () => {
    const descriptor = {
      id: "shell-1",
      owner: "gate",
      capabilities: [{ id: "shell.exec", class: "browser", description: "x" }],
    };
    const byAgent = await send("POST", `${base(c)}/providers`, c.agent, { descriptor });
    expect(byAgent.status).toBe(403);
    const refused = await json(await send("POST", `${base(c)}/providers`, ADMIN_TOKEN, { descriptor }));
    expect(refused.status).toBe(422);
    expect((refused.body as { code: string; detail: string }).code).toBe("CAPABILITY_INVALID");
    expect((refused.body as { error: unknown }).error).toEqual({
      validation: { "capability-outside-admission": { capability_id: "shell.exec" } },
    });
  });

  it("sets a grant, refuses a request while the provider is detached, then runs effect → observation → completion", async () => {
    expect(await json(await grant(c, "allow"))).toEqual({ status: 200, body: { sequence: 1, outcome: "grant-set" } });
    const unavailable = await json(await send("POST", `${base(c)}/requests`, c.agent, requestBody(1, T0 + 5000)));
    expect(unavailable.status).toBe(409);
    expect((unavailable.body as { error: unknown }).error).toEqual({
      "provider-unavailable": { provider_id: PROVIDER },
    });

    const attached = await json(await send("POST", `${base(c)}/providers/${PROVIDER}/attach`, c.provider));
    expect(attached).toEqual({ status: 200, body: { provider_id: PROVIDER, binding_id: 1, lease_ms: 60000 } });

    const decided = await json(await send("POST", `${base(c)}/requests`, c.agent, requestBody(1, T0 + 5000)));
    expect(decided).toEqual({
      status: 200,
      body: { request_key: requestKey(c.consumer, 1), accepted_sequence: 1, decision: "allow", tick: T0 },
    });

    const effects = await json(
      await send("GET", `${base(c)}/providers/${PROVIDER}/effects?binding_id=1&wait=0`, c.provider),
    );
    expect(effects).toEqual({ status: 200, body: { effects: [invokeEffect(c.consumer, 1, 1, 1, 1, T0 + 5000)] } });
    const acked = await json(
      await send("GET", `${base(c)}/providers/${PROVIDER}/effects?binding_id=1&after=1&wait=0`, c.provider),
    );
    expect(acked).toEqual({ status: 200, body: { effects: [] } });

    const observed = await json(
      await send("POST", `${base(c)}/providers/${PROVIDER}/observations`, c.provider, {
        binding_id: 1,
        observation: succeeded(c.consumer, 1, 1),
      }),
    );
    expect(observed).toEqual({
      status: 200,
      body: { outcome: { "observation-applied": { operation_id: 1, request_key: requestKey(c.consumer, 1) } } },
    });

    const drained = await json(await send("POST", `${base(c)}/completions/drain`, c.agent));
    expect(drained).toEqual({
      status: 200,
      body: {
        completions: [
          {
            sequence: 1,
            accepted_sequence: 1,
            operation_id: 1,
            request_key: requestKey(c.consumer, 1),
            instance_id: 7,
            generation: 1,
            provider_id: PROVIDER,
            outcome: succeeded(c.consumer, 1, 1).observation,
          },
        ],
        dropped_since_last_drain: 0,
        total_dropped: 0,
        next_sequence: 2,
        sequence_exhausted: false,
      },
    });
    const status = await json(await send("GET", `${base(c)}/requests/agent-1/1`, c.agent));
    expect((status.body as { request: { status: unknown } }).request.status).toEqual({
      succeeded: {
        operation_id: 1,
        result: { byte_len: 2, media_type: "application/json", truncated: false, redacted_summary: null },
      },
    });
  });

  it("joins the engine's audit events to the consumer's chain, which still verifies", async () => {
    const page = (await (await send("GET", `/v1/consumers/${c.consumer}/audit?limit=100`, c.auditor)).json()) as {
      entries: { kind: string }[];
    };
    expect(page.entries.map((e) => e.kind).filter((k) => k.startsWith("capability."))).toEqual([
      "capability.provider-registered",
      "capability.generation-advanced",
      "capability.grant-set",
      "capability.request-evaluated",
      "capability.invocation-dispatched",
      "capability.invocation-succeeded",
    ]);
    expect(await (await send("GET", `/v1/consumers/${c.consumer}/audit/verify`, c.auditor)).json()).toEqual({
      ok: true,
      count: page.entries.length,
      head: expect.stringMatching(/^[0-9a-f]{64}$/),
      broken_at: null,
      next_cursor: null,
    });
  });

  it("routes approvals through the authority lane (approver lists, approves once; the effect follows)", async () => {
    expect((await json(await grant(c, "require-approval"))).body).toEqual({ sequence: 2, outcome: "grant-set" });
    const decided = await json(await send("POST", `${base(c)}/requests`, c.agent, requestBody(2, T0 + 5000)));
    expect(decided.body).toEqual({
      request_key: requestKey(c.consumer, 2),
      accepted_sequence: 2,
      decision: "require-approval",
      tick: T0,
    });
    const listed = (await json(await send("GET", `${base(c)}/approvals`, c.approver))).body as {
      approvals: { key: unknown; status: unknown }[];
      last_authority_sequence: number;
    };
    expect(listed.approvals.map((a) => [a.key, a.status])).toEqual([[requestKey(c.consumer, 2), "awaiting-approval"]]);
    expect(listed.last_authority_sequence).toBe(2);
    const resolution = {
      request_key: requestKey(c.consumer, 2),
      accepted_sequence: 2,
      instance_id: 7,
      generation: 1,
      decision: "approve-once",
    };
    const byAgent = await send("POST", `${base(c)}/authority`, c.agent, {
      command: { "resolve-approval": { resolution } },
    });
    expect(byAgent.status).toBe(403);
    const resolved = await json(
      await send("POST", `${base(c)}/authority`, c.approver, {
        sequence: 10,
        command: { "resolve-approval": { resolution } },
      }),
    );
    expect(resolved).toEqual({ status: 200, body: { sequence: 10, outcome: "approval-resolved" } });
    const replay = await json(
      await send("POST", `${base(c)}/authority`, c.approver, {
        sequence: 10,
        command: { "resolve-approval": { resolution } },
      }),
    );
    expect(replay.status).toBe(409);
    expect((replay.body as { error: unknown }).error).toEqual({
      "authority-sequence-regressed": { current: 10, requested: 10 },
    });
    const effects = await json(
      await send("GET", `${base(c)}/providers/${PROVIDER}/effects?binding_id=1&wait=0`, c.provider),
    );
    expect(effects.body).toEqual({ effects: [invokeEffect(c.consumer, 1, 2, 2, 2, T0 + 5000)] });
  });

  it("keeps requests, leases and queued effects across a restart", async () => {
    const before = await (await send("GET", `${base(c)}/snapshot`, c.auditor)).text();
    await abortAllDurableObjects();
    await pinMillis(c.consumer, T0);
    expect(await (await send("GET", `${base(c)}/snapshot`, c.auditor)).text()).toBe(before);
    const effects = await json(
      await send("GET", `${base(c)}/providers/${PROVIDER}/effects?binding_id=1&wait=0`, c.provider),
    );
    expect(effects.body).toEqual({ effects: [invokeEffect(c.consumer, 1, 2, 2, 2, T0 + 5000)] });
  });

  it("expires deadlines from the alarm, and a second alarm run changes nothing", async () => {
    const stub = () => env.CONSUMER.get(env.CONSUMER.idFromName(c.consumer));
    await pinMillis(c.consumer, T0 + 6000);
    expect(await runDurableObjectAlarm(stub())).toBe(true);
    const once = await runInDurableObject(stub(), (object) => encodeState(object.capability.peek()));
    await runInDurableObject(stub(), (object) => object.alarm());
    const twice = await runInDurableObject(stub(), (object) => encodeState(object.capability.peek()));
    expect(twice).toBe(once);
    const drained = (await json(await send("POST", `${base(c)}/completions/drain`, c.agent))).body as {
      completions: { request_key: unknown; outcome: unknown }[];
    };
    expect(drained.completions.map((x) => [x.request_key, x.outcome])).toEqual([
      [requestKey(c.consumer, 2), { "timed-out": { cancellation: "cancel-queued-unconfirmed" } }],
    ]);
    // The provider had already taken the invoke, so the timeout queued a cancel for it.
    const effects = (
      await json(await send("GET", `${base(c)}/providers/${PROVIDER}/effects?binding_id=1&after=2&wait=0`, c.provider))
    ).body as { effects: unknown[] };
    expect(effects.effects).toEqual([
      {
        binding_id: 1,
        effect: {
          ...invokeEffect(c.consumer, 1, 3, 2, 2, T0 + 5000).effect,
          effect: { cancel: { reason: "deadline-elapsed" } },
        },
      },
    ]);
  });

  it("long-poll waits for an effect that arrives while it waits", async () => {
    await pinMillis(c.consumer, T0 + 7000);
    await grant(c, "allow");
    const poll = send("GET", `${base(c)}/providers/${PROVIDER}/effects?binding_id=1&after=3&wait=5000`, c.provider);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await send("POST", `${base(c)}/requests`, c.agent, requestBody(3, T0 + 20000));
    const effects = (await json(await poll)).body as { effects: { effect: { request_key: unknown } }[] };
    expect(effects.effects.map((e) => e.effect.request_key)).toEqual([requestKey(c.consumer, 3)]);
  });

  it("detaches a long-poll provider whose lease ran out, at the alarm", async () => {
    // The last poll (at T0 + 7000) renewed the lease until T0 + 67000; request 3 expires at T0 + 20000.
    await pinMillis(c.consumer, T0 + 70000);
    expect(await runDurableObjectAlarm(env.CONSUMER.get(env.CONSUMER.idFromName(c.consumer)))).toBe(true);
    const snapshot = (await json(await send("GET", `${base(c)}/snapshot`, c.auditor))).body as {
      provider_runtime: { bindings: unknown[] };
    };
    expect(snapshot.provider_runtime.bindings).toEqual([]);
    const drained = (await json(await send("POST", `${base(c)}/completions/drain`, c.agent))).body as {
      completions: { request_key: unknown; outcome: unknown }[];
    };
    expect(drained.completions.map((x) => [x.request_key, x.outcome])).toEqual([
      [requestKey(c.consumer, 3), { "timed-out": { cancellation: "cancel-queued-unconfirmed" } }],
    ]);
    const poll = await json(
      await send("GET", `${base(c)}/providers/${PROVIDER}/effects?binding_id=1&wait=0`, c.provider),
    );
    expect([poll.status, (poll.body as { error: unknown }).error]).toEqual([
      409,
      { "not-attached": { provider_id: PROVIDER } },
    ]);
  });

  it("answers problem+json for bad input and hides foreign consumers", async () => {
    const bad = await send("GET", `${base(c)}/providers/${PROVIDER}/effects?binding_id=x`, c.provider);
    expect([bad.status, bad.headers.get("content-type")]).toEqual([400, "application/problem+json"]);
    const other = await send("GET", `/v1/consumers/cap-nobody/capability/snapshot`, c.auditor);
    expect(other.status).toBe(401);
    const openapi = (await (await send("GET", "/v1/openapi.json", null)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths).filter((p) => p.includes("/capability/")).length).toBe(13);
  });
});
