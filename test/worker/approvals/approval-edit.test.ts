/**
 * Issue #31 item 2: an approver's edit. The original request is never approved (its call,
 * repeated, answers the edit); the edited arguments get an approval of their own, bound to their
 * own request digest, claimed once by the agent's next call with exactly those arguments.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/core/json";
import { context, REFERENCE_TENANT, secretOf, send, setupConsumer, type ToolCallAnswer, wipe } from "../../kit";
import { initialize, mcpPost } from "../mcp/mcp-server-support";

const T0 = 1_784_419_200;
const BASE = `/v1/consumers/${REFERENCE_TENANT}`;
const PROPOSED = { order_ref: "ORDER-7", reason: "duplicate" };
const EDITED = { order_ref: "ORDER-7", reason: "damaged" };
/** The catalog's safe_message of APPROVAL_INVALID (the reference's text). */
const INVALID = "Approval expired or is not bound to the current request.";
const EDIT_NOTE =
  'The approver edited the arguments: call the tool again with exactly these arguments: {"order_ref":"ORDER-7","reason":"damaged"}';
/** A right-to-left override in the approver's words: shown to the model as its escape. */
const RLO = "\u202e";

let agent: string;
let mcpAgent: string;
let approver: string;
let auditor: string;

interface Listed {
  approval_id: string;
  approval_digest: string;
  request_sha256: string;
  input_schema_revision: string;
  output_schema_revision: string;
  effect_revision: string;
}

type Answer = ToolCallAnswer & {
  approval_id?: string;
  model_result: { error: { safe_message?: string } | null };
};

beforeEach(async () => {
  await wipe(REFERENCE_TENANT);
  await setupConsumer(REFERENCE_TENANT, {
    config: { approver_subjects: ["rev-1"] },
    tools: ["create_refund_draft"],
    clock: T0,
  });
  agent = await secretOf(REFERENCE_TENANT, "agent");
  mcpAgent = await secretOf(REFERENCE_TENANT, "agent", "user-1");
  approver = await secretOf(REFERENCE_TENANT, "approver", "rev-1");
  auditor = await secretOf(REFERENCE_TENANT, "auditor");
});

async function call(args: Record<string, unknown>, key: string): Promise<Answer> {
  const res = await send("POST", `${BASE}/tool-calls`, agent, {
    principal: { subject_id: "user-1", roles: [] },
    proposal: { name: "create_refund_draft", arguments: args },
    context: context(`call-${key}`, { key }),
  });
  expect(res.status).toBe(200);
  return res.json<Answer>();
}

async function pending(): Promise<Listed[]> {
  const list = await send("GET", `${BASE}/approvals?state=pending`, approver);
  return (await list.json<{ approvals: Listed[] }>()).approvals;
}

async function decide(item: Listed, body: Record<string, unknown>) {
  const res = await send("POST", `${BASE}/approvals/${item.approval_id}`, approver, {
    approval_digest: item.approval_digest,
    ...body,
  });
  return { status: res.status, body: await res.json<Record<string, unknown>>() };
}

async function only(): Promise<Listed> {
  const [item] = await pending();
  if (item === undefined) throw new Error("no pending approval");
  return item;
}

// Independent of src/core: canonical JSON of strings and objects (keys sorted), SHA-256 by WebCrypto (docs/approvals.md).
function canonical(value: unknown): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  const object = value as Record<string, unknown>;
  return `{${Object.keys(object)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonical(object[key])}`)
    .join(",")}}`;
}

async function sha256Hex(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The request digest of the edited arguments, recomputed from the view's revisions. */
async function editedDigest(item: Listed): Promise<string> {
  return sha256Hex(
    canonical({
      tenant_id: REFERENCE_TENANT,
      subject_id: "user-1",
      tool: "create_refund_draft",
      arguments: EDITED,
      input_schema_revision: item.input_schema_revision,
      output_schema_revision: item.output_schema_revision,
      effect_revision: item.effect_revision,
    }),
  );
}

describe("an edit", () => {
  it("never runs the proposed call and runs exactly the edited one, once", async () => {
    const proposed = await call(PROPOSED, "k-1");
    const item = await only();
    expect(item.approval_id).toBe(proposed.approval_id);
    const digest = await editedDigest(item);
    const decided = await decide(item, { decision: "edit", arguments: EDITED, reason: `Damaged ${RLO}` });
    const editedId = (decided.body["edited"] as { approval_id: string } | undefined)?.approval_id ?? "";
    expect(editedId).toMatch(/^apr_[0-9a-f]{32}$/);
    expect(editedId).not.toBe(item.approval_id);
    expect(decided).toEqual({
      status: 200,
      body: {
        approval_id: item.approval_id,
        state: "edited",
        approver_id: "rev-1",
        decided_at: T0,
        valid_until: T0 + 60,
        reason: `Damaged ${RLO}`,
        edited: { approval_id: editedId, request_sha256: digest, arguments: EDITED },
        bound_to_request: true,
      },
    });
    expect(await pending()).toEqual([]);

    // The proposed call, repeated: told to call again with the edited arguments, never run.
    const note = `${INVALID} ${EDIT_NOTE} The approver said: "Damaged ⟨U+202E⟩"`;
    const again = await call(PROPOSED, "k-1");
    expect([again.model_result.status, again.model_result.error]).toEqual([
      "failed",
      {
        code: "APPROVAL_INVALID",
        category: "approval",
        safe_message: note,
        recovery: "request_approval",
        retry_after_ms: null,
      },
    ]);
    expect(again.provider_output).toEqual({
      type: "function_call_output",
      call_id: "call-k-1",
      output: canonicalJson(again.model_result),
    });

    // The status the agent waits on says the same.
    const status = await send("GET", `${BASE}/approvals/${item.approval_id}?wait=5`, agent);
    const body = await status.json<Record<string, unknown>>();
    expect([body["state"], body["valid_until"], body["edited"]]).toEqual([
      "edited",
      T0 + 60,
      { request_sha256: digest, arguments: EDITED, instruction: `${EDIT_NOTE} The approver said: "Damaged ⟨U+202E⟩"` },
    ]);

    // The re-proposal with exactly the edited arguments (a new call: its own id and key) runs.
    const ran = await call(EDITED, "k-2");
    expect([ran.model_result.status, ran.model_result.data, ran.approval_id]).toEqual([
      "succeeded",
      { draft_id: "DRAFT-1", order_ref: "ORDER-7", reason: "damaged" },
      undefined,
    ]);
    // Its repeat replays; another call with the same arguments finds no approval left: a human decides it.
    const replay = await call(EDITED, "k-2");
    expect([replay.model_result.status, replay.model_result.execution.delivery]).toEqual(["succeeded", "local_replay"]);
    const other = await call(EDITED, "k-3");
    expect([other.model_result.status, other.model_result.error?.code]).toEqual(["failed", "APPROVAL_REQUIRED"]);
    // And the proposed call still never runs.
    expect((await call(PROPOSED, "k-1")).model_result.error?.code).toBe("APPROVAL_INVALID");

    // The audit: the decision says edited, with the edited request digest and the approval it opened.
    const audit = await (
      await send("GET", `${BASE}/audit`, auditor)
    ).json<{
      entries: Array<{ kind: string; record: Record<string, unknown> }>;
    }>();
    const entry = audit.entries.find((e) => e.kind === "approval.decision")?.record;
    expect([
      entry?.["state"],
      entry?.["request_sha256"],
      entry?.["edited_request_sha256"],
      entry?.["edited_approval_id"],
      entry?.["reason"],
    ]).toEqual(["edited", item.request_sha256, digest, editedId, `Damaged ${RLO}`]);
  });

  it("without words tells the model only the arguments", async () => {
    await call(PROPOSED, "k-1");
    expect((await decide(await only(), { decision: "edit", arguments: EDITED })).status).toBe(200);
    expect((await call(PROPOSED, "k-1")).model_result.error?.safe_message).toBe(`${INVALID} ${EDIT_NOTE}`);
  });

  it("is refused, nothing stored, for arguments outside the tool's contract or equal to the proposed ones", async () => {
    await call(PROPOSED, "k-1");
    const item = await only();
    const refusals = [];
    for (const args of [{ order_ref: "ORDER-7", reason: "late" }, { order_ref: "ORDER-7" }, PROPOSED]) {
      const refused = await decide(item, { decision: "edit", arguments: args });
      refusals.push([refused.status, refused.body["code"], refused.body["path"]]);
    }
    expect(refusals).toEqual([
      [422, "INVALID_ARGUMENTS", "/arguments/reason"],
      [422, "INVALID_ARGUMENTS", "/arguments/reason"],
      [422, "INVALID_ARGUMENTS", "/arguments"],
    ]);
    const missing = await decide(item, { decision: "edit", arguments: { order_ref: "ORDER-7" } });
    expect(missing.body["detail"]).toBe(
      "The edited arguments do not fit the tool's contract at /arguments/reason: expected a value: the member is required; the approval stays pending.",
    );
    // An edit without arguments, arguments without an edit: the contract refuses both.
    for (const body of [{ decision: "edit" }, { decision: "approve", arguments: EDITED }]) {
      const refused = await decide(item, body);
      expect([refused.status, refused.body["code"]]).toEqual([400, "INVALID_REQUEST"]);
    }
    // Still pending, and the right edit is taken.
    expect((await pending()).map((p) => p.approval_id)).toEqual([item.approval_id]);
    expect((await decide(item, { decision: "edit", arguments: EDITED })).status).toBe(200);
  });

  it("is refused with another digest, like any decision", async () => {
    await call(PROPOSED, "k-1");
    const item = await only();
    const refused = await decide({ ...item, approval_digest: "0".repeat(64) }, { decision: "edit", arguments: EDITED });
    expect([refused.status, refused.body["code"]]).toEqual([409, "APPROVAL_DIGEST_MISMATCH"]);
  });

  it("reaches the model over MCP, and the MCP re-call with the edited arguments runs", async () => {
    const s = await initialize(mcpAgent);
    const request = (id: number, args: Record<string, unknown>, key: string) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "create_refund_draft", arguments: args, _meta: { "io.toolgate/idempotency_key": key } },
    });
    await mcpPost(mcpAgent, request(1, PROPOSED, "mcp-1"), s.headers);
    expect((await decide(await only(), { decision: "edit", arguments: EDITED, reason: "Damaged" })).status).toBe(200);
    const edited = await mcpPost(mcpAgent, request(2, PROPOSED, "mcp-1"), s.headers);
    const { result } = edited.json as {
      result: { content: Array<{ type: string; text: string }>; structuredContent: { error: Record<string, unknown> } };
    };
    const message = `${INVALID} ${EDIT_NOTE} The approver said: "Damaged"`;
    expect(result.structuredContent.error["safe_message"]).toBe(message);
    expect(result.content).toEqual([{ type: "text", text: canonicalJson(result.structuredContent) }]);
    const ran = await mcpPost(mcpAgent, request(3, EDITED, "mcp-2"), s.headers);
    const done = ran.json as { result: { isError: boolean; structuredContent: { status: string } } };
    expect([done.result.isError, done.result.structuredContent.status]).toEqual([false, "succeeded"]);
  });
});
