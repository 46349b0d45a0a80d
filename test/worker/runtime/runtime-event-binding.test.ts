/**
 * A runtime credential's principal binding applies to events, event acks and checkpoint purges,
 * not only to App Facade calls, and one credential holds at most its share of the outbox (a
 * quarter of `outbox_max_events`), so it cannot refuse every other credential's events.
 */
import { beforeEach, describe, expect, it } from "vitest";
import eventFixture from "../../../fixtures/execution/completed-event.v1.json?raw";
import ackFixture from "../../../fixtures/execution/event-ack.v1.json?raw";
import purgeFixture from "../../../fixtures/execution/checkpoint-purge.v1.json?raw";
import { ADMIN_TOKEN, credential, send, wipe } from "../../kit";

const C = "rt2-outbox";
type Json = Record<string, any>;

beforeEach(async () => {
  await wipe(C);
  const res = await send("PUT", `/v1/consumers/${C}`, ADMIN_TOKEN, {
    tools: ["get_order"],
    approver_subjects: [],
    limits: { outbox_max_events: 8 },
  });
  expect(res.status).toBe(200);
});

function event(id: string, userId: string): Json {
  const out = JSON.parse(eventFixture) as Json;
  out.metadata.message_id = `m-${id}`;
  out.payload.payload.event.id = id;
  out.payload.payload.event.context.actor.user_id = userId;
  return out;
}

function ack(id: string): Json {
  const out = JSON.parse(ackFixture) as Json;
  out.metadata.message_id = `a-${id}`;
  out.payload.payload.event_id = id;
  return out;
}

const post = async (token: string, body: Json) =>
  (await send("POST", `/v1/consumers/${C}/runtime/envelopes`, token, body)).status;

describe("runtime events and the credential's binding", () => {
  it("a subject-bound, scoped runtime credential neither speaks for another user nor takes every other credential's outbox room", async () => {
    const bound = (await credential(C, "runtime", "user-2", { tools: ["get_order"] })).secret;
    const host = (await credential(C, "runtime")).secret;
    const seen = {
      hostEvent: await post(host, event("host-1", "user-1")),
      boundForOtherUser: await post(bound, event("b-1", "user-1")),
      boundFill: [await post(bound, event("b-2", "user-2")), await post(bound, event("b-3", "user-2"))],
      boundOverShare: await post(bound, event("b-4", "user-2")),
      hostAfterFill: await post(host, event("host-2", "user-1")),
      boundAcksHostEvent: await post(bound, ack("host-1")),
      boundAcksOwnEvent: await post(bound, ack("b-2")),
      boundAfterAck: await post(bound, event("b-4", "user-2")),
      hostAcksBoundEvent: await post(host, ack("b-3")),
    };
    // Observed before the fix: boundForOtherUser 202, boundOverShare 202, boundAcksHostEvent 202.
    expect(seen).toEqual({
      hostEvent: 202,
      boundForOtherUser: 403,
      boundFill: [202, 202],
      boundOverShare: 429,
      hostAfterFill: 202,
      boundAcksHostEvent: 403,
      boundAcksOwnEvent: 202,
      boundAfterAck: 202,
      hostAcksBoundEvent: 202,
    });
  });

  it("the consumer-wide bound still holds once every credential's share is taken", async () => {
    const seen: number[] = [];
    for (const n of [1, 2, 3, 4]) {
      const token = (await credential(C, "runtime")).secret;
      seen.push(await post(token, event(`c${n}-1`, "user-1")), await post(token, event(`c${n}-2`, "user-1")));
    }
    const fifth = (await credential(C, "runtime")).secret;
    seen.push(await post(fifth, event("c5-1", "user-1")));
    expect(seen).toEqual([202, 202, 202, 202, 202, 202, 202, 202, 429]);
  });

  it("a subject-bound runtime credential purges only under its own client-personal surface", async () => {
    const bound = (await credential(C, "runtime", "user-2")).secret;
    const purge = (id: string, surface: string): Json => {
      const out = JSON.parse(purgeFixture) as Json;
      out.metadata.message_id = `p-${id}`;
      out.payload.payload.purge_id = id;
      out.payload.payload.surface_id = surface;
      return out;
    };
    const seen = {
      otherUser: await post(bound, purge("p-1", "cs1:cp:dXNlci0x")),
      group: await post(bound, purge("p-2", "cs1:cg:dXNlci0y")),
      own: await post(bound, purge("p-3", "cs1:cp:dXNlci0y")),
    };
    // Observed before the fix: otherUser 200 (the purge ran).
    expect(seen).toEqual({ otherUser: 403, group: 403, own: 200 });
  });
});
