/**
 * MCP tasks (2025-11-25) over the gate's approvals (docs/mcp.md, "Tasks"): a write that needs
 * an approver is a task `working` until the approval is decided; the next `tasks/get` runs it
 * once and stores the result; `tasks/result` answers it (waiting while the task works);
 * `tasks/cancel` withdraws the approval; tasks belong to their credential.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/core/json";
import { ADMIN_TOKEN, createConsumer, credential, pinClock, send, wipe } from "../../kit";
import { decideAll, initialize, lastToolCallReceipt, mcpPost, T0 } from "./mcp-server-support";

const REFUND = { order_ref: "ORDER-7", reason: "duplicate" };
const AT = "2026-07-19T00:00:00.000Z";
const OBSERVED = "2026-07-19T00:00:00Z";

let agent: string;
let approver: string;
let auditor: string;
let session: { sessionId: string; headers: Record<string, string> };

beforeEach(async () => {
  await wipe("tenant-a");
  await createConsumer("tenant-a", ["get_order", "create_refund_draft"], ["rev-1"]);
  await pinClock("tenant-a", T0);
  agent = (await credential("tenant-a", "agent", "user-1")).secret;
  approver = (await credential("tenant-a", "approver", "rev-1")).secret;
  auditor = (await credential("tenant-a", "auditor")).secret;
  session = await initialize(agent);
});

let nextId = 100;
const rpc = (method: string, params: Record<string, unknown>, token = agent, headers = session.headers) =>
  mcpPost(token, { jsonrpc: "2.0", id: nextId++, method, params }, headers);
const callAsTask = (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>, ttl = 120_000) =>
  rpc("tools/call", { name, arguments: args, task: { ttl }, ...(meta === undefined ? {} : { _meta: meta }) });

const DRAFT_RESULT = () => {
  const model = {
    schema_version: "tool-model-result-v2",
    status: "succeeded",
    data: { draft_id: "DRAFT-1", order_ref: "ORDER-7", reason: "duplicate" },
    error: null,
    execution: { outcome: "committed", delivery: "fresh", complete: true, truncated: false },
    provenance: {
      source_label: "refunds",
      producer_revision: "refunds-mock-v2",
      resource_revision: "draft-1-r1",
      observed_at: OBSERVED,
      trust: "untrusted_data",
    },
  };
  return { content: [{ type: "text", text: canonicalJson(model) }], structuredContent: model, isError: false };
};

async function auditKinds(): Promise<string[]> {
  const page = (await (await send("GET", "/v1/consumers/tenant-a/audit", auditor)).json()) as {
    entries: Array<{ kind: string }>;
  };
  return page.entries.map((e) => e.kind).filter((k) => k !== "consumer.configured" && k !== "credential.created");
}

describe("a write that needs an approver, as a task", () => {
  it("is working until decided, then completes once; tasks/result answers the CallToolResult", async () => {
    const created = await callAsTask("create_refund_draft", REFUND, { "io.toolgate/idempotency_key": "task-1" });
    const task = created.json.result.task as { taskId: string };
    const approvalId = created.json.result._meta["io.toolgate/approval_id"] as string;
    expect(task.taskId).toMatch(/^mcpt_[0-9a-f]{32}$/);
    const working = {
      taskId: task.taskId,
      status: "working",
      ttl: 120_000,
      createdAt: AT,
      lastUpdatedAt: AT,
      pollInterval: 1000,
      statusMessage: `Waiting for an approver to decide ${approvalId}; poll tasks/get.`,
    };
    expect(created.json.result).toEqual({ task: working, _meta: { "io.toolgate/approval_id": approvalId } });
    expect((await rpc("tasks/get", { taskId: task.taskId })).json.result).toEqual(working);
    expect((await rpc("tasks/get", { taskId: task.taskId })).json.result).toEqual(working);
    expect(await auditKinds()).toEqual(["tool_call"]);

    expect(await decideAll(approver)).toEqual([approvalId]);
    const completed = {
      taskId: task.taskId,
      status: "completed",
      ttl: 120_000,
      createdAt: AT,
      lastUpdatedAt: AT,
      pollInterval: 1000,
    };
    expect((await rpc("tasks/get", { taskId: task.taskId })).json.result).toEqual(completed);
    expect((await rpc("tasks/get", { taskId: task.taskId })).json.result).toEqual(completed);
    const result = await rpc("tasks/result", { taskId: task.taskId });
    expect(result.json.result).toEqual({
      ...DRAFT_RESULT(),
      _meta: {
        "io.toolgate/audit": await lastToolCallReceipt(auditor),
        "io.modelcontextprotocol/related-task": { taskId: task.taskId },
      },
    });
    expect(await auditKinds()).toEqual(["tool_call", "approval.decision", "tool_call"]);

    // The same key outside the task: the call already ran, so it replays.
    const replay = await rpc("tools/call", {
      name: "create_refund_draft",
      arguments: REFUND,
      _meta: { "io.toolgate/idempotency_key": "task-1" },
    });
    expect(replay.json.result.structuredContent.execution.delivery).toBe("local_replay");
    expect((await rpc("tasks/list", {})).json.result).toEqual({ tasks: [completed] });
  });

  it("derives the key of a write without one from the session and the JSON-RPC id, so the task runs", async () => {
    const created = await callAsTask("create_refund_draft", REFUND);
    expect(created.json.result.task.status).toBe("working");
    await decideAll(approver);
    const taskId = created.json.result.task.taskId as string;
    expect((await rpc("tasks/get", { taskId })).json.result.status).toBe("completed");
    expect((await rpc("tasks/result", { taskId })).json.result.structuredContent).toEqual(
      DRAFT_RESULT().structuredContent,
    );
  });

  it("tasks/result waits for a task still working and answers once it completes", async () => {
    const created = await callAsTask("create_refund_draft", REFUND, { "io.toolgate/idempotency_key": "task-wait" });
    const taskId = created.json.result.task.taskId as string;
    const waiting = rpc("tasks/result", { taskId });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await decideAll(approver);
    const result = await waiting;
    expect(result.json.result).toEqual({
      ...DRAFT_RESULT(),
      _meta: {
        "io.toolgate/audit": await lastToolCallReceipt(auditor),
        "io.modelcontextprotocol/related-task": { taskId },
      },
    });
  });

  it("completes with the engine's failed result when the approver denies", async () => {
    const created = await callAsTask("create_refund_draft", REFUND, { "io.toolgate/idempotency_key": "task-deny" });
    const taskId = created.json.result.task.taskId as string;
    await decideAll(approver, "deny");
    const task = (await rpc("tasks/get", { taskId })).json.result;
    expect([task.status, task.statusMessage]).toEqual(["completed", "The call finished with APPROVAL_INVALID."]);
    const result = (await rpc("tasks/result", { taskId })).json.result;
    expect([result.isError, result.structuredContent.error.code]).toEqual([true, "APPROVAL_INVALID"]);
  });

  it("tasks/cancel ends a working task and withdraws its approval; a finished task cannot be cancelled", async () => {
    const created = await callAsTask("create_refund_draft", REFUND, { "io.toolgate/idempotency_key": "task-cancel" });
    const taskId = created.json.result.task.taskId as string;
    const cancelled = await rpc("tasks/cancel", { taskId });
    expect(cancelled.json.result).toEqual({
      taskId,
      status: "cancelled",
      ttl: 120_000,
      createdAt: AT,
      lastUpdatedAt: AT,
      pollInterval: 1000,
      statusMessage: "Cancelled by the client; its approval was withdrawn.",
    });
    const pending = (await (await send("GET", "/v1/consumers/tenant-a/approvals?state=pending", approver)).json()) as {
      approvals: unknown[];
    };
    expect(pending.approvals).toEqual([]);
    expect((await rpc("tasks/cancel", { taskId })).json.error).toEqual({
      code: -32602,
      message: "Cannot cancel a task in terminal status: cancelled.",
    });
    expect((await rpc("tasks/result", { taskId })).json.error).toEqual({
      code: -32000,
      message: "The task was cancelled; it has no result.",
      data: { taskId, status: "cancelled" },
    });
    expect(await auditKinds()).toEqual(["tool_call", "mcp.task.cancelled"]);
  });
});

describe("tasks of reads, other credentials, other versions", () => {
  it("completes a call that needs no approval at once", async () => {
    const created = await callAsTask("get_order", { order_ref: "ORDER-7" }, undefined, 1);
    const taskId = created.json.result.task.taskId as string;
    // A ttl below the floor is raised to it (one minute).
    expect(created.json.result).toEqual({
      task: { taskId, status: "completed", ttl: 60_000, createdAt: AT, lastUpdatedAt: AT, pollInterval: 1000 },
    });
    const result = (await rpc("tasks/result", { taskId })).json.result;
    expect([result.isError, result.structuredContent.data, result._meta]).toEqual([
      false,
      { order_ref: "ORDER-7", status: "paid" },
      { "io.toolgate/audit": await lastToolCallReceipt(auditor), "io.modelcontextprotocol/related-task": { taskId } },
    ]);
  });

  it("forgets a task after its ttl", async () => {
    const created = await callAsTask("get_order", { order_ref: "ORDER-7" }, undefined, 60_000);
    const taskId = created.json.result.task.taskId as string;
    await pinClock("tenant-a", T0 + 59);
    expect((await rpc("tasks/get", { taskId })).json.result.status).toBe("completed");
    await pinClock("tenant-a", T0 + 60);
    expect((await rpc("tasks/get", { taskId })).json.error).toEqual({ code: -32602, message: "Task not found." });
  });

  it("answers another credential's task as not found, and lists only the caller's tasks", async () => {
    const created = await callAsTask("get_order", { order_ref: "ORDER-7" });
    const taskId = created.json.result.task.taskId as string;
    const other = (await credential("tenant-a", "agent", "user-1")).secret;
    const otherSession = await initialize(other);
    const notFound = { code: -32602, message: "Task not found." };
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
      expect([method, (await rpc(method, { taskId }, other, otherSession.headers)).json.error]).toEqual([
        method,
        notFound,
      ]);
    }
    expect((await rpc("tasks/list", {}, other, otherSession.headers)).json.result).toEqual({ tasks: [] });
    expect((await rpc("tasks/get", { taskId: "mcpt_unknown" })).json.error).toEqual(notFound);
  });

  it("pages tasks/list with an opaque cursor", async () => {
    const res = await send("PUT", "/v1/consumers/tenant-a", ADMIN_TOKEN, {
      tools: ["get_order"],
      approver_subjects: ["rev-1"],
      limits: { page_items: 2 },
    });
    expect(res.status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await callAsTask("get_order", { order_ref: "ORDER-7" })).json.result.task.taskId as string);
    const first = (await rpc("tasks/list", {})).json.result;
    expect(first.tasks.map((t: { taskId: string }) => t.taskId)).toEqual(ids.slice(0, 2));
    const second = (await rpc("tasks/list", { cursor: first.nextCursor })).json.result;
    expect(second).toEqual({ tasks: [expect.objectContaining({ taskId: ids[2] })] });
    expect((await rpc("tasks/list", { cursor: "!!" })).json.error).toEqual({
      code: -32602,
      message: "Invalid cursor.",
    });
  });

  it("has no tasks under 2025-06-18: task methods are unknown, a task-augmented call answers directly", async () => {
    const old = await initialize(agent, "2025-06-18");
    expect((await rpc("tasks/list", {}, agent, old.headers)).json.error.code).toBe(-32601);
    const direct = await rpc(
      "tools/call",
      { name: "get_order", arguments: { order_ref: "ORDER-7" }, task: {} },
      agent,
      old.headers,
    );
    expect([direct.json.result.isError, direct.json.result.structuredContent.status]).toEqual([false, "succeeded"]);
  });
});
