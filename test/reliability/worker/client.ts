/**
 * In-process client of the gate (workerd): the Worker's own fetch handler with the real
 * bindings and a fresh execution context per request. Not `exports.default.fetch` or `SELF`:
 * in this pool version each request through that loopback costs more than the one before
 * (0.1 ms → 150 ms after 1,000 requests), which would turn a 5,000-input check into hours.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import worker from "../../../src/worker/index";

export const ADMIN = "test-admin-token-0123456789";

/** Sends one request through the Worker's fetch handler. */
export async function fetchGate(request: Request): Promise<Response> {
  return worker.fetch(request, env, createExecutionContext());
}

export function gate(path: string, init: RequestInit = {}): Promise<Response> {
  return fetchGate(new Request(`http://gate${path}`, init));
}

export async function send(
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; text: string; json: any }> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await gate(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json: any = null;
  try {
    json = text === "" ? null : JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, text, json };
}

export interface Tenant {
  name: string;
  agent: string;
  agentId: string;
  approver: string;
  approverId: string;
  auditor: string;
  provider: string;
  runtime: string;
}

async function mint(consumer: string, kind: string, subject?: string): Promise<{ secret: string; id: string }> {
  const r = await send(
    "POST",
    `/v1/consumers/${consumer}/credentials`,
    ADMIN,
    subject === undefined ? { kind } : { kind, subject_id: subject },
  );
  if (r.status !== 201) throw new Error(`credential setup failed: ${r.status} ${r.text}`);
  return { secret: r.json.secret, id: r.json.credential_id };
}

/** Creates a consumer with every tool and one credential of each kind. */
export async function tenant(
  name: string,
  approvers: string[] = ["human-reviewer-1"],
  approverSubject = "human-reviewer-1",
): Promise<Tenant> {
  const put = await send("PUT", `/v1/consumers/${name}`, ADMIN, {
    tools: ["get_order", "create_refund_draft", "submit_refund", "lookup_refund"],
    approver_subjects: approvers,
    // These checks send thousands of requests through one credential; the rate limit has its own tests.
    limits: { calls_per_second: 1_000_000, call_burst: 1_000_000 },
  });
  if (put.status !== 200) throw new Error(`consumer setup failed: ${put.status} ${put.text}`);
  const agent = await mint(name, "agent");
  const approver = await mint(name, "approver", approverSubject);
  return {
    name,
    agent: agent.secret,
    agentId: agent.id,
    approver: approver.secret,
    approverId: approver.id,
    auditor: (await mint(name, "auditor")).secret,
    provider: (await mint(name, "provider", "provider-1")).secret,
    runtime: (await mint(name, "runtime")).secret,
  };
}

export function pinClock(consumer: string, seconds: number | undefined): Promise<void> {
  const stub = env.CONSUMER.get(env.CONSUMER.idFromName(consumer));
  return runInDurableObject(stub, (instance) => {
    instance.clock.pinnedSeconds = seconds;
  });
}

export function callBody(opts: {
  callId: string;
  key?: string | null;
  tool?: string;
  args?: Record<string, unknown>;
  subject?: string;
  roles?: string[];
  operation?: string;
  response?: string;
}) {
  return {
    principal: { subject_id: opts.subject ?? "user-1", roles: opts.roles ?? [] },
    proposal: {
      name: opts.tool ?? "create_refund_draft",
      arguments: opts.args ?? { order_ref: "ORDER-7", reason: "duplicate" },
    },
    context: {
      call_id: opts.callId,
      operation_id: opts.operation ?? `op-${opts.callId}`,
      idempotency_key: opts.key === undefined ? `key-${opts.callId}` : opts.key,
      provider: "openai",
      api_family: "responses",
      response_id: opts.response ?? "resp-1",
      adapter_revision: "openai-responses-v1",
    },
  };
}

/** Sends a write, approves the approval it opens with the digest shown, answers the approval id. */
export async function approveCall(t: Tenant, body: unknown): Promise<string> {
  const asked = await send("POST", `/v1/consumers/${t.name}/tool-calls`, t.agent, body);
  if (asked.json?.model_result?.error?.code !== "APPROVAL_REQUIRED")
    throw new Error(`expected APPROVAL_REQUIRED: ${asked.text}`);
  const id = asked.json.approval_id as string;
  const list = await send("GET", `/v1/consumers/${t.name}/approvals?state=pending`, t.approver);
  const shown = (list.json.approvals as Array<{ approval_id: string; approval_digest: string }>).find(
    (a) => a.approval_id === id,
  );
  if (shown === undefined) throw new Error("approval not listed");
  const decided = await send("POST", `/v1/consumers/${t.name}/approvals/${id}`, t.approver, {
    decision: "approve",
    approval_digest: shown.approval_digest,
  });
  if (decided.status !== 200) throw new Error(`approval failed: ${decided.text}`);
  return id;
}

/** The error contract check (pure logic, shared with the Node-side checks). */
/** An event stream's opening (what it writes at once, e.g. the replayed state), then the stream is cancelled. */
export async function opening(res: Response): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const next = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), 150))]);
    if (next === null || next.done) break;
    text += decoder.decode(next.value, { stream: true });
  }
  await reader.cancel();
  return text;
}

export { contractBreach } from "../support/contract";
