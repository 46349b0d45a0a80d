/**
 * Black box: the real gate under `wrangler dev --persist-to`, driven over loopback HTTP, killed
 * with SIGKILL and restarted on the same state.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDev, type DevServer } from "./wrangler-dev";

const ADMIN = randomBytes(24).toString("base64url");
const CONSUMER = "tenant-a";
const PRINCIPAL = { subject_id: "user-1", roles: [] as string[] };
const REFUND = { order_ref: "ORDER-7", reason: "duplicate" };

interface Answer {
  status: number;
  body: {
    model_result?: {
      status: string;
      data: Record<string, string> | null;
      execution: { delivery: string };
      provenance: Record<string, unknown>;
      error: { code: string } | null;
    };
    approval_id?: string;
    code?: string;
  };
}

let persistTo: string;
let dev: DevServer;
let agent: string;
let approver: string;
let auditor: string;

async function request(method: string, path: string, token: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${dev.base}/v1/consumers/${CONSUMER}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer["body"] };
}

function refundCall(callId: string, key: string) {
  return {
    principal: PRINCIPAL,
    proposal: { name: "create_refund_draft", arguments: REFUND },
    context: {
      call_id: callId,
      operation_id: `op-${callId}`,
      idempotency_key: key,
      provider: "openai",
      api_family: "responses",
      response_id: "resp-1",
      adapter_revision: "openai-responses-v1",
    },
  };
}

/** Sends the call, approves the approval it opens with the digest shown, and answers the call body. */
async function approve(callBody: ReturnType<typeof refundCall>): Promise<void> {
  const asked = await request("POST", "/tool-calls", agent, callBody);
  expect(asked.body.model_result?.error?.code).toBe("APPROVAL_REQUIRED");
  const list = (await (
    await fetch(`${dev.base}/v1/consumers/${CONSUMER}/approvals?state=pending`, {
      headers: { authorization: `Bearer ${approver}` },
    })
  ).json()) as {
    approvals: Array<{ approval_id: string; approval_digest: string }>;
  };
  const shown = list.approvals.find((a) => a.approval_id === asked.body.approval_id);
  const decided = await request("POST", `/approvals/${asked.body.approval_id}`, approver, {
    decision: "approve",
    approval_digest: shown?.approval_digest,
  });
  expect(decided.status).toBe(200);
}

beforeAll(async () => {
  persistTo = mkdtempSync(join(tmpdir(), "toolgate-blackbox-"));
  dev = await startDev(persistTo, ADMIN);
  const admin = async (method: string, path: string, body: unknown) =>
    (await fetch(`${dev.base}/v1/consumers/${CONSUMER}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then((r) => r.json())) as { secret: string };
  await admin("PUT", "", { tools: ["get_order", "create_refund_draft"], approver_subjects: ["human-reviewer-1"] });
  agent = (await admin("POST", "/credentials", { kind: "agent" })).secret;
  approver = (await admin("POST", "/credentials", { kind: "approver", subject_id: "human-reviewer-1" })).secret;
  auditor = (await admin("POST", "/credentials", { kind: "auditor" })).secret;
});

afterAll(async () => {
  await dev?.kill();
  if (persistTo !== undefined) rmSync(persistTo, { recursive: true, force: true });
});

describe("wrangler dev, killed and restarted on the same state", () => {
  it("executes 64 concurrent identical writes once, replays after a SIGKILL restart, and keeps the audit chain valid", async () => {
    const first = refundCall("call-1", "bb-key-1");
    await approve(first);
    const fresh = await request("POST", "/tool-calls", agent, first);
    expect(fresh.body.model_result?.execution.delivery).toBe("fresh");
    expect(fresh.body.model_result?.data).toEqual({ draft_id: "DRAFT-1", order_ref: "ORDER-7", reason: "duplicate" });

    const burst = refundCall("call-2", "bb-key-2");
    await approve(burst);
    const answers = await Promise.all(Array.from({ length: 64 }, () => request("POST", "/tool-calls", agent, burst)));
    const succeeded = answers.filter((a) => a.status === 200);
    const inProgress = answers.filter((a) => a.status === 409);
    expect(succeeded.length + inProgress.length).toBe(64);
    expect(inProgress.every((a) => a.body.code === "IDEMPOTENCY_IN_PROGRESS")).toBe(true);
    expect(succeeded.filter((a) => a.body.model_result?.execution.delivery === "fresh").length).toBe(1);
    expect(succeeded.filter((a) => a.body.model_result?.execution.delivery === "local_replay").length).toBe(
      succeeded.length - 1,
    );
    expect(new Set(succeeded.map((a) => JSON.stringify(a.body.model_result?.data)))).toEqual(
      new Set([JSON.stringify({ draft_id: "DRAFT-2", order_ref: "ORDER-7", reason: "duplicate" })]),
    );
    const before = await request("GET", "/audit/verify", auditor);
    // consumer + 3 credentials, then per approved write: APPROVAL_REQUIRED, the decision, and one
    // entry per 200 answer (a 409 in-progress answer records nothing).
    expect((before.body as { ok: boolean }).ok).toBe(true);
    expect((before.body as { count: number }).count).toBe(4 + 3 + 2 + succeeded.length);
    expect(/^[0-9a-f]{64}$/.test((before.body as { head: string }).head)).toBe(true);

    await dev.kill();
    dev = await startDev(persistTo, ADMIN);

    const afterVerify = await request("GET", "/audit/verify", auditor);
    expect(afterVerify.body).toEqual(before.body);
    const replay = await request("POST", "/tool-calls", agent, first);
    expect(replay.body.model_result?.execution.delivery).toBe("local_replay");
    expect(replay.body.model_result?.data).toEqual(fresh.body.model_result?.data);
    expect(replay.body.model_result?.provenance).toEqual(fresh.body.model_result?.provenance);

    // One more write proves the burst incremented the side-effect counter exactly once.
    const next = refundCall("call-3", "bb-key-3");
    await approve(next);
    const third = await request("POST", "/tool-calls", agent, next);
    expect(third.body.model_result?.data).toEqual({ draft_id: "DRAFT-3", order_ref: "ORDER-7", reason: "duplicate" });
    const end = await request("GET", "/audit/verify", auditor);
    expect((end.body as { ok: boolean }).ok).toBe(true);
    expect((end.body as { count: number }).count).toBe((before.body as { count: number }).count + 4);
  });
});
