/** The runtime transport: codec refusals, authentication, event outbox (HTTP and WebSocket), checkpoint purge. */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import completedFixture from "../../../fixtures/execution/completed-event.v1.json?raw";
import enqueueFixture from "../../../fixtures/execution/enqueue.v1.json?raw";
import eventAckFixture from "../../../fixtures/execution/event-ack.v1.json?raw";
import failedFixture from "../../../fixtures/execution/failed-event.v1.json?raw";
import interactionFixture from "../../../fixtures/execution/interaction-required-event.v1.json?raw";
import prepareFixture from "../../../fixtures/execution/app-facade-prepare.v1.json?raw";
import purgeFixture from "../../../fixtures/execution/checkpoint-purge.v1.json?raw";
import { ADMIN_TOKEN, createConsumer, credential, gate, pinClock, send, wipe } from "../../kit";

const CONSUMER = "rt-transport";
const T0 = 1_800_000_000;
const ENVELOPES = `/v1/consumers/${CONSUMER}/runtime/envelopes`;
const CONNECT = `/v1/consumers/${CONSUMER}/runtime/connect`;

type Json = Record<string, any>;

let runtime: { id: string; secret: string };
let agent: string;

beforeEach(async () => {
  await wipe(CONSUMER);
  await createConsumer(CONSUMER, ["get_order"], []);
  await pinClock(CONSUMER, T0);
  runtime = await credential(CONSUMER, "runtime");
  agent = (await credential(CONSUMER, "agent")).secret;
});

function fixture(text: string): Json {
  return JSON.parse(text) as Json;
}

/** An event envelope from a golden fixture with its own event id. */
function event(text: string, eventId: string): Json {
  const envelope = fixture(text);
  envelope.payload.payload.event.id = eventId;
  return envelope;
}

function ack(eventId: string): Json {
  const envelope = fixture(eventAckFixture);
  envelope.payload.payload.event_id = eventId;
  return envelope;
}

/** Canonical wire text of an envelope built from a fixture (compact, fixture key order; the fixtures hold no f64). */
function wire(envelope: Json): string {
  return JSON.stringify(envelope);
}

async function postRaw(
  body: string,
  token: string | null = runtime.secret,
  contentType = "application/json",
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": contentType };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return gate(ENVELOPES, { method: "POST", headers, body });
}

/** A connected test WebSocket with a message queue. */
interface Socket {
  ws: WebSocket;
  next(): Promise<string>;
  /** The next message if one arrives within `ms`, else "none" (leaves no waiter behind). */
  poll(ms?: number): Promise<string>;
  closed: Promise<number>;
}

async function connect(token = runtime.secret): Promise<Socket> {
  const res = await gate(CONNECT, { headers: { upgrade: "websocket", authorization: `Bearer ${token}` } });
  expect(res.status).toBe(101);
  const ws = res.webSocket;
  if (ws === null) throw new Error("no WebSocket in the 101 answer");
  const queue: string[] = [];
  const waiters: Array<(text: string) => void> = [];
  let onClose: (code: number) => void = () => {};
  const closed = new Promise<number>((resolve) => (onClose = resolve));
  ws.addEventListener("message", (e) => {
    const text = typeof e.data === "string" ? e.data : "<binary>";
    const waiter = waiters.shift();
    if (waiter === undefined) queue.push(text);
    else waiter(text);
  });
  ws.addEventListener("close", (e) => onClose(e.code));
  ws.accept();
  return {
    ws,
    closed,
    poll: async (ms = 300) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return queue.shift() ?? "none";
    },
    next: () => {
      const queued = queue.shift();
      if (queued !== undefined) return Promise.resolve(queued);
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no message within 10 s")), 10_000);
        waiters.push((text) => {
          clearTimeout(timer);
          resolve(text);
        });
      });
    },
  };
}

/** The next message, or "none" when nothing arrives within a moment. */
function nextOrNone(socket: Socket): Promise<string> {
  return socket.poll();
}

const UNAUTHENTICATED = {
  type: "https://toolgate.dev/problems/unauthenticated",
  title: "Unauthorized",
  status: 401,
  code: "UNAUTHENTICATED",
  detail: "Missing or invalid credential.",
};

const FORBIDDEN_AGENT = {
  type: "https://toolgate.dev/problems/forbidden",
  title: "Forbidden",
  status: 403,
  code: "FORBIDDEN",
  detail: "A agent credential may not call this route.",
};

describe("codec refusals over HTTP", () => {
  it("maps every codec error to its 4xx problem with the codec's code", async () => {
    const unknown = fixture(eventAckFixture);
    unknown.metadata.unexpected = true;
    const version = fixture(eventAckFixture);
    version.metadata.version = 2;
    const blank = fixture(eventAckFixture);
    blank.metadata.message_id = "  ";
    const binding = fixture(eventAckFixture);
    binding.payload.payload.checkpoint.sha256 = "A".repeat(64);
    const cases: Array<[string, number, Json]> = [
      [
        "{",
        400,
        {
          code: "INVALID_JSON",
          title: "Request body is not strict JSON",
          type: "https://toolgate.dev/problems/invalid-json",
        },
      ],
      [
        wire(unknown),
        422,
        {
          code: "UNKNOWN_FIELD",
          path: "metadata.unexpected",
          detail: "unknown protocol field: metadata.unexpected",
          type: "https://toolgate.dev/problems/unknown-field",
        },
      ],
      [wire(version), 422, { code: "UNSUPPORTED_VERSION", detail: "unsupported protocol version 2" }],
      [wire(blank), 422, { code: "MISSING_IDENTIFIER", detail: "missing required identifier: message_id" }],
      [
        wire(binding),
        422,
        { code: "INVALID_BINDING", detail: "invalid command binding: checkpoint reference is invalid" },
      ],
    ];
    for (const [body, status, expected] of cases) {
      const res = await postRaw(body);
      expect(res.status).toBe(status);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      const problem = (await res.json()) as Json;
      expect(problem.status).toBe(status);
      for (const [key, value] of Object.entries(expected)) expect([key, problem[key]]).toEqual([key, value]);
      expect(Object.hasOwn(problem, "path")).toBe(expected.code === "UNKNOWN_FIELD");
    }
  });

  it("refuses an invalid_json shape error and keeps the path only for unknown_field", async () => {
    const missing = fixture(eventAckFixture);
    delete missing.payload.payload.event_id;
    const res = await postRaw(wire(missing));
    expect(res.status).toBe(400);
    const problem = (await res.json()) as Json;
    expect(problem.code).toBe("INVALID_JSON");
    expect(Object.hasOwn(problem, "path")).toBe(false);
  });

  it("refuses families the gate does not serve, and bodies that are not application/json", async () => {
    const res = await postRaw(enqueueFixture);
    expect(res.status).toBe(422);
    expect(((await res.json()) as Json).code).toBe("UNSUPPORTED_FAMILY");
    const media = await postRaw(eventAckFixture, runtime.secret, "text/plain");
    expect(media.status).toBe(415);
    expect(((await media.json()) as Json).code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });
});

describe("authentication", () => {
  it("refuses an agent credential (403) and a missing one (401) on both runtime routes, with the standard bodies", async () => {
    const asAgent = await postRaw(eventAckFixture, agent);
    expect(asAgent.status).toBe(403);
    expect(await asAgent.json()).toEqual(FORBIDDEN_AGENT);
    const anonymous = await postRaw(eventAckFixture, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="toolgate"');
    expect(await anonymous.json()).toEqual(UNAUTHENTICATED);

    const wsAgent = await gate(CONNECT, { headers: { upgrade: "websocket", authorization: `Bearer ${agent}` } });
    expect(wsAgent.status).toBe(403);
    expect(await wsAgent.json()).toEqual(FORBIDDEN_AGENT);
    const wsAnonymous = await gate(CONNECT, { headers: { upgrade: "websocket" } });
    expect(wsAnonymous.status).toBe(401);
    expect(await wsAnonymous.json()).toEqual(UNAUTHENTICATED);
    const noUpgrade = await gate(CONNECT, { headers: { authorization: `Bearer ${runtime.secret}` } });
    expect(noUpgrade.status).toBe(426);
    expect(((await noUpgrade.json()) as Json).code).toBe("UPGRADE_REQUIRED");
  });

  it("a revoked credential is refused over HTTP and its open socket is closed at once (1008)", async () => {
    const socket = await connect();
    const revoked = await send("DELETE", `/v1/consumers/${CONSUMER}/credentials/${runtime.id}`, ADMIN_TOKEN);
    expect(revoked.status).toBe(204);
    expect(await socket.closed).toBe(1008);
    const res = await postRaw(eventAckFixture);
    expect(res.status).toBe(401);
  });
});

describe("event outbox", () => {
  it("keeps events until acked and re-sends the unacked ones in order on every connect", async () => {
    const a = event(completedFixture, "event-a");
    const b = event(failedFixture, "event-b");
    const c = event(interactionFixture, "event-c");
    for (const envelope of [a, b, c]) {
      const res = await postRaw(wire(envelope));
      expect(res.status).toBe(202);
      expect(await res.text()).toBe("");
    }
    // A duplicate event id keeps its first place and is not stored twice.
    expect((await postRaw(wire(a))).status).toBe(202);

    const first = await connect();
    expect([await first.next(), await first.next(), await first.next()]).toEqual([wire(a), wire(b), wire(c)]);
    expect(await nextOrNone(first)).toBe("none");
    // An ack over the socket clears its event and answers nothing.
    first.ws.send(wire(ack("event-b")));
    expect(await nextOrNone(first)).toBe("none");
    first.ws.close(1000, "done");

    const second = await connect();
    expect([await second.next(), await second.next()]).toEqual([wire(a), wire(c)]);
    expect(await nextOrNone(second)).toBe("none");
    second.ws.close(1000, "done");

    // Acks over HTTP; an ack of an unknown (or already acked) event is a no-op.
    for (const id of ["event-a", "event-c", "event-unknown", "event-b"]) {
      const res = await postRaw(wire(ack(id)));
      expect(res.status).toBe(202);
    }
    const third = await connect();
    expect(await nextOrNone(third)).toBe("none");
    third.ws.close(1000, "done");
  });

  it("keeps unacknowledged events across a restart of the consumer's object", async () => {
    const kept = event(completedFixture, "event-kept");
    expect((await postRaw(wire(kept))).status).toBe(202);
    await abortAllDurableObjects();
    const socket = await connect();
    expect(await socket.next()).toBe(wire(kept));
    expect(await nextOrNone(socket)).toBe("none");
    socket.ws.close(1000, "done");
  });

  it("delivers a new event live to connected sockets but never back to its sender", async () => {
    const listener = await connect();
    const sender = await connect();
    const live = event(completedFixture, "event-live");
    sender.ws.send(wire(live));
    expect(await listener.next()).toBe(wire(live));
    expect(await nextOrNone(sender)).toBe("none");
    const viaHttp = event(failedFixture, "event-http");
    expect((await postRaw(wire(viaHttp))).status).toBe(202);
    expect(await listener.next()).toBe(wire(viaHttp));
    expect(await sender.next()).toBe(wire(viaHttp));
    listener.ws.close(1000, "done");
    sender.ws.close(1000, "done");
  });
});

describe("WebSocket envelopes", () => {
  it("answers a facade request with an envelope and a refused message with a problem object", async () => {
    const put = await send("PUT", `/v1/consumers/${CONSUMER}/runtime/facade-targets`, ADMIN_TOKEN, {
      targets: { "/app/orders/get": "get_order" },
    });
    expect(put.status).toBe(200);
    const socket = await connect();
    const invoke = fixture(prepareFixture);
    invoke.payload.payload.phase = "invoke";
    invoke.payload.payload.request = { operation_id: "op-ws-1", target: "/app/capability/invoke", input: {} };
    socket.ws.send(wire(invoke));
    const answer = JSON.parse(await socket.next()) as Json;
    expect(answer.metadata.causation_id).toBe("message-3");
    expect(answer.payload).toEqual({
      family: "app_facade_response",
      payload: {
        type: "failed",
        code: "UNKNOWN_TARGET",
        message: "The facade target is not mapped to a tool.",
        retry_after_ms: null,
      },
    });

    const unknown = fixture(eventAckFixture);
    unknown.payload.payload.extra = 1;
    socket.ws.send(wire(unknown));
    expect(JSON.parse(await socket.next())).toEqual({
      type: "https://toolgate.dev/problems/unknown-field",
      title: "Envelope has a field outside the contract",
      status: 422,
      code: "UNKNOWN_FIELD",
      detail: "unknown protocol field: payload.payload.extra",
      path: "payload.payload.extra",
    });
    socket.ws.send(new Uint8Array([1, 2, 3]));
    expect(await socket.closed).toBe(1003);
  });
});

describe("checkpoint purge", () => {
  const bucket = (): R2Bucket => {
    if (env.CHECKPOINTS === undefined) throw new Error("CHECKPOINTS is not bound");
    return env.CHECKPOINTS;
  };

  async function seed(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 100)
      await Promise.all(keys.slice(i, i + 100).map((key) => bucket().put(key, "checkpoint")));
  }

  async function count(prefix: string): Promise<number> {
    let n = 0;
    let cursor: string | undefined;
    do {
      const page = await bucket().list(cursor === undefined ? { prefix } : { prefix, cursor });
      n += page.objects.length;
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor !== undefined);
    return n;
  }

  function purge(purgeId: string, threadId: string): Json {
    const envelope = fixture(purgeFixture);
    envelope.payload.payload.purge_id = purgeId;
    envelope.payload.payload.thread_id = threadId;
    return envelope;
  }

  async function postPurge(envelope: Json): Promise<Json> {
    const res = await postRaw(wire(envelope));
    expect(res.status).toBe(200);
    return (await res.json()) as Json;
  }

  it(
    "deletes more objects than one list page, only under the thread's prefix, and answers a repeated purge without deleting again",
    { timeout: 120_000 },
    async () => {
      const prefix = `${CONSUMER}/threads/thread-purge-1/`;
      await seed(Array.from({ length: 1050 }, (_, i) => `${prefix}gen-${String(i).padStart(4, "0")}.ckpt`));
      await seed([`${CONSUMER}/threads/thread-purge-10/keep.ckpt`, `other/threads/thread-purge-1/keep.ckpt`]);
      expect(await count(prefix)).toBe(1050);
      // Seeding can outlast the idle object's lifetime; pin its clock again.
      await pinClock(CONSUMER, T0);

      const ack = await postPurge(purge("purge-A", "thread-purge-1"));
      expect(ack).toEqual({
        metadata: {
          version: 1,
          message_id: expect.stringMatching(/^tg_[0-9a-f]{32}$/),
          correlation_id: "purge-1",
          causation_id: "purge-1",
          sent_at_unix_ms: T0 * 1000,
          dispatch: { dispatch_id: "dispatch-1", agent_session_id: "agent-session-1" },
        },
        payload: {
          family: "checkpoint_purge_ack",
          payload: {
            status: "deleted",
            purge_id: "purge-A",
            conversation_key: "conversation-1",
            thread_id: "thread-purge-1",
            deleted_objects: 1050,
          },
        },
      });
      expect(await count(prefix)).toBe(0);
      expect(await count(`${CONSUMER}/threads/thread-purge-10/`)).toBe(1);
      expect(await count(`other/threads/thread-purge-1/`)).toBe(1);

      // The same purge id again: the same ack, and the bucket is not touched (a newer object survives).
      await seed([`${prefix}late.ckpt`]);
      const again = await postPurge(purge("purge-A", "thread-purge-1"));
      expect(again.payload).toEqual(ack.payload);
      expect(await count(prefix)).toBe(1);

      // A new purge id runs again; a reused id for another thread is a failed ack.
      const second = await postPurge(purge("purge-B", "thread-purge-1"));
      expect(second.payload.payload.deleted_objects).toBe(1);
      const reused = await postPurge(purge("purge-A", "thread-purge-10"));
      expect(reused.payload).toEqual({
        family: "checkpoint_purge_ack",
        payload: {
          status: "failed",
          purge_id: "purge-A",
          conversation_key: "conversation-1",
          thread_id: "thread-purge-10",
          code: "PURGE_ID_REUSED",
          message: "The purge id was already used for another thread.",
        },
      });
      expect(await count(`${CONSUMER}/threads/thread-purge-10/`)).toBe(1);
    },
  );

  it("percent-encodes the thread id so no thread's prefix holds another's", async () => {
    await seed([`${CONSUMER}/threads/a%2Fb/x.ckpt`, `${CONSUMER}/threads/a/b/y.ckpt`]);
    const ack = await postPurge(purge("purge-slash", "a/b"));
    expect(ack.payload.payload.deleted_objects).toBe(1);
    expect(await count(`${CONSUMER}/threads/a/`)).toBe(1);
  });
});
