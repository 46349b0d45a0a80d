/**
 * Trust on the runtime plane: the outbox is bounded (count, bytes) and delivered in bounded
 * batches; a reject cannot race a commit's write; administrative changes are in the audit chain.
 */
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import completedFixture from "../../../fixtures/execution/completed-event.v1.json?raw";
import eventAckFixture from "../../../fixtures/execution/event-ack.v1.json?raw";
import prepareFixture from "../../../fixtures/execution/app-facade-prepare.v1.json?raw";
import purgeFixture from "../../../fixtures/execution/checkpoint-purge.v1.json?raw";
import { ADMIN_TOKEN, createConsumer, credential, pinClock, send, wipe } from "../../kit";
import { opened, runtimeUpgrade } from "./socket-client";

const CONSUMER = "rt-trust";
const T0 = 1_800_000_000;
const ENVELOPES = `/v1/consumers/${CONSUMER}/runtime/envelopes`;

type Json = Record<string, any>;

let runtime: { id: string; secret: string };

beforeEach(async () => {
  await wipe(CONSUMER);
  await createConsumer(CONSUMER, ["submit_refund"], ["approver-1"]);
  await pinClock(CONSUMER, T0);
  runtime = await credential(CONSUMER, "runtime");
});

async function limits(values: Record<string, number>): Promise<void> {
  const put = await send("PUT", `/v1/consumers/${CONSUMER}`, ADMIN_TOKEN, {
    tools: ["submit_refund"],
    approver_subjects: ["approver-1"],
    limits: values,
  });
  expect(put.status).toBe(200);
}

/** An event envelope (golden fixture) with its own id, as wire text. */
function event(eventId: string): string {
  const envelope = JSON.parse(completedFixture) as Json;
  envelope.payload.payload.event.id = eventId;
  return JSON.stringify(envelope);
}

function ack(eventId: string): string {
  const envelope = JSON.parse(eventAckFixture) as Json;
  envelope.payload.payload.event_id = eventId;
  return JSON.stringify(envelope);
}

function post(text: string): Promise<Response> {
  return send("POST", ENVELOPES, runtime.secret, JSON.parse(text));
}

async function statuses(texts: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const text of texts) out.push((await post(text)).status);
  return out;
}

const outboxFull = (events: number, bytes: number) => ({
  type: "https://toolgate.dev/problems/quota-exceeded",
  title: "Quota exceeded",
  status: 429,
  code: "QUOTA_EXCEEDED",
  detail: `The runtime outbox is full (at most ${events} events, ${bytes} bytes; one credential at most ${Math.floor(events / 4)} events, ${Math.floor(bytes / 4)} bytes): acknowledge delivered events, then retry.`,
});

describe("the runtime outbox is bounded", () => {
  it("refuses an event over the credential's share of outbox_max_events (429, Retry-After) over HTTP and the socket; a duplicate and an event after an ack are kept", async () => {
    // One credential holds at most a quarter of the outbox: 3 of 12 events.
    await limits({ outbox_max_events: 12 });
    expect(await statuses([event("e-1"), event("e-2"), event("e-3")])).toEqual([202, 202, 202]);
    const refused = await post(event("e-4"));
    expect([refused.status, refused.headers.get("retry-after")]).toEqual([429, "1"]);
    expect(await refused.json()).toEqual(outboxFull(12, 1_048_576));
    // A re-sent event takes no new place.
    expect(await statuses([event("e-1")])).toEqual([202]);

    const socket = opened(await runtimeUpgrade(CONSUMER, runtime.secret));
    expect([await socket.next(), await socket.next(), await socket.next()]).toEqual([
      event("e-1"),
      event("e-2"),
      event("e-3"),
    ]);
    socket.ws.send(event("e-4"));
    expect(JSON.parse(await socket.next())).toEqual(outboxFull(12, 1_048_576));
    socket.ws.send(ack("e-1"));
    // The ack answers nothing; once it is in, the credential's share has room again. (Sent back to back, the
    // event was refused in 1 of 4 runs of this file: whether the two can be handled out of order is open.)
    expect(await socket.drain()).toEqual([]);
    socket.ws.send(event("e-4"));
    expect(await socket.drain()).toEqual([]);
    socket.ws.close(1000, "done");
    const again = opened(await runtimeUpgrade(CONSUMER, runtime.secret));
    expect(await again.drain()).toEqual([event("e-2"), event("e-3"), event("e-4")]);
    again.ws.close(1000, "done");
  });

  it("refuses an event that would take the credential's events over its share of outbox_max_bytes", async () => {
    const size = new TextEncoder().encode(event("b-1")).byteLength;
    // The credential's share (a quarter) holds two events, not three.
    await limits({ outbox_max_bytes: 4 * (2 * size + size - 1) });
    expect(await statuses([event("b-1"), event("b-2"), event("b-3")])).toEqual([202, 202, 429]);
    expect(await statuses([ack("b-2"), event("b-3"), event("b-4")])).toEqual([202, 202, 429]);
  });

  it("sends a connect at most outbox_batch_events events, the next batch once they are acknowledged", async () => {
    await limits({ outbox_batch_events: 2 });
    expect(await statuses([1, 2, 3, 4, 5].map((n) => event(`q-${n}`)))).toEqual([202, 202, 202, 202, 202]);
    const socket = opened(await runtimeUpgrade(CONSUMER, runtime.secret));
    // What must arrive is awaited message by message (a loaded machine may take longer than a drain's
    // 300 ms); what must not is a drain that stays empty.
    const two = async () => [await socket.next(), await socket.next()];
    expect(await two()).toEqual([event("q-1"), event("q-2")]);
    socket.ws.send(ack("q-1"));
    expect(await socket.drain()).toEqual([]);
    // The batch is acknowledged (this ack over HTTP): the next one follows on the socket.
    expect(await statuses([ack("q-2")])).toEqual([202]);
    expect(await two()).toEqual([event("q-3"), event("q-4")]);
    // A new event waits behind the unacknowledged batch, in order.
    expect(await statuses([event("q-6")])).toEqual([202]);
    expect(await socket.drain()).toEqual([]);
    socket.ws.send(ack("q-3"));
    socket.ws.send(ack("q-4"));
    expect(await two()).toEqual([event("q-5"), event("q-6")]);
    expect(await socket.drain()).toEqual([]);
    socket.ws.send(ack("q-5"));
    socket.ws.send(ack("q-6"));
    // Caught up with room: a new event goes out at once.
    expect(await statuses([event("q-7")])).toEqual([202]);
    expect([await socket.next(), ...(await socket.drain())]).toEqual([event("q-7")]);
    socket.ws.close(1000, "done");
  });
});

describe("App Facade", () => {
  const SUBMIT = "/app/refunds/submit";
  const REFUND = { order_ref: "ORDER-7", reason: "duplicate" };

  function facade(phase: string, messageId: string, body: { request?: Json; action?: Json }): string {
    const envelope = JSON.parse(prepareFixture) as Json;
    envelope.metadata.message_id = messageId;
    const payload = envelope.payload.payload as Json;
    payload.phase = phase;
    if (body.action !== undefined) {
      delete payload.request;
      payload.action = body.action;
    } else {
      payload.request = body.request;
    }
    return JSON.stringify(envelope);
  }

  async function answer(text: string): Promise<Json> {
    const res = await post(text);
    expect(res.status).toBe(200);
    return ((await res.json()) as Json).payload.payload as Json;
  }

  async function downstream(path: string, body?: unknown): Promise<Json> {
    const init =
      body === undefined
        ? {}
        : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
    const res = await env.DOWNSTREAM!.fetch(new Request(`http://downstream${path}`, init));
    return (await res.json()) as Json;
  }

  it("hole: a reject that arrives while the commit's write is in flight is refused and the action is not rejected", async () => {
    await downstream("/_control", { reset: true, mode: "ok" });
    const approver = (await credential(CONSUMER, "approver", "approver-1")).secret;
    const targets = await send("PUT", `/v1/consumers/${CONSUMER}/runtime/facade-targets`, ADMIN_TOKEN, {
      targets: { [SUBMIT]: "submit_refund" },
    });
    expect(targets.status).toBe(200);
    const prepared = await answer(
      facade("prepare", "prepare-1", {
        request: { operation_id: "run-1:step:0:tool:call-1", target: SUBMIT, input: REFUND },
      }),
    );
    expect(prepared.type).toBe("prepared");
    const action = prepared.action as Json;
    const list = (await (await send("GET", `/v1/consumers/${CONSUMER}/approvals?state=pending`, approver)).json()) as {
      approvals: Json[];
    };
    const [approval] = list.approvals;
    const decided = await send("POST", `/v1/consumers/${CONSUMER}/approvals/${approval!.approval_id}`, approver, {
      decision: "approve",
      approval_digest: approval!.approval_digest,
    });
    expect(decided.status).toBe(200);

    await downstream("/_control", { mode: "hold" });
    const commit = answer(facade("commit", "commit-1", { action }));
    let waiting = 0;
    for (let i = 0; i < 100 && waiting === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      waiting = (await downstream("/_effects")).waiting as number;
    }
    expect(waiting).toBe(1);

    const raced = await answer(facade("reject", "reject-1", { action }));
    expect(raced).toEqual({
      type: "failed",
      code: "ACTION_COMMIT_IN_FLIGHT",
      message: "A commit of the action is executing; it cannot be rejected now.",
      retry_after_ms: 1000,
    });
    await downstream("/_control", { release: true });
    expect(await commit).toEqual({
      type: "result",
      result: { value: { refund_id: "RF-1", order_ref: "ORDER-7", reason: "duplicate" } },
    });
    const late = await answer(facade("reject", "reject-2", { action }));
    expect(late).toEqual({
      type: "failed",
      code: "ACTION_COMMITTED",
      message: "The action was already committed and cannot be rejected.",
      retry_after_ms: null,
    });
    expect((await downstream("/_effects")).effects).toBe(1);
  });
});

describe("audit", () => {
  async function auditEntries(auditor: string): Promise<Json[]> {
    const entries: Json[] = [];
    let cursor: string | null = null;
    do {
      const res = await send(
        "GET",
        `/v1/consumers/${CONSUMER}/audit${cursor === null ? "" : `?cursor=${encodeURIComponent(cursor)}`}`,
        auditor,
      );
      expect(res.status).toBe(200);
      const page = (await res.json()) as { entries: Json[]; next_cursor: string | null };
      entries.push(...page.entries);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return entries;
  }

  it("hole: administrative changes are in the audit chain", async () => {
    const auditor = await credential(CONSUMER, "auditor");
    const changed = await send("PUT", `/v1/consumers/${CONSUMER}`, ADMIN_TOKEN, {
      tools: ["submit_refund"],
      approver_subjects: ["approver-2"],
    });
    expect(changed.status).toBe(200);
    const issued = await credential(CONSUMER, "agent", "user-1");
    expect((await send("DELETE", `/v1/consumers/${CONSUMER}/credentials/${issued.id}`, ADMIN_TOKEN)).status).toBe(204);

    const prefix = `${CONSUMER}/threads/thread-audit/`;
    await env.CHECKPOINTS!.put(`${prefix}a.ckpt`, "checkpoint");
    await env.CHECKPOINTS!.put(`${prefix}b.ckpt`, "checkpoint");
    const purge = JSON.parse(purgeFixture) as Json;
    purge.payload.payload.purge_id = "purge-audit";
    purge.payload.payload.thread_id = "thread-audit";
    for (let i = 0; i < 2; i++) {
      // The second (a replay) answers the recorded ack and adds no entry.
      const res = await send("POST", ENVELOPES, runtime.secret, purge);
      expect(((await res.json()) as Json).payload.payload.deleted_objects).toBe(2);
    }

    const administrative = new Set([
      "consumer.configured",
      "credential.created",
      "credential.revoked",
      "runtime.checkpoint_purge",
    ]);
    const entries = (await auditEntries(auditor.secret)).filter((e) => administrative.has(e.kind));
    const keyFields = entries.map((e) => {
      const r = e.record as Json;
      switch (e.kind) {
        case "consumer.configured":
          return [e.kind, r.consumer, r.approver_subjects];
        case "credential.created":
          return [e.kind, r.credential_id, r.kind, r.subject_id];
        case "credential.revoked":
          return [e.kind, r.credential_id];
        default:
          return [e.kind, r];
      }
    });
    expect(keyFields).toEqual([
      ["consumer.configured", CONSUMER, ["approver-1"]],
      ["credential.created", runtime.id, "runtime", null],
      ["credential.created", auditor.id, "auditor", null],
      ["consumer.configured", CONSUMER, ["approver-2"]],
      ["credential.created", issued.id, "agent", "user-1"],
      ["credential.revoked", issued.id],
      [
        "runtime.checkpoint_purge",
        {
          purge_id: "purge-audit",
          conversation_key: "conversation-1",
          scope: { scope_id: "scope-1", tenant_id: "tenant-1" },
          surface_id: "cs1:cp:dXNlci0x",
          thread_id: "thread-audit",
          thread_prefix: prefix,
          deleted_objects: 2,
          credential_id: runtime.id,
        },
      ],
    ]);
  });
});
