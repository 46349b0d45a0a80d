/**
 * Configuration by parts: `PATCH /v1/consumers/{consumer}` with a JSON Merge Patch (RFC 7396),
 * the merged configuration checked as a PUT body and stored whole or not at all; one tool
 * enabled or disabled with `PATCH …/tools/{name}`; a secret deleted.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, adminClient, freshConsumer, gate, secretOf, send } from "../../kit";

const MERGE_PATCH = "application/merge-patch+json";

/** The documented default limits (docs/security.md), written out independently of src. */
const DEFAULT_LIMITS = {
  calls_per_second: 50,
  call_burst: 100,
  pending_approvals_per_subject: 20,
  pending_approvals_per_credential: 100,
  outbox_max_events: 1000,
  outbox_max_bytes: 1048576,
  outbox_batch_events: 100,
  sockets_per_credential: 4,
  socket_message_bytes: 65536,
  socket_messages_per_second: 50,
  page_items: 100,
  retention_seconds: 86400,
};

let consumer = "";

/** A PATCH with the admin token and a body sent as the text given, under `type`. */
async function patch(
  path: string,
  body: unknown,
  type = MERGE_PATCH,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await gate(`/v1/consumers/${consumer}${path}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": type },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The stored configuration as the admin reads it. */
async function stored(): Promise<Record<string, unknown>> {
  const read = await adminClient(consumer).call("GET", "");
  expect(read.status).toBe(200);
  const { storage_bytes: _size, ...rest } = read.body ?? {};
  return rest;
}

beforeEach(async () => {
  consumer = freshConsumer("patch");
  const put = await adminClient(consumer).call("PUT", "", {
    tools: ["get_order"],
    approver_subjects: ["rev-1"],
    limits: { calls_per_second: 5 },
  });
  expect(put.status).toBe(200);
});

describe("PATCH /v1/consumers/{consumer} (JSON Merge Patch)", () => {
  it("adds a member, leaving the others as they were", async () => {
    const added = await patch("", { cors_origins: ["https://app.example"] });
    expect(added).toEqual({
      status: 200,
      body: {
        consumer,
        tools: ["get_order"],
        approver_subjects: ["rev-1"],
        principal_tokens: null,
        limits: { ...DEFAULT_LIMITS, calls_per_second: 5 },
        cors_origins: ["https://app.example"],
        created: false,
      },
    });
    expect(await stored()).toEqual({
      consumer,
      tools: ["get_order"],
      approver_subjects: ["rev-1"],
      principal_tokens: null,
      limits: { ...DEFAULT_LIMITS, calls_per_second: 5 },
      cors_origins: ["https://app.example"],
    });
  });

  it("replaces a member, and removes one with null (its default applies again)", async () => {
    expect((await patch("", { approver_subjects: ["rev-2", "rev-3"], audit_arguments: "full" })).status).toBe(200);
    expect(await stored()).toEqual({
      consumer,
      tools: ["get_order"],
      approver_subjects: ["rev-2", "rev-3"],
      principal_tokens: null,
      limits: { ...DEFAULT_LIMITS, calls_per_second: 5 },
      audit_arguments: "full",
    });
    expect((await patch("", { audit_arguments: null, limits: null })).status).toBe(200);
    expect(await stored()).toEqual({
      consumer,
      tools: ["get_order"],
      approver_subjects: ["rev-2", "rev-3"],
      principal_tokens: null,
      limits: DEFAULT_LIMITS,
    });
  });

  it("merges a nested object member by member", async () => {
    expect((await patch("", { limits: { page_items: 50, retention_seconds: 3600 } })).status).toBe(200);
    expect((await stored()).limits).toEqual({
      ...DEFAULT_LIMITS,
      calls_per_second: 5,
      page_items: 50,
      retention_seconds: 3600,
    });
    expect((await patch("", { limits: { calls_per_second: null, page_items: 60 } })).status).toBe(200);
    expect((await stored()).limits).toEqual({ ...DEFAULT_LIMITS, page_items: 60, retention_seconds: 3600 });
  });

  it("refuses a result the PUT contract refuses (400 with the JSON pointer), and stores nothing of it", async () => {
    const before = await stored();
    expect(await patch("", { approver_subjects: ["rev-9"], limits: { page_items: 0 } })).toEqual({
      status: 400,
      body: {
        type: "https://toolgate.dev/problems/invalid-request",
        title: "Request does not match its contract",
        status: 400,
        code: "INVALID_REQUEST",
        detail: "The patched configuration: $.limits.page_items: Too small: expected number to be >=1",
        path: "/limits/page_items",
      },
    });
    const unknownMember = await patch("", { tool: ["get_order"] });
    expect([unknownMember.status, unknownMember.body.code, unknownMember.body.path]).toEqual([
      400,
      "INVALID_REQUEST",
      "/tool",
    ]);
    const removedRequired = await patch("", { tools: null });
    expect([removedRequired.status, removedRequired.body.path]).toEqual([400, "/tools"]);
    const unknownTool = await patch("", { tools: ["no_such_tool"] });
    expect([unknownTool.status, unknownTool.body.code, unknownTool.body.detail]).toEqual([
      422,
      "UNKNOWN_TOOL_NAMES",
      'No tool is defined under "no_such_tool".',
    ]);
    // A patch that is not an object (RFC 7396 would replace the whole configuration) is refused as it is.
    expect((await patch("", ["get_order"])).status).toBe(400);
    expect(await stored()).toEqual(before);
  });

  it("takes application/merge-patch+json only (415 otherwise), a consumer that exists, and the admin secret", async () => {
    expect(await patch("", { audit_arguments: "full" }, "application/json")).toEqual({
      status: 415,
      body: {
        type: "https://toolgate.dev/problems/unsupported-media-type",
        title: "Unsupported media type",
        status: 415,
        code: "UNSUPPORTED_MEDIA_TYPE",
        detail: "Send the body as application/merge-patch+json.",
      },
    });
    const missing = await gate(`/v1/consumers/${freshConsumer("patch-missing")}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": MERGE_PATCH },
      body: "{}",
    });
    expect(missing.status).toBe(404);
    const agent = await secretOf(consumer, "agent");
    const refused = await gate(`/v1/consumers/${consumer}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${agent}`, "content-type": MERGE_PATCH },
      body: "{}",
    });
    expect(refused.status).toBe(401);
  });

  it("is audited as the configuration it stored", async () => {
    const auditor = await secretOf(consumer, "auditor");
    expect((await patch("", { approver_subjects: ["rev-2"] })).status).toBe(200);
    const page = (await (await send("GET", `/v1/consumers/${consumer}/audit?limit=100`, auditor)).json()) as {
      entries: Array<{ kind: string; record: Record<string, unknown> }>;
    };
    const last = page.entries.filter((e) => e.kind === "consumer.configured").at(-1);
    expect([last?.record.approver_subjects, last?.record.tools]).toEqual([["rev-2"], ["get_order"]]);
  });
});

describe("PATCH /v1/consumers/{consumer}/tools/{name}", () => {
  it("enables and disables one tool, the rest of the configuration untouched", async () => {
    expect(await patch("/tools/create_refund_draft", { state: "enabled" })).toEqual({
      status: 200,
      body: { name: "create_refund_draft", state: "enabled" },
    });
    expect((await stored()).tools).toEqual(["create_refund_draft", "get_order"]);
    expect(await patch("/tools/get_order", { state: "disabled" })).toEqual({
      status: 200,
      body: { name: "get_order", state: "disabled" },
    });
    // Again: the same answer, nothing changes.
    expect(await patch("/tools/get_order", { state: "disabled" })).toEqual({
      status: 200,
      body: { name: "get_order", state: "disabled" },
    });
    expect(await stored()).toEqual({
      consumer,
      tools: ["create_refund_draft"],
      approver_subjects: ["rev-1"],
      principal_tokens: null,
      limits: { ...DEFAULT_LIMITS, calls_per_second: 5 },
    });
    const listed = await adminClient(consumer).call("GET", "/tools");
    expect(listed.body?.enabled).toEqual(["create_refund_draft"]);
  });

  it("refuses an unknown tool (404), another state (400) and another media type (415)", async () => {
    expect([(await patch("/tools/no_such_tool", { state: "enabled" })).status]).toEqual([404]);
    const other = await patch("/tools/get_order", { state: "active" });
    expect([other.status, other.body.code]).toEqual([400, "INVALID_REQUEST"]);
    const json = await patch("/tools/get_order", { state: "disabled" }, "application/json");
    expect([json.status, json.body.detail]).toEqual([415, "Send the body as application/merge-patch+json."]);
    expect((await stored()).tools).toEqual(["get_order"]);
  });
});

describe("DELETE /v1/consumers/{consumer}/secrets/{name}", () => {
  it("deletes a secret once; the second time there is none", async () => {
    const admin = adminClient(consumer);
    expect(await admin.status("PUT", "/secrets/billing_token", { value: "s3cret-value" })).toBe(204);
    expect(await admin.status("DELETE", "/secrets/billing_token")).toBe(204);
    expect((await admin.call("GET", "/secrets")).body).toEqual({ secrets: [], next_cursor: null });
    const again = await admin.call("DELETE", "/secrets/billing_token");
    expect([again.status, again.body?.detail]).toEqual([404, "No such secret."]);
  });
});
