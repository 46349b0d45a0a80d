/**
 * A credential's scope on the capability plane: a scoped agent credential requests, reads and
 * drains only the capabilities its scope names (`capability:<capability_id>`); an unscoped one
 * keeps every capability.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createConsumer, credential, send, wipe } from "../../kit";
import { grantKey, pinMillis, PROVIDER, requestBody, requestKey, SNAPSHOT, T0 } from "../capability-support";

const C = "cap-scope";
const CLICK = "browser.page.click";
const BASE = `/v1/consumers/${C}/capability`;

let approver: string;

beforeEach(async () => {
  await wipe(C);
  await createConsumer(C, ["get_order"], ["approver-1"]);
  await pinMillis(C, T0);
  approver = (await credential(C, "approver", "approver-1")).secret;
  const provider = (await credential(C, "provider", PROVIDER)).secret;
  const capabilities = [SNAPSHOT, CLICK].map((id) => ({ id, class: "browser", description: id }));
  expect(
    (
      await send("POST", `${BASE}/providers`, ADMIN_TOKEN, {
        descriptor: { id: PROVIDER, owner: { consumer: C }, capabilities },
      })
    ).status,
  ).toBe(201);
  expect((await send("PUT", `${BASE}/instances/7`, ADMIN_TOKEN, { generation: 1, state: "active" })).status).toBe(200);
  expect((await send("POST", `${BASE}/providers/${PROVIDER}/attach`, provider)).status).toBe(200);
  for (const capability of [SNAPSHOT, CLICK]) {
    const set = await send("POST", `${BASE}/authority`, approver, {
      command: {
        "set-grant": { grant: { key: { ...grantKey(C), capability_id: capability }, mode: "require-approval" } },
      },
    });
    expect(set.status).toBe(200);
  }
});

/** Request `localId` of agent-1 for a capability. */
function requestFor(capability: string, localId: number) {
  const body = requestBody(localId, T0 + 60_000);
  return { ...body, request: { ...body.request, capability_id: capability } };
}

async function json(res: Response): Promise<{ status: number; body: Record<string, unknown> }> {
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const forbidden = (detail: string) => ({
  type: "https://toolgate.dev/problems/forbidden",
  title: "Forbidden",
  status: 403,
  code: "FORBIDDEN",
  detail,
});
const notFound = {
  type: "https://toolgate.dev/problems/not-found",
  title: "Not found",
  status: 404,
  code: "NOT_FOUND",
  detail: "No such capability request.",
};

function denied(localId: number, sequence: number) {
  return {
    sequence,
    accepted_sequence: localId,
    operation_id: null,
    request_key: requestKey(C, localId),
    instance_id: 7,
    generation: 1,
    provider_id: PROVIDER,
    outcome: "approval-denied",
  };
}

describe("capability requests and a credential's scope", () => {
  it("hole: a credential scoped to tools requests, reads and drains no capability; the refusal never says whether a capability exists", async () => {
    const toolsOnly = (await credential(C, "agent", "agent-1", { tools: ["get_order"] })).secret;
    const unscoped = (await credential(C, "agent", "agent-1")).secret;
    expect(await json(await send("POST", `${BASE}/requests`, toolsOnly, requestFor(SNAPSHOT, 1)))).toEqual({
      status: 403,
      body: forbidden(`This credential may not request the capability "${SNAPSHOT}".`),
    });
    expect(await json(await send("POST", `${BASE}/requests`, toolsOnly, requestFor("browser.none", 1)))).toEqual({
      status: 403,
      body: forbidden('This credential may not request the capability "browser.none".'),
    });
    // Nothing was accepted: the unscoped credential's request 1 is the first.
    expect(await json(await send("POST", `${BASE}/requests`, unscoped, requestFor(SNAPSHOT, 1)))).toEqual({
      status: 200,
      body: { request_key: requestKey(C, 1), accepted_sequence: 1, decision: "require-approval", tick: T0 },
    });
    expect(await json(await send("GET", `${BASE}/requests/agent-1/1`, toolsOnly))).toEqual({
      status: 404,
      body: notFound,
    });
    expect((await send("GET", `${BASE}/requests/agent-1/1`, unscoped)).status).toBe(200);
    expect(await json(await send("POST", `${BASE}/completions/drain`, toolsOnly))).toEqual({
      status: 403,
      body: forbidden("This credential's scope names no capability."),
    });
  });

  it("hole: a credential scoped to one capability requests only it, and drains only its completions; the others stay", async () => {
    const snapshotOnly = (await credential(C, "agent", undefined, { tools: [`capability:${SNAPSHOT}`] })).secret;
    const unscoped = (await credential(C, "agent", "agent-1")).secret;
    expect((await json(await send("POST", `${BASE}/requests`, snapshotOnly, requestFor(SNAPSHOT, 1)))).status).toBe(
      200,
    );
    expect(await json(await send("POST", `${BASE}/requests`, snapshotOnly, requestFor(CLICK, 2)))).toEqual({
      status: 403,
      body: forbidden(`This credential may not request the capability "${CLICK}".`),
    });
    expect((await json(await send("POST", `${BASE}/requests`, unscoped, requestFor(CLICK, 2)))).status).toBe(200);
    for (const localId of [1, 2]) {
      const resolution = {
        request_key: requestKey(C, localId),
        accepted_sequence: localId,
        instance_id: 7,
        generation: 1,
        decision: "deny",
      };
      expect(
        (await send("POST", `${BASE}/authority`, approver, { command: { "resolve-approval": { resolution } } })).status,
      ).toBe(200);
    }
    expect((await send("GET", `${BASE}/requests/agent-1/2`, snapshotOnly)).status).toBe(404);
    expect((await send("GET", `${BASE}/requests/agent-1/1`, snapshotOnly)).status).toBe(200);
    const batch = (completions: unknown[]) => ({
      completions,
      dropped_since_last_drain: 0,
      total_dropped: 0,
      next_sequence: 3,
      sequence_exhausted: false,
    });
    const drain = `${BASE}/completions/drain?actor_id=agent-1`;
    expect(await json(await send("POST", drain, snapshotOnly))).toEqual({ status: 200, body: batch([denied(1, 1)]) });
    expect(await json(await send("POST", drain, snapshotOnly))).toEqual({ status: 200, body: batch([]) });
    expect(await json(await send("POST", drain, unscoped))).toEqual({ status: 200, body: batch([denied(2, 2)]) });
  });

  it("files a completion under its capability even when the step that ends its request also evicts the request's record", async () => {
    const snapshotOnly = (await credential(C, "agent", undefined, { tools: [`capability:${SNAPSHOT}`] })).secret;
    const unscoped = (await credential(C, "agent")).secret;
    // agent-1's request 1 waits for approval until T0 + 10; 511 requests of an actor with no grant
    // (denied at once, so no per-client cap) fill the engine's request table (TOOL_REQUESTS_MAX, 512).
    const first = requestFor(SNAPSHOT, 1);
    first.request.deadline_tick = T0 + 10;
    expect((await send("POST", `${BASE}/requests`, unscoped, first)).status).toBe(200);
    const filled = await runInDurableObject(env.CONSUMER.get(env.CONSUMER.idFromName(C)), async (object, state) => {
      const host = object.capability;
      const size = host.timed((engine) => {
        const binding = host.bindingOf(engine, PROVIDER);
        for (let localId = 2n; localId <= 512n; localId++) {
          const input = {
            ...requestFor(SNAPSHOT, 0).request,
            local_id: localId,
            instance_id: 7n,
            generation: 1n,
            deadline_tick: BigInt(T0 + 60_000),
          };
          host.apply(engine, {
            "bound-request": {
              provider_binding_id: binding,
              request: { consumer_id: C, actor_id: "filler", request: input },
            },
          });
        }
        return engine.requests.length;
      });
      // The next request arrives before the alarm of request 1's deadline has run.
      await state.storage.deleteAlarm();
      return size;
    });
    expect(filled).toBe(512);
    // One step: the clock expires request 1, and request 513 takes the place of its (terminal) record.
    await pinMillis(C, T0 + 10);
    expect((await json(await send("POST", `${BASE}/requests`, unscoped, requestFor(SNAPSHOT, 513)))).status).toBe(200);
    const drained = await json(await send("POST", `${BASE}/completions/drain?actor_id=agent-1`, snapshotOnly));
    const completions = drained.body.completions as Array<{
      request_key: { local_id: number };
      outcome: Record<string, unknown>;
    }>;
    expect([drained.status, completions.map((c) => [c.request_key.local_id, Object.keys(c.outcome)])]).toEqual([
      200,
      [[1, ["timed-out"]]],
    ]);
  });
});
