/**
 * Issue #17 ("Performance"), the object's memory: what a consumer object keeps between calls is
 * counted beside its bound (src/worker/kernel/memory.ts; `npm run bench:http` prints it after
 * 10,000 calls), and a capability long-poll leaves nothing behind once it ends.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Waiters } from "../../../src/worker/features/capability/waiters";
import { heldInMemory } from "../../../src/worker/kernel/memory";
import { ADMIN_TOKEN, context, credential, send } from "../../kit";

const CONSUMER = "object-memory";

describe("the object's memory", () => {
  it("counts each structure beside its bound", async () => {
    expect(
      (await send("PUT", `/v1/consumers/${CONSUMER}`, ADMIN_TOKEN, { tools: ["get_order"], approver_subjects: [] }))
        .status,
    ).toBe(200);
    const agents = [(await credential(CONSUMER, "agent")).secret, (await credential(CONSUMER, "agent")).secret];
    for (const [i, agent] of agents.entries()) {
      const body = {
        principal: { subject_id: "user-1", roles: [] },
        proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
        context: context(`memory-${i}`),
      };
      expect((await send("POST", `/v1/consumers/${CONSUMER}/tool-calls`, agent, body)).status).toBe(200);
    }
    const held = await runInDurableObject(env.CONSUMER.get(env.CONSUMER.idFromName(CONSUMER)), (instance) =>
      heldInMemory(instance),
    );
    // One row per structure, in registry order (features in folder-name order).
    expect(held).toEqual([
      { structure: "capability long-polls", entries: 0, cap: null, bound: "polls in flight only" },
      { structure: "credential cache", entries: 2, cap: 256, bound: "LRU" },
      {
        structure: "event-bus live listeners",
        entries: 0,
        cap: 256,
        bound:
          "refused beyond (QUOTA_EXCEEDED); 16 per credential, 16 per subject of subject-bound agent credentials, 64 kept for approvers",
      },
      { structure: "call-rate buckets", entries: 2, cap: 4096, bound: "LRU" },
      { structure: "relayed MCP requests", entries: 0, cap: null, bound: "4 per call in flight, dropped when it ends" },
      {
        structure: "approvals awaiting their URL elicitation's completion",
        entries: 0,
        cap: null,
        bound: "8 per MCP session, each until its approval's decision or expiry",
      },
      { structure: "WebSockets", entries: 0, cap: null, bound: "sockets_per_credential per credential" },
      { structure: "compiled standing constraints", entries: 0, cap: 64, bound: "LRU" },
    ]);
  });

  it("answers nothing for an object that never registered", () => {
    expect(heldInMemory({})).toEqual([]);
  });

  it("keeps a provider's long-polls only while one waits", async () => {
    const waiters = new Waiters();
    const short = waiters.wait("provider-1", 1);
    const long = waiters.wait("provider-2", 60_000);
    expect(waiters.size).toBe(2);
    await short;
    expect(waiters.size).toBe(1);
    waiters.wake("provider-2");
    await long;
    expect(waiters.size).toBe(0);
  });
});
