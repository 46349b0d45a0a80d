/** Shared setup of the capability route tests: a consumer with one browser provider and a grant. */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { ADMIN_TOKEN, createConsumer, credential, send } from "../kit";

/** The provider every capability test registers. */
export const PROVIDER = "browser-1";
/** The capability it offers. */
export const SNAPSHOT = "browser.page.snapshot";
/** The pinned object clock (ms) at the start of each test. */
export const T0 = 1_000_000;

/** Credentials of one capability consumer. */
export interface CapabilityConsumer {
  consumer: string;
  agent: string;
  approver: string;
  provider: string;
  auditor: string;
}

/** Pins the capability clock (milliseconds = ticks). */
export async function pinMillis(consumer: string, ms: number): Promise<void> {
  await runInDurableObject(env.CONSUMER.get(env.CONSUMER.idFromName(consumer)), (object) => {
    object.capability.pinnedMillis = ms;
  });
}

/** Creates the consumer, its credentials, the provider, instance 7 (generation 1) and pins the clock. */
export async function setupCapabilityConsumer(consumer: string): Promise<CapabilityConsumer> {
  await createConsumer(consumer, [], ["approver-1"]);
  await pinMillis(consumer, T0);
  const agent = await credential(consumer, "agent", "agent-1");
  const approver = await credential(consumer, "approver", "approver-1");
  const provider = await credential(consumer, "provider", PROVIDER);
  const auditor = await credential(consumer, "auditor");
  const descriptor = {
    id: PROVIDER,
    owner: { consumer },
    capabilities: [{ id: SNAPSHOT, class: "browser", description: "Read page state" }],
  };
  const registered = await send("POST", `/v1/consumers/${consumer}/capability/providers`, ADMIN_TOKEN, { descriptor });
  if (registered.status !== 201)
    throw new Error(`provider setup failed: ${registered.status} ${await registered.text()}`);
  const instance = await send("PUT", `/v1/consumers/${consumer}/capability/instances/7`, ADMIN_TOKEN, {
    generation: 1,
    state: "active",
  });
  if (instance.status !== 200) throw new Error(`instance setup failed: ${instance.status} ${await instance.text()}`);
  return {
    consumer,
    agent: agent.secret,
    approver: approver.secret,
    provider: provider.secret,
    auditor: auditor.secret,
  };
}

/** The policy key of the test grant. */
export function grantKey(consumer: string) {
  return {
    consumer_id: consumer,
    actor_id: "agent-1",
    instance_id: 7,
    generation: 1,
    provider_id: PROVIDER,
    capability_id: SNAPSHOT,
    resource_scope_id: "tab:1",
  };
}

/** Sets the test grant through the authority lane. */
export async function grant(c: CapabilityConsumer, mode: "allow" | "require-approval"): Promise<Response> {
  return send("POST", `/v1/consumers/${c.consumer}/capability/authority`, c.approver, {
    command: { "set-grant": { grant: { key: grantKey(c.consumer), mode } } },
  });
}

/** A capability request body of the agent. */
export function requestBody(localId: number, deadline: number) {
  return {
    actor_id: "agent-1",
    request: {
      local_id: localId,
      instance_id: 7,
      generation: 1,
      provider_id: PROVIDER,
      capability_id: SNAPSHOT,
      resource_scope_id: "tab:1",
      approval_summary: "Read the active tab",
      deadline_tick: deadline,
      payload: [123, 125],
    },
  };
}

/** The request key of the agent's request `localId`. */
export function requestKey(consumer: string, localId: number) {
  return { consumer_id: consumer, actor_id: "agent-1", local_id: localId };
}

/** A successful observation for a dispatched request. */
export function succeeded(consumer: string, operationId: number, localId: number) {
  return {
    operation_id: operationId,
    request_key: requestKey(consumer, localId),
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
}

/** The invoke effect the gate binds to the provider for request `localId`. */
export function invokeEffect(
  consumer: string,
  bindingId: number,
  sequence: number,
  operationId: number,
  localId: number,
  deadline: number,
) {
  return {
    binding_id: bindingId,
    effect: {
      sequence,
      operation_id: operationId,
      request_key: requestKey(consumer, localId),
      instance_id: 7,
      generation: 1,
      provider_id: PROVIDER,
      deadline_tick: deadline,
      effect: {
        invoke: {
          consumer_id: consumer,
          actor_id: "agent-1",
          capability_id: SNAPSHOT,
          resource_scope_id: "tab:1",
          payload: [123, 125],
        },
      },
    },
  };
}
