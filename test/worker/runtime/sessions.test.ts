/**
 * WebSocket sessions (provider and runtime sockets alike): revocation ends them at once, the
 * credential is re-checked on every message, sockets per credential, message size and rate.
 */
import { describe, expect, it } from "vitest";
import completedFixture from "../../../fixtures/execution/completed-event.v1.json?raw";
import { DEFAULT_LIMITS } from "../../../src/worker/kernel/limits";
import { judgeMessage, type RateWindow } from "../../../src/worker/features/sockets/sessions";
import {
  grant,
  PROVIDER,
  requestBody,
  setupCapabilityConsumer,
  T0,
  type CapabilityConsumer,
} from "../capability-support";
import { ADMIN_TOKEN, credential, pinClock, send, wipe } from "../../kit";
import { opened, providerUpgrade, runtimeUpgrade, type TestSocket } from "./socket-client";

type Json = Record<string, any>;

/** An event envelope (golden fixture) with its own id, as wire text. */
function event(eventId: string): string {
  const envelope = JSON.parse(completedFixture) as Json;
  envelope.payload.payload.event.id = eventId;
  return JSON.stringify(envelope);
}

/** A capability consumer (tools none, approver-1) with limit overrides. */
async function consumerWithLimits(consumer: string, limits: Record<string, number>): Promise<CapabilityConsumer> {
  await wipe(consumer);
  const c = await setupCapabilityConsumer(consumer);
  const put = await send("PUT", `/v1/consumers/${consumer}`, ADMIN_TOKEN, {
    tools: [],
    approver_subjects: ["approver-1"],
    limits,
  });
  expect(put.status).toBe(200);
  return c;
}

async function revoke(consumer: string, credentialId: string): Promise<void> {
  expect((await send("DELETE", `/v1/consumers/${consumer}/credentials/${credentialId}`, ADMIN_TOKEN)).status).toBe(204);
}

async function providerRuntime(c: CapabilityConsumer): Promise<unknown> {
  const res = await send("GET", `/v1/consumers/${c.consumer}/capability/snapshot`, c.auditor);
  expect(res.status).toBe(200);
  return ((await res.json()) as { provider_runtime: unknown }).provider_runtime;
}

/** Attaches the provider with a credential; answers the socket after its `attached` frame. */
async function attach(c: CapabilityConsumer, token: string, binding: number): Promise<TestSocket> {
  const socket = opened(await providerUpgrade(c.consumer, PROVIDER, token));
  expect(JSON.parse(await socket.next())).toEqual({ type: "attached", provider_id: PROVIDER, binding_id: binding });
  return socket;
}

describe("the per-message rules (judgeMessage)", () => {
  const limits = { ...DEFAULT_LIMITS, socket_message_bytes: 10, socket_messages_per_second: 2 };

  it("checks the credential, then the size, then a sliding one-second window", () => {
    const window: RateWindow = [];
    expect(judgeMessage(window, 1, false, limits, 0)).toEqual({
      admit: false,
      code: 1008,
      reason: "credential revoked",
    });
    expect(judgeMessage(window, 11, true, limits, 0)).toEqual({
      admit: false,
      code: 1009,
      reason: "message over 10 bytes",
    });
    expect(judgeMessage(window, 10, true, limits, 0)).toEqual({ admit: true });
    expect(judgeMessage(window, 10, true, limits, 500)).toEqual({ admit: true });
    expect(judgeMessage(window, 10, true, limits, 999)).toEqual({
      admit: false,
      code: 1008,
      reason: "over 2 messages per second",
    });
    // One second after the first message, its place is free again.
    expect(judgeMessage(window, 10, true, limits, 1000)).toEqual({ admit: true });
    expect(window).toEqual([500, 1000]);
  });
});

describe("revocation ends live sessions", () => {
  it("revoking closes the credential's provider and runtime sockets at once (1008); nothing more is delivered or accepted", async () => {
    const c = await consumerWithLimits("sess-revoke", {});
    await grant(c, "allow");
    const provider = await credential(c.consumer, "provider", PROVIDER);
    const doomedRuntime = await credential(c.consumer, "runtime");
    const liveRuntime = await credential(c.consumer, "runtime");
    const prov = await attach(c, provider.secret, 1);
    const doomed = opened(await runtimeUpgrade(c.consumer, doomedRuntime.secret));
    const live = opened(await runtimeUpgrade(c.consumer, liveRuntime.secret));

    await revoke(c.consumer, provider.id);
    await revoke(c.consumer, doomedRuntime.id);
    expect(await prov.closed).toBe(1008);
    expect(await doomed.closed).toBe(1008);
    // The provider's binding was detached with the revocation (lane: 1 attach, 2 detach), so no effect is routed to that socket.
    expect(await providerRuntime(c)).toEqual({ last_sequence: 2, sequence_exhausted: false, bindings: [] });

    // A request whose effect would have been pushed to the provider: the engine has no binding to route it to.
    const decided = await send(
      "POST",
      `/v1/consumers/${c.consumer}/capability/requests`,
      c.agent,
      requestBody(1, T0 + 5000),
    );
    expect(decided.status).toBe(409);
    expect(((await decided.json()) as Json).error).toEqual({ "provider-unavailable": { provider_id: PROVIDER } });
    // A new event reaches the live runtime socket only.
    const posted = await send(
      "POST",
      `/v1/consumers/${c.consumer}/runtime/envelopes`,
      liveRuntime.secret,
      JSON.parse(event("event-after-revoke")),
    );
    expect(posted.status).toBe(202);
    expect(await live.next()).toBe(event("event-after-revoke"));
    expect(await prov.drain()).toEqual([]);
    expect(await doomed.drain()).toEqual([]);

    // Whatever the revoked sockets still send is not accepted: the event is not stored.
    doomed.trySend(event("event-from-revoked"));
    prov.trySend('{"type":"ping"}');
    const fresh = opened(await runtimeUpgrade(c.consumer, liveRuntime.secret));
    expect(await fresh.drain()).toEqual([event("event-after-revoke")]);
    expect(await prov.drain()).toEqual([]);
    live.ws.close(1000, "done");
    fresh.ws.close(1000, "done");
  });

  it("re-checks the credential on every push and message: once it has expired, no effect is pushed and the next message closes the socket (1008) unhandled", async () => {
    const c = await consumerWithLimits("sess-expiry", {});
    const now = 1_800_000_000;
    await pinClock(c.consumer, now);
    const provider = await credential(c.consumer, "provider", PROVIDER, { expires_at: now + 60 });
    const expiring = await credential(c.consumer, "runtime", undefined, { expires_at: now + 60 });
    const observer = await credential(c.consumer, "runtime");
    const prov = await attach(c, provider.secret, 1);
    const rt = opened(await runtimeUpgrade(c.consumer, expiring.secret));
    prov.ws.send('{"type":"ping"}');
    expect(await prov.next()).toBe('{"type":"pong"}');

    await pinClock(c.consumer, now + 61);
    // An allowed request for the provider: its effect is not pushed to the expired credential's socket.
    await grant(c, "allow");
    const decided = await send(
      "POST",
      `/v1/consumers/${c.consumer}/capability/requests`,
      c.agent,
      requestBody(1, T0 + 5000),
    );
    expect(((await decided.json()) as Json).decision).toBe("allow");
    expect(await prov.drain()).toEqual([]);
    prov.ws.send('{"type":"ping"}');
    rt.ws.send(event("event-after-expiry"));
    expect(await prov.closed).toBe(1008);
    expect(await rt.closed).toBe(1008);
    expect(await prov.drain()).toEqual([]);
    const check = opened(await runtimeUpgrade(c.consumer, observer.secret));
    expect(await check.drain()).toEqual([]);
    check.ws.close(1000, "done");
  });
});

describe("sockets per credential", () => {
  const refusal = (n: number) => ({
    type: "https://toolgate.dev/problems/quota-exceeded",
    title: "Quota exceeded",
    status: 429,
    code: "QUOTA_EXCEEDED",
    detail: `This credential already holds ${n} open sockets; close one first.`,
  });

  it("refuses a runtime socket over the limit before the upgrade (429, Retry-After); other credentials and freed places are not affected", async () => {
    const c = await consumerWithLimits("sess-quota", { sockets_per_credential: 2 });
    const a = await credential(c.consumer, "runtime");
    const b = await credential(c.consumer, "runtime");
    const first = opened(await runtimeUpgrade(c.consumer, a.secret));
    const second = opened(await runtimeUpgrade(c.consumer, a.secret));
    const third = await runtimeUpgrade(c.consumer, a.secret);
    expect(third.status).toBe(429);
    if (!("response" in third)) throw new Error("expected a refusal");
    expect([third.response.headers.get("content-type"), third.response.headers.get("retry-after")]).toEqual([
      "application/problem+json",
      "5",
    ]);
    expect(await third.response.json()).toEqual(refusal(2));

    const other = opened(await runtimeUpgrade(c.consumer, b.secret));
    first.ws.close(1000, "done");
    expect(await first.closed).toBe(1000);
    let again = await runtimeUpgrade(c.consumer, a.secret);
    for (let i = 0; i < 20 && again.status === 429; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await runtimeUpgrade(c.consumer, a.secret);
    }
    expect(again.status).toBe(101);
    for (const s of [second, other, opened(again)]) s.ws.close(1000, "done");
  });

  it("refuses a provider socket over the limit before it attaches (no lane sequence burnt)", async () => {
    const c = await consumerWithLimits("sess-quota-p", { sockets_per_credential: 1 });
    const provider = await credential(c.consumer, "provider", PROVIDER);
    const socket = await attach(c, provider.secret, 1);
    const second = await providerUpgrade(c.consumer, PROVIDER, provider.secret);
    expect(second.status).toBe(429);
    if (!("response" in second)) throw new Error("expected a refusal");
    expect(await second.response.json()).toEqual(refusal(1));
    expect(await providerRuntime(c)).toEqual({
      last_sequence: 1,
      sequence_exhausted: false,
      bindings: [{ binding_id: 1, provider_id: PROVIDER }],
    });
    socket.ws.close(1000, "done");
  });
});

describe("message size and rate", () => {
  it("closes a socket whose message is over socket_message_bytes with 1009 (bytes, not characters); one at the limit is handled", async () => {
    const c = await consumerWithLimits("sess-size", { socket_message_bytes: 1024 });
    const runtime = await credential(c.consumer, "runtime");
    const provider = await credential(c.consumer, "provider", PROVIDER);
    const rt = opened(await runtimeUpgrade(c.consumer, runtime.secret));
    rt.ws.send(`{${" ".repeat(1023)}`);
    expect(JSON.parse(await rt.next()).code).toBe("INVALID_JSON");
    rt.ws.send(`{${" ".repeat(1024)}`);
    expect(await rt.closed).toBe(1009);

    const prov = await attach(c, provider.secret, 1);
    const ping = '{"type":"ping"}';
    prov.ws.send(ping + " ".repeat(1024 - ping.length));
    expect(await prov.next()).toBe('{"type":"pong"}');
    prov.ws.send("é".repeat(513));
    expect(await prov.closed).toBe(1009);
    expect(await prov.drain()).toEqual([]);
  });

  it("closes a socket that sends more than socket_messages_per_second with 1008; the messages before are handled", async () => {
    const c = await consumerWithLimits("sess-rate", { socket_messages_per_second: 5 });
    const runtime = await credential(c.consumer, "runtime");
    const provider = await credential(c.consumer, "provider", PROVIDER);
    const prov = await attach(c, provider.secret, 1);
    for (let i = 0; i < 6; i++) prov.ws.send('{"type":"ping"}');
    expect(await prov.closed).toBe(1008);
    expect(await prov.drain()).toEqual(Array.from({ length: 5 }, () => '{"type":"pong"}'));

    const rt = opened(await runtimeUpgrade(c.consumer, runtime.secret));
    // Each answer is awaited: an answer still being written when the socket closes is not sent.
    const codes: string[] = [];
    for (let i = 0; i < 5; i++) {
      rt.ws.send("{");
      codes.push((JSON.parse(await rt.next()) as Json).code);
    }
    expect(codes).toEqual(Array.from({ length: 5 }, () => "INVALID_JSON"));
    rt.ws.send("{");
    expect(await rt.closed).toBe(1008);
    expect(await rt.drain()).toEqual([]);
  });
});
