import { canonicalJson, type Json, type JsonObject } from "../../../core/json";
import { ListParams, MCP_META, RPC_ERRORS, TaskParams } from "../../../contracts/mcp";
import { ToolCallRequest } from "../../../contracts/tool-call";
import { problem } from "../../http/problem";
import { limitsOf } from "../consumers/service";
import { cursorCodec, safeIntegerKey } from "../../kernel/cursor";
import { fromStored } from "../../kernel/rpc";
import type { ToolCallServices } from "../tool-calls/services";
import type { McpContext, McpKernel } from "./context";
import * as jsonRpc from "./rpc";
import { randomHex } from "../../kernel/random-id";
import { MAX_MCP_TASKS, MAX_MCP_TASKS_PER_CREDENTIAL, MAX_MCP_TASKS_PER_SUBJECT } from "./quota";
import type { McpStore, McpTaskRow, McpTaskStatus } from "./store";
import { callToolResult } from "./call";
import { refusalSink, targetCallResult } from "./target-result";

/** How often a client should poll `tasks/get`, in milliseconds. */
export const TASK_POLL_MS = 1000;

/** A task's lifetime from creation (ms): the client's `ttl`, within these bounds. */
export const TASK_TTL_MS = { default: 3_600_000, min: 60_000, max: 86_400_000 } as const;

/** How long `tasks/result` waits for a task still working before it answers an error (ms). */
export const RESULT_WAIT_MS = 25_000;

/** Refusals after which a waiting task only waits longer (the next poll tries again). */
const TRANSIENT = new Set(["IDEMPOTENCY_IN_PROGRESS", "RATE_LIMITED", "QUOTA_EXCEEDED"]);

const TERMINAL: ReadonlySet<McpTaskStatus> = new Set(["completed", "failed", "cancelled"]);

const iso = (seconds: number): string => new Date(seconds * 1000).toISOString();

const waiting = (approvalId: string): string => `Waiting for an approver to decide ${approvalId}; poll tasks/get.`;

/** `tasks/list` cursors: the `seq` of the page's last task, base64url (a bad one is JSON-RPC invalid params). */
const TASKS_CURSOR = cursorCodec<number>({
  prefix: "",
  maxChars: 32,
  write: String,
  read: safeIntegerKey(/^[1-9][0-9]{0,14}$/),
  detail: "Invalid cursor.",
});

/** The status message of a finished call: the catalog code of a failed or unknown result. */
function finishedMessage(result: JsonObject): string | null {
  const code = jsonRpc.objectMember(jsonRpc.objectMember(result, "structuredContent") ?? {}, "error")?.["code"];
  return result["isError"] === true && typeof code === "string" ? `The call finished with ${code}.` : null;
}

/** Adds `delta` to a count of held places, keeping entries only for keys that hold one. */
function hold(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}

/** A task as MCP's `Task`. */
export function taskView(row: McpTaskRow): JsonObject {
  const task: JsonObject = {
    taskId: row.taskId,
    status: row.status,
    ttl: row.ttlMs,
    createdAt: iso(row.createdAt),
    lastUpdatedAt: iso(row.updatedAt),
    pollInterval: TASK_POLL_MS,
  };
  if (row.statusMessage !== null) task["statusMessage"] = row.statusMessage;
  return task;
}

/** What a task-augmented `tools/call` came to. */
export interface TaskStart {
  /** Canonical JSON of the tool call (the shape of the tool-call contract). */
  readonly input: string;
  /** The approval the call waits for, or null when it finished at once. */
  readonly approvalId: string | null;
  readonly result: JsonObject;
  readonly ttlMs: number | null;
}

/**
 * MCP tasks (2025-11-25) over the gate's approvals. A write that needs an approver is a task
 * `working` until the approval is decided; each `tasks/get` of such a task looks at the
 * approval and, once it is no longer pending, runs the stored call again through the tool-call
 * path (once: approved, it executes; denied or expired, the engine answers the refusal) and
 * stores the `CallToolResult`: `completed`, `isError` telling a failed result. A refusal of the
 * gate there (other than a transient one) is `failed` with its JSON-RPC error. Tasks belong to
 * the credential that made them.
 */
export class McpTasks {
  /** Tasks whose call is running now (a concurrent poll leaves them alone). */
  readonly #running = new Set<string>();
  /** Places held for task-augmented calls running now, per credential, per subject, and in all (memory only). */
  readonly #held = new Map<string, number>();
  readonly #heldBySubject = new Map<string, number>();
  #heldAll = 0;

  constructor(
    private readonly store: McpStore,
    private readonly kernel: McpKernel,
    private readonly toolCalls: ToolCallServices,
  ) {}

  /**
   * Runs a task-augmented `tools/call` once its task has a place (mcp/quota.ts), holding the
   * place while the call runs so that no concurrent call takes it; without one the call is
   * refused with `QUOTA_EXCEEDED` before anything runs.
   */
  async withPlace(ctx: McpContext, call: () => Promise<jsonRpc.Answer>): Promise<jsonRpc.Answer> {
    const owner = { credentialId: ctx.auth.caller.credentialId, subjectId: ctx.session.subjectId };
    const held = {
      own: this.#held.get(owner.credentialId) ?? 0,
      subject: this.#heldBySubject.get(owner.subjectId) ?? 0,
      all: this.#heldAll,
    };
    const room = this.kernel.transaction(() => this.store.taskRoom(owner, held, this.kernel.now()));
    if (!room.fits) {
      const detail = `A credential keeps at most ${MAX_MCP_TASKS_PER_CREDENTIAL} MCP tasks, a subject ${MAX_MCP_TASKS_PER_SUBJECT} across its credentials and a consumer ${MAX_MCP_TASKS}; the tasks in the way are still working or another credential's. Nothing ran.`;
      return jsonRpc.refusal(problem("QUOTA_EXCEEDED", detail, room.retryAfterSeconds));
    }
    hold(this.#held, owner.credentialId, 1);
    hold(this.#heldBySubject, owner.subjectId, 1);
    this.#heldAll += 1;
    try {
      return await call();
    } finally {
      hold(this.#held, owner.credentialId, -1);
      hold(this.#heldBySubject, owner.subjectId, -1);
      this.#heldAll -= 1;
    }
  }

  /** Stores the task of a `tools/call` (in the place {@link withPlace} holds) and answers its `CreateTaskResult`. */
  create(ctx: McpContext, start: TaskStart): JsonObject {
    const now = this.kernel.now();
    const ttlMs = Math.min(Math.max(start.ttlMs ?? TASK_TTL_MS.default, TASK_TTL_MS.min), TASK_TTL_MS.max);
    const pending = start.approvalId !== null;
    const row: McpTaskRow = {
      seq: 0,
      taskId: `mcpt_${randomHex(16)}`,
      credentialId: ctx.auth.caller.credentialId,
      subjectId: ctx.session.subjectId,
      status: pending ? "working" : "completed",
      statusMessage: start.approvalId !== null ? waiting(start.approvalId) : finishedMessage(start.result),
      input: start.input,
      approvalId: start.approvalId,
      result: pending ? null : canonicalJson(start.result),
      ttlMs,
      createdAt: now,
      updatedAt: now,
    };
    this.kernel.transaction(() => this.store.addTask(row));
    return start.approvalId === null
      ? { task: taskView(row) }
      : { task: taskView(row), _meta: { [MCP_META.approvalId]: start.approvalId } };
  }

  #find(
    ctx: McpContext,
    params: JsonObject | undefined,
  ): { ok: true; row: McpTaskRow } | { ok: false; answer: jsonRpc.Answer } {
    const parsed = jsonRpc.params(TaskParams, params);
    if (!parsed.ok) return parsed;
    const row = this.store.task(ctx.auth.caller.credentialId, parsed.value.taskId, this.kernel.now());
    return row === undefined ? { ok: false, answer: jsonRpc.invalidParams("Task not found.") } : { ok: true, row };
  }

  /** `tasks/get`: the task, after looking at its approval. */
  async get(ctx: McpContext, params: JsonObject | undefined): Promise<jsonRpc.Answer> {
    const found = this.#find(ctx, params);
    return found.ok ? jsonRpc.result(taskView(await this.#settle(ctx, found.row))) : found.answer;
  }

  /** `tasks/result`: the stored result of a finished task; a working one is waited for (at most {@link RESULT_WAIT_MS}). */
  async result(ctx: McpContext, params: JsonObject | undefined): Promise<jsonRpc.Answer> {
    const found = this.#find(ctx, params);
    if (!found.ok) return found.answer;
    const deadline = Date.now() + RESULT_WAIT_MS;
    let row = await this.#settle(ctx, found.row);
    while (!TERMINAL.has(row.status)) {
      if (Date.now() >= deadline)
        return jsonRpc.error(
          RPC_ERRORS.refused,
          "The task is still working: poll tasks/get, then ask for its result.",
          {
            taskId: row.taskId,
            status: row.status,
          },
        );
      await new Promise((resolve) => setTimeout(resolve, TASK_POLL_MS));
      const again = this.store.task(ctx.auth.caller.credentialId, row.taskId, this.kernel.now());
      if (again === undefined) return jsonRpc.invalidParams("Task not found.");
      row = await this.#settle(ctx, again);
    }
    const related = { [MCP_META.relatedTask]: { taskId: row.taskId } };
    if (row.status === "cancelled" || row.result === null)
      return jsonRpc.error(RPC_ERRORS.refused, "The task was cancelled; it has no result.", {
        taskId: row.taskId,
        status: row.status,
      });
    const stored = jsonRpc.storedObject(row.result, "a stored task result");
    if (row.status === "failed") return { error: stored };
    return jsonRpc.result({ ...stored, _meta: { ...(jsonRpc.objectMember(stored, "_meta") ?? {}), ...related } });
  }

  /** `tasks/list`: the credential's tasks, oldest first, one page at a time. */
  list(ctx: McpContext, params: JsonObject | undefined): jsonRpc.Answer {
    const parsed = jsonRpc.params(ListParams, params);
    if (!parsed.ok) return parsed.answer;
    let after = 0;
    if (parsed.value.cursor !== undefined) {
      const seq = TASKS_CURSOR.decode(parsed.value.cursor);
      if (seq === null) return jsonRpc.invalidParams("Invalid cursor.");
      after = seq;
    }
    const pageItems = limitsOf(ctx.auth.config).page_items;
    const rows = this.store.tasksPage(ctx.auth.caller.credentialId, after, pageItems, this.kernel.now());
    const page = rows.slice(0, pageItems);
    const last = page.at(-1);
    return jsonRpc.result(
      rows.length > pageItems && last !== undefined
        ? { tasks: page.map(taskView), nextCursor: TASKS_CURSOR.encode(last.seq) }
        : { tasks: page.map(taskView) },
    );
  }

  /** `tasks/cancel`: a working task ends `cancelled` and its pending approval is withdrawn. */
  cancel(ctx: McpContext, params: JsonObject | undefined): jsonRpc.Answer {
    const found = this.#find(ctx, params);
    if (!found.ok) return found.answer;
    const row = found.row;
    if (TERMINAL.has(row.status))
      return jsonRpc.invalidParams(`Cannot cancel a task in terminal status: ${row.status}.`);
    if (this.#running.has(row.taskId))
      return jsonRpc.invalidParams("The task's call is running now; it can no longer be cancelled.");
    const now = this.kernel.now();
    this.kernel.transaction(() => {
      if (row.approvalId !== null) this.toolCalls.for(ctx.auth.config).withdraw(row.approvalId, now);
      this.store.finishTask(row.taskId, "cancelled", "Cancelled by the client; its approval was withdrawn.", null, now);
      this.kernel.audit.append("mcp.task.cancelled", now, {
        task_id: row.taskId,
        approval_id: row.approvalId,
        subject_id: row.subjectId,
      });
    });
    const cancelled = this.store.task(ctx.auth.caller.credentialId, row.taskId, now);
    if (cancelled === undefined) throw new Error("a task vanished inside its cancellation");
    return jsonRpc.result(taskView(cancelled));
  }

  /** Runs a waiting task's call again once its approval is no longer pending; answers the task as it now stands. */
  async #settle(ctx: McpContext, row: McpTaskRow): Promise<McpTaskRow> {
    if (row.status !== "working" || row.approvalId === null || this.#running.has(row.taskId)) return row;
    const approval = this.toolCalls.for(ctx.auth.config).book.get(row.approvalId);
    if (approval !== undefined && approval.state === "pending" && approval.expires_at > this.kernel.now()) return row;
    this.#running.add(row.taskId);
    try {
      const input = fromStored(row.input, ToolCallRequest);
      const name = input.proposal?.name;
      const target = name !== undefined && ctx.mcpTarget(name);
      let refused: Json[] | null = null;
      const ran = await ctx.run(
        input,
        null,
        target ? refusalSink(undefined, (content) => (refused = content)) : undefined,
      );
      const now = this.kernel.now();
      if (!ran.ok) {
        if (TRANSIENT.has(ran.error.code)) return row;
        const error = jsonRpc.refusal(ran.error);
        this.kernel.transaction(() =>
          this.store.finishTask(
            row.taskId,
            "failed",
            ran.error.detail,
            canonicalJson("error" in error ? error.error : {}),
            now,
          ),
        );
      } else {
        const answer = ran.value;
        const approvalId = answer["approval_id"];
        const { call_id, operation_id, idempotency_key } = input.context;
        const result = target
          ? targetCallResult(answer, { call_id: call_id ?? null, operation_id, idempotency_key }, refused)
          : callToolResult(answer);
        if (typeof approvalId === "string")
          this.kernel.transaction(() => this.store.awaitApproval(row.taskId, approvalId, waiting(approvalId), now));
        else
          this.kernel.transaction(() =>
            this.store.finishTask(row.taskId, "completed", finishedMessage(result), canonicalJson(result), now),
          );
      }
    } finally {
      this.#running.delete(row.taskId);
    }
    return this.store.task(ctx.auth.caller.credentialId, row.taskId, this.kernel.now()) ?? row;
  }
}
