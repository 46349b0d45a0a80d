// The Worker keeps the object id of each consumer name it routed (LRU, CONSUMER_IDS_CACHED names):
// the same name gets the same object, a name outside the contract gets none and is not kept, and
// the cache never holds more than its cap.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CONSUMER_IDS_CACHED, consumerIdsHeld, stubOf } from "../../../src/worker/http/middleware";

describe("consumer object ids", () => {
  it("routes a name to its object's id, refuses a bad name, and holds at most the cap", () => {
    const first = stubOf(env, "ids-a");
    expect(first?.id.toString()).toBe(env.CONSUMER.idFromName("ids-a").toString());
    expect(stubOf(env, "ids-a")?.id.toString()).toBe(first?.id.toString());
    const held = consumerIdsHeld(env.CONSUMER);
    expect(stubOf(env, "Bad Name!")).toBe(null);
    expect(consumerIdsHeld(env.CONSUMER)).toBe(held);
    for (let i = 0; i < CONSUMER_IDS_CACHED + 50; i++) stubOf(env, `ids-many-${i}`);
    expect(CONSUMER_IDS_CACHED).toBe(1024);
    expect(consumerIdsHeld(env.CONSUMER)).toBe(1024);
    expect(stubOf(env, "ids-many-0")?.id.toString()).toBe(env.CONSUMER.idFromName("ids-many-0").toString());
  });
});
