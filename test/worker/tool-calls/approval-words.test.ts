/**
 * Issue #29 item 2 and #31 items 1–2: the consumer's approval window (600 s by default, a
 * tool's own overriding it, the built-in reference tools keeping 60), a denial's reason in the
 * model's result (HTTP and MCP), and the agent's rationale shown to approvers.
 */
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/core/json";
import {
  adminClient,
  context,
  REFERENCE_TENANT,
  secretOf,
  send,
  setupConsumer,
  type ToolCallAnswer,
  wipe,
} from "../../kit";
import { initialize, mcpPost } from "../mcp/mcp-server-support";

const T0 = 1_784_419_200;
const BASE = `/v1/consumers/${REFERENCE_TENANT}`;
const REFUND = { order_ref: "ORDER-7", reason: "duplicate" };
/** A right-to-left override in a person's words: shown to the model as its escape. */
const RLO = "\u202e";

/** A data-defined write without a window of its own. */
const NOTE = {
  description: "Create a note.",
  risk: "write",
  input: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
  output: {
    schema: {
      type: "object",
      properties: { note_id: { type: "string" } },
      required: ["note_id"],
      additionalProperties: false,
    },
  },
  target: { kind: "http", url: "https://ledger.test/notes" },
};

/** The catalog's safe_message of APPROVAL_INVALID (src/core/tool-result/error-catalog.ts, the reference's text). */
const INVALID = "Approval expired or is not bound to the current request.";

let agent: string;
/** A subject-bound agent credential, as MCP sessions take. */
let mcpAgent: string;
let approver: string;
let auditor: string;

async function setup(tools: string[], config: Record<string, unknown> = {}): Promise<void> {
  await setupConsumer(REFERENCE_TENANT, {
    config: { approver_subjects: ["rev-1"], ...config },
    definitions: { create_note: NOTE, create_memo: { ...NOTE, approval_valid_seconds: 300 } },
    tools,
    clock: T0,
  });
  agent = await secretOf(REFERENCE_TENANT, "agent");
  mcpAgent = await secretOf(REFERENCE_TENANT, "agent", "user-1");
  approver = await secretOf(REFERENCE_TENANT, "approver", "rev-1");
  auditor = await secretOf(REFERENCE_TENANT, "auditor");
}

async function call(name: string, args: Record<string, unknown>, key: string, extra: Record<string, unknown> = {}) {
  const res = await send("POST", `${BASE}/tool-calls`, agent, {
    principal: { subject_id: "user-1", roles: [] },
    proposal: { name, arguments: args },
    context: context(`call-${key}`, { key }),
    ...extra,
  });
  return { status: res.status, body: await res.json<ToolCallAnswer & { approval_id?: string }>() };
}

interface Listed {
  approval_id: string;
  approval_digest: string;
  request_sha256: string;
  rationale?: string;
}

async function pending(): Promise<Listed[]> {
  const list = await send("GET", `${BASE}/approvals?state=pending`, approver);
  return (await list.json<{ approvals: Listed[] }>()).approvals;
}

async function decide(item: Listed, decision: "approve" | "deny", reason?: string) {
  const res = await send("POST", `${BASE}/approvals/${item.approval_id}`, approver, {
    decision,
    approval_digest: item.approval_digest,
    ...(reason === undefined ? {} : { reason }),
  });
  return { status: res.status, body: await res.json<Record<string, unknown>>() };
}

beforeEach(async () => {
  await wipe(REFERENCE_TENANT);
  const downstream = env.DOWNSTREAM;
  if (downstream === undefined) throw new Error("the tests' downstream is not bound");
  await downstream.fetch(
    new Request("http://downstream/_control", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reset: true, mode: "ok" }),
    }),
  );
});

describe("the approval window", () => {
  it("is the consumer's 600 s by default, the consumer's own when set, a tool's own over both; the reference's tools keep 60", async () => {
    await setup(["create_note", "create_memo", "create_refund_draft"]);
    await call("create_note", { text: "a" }, "k-1");
    await call("create_memo", { text: "b" }, "k-2");
    await call("create_refund_draft", REFUND, "k-3");
    const windows = [];
    for (const item of await pending()) {
      const decided = await decide(item, "approve");
      windows.push([decided.status, decided.body["valid_until"]]);
    }
    expect(windows).toEqual([
      [200, T0 + 600],
      [200, T0 + 300],
      [200, T0 + 60],
    ]);

    await setup(["create_note", "create_memo", "create_refund_draft"], { approval_valid_seconds: 120 });
    const consumer = await adminClient(REFERENCE_TENANT).call("GET", "");
    expect([consumer.status, consumer.body?.["approval_valid_seconds"]]).toEqual([200, 120]);
    await call("create_note", { text: "c" }, "k-4");
    await call("create_memo", { text: "d" }, "k-5");
    await call("create_refund_draft", REFUND, "k-6");
    const set = [];
    for (const item of await pending()) set.push((await decide(item, "approve")).body["valid_until"]);
    expect(set).toEqual([T0 + 120, T0 + 300, T0 + 60]);
  });

  it("is refused past a day", async () => {
    await setup(["create_note"]);
    const admin = adminClient(REFERENCE_TENANT);
    const config = { tools: ["create_note"], approver_subjects: ["rev-1"] };
    const refused = await admin.call("PUT", "", { ...config, approval_valid_seconds: 86_401 });
    expect([refused.status, refused.body?.["code"]]).toEqual([400, "INVALID_REQUEST"]);
    const longest = await admin.call("PUT", "", { ...config, approval_valid_seconds: 86_400 });
    expect([longest.status, longest.body?.["approval_valid_seconds"]]).toEqual([200, 86_400]);
  });
});

describe("a denial's reason", () => {
  it("reaches the model in the denied call's result, as the approver's words with invisible characters shown", async () => {
    await setup(["create_refund_draft"]);
    await call("create_refund_draft", REFUND, "k-1");
    const [item] = await pending();
    if (item === undefined) throw new Error("no pending approval");
    const decided = await decide(item, "deny", `Wrong order ${RLO}7-REDRO`);
    expect(decided).toEqual({
      status: 200,
      body: {
        approval_id: item.approval_id,
        state: "denied",
        approver_id: "rev-1",
        decided_at: T0,
        valid_until: null,
        reason: `Wrong order ${RLO}7-REDRO`,
        bound_to_request: true,
      },
    });
    const denied = await call("create_refund_draft", REFUND, "k-1");
    const error = {
      code: "APPROVAL_INVALID",
      category: "approval",
      safe_message: `${INVALID} The approver said: "Wrong order ⟨U+202E⟩7-REDRO"`,
      recovery: "request_approval",
      retry_after_ms: null,
    };
    expect(denied.body.model_result.error).toEqual(error);
    expect(denied.body.provider_output).toEqual({
      type: "function_call_output",
      call_id: "call-k-1",
      output: canonicalJson(denied.body.model_result),
    });

    // The audit entry of the decision keeps the words as given.
    const audit = await (
      await send("GET", `${BASE}/audit`, auditor)
    ).json<{
      entries: Array<{ kind: string; record: Record<string, unknown> }>;
    }>();
    const decision = audit.entries.find((e) => e.kind === "approval.decision");
    expect(decision?.record["reason"]).toBe(`Wrong order ${RLO}7-REDRO`);
  });

  it("leaves a denial without one as the reference's result", async () => {
    await setup(["create_refund_draft"]);
    await call("create_refund_draft", REFUND, "k-1");
    const [item] = await pending();
    if (item === undefined) throw new Error("no pending approval");
    const decided = await decide(item, "deny");
    expect(Object.keys(decided.body).sort()).toEqual([
      "approval_id",
      "approver_id",
      "bound_to_request",
      "decided_at",
      "state",
      "valid_until",
    ]);
    const denied = await call("create_refund_draft", REFUND, "k-1");
    expect(denied.body.model_result.error).toEqual({
      code: "APPROVAL_INVALID",
      category: "approval",
      safe_message: INVALID,
      recovery: "request_approval",
      retry_after_ms: null,
    });
  });

  it("is refused past 500 characters or with a control character", async () => {
    await setup(["create_refund_draft"]);
    await call("create_refund_draft", REFUND, "k-1");
    const [item] = await pending();
    if (item === undefined) throw new Error("no pending approval");
    for (const reason of ["x".repeat(501), "two\nlines", ""]) {
      const refused = await decide(item, "deny", reason);
      expect([refused.status, refused.body["code"]]).toEqual([400, "INVALID_REQUEST"]);
    }
    expect((await decide(item, "deny", "x".repeat(500))).status).toBe(200);
  });

  it("reaches the model over MCP, in the result's text and structured content", async () => {
    await setup(["create_refund_draft"]);
    const s = await initialize(mcpAgent);
    const request = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "create_refund_draft", arguments: REFUND, _meta: { "io.toolgate/idempotency_key": "mcp-1" } },
    });
    await mcpPost(mcpAgent, request(1), s.headers);
    const [item] = await pending();
    if (item === undefined) throw new Error("no pending approval");
    expect((await decide(item, "deny", "Not for this customer")).status).toBe(200);
    const denied = await mcpPost(mcpAgent, request(2), s.headers);
    const { result } = denied.json as {
      result: {
        content: Array<{ type: string; text: string }>;
        structuredContent: { error: Record<string, unknown> };
        isError: boolean;
      };
    };
    const message = `${INVALID} The approver said: "Not for this customer"`;
    expect([result.isError, result.structuredContent.error["safe_message"]]).toEqual([true, message]);
    expect(result.content).toEqual([{ type: "text", text: canonicalJson(result.structuredContent) }]);
  });
});

describe("the agent's rationale", () => {
  it("is shown by the approval API and the status, outside both digests", async () => {
    await setup(["create_refund_draft"]);
    const rationale = `The customer asked twice ${RLO}`;
    const first = await call("create_refund_draft", REFUND, "k-1", { rationale });
    const [item] = await pending();
    if (item === undefined) throw new Error("no pending approval");
    expect([item.approval_id, item.rationale]).toEqual([first.body.approval_id, rationale]);
    // The same call with other words is the same call: it answers the same approval.
    const again = await call("create_refund_draft", REFUND, "k-1", { rationale: "Other words" });
    expect(again.body.approval_id).toBe(item.approval_id);
    const status = await send("GET", `${BASE}/approvals/${item.approval_id}`, agent);
    expect((await status.json<Record<string, unknown>>())["rationale"]).toBe(rationale);
    // A call without one lists none.
    await call("create_refund_draft", { ...REFUND, reason: "damaged" }, "k-2");
    expect((await pending()).map((p) => p.rationale ?? null)).toEqual([rationale, null]);
  });

  it("comes from an MCP call's _meta", async () => {
    await setup(["create_refund_draft"]);
    const s = await initialize(mcpAgent);
    const meta = { "io.toolgate/idempotency_key": "mcp-1", "io.toolgate/rationale": "Refund the duplicate charge" };
    const params = { name: "create_refund_draft", arguments: REFUND, _meta: meta };
    await mcpPost(mcpAgent, { jsonrpc: "2.0", id: 1, method: "tools/call", params }, s.headers);
    expect((await pending()).map((p) => p.rationale)).toEqual(["Refund the duplicate charge"]);
    const long = { ...params, _meta: { ...meta, "io.toolgate/rationale": "x".repeat(501) } };
    const refused = await mcpPost(mcpAgent, { jsonrpc: "2.0", id: 2, method: "tools/call", params: long }, s.headers);
    const answer = refused.json as { error: { code: number } };
    expect(answer.error.code).toBe(-32602);
  });

  it("is refused past 500 characters over HTTP", async () => {
    await setup(["create_refund_draft"]);
    const res = await call("create_refund_draft", REFUND, "k-1", { rationale: "x".repeat(501) });
    expect([res.status, (res.body as unknown as { code: string }).code]).toEqual([400, "INVALID_REQUEST"]);
  });
});
