import { abortAllDurableObjects } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { gateFetch, send, wipe } from "../../kit";
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

function connect(consumer: string, token: string): Promise<Response> {
  return gateFetch(
    new Request(`http://gate/v1/consumers/${consumer}/capability/providers/${PROVIDER}/connect`, {
      headers: { upgrade: "websocket", "sec-websocket-protocol": `toolgate-provider-v1, bearer.${token}` },
    }),
  );
}

/** Collects a socket's text frames and hands them out in order. */
function inbox(ws: WebSocket): () => Promise<unknown> {
  const frames: unknown[] = [];
  const waiting: ((frame: unknown) => void)[] = [];
  ws.addEventListener("message", (event) => {
    const frame = JSON.parse(event.data as string) as unknown;
    const next = waiting.shift();
    if (next === undefined) frames.push(frame);
    else next(frame);
  });
  return () =>
    frames.length > 0
      ? Promise.resolve(frames.shift())
      : new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error("no frame within 10 s")), 10_000);
          waiting.push((frame) => {
            clearTimeout(timer);
            resolve(frame);
          });
        });
}

describe("provider WebSocket (hibernation API)", () => {
  let c: CapabilityConsumer;
  let ws: WebSocket;
  let next: () => Promise<unknown>;
  const base = () => `/v1/consumers/${c.consumer}/capability`;

  beforeAll(async () => {
    await wipe("cap-ws");
    c = await setupCapabilityConsumer("cap-ws");
    await grant(c, "allow");
  });

  it("refuses a connect without the upgrade, or with a credential of another kind", async () => {
    const plain = await send("GET", `${base()}/providers/${PROVIDER}/connect`, c.provider);
    expect(plain.status).toBe(426);
    expect((await connect(c.consumer, c.agent)).status).toBe(403);
    expect((await connect(c.consumer, "tg_provider_nonsense")).status).toBe(401);
  });

  it("attaches on connect, selects the subprotocol and says so", async () => {
    const res = await connect(c.consumer, c.provider);
    expect([res.status, res.headers.get("sec-websocket-protocol")]).toEqual([101, "toolgate-provider-v1"]);
    ws = res.webSocket as WebSocket;
    ws.accept();
    next = inbox(ws);
    expect(await next()).toEqual({ type: "attached", provider_id: PROVIDER, binding_id: 1 });
    const again = await connect(c.consumer, c.provider);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: unknown }).error).toEqual({
      "already-attached": { provider_id: PROVIDER, binding_id: 1 },
    });
  });

  it("pushes the effect of an allowed request and applies the observation sent back", async () => {
    const decided = await send("POST", `${base()}/requests`, c.agent, requestBody(1, T0 + 5000));
    expect(((await decided.json()) as { decision: unknown }).decision).toBe("allow");
    expect(await next()).toEqual({ type: "effect", envelope: invokeEffect(c.consumer, 1, 1, 1, 1, T0 + 5000) });
    ws.send(JSON.stringify({ type: "observation", id: 7, observation: succeeded(c.consumer, 1, 1) }));
    expect(await next()).toEqual({
      type: "observation-outcome",
      id: 7,
      result: { Ok: { "observation-applied": { operation_id: 1, request_key: requestKey(c.consumer, 1) } } },
    });
    const drained = (await (await send("POST", `${base()}/completions/drain`, c.agent)).json()) as {
      completions: { outcome: unknown }[];
    };
    expect(drained.completions.map((x) => x.outcome)).toEqual([succeeded(c.consumer, 1, 1).observation]);
  });

  it("answers pings and refuses malformed frames without closing", async () => {
    ws.send('{"type":"ping"}');
    expect(await next()).toEqual({ type: "pong" });
    ws.send('{"type":"ping","type":"ping"}');
    expect(await next()).toEqual({
      type: "error",
      code: "INVALID_JSON",
      detail: "JSON_DUPLICATE_KEY: JSON contains a duplicate field: type (at offset 21)",
    });
  });

  it("detaches on close: the request in flight ends as provider-detached", async () => {
    await send("POST", `${base()}/requests`, c.agent, requestBody(2, T0 + 5000));
    expect(await next()).toEqual({ type: "effect", envelope: invokeEffect(c.consumer, 1, 2, 2, 2, T0 + 5000) });
    ws.close(1000, "bye");
    let outcomes: unknown[] = [];
    for (let i = 0; i < 50 && outcomes.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const drained = (await (await send("POST", `${base()}/completions/drain`, c.agent)).json()) as {
        completions: { request_key: unknown; outcome: unknown }[];
      };
      outcomes = drained.completions.map((x) => [x.request_key, x.outcome]);
    }
    expect(outcomes).toEqual([
      [requestKey(c.consumer, 2), { "provider-detached": { cancellation: "provider-detached-unconfirmed" } }],
    ]);
    const snapshot = (await (await send("GET", `${base()}/snapshot`, c.auditor)).json()) as {
      provider_runtime: unknown;
    };
    // Lane sequences: 1 attach, 2 the refused second attach (consumed, as in the kernel), 3 observe, 4 detach.
    expect(snapshot.provider_runtime).toEqual({ last_sequence: 4, sequence_exhausted: false, bindings: [] });
  });

  it("after a restart, a binding whose socket is gone is detached and its request ends provider-detached", async () => {
    const res = await connect(c.consumer, c.provider);
    const socket = res.webSocket as WebSocket;
    socket.accept();
    const frames = inbox(socket);
    expect(await frames()).toEqual({ type: "attached", provider_id: PROVIDER, binding_id: 5 });
    await send("POST", `${base()}/requests`, c.agent, requestBody(3, T0 + 5000));
    expect(await frames()).toEqual({ type: "effect", envelope: invokeEffect(c.consumer, 5, 3, 3, 3, T0 + 5000) });
    await abortAllDurableObjects();
    await pinMillis(c.consumer, T0);
    const drained = (await (await send("POST", `${base()}/completions/drain`, c.agent)).json()) as {
      completions: { request_key: unknown; outcome: unknown }[];
    };
    expect(drained.completions.map((x) => [x.request_key, x.outcome])).toEqual([
      [requestKey(c.consumer, 3), { "provider-detached": { cancellation: "provider-detached-unconfirmed" } }],
    ]);
  });
});
