/**
 * A credential's tool scope on the tool lists: `GET /v1/consumers/{c}/tools` shows an agent only
 * the tools its scope admits, as MCP's `tools/list` does (one filter, identity/scope.ts).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createConsumer, credential, freshConsumer, send } from "../../kit";

// Each test gets a consumer of its own, so none starts from another's credentials or limits.
let C = "";
let TOOLS = "";

beforeEach(async () => {
  C = freshConsumer("scope-tools");
  TOOLS = `/v1/consumers/${C}/tools`;
  await createConsumer(C, ["get_order", "lookup_refund", "submit_refund"], []);
});

async function names(path: string, token: string): Promise<{ status: number; names: string[]; next: unknown }> {
  const res = await send("GET", path, token);
  const body = (await res.json()) as {
    tools: Array<{ name?: string; function?: { name: string } }>;
    next_cursor: unknown;
  };
  return {
    status: res.status,
    names: body.tools.map((t) => t.name ?? t.function?.name ?? "?"),
    next: body.next_cursor,
  };
}

describe("GET …/tools and a credential's tool scope", () => {
  it("hole: lists an agent only the tools in its scope, in every format", async () => {
    const scoped = (
      await credential(C, "agent", "user-1", { tools: ["lookup_refund", "capability:browser.page.snapshot"] })
    ).secret;
    expect(await names(TOOLS, scoped)).toEqual({ status: 200, names: ["lookup_refund"], next: null });
    expect(await names(`${TOOLS}?format=anthropic`, scoped)).toEqual({
      status: 200,
      names: ["lookup_refund"],
      next: null,
    });
    expect(await names(`${TOOLS}?format=openai`, scoped)).toEqual({
      status: 200,
      names: ["lookup_refund"],
      next: null,
    });
  });

  it("pages only the scope's tools", async () => {
    await send("PUT", `/v1/consumers/${C}`, ADMIN_TOKEN, {
      tools: ["get_order", "lookup_refund", "submit_refund"],
      approver_subjects: [],
      limits: { page_items: 1 },
    });
    const scoped = (await credential(C, "agent", "user-1", { tools: ["get_order", "submit_refund"] })).secret;
    const first = await names(TOOLS, scoped);
    expect([first.status, first.names, typeof first.next]).toEqual([200, ["get_order"], "string"]);
    const second = await names(`${TOOLS}?cursor=${String(first.next)}`, scoped);
    expect(second).toEqual({ status: 200, names: ["submit_refund"], next: null });
  });

  it("lists every enabled tool to an unscoped agent, and the admin's view is unchanged", async () => {
    const agent = (await credential(C, "agent", "user-1")).secret;
    expect(await names(TOOLS, agent)).toEqual({
      status: 200,
      names: ["get_order", "lookup_refund", "submit_refund"],
      next: null,
    });
    const admin = await send("GET", TOOLS, ADMIN_TOKEN);
    expect(await admin.json()).toEqual({
      enabled: ["get_order", "lookup_refund", "submit_refund"],
      defined: [],
      next_cursor: null,
    });
  });
});
