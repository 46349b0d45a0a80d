/**
 * Issue #12, tools as data: define → call → approve (CEL rule true and false) → replay →
 * change the contract → the old approval and the old key no longer apply; refused definitions
 * with their pointers; an HTTP target's unknown outcome reconciled through its status URL and
 * settled through its fence URL. The target is the test ledger (test/support/ledger-service.ts)
 * behind workerd's outbound fetch; it verifies every request's signature.
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { beforeEach, describe, expect, it } from "vitest";
import { adminClient, context, credential, gate, pinClock, secretOf, send, setupConsumer, wipe } from "../../kit";

const C = "tools-a";
const T0 = 1_784_419_200;

const LOOKUP = {
  description: "Look up a customer's tier.",
  risk: "read",
  input: {
    type: "object",
    properties: { customer: { type: "string", minLength: 1, maxLength: 8 } },
    required: ["customer"],
    additionalProperties: false,
  },
  output: {
    schema: {
      type: "object",
      properties: { customer: { type: "string" }, tier: { type: "string", enum: ["gold", "silver"] } },
      required: ["customer", "tier"],
      additionalProperties: false,
    },
    bound_to_arguments: { customer: "customer" },
  },
  authorize: '"support" in principal.roles',
  target: { kind: "http", url: "https://ledger.test/customers/lookup" },
};

const INVOICE = (maximum = 100_000) => ({
  description: "Create an invoice.",
  risk: "write",
  input: {
    type: "object",
    properties: {
      customer: { type: "string", minLength: 1, maxLength: 8 },
      amount: { type: "integer", minimum: 1, maximum },
    },
    required: ["customer", "amount"],
    additionalProperties: false,
  },
  output: {
    schema: {
      type: "object",
      properties: {
        invoice_id: { type: "string", maxLength: 16, pattern: "^INV-[0-9]+$" },
        customer: { type: "string" },
        amount: { type: "integer" },
      },
      required: ["invoice_id", "customer", "amount"],
      additionalProperties: false,
    },
    bound_to_arguments: { customer: "customer", amount: "amount" },
  },
  approval: "args.amount > 100",
  target: {
    kind: "http",
    url: "https://ledger.test/invoices",
    secret_headers: { authorization: { secret: "ledger_token", prefix: "Bearer " } },
    status_url: "https://ledger.test/invoices/status/{status_ref}",
    fence_url: "https://ledger.test/invoices/status/{status_ref}/fence",
  },
});

async function ledger(path: string, body?: unknown): Promise<Record<string, any>> {
  const res = await fetch(
    `https://ledger.test${path}`,
    body === undefined ? {} : { method: "POST", body: JSON.stringify(body) },
  );
  return (await res.json()) as Record<string, any>;
}

const admin = adminClient(C).call;

let n = 0;
/** One call; the call id is the key's (a repeated call after an approval is the same call), or fresh. */
async function callTool(
  agent: string,
  name: string,
  args: Record<string, unknown>,
  key: string | null,
  roles: string[] = [],
  fresh = false,
) {
  n += 1;
  const callId = key === null || fresh ? `call-${n}` : `call-${key}`;
  const res = await send("POST", `/v1/consumers/${C}/tool-calls`, agent, {
    principal: { subject_id: "user-1", roles },
    proposal: { name, arguments: args },
    context: context(callId, { key }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function setup(): Promise<{ agent: string; approver: string }> {
  const definitions = { lookup_customer: LOOKUP, create_invoice: INVOICE() };
  await setupConsumer(C, {
    config: { approver_subjects: ["rev-1"] },
    secrets: { ledger_token: "s3cret-token" },
    definitions,
    tools: ["lookup_customer", "create_invoice"],
    clock: T0,
  });
  return {
    agent: await secretOf(C, "agent", undefined, { roles: ["support"] }),
    approver: await secretOf(C, "approver", "rev-1"),
  };
}

async function approve(approver: string, approvalId: string) {
  const list = (await (await send("GET", `/v1/consumers/${C}/approvals`, approver)).json()) as {
    approvals: Array<{ approval_id: string; approval_digest: string }>;
  };
  const digest = list.approvals.find((a) => a.approval_id === approvalId)?.approval_digest;
  return send("POST", `/v1/consumers/${C}/approvals/${approvalId}`, approver, {
    decision: "approve",
    approval_digest: digest,
  });
}

beforeEach(async () => {
  await wipe(C);
  await ledger("/_control", { reset: true, token: "s3cret-token" });
});

describe("tools as data", () => {
  it("define → call a read: CEL authorize true runs it, false is the non-enumerating NOT_FOUND", async () => {
    const { agent } = await setup();
    const ok = await callTool(agent, "lookup_customer", { customer: "acme" }, null, ["support"]);
    expect([ok.status, ok.body.model_result.status, ok.body.model_result.data]).toEqual([
      200,
      "succeeded",
      { customer: "acme", tier: "gold" },
    ]);
    const denied = await callTool(agent, "lookup_customer", { customer: "acme" }, null, []);
    expect(denied.body.model_result.error.code).toBe("NOT_FOUND");
    const state = await ledger("/_state");
    expect(state.seen).toEqual([
      { method: "POST", path: "/customers/lookup", authorization: null, subject: "user-1", tool: "lookup_customer" },
    ]);
  });

  it("keeps calling a data tool after a refused call rolled its transaction back (the tools are rebuilt, the plane keeps its specs)", async () => {
    const { agent } = await setup();
    expect((await callTool(agent, "lookup_customer", { customer: "acme" }, null, ["support"])).status).toBe(200);
    const refused = await send("POST", `/v1/consumers/${C}/tool-calls`, agent, {
      principal: { subject_id: "user-1", roles: ["support"] },
      proposal: { name: "lookup_customer", arguments: { customer: "acme" } },
      context: { ...context("refused-1"), adapter_revision: "gemini-generate-content-v9" },
    });
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([400, "INVALID_HOST_CONTEXT"]);
    const again = await callTool(agent, "lookup_customer", { customer: "acme" }, null, ["support"]);
    expect([again.status, again.body.model_result.status, again.body.model_result.data]).toEqual([
      200,
      "succeeded",
      { customer: "acme", tier: "gold" },
    ]);
  });

  it("a write under the CEL threshold runs without a human and replays; over it waits for one; its secret header is sent", async () => {
    const { agent, approver } = await setup();
    const small = await callTool(agent, "create_invoice", { customer: "acme", amount: 50 }, "k-small", ["support"]);
    expect([small.body.model_result.status, small.body.model_result.data]).toEqual([
      "succeeded",
      { invoice_id: "INV-1", customer: "acme", amount: 50 },
    ]);
    const replay = await callTool(agent, "create_invoice", { customer: "acme", amount: 50 }, "k-small", ["support"]);
    expect(replay.body.model_result.execution.delivery).toBe("local_replay");
    const big = await callTool(agent, "create_invoice", { customer: "acme", amount: 500 }, "k-big", ["support"]);
    expect(big.body.model_result.error.code).toBe("APPROVAL_REQUIRED");
    expect((await approve(approver, big.body.approval_id)).status).toBe(200);
    const approved = await callTool(agent, "create_invoice", { customer: "acme", amount: 500 }, "k-big", ["support"]);
    expect(approved.body.model_result.data).toEqual({ invoice_id: "INV-2", customer: "acme", amount: 500 });
    const state = await ledger("/_state");
    // The gate sends each write's status_ref as its Idempotency-Key: two writes, each posted once.
    expect([
      Object.values(state.posts),
      Object.keys(state.posts)[0]?.slice(0, 7),
      state.seen.map((s: { authorization: string }) => s.authorization),
    ]).toEqual([[1, 1], "status_", ["Bearer s3cret-token", "Bearer s3cret-token"]]);
  });

  it("changing the contract changes its revisions: the old key conflicts and the old approval no longer applies", async () => {
    const { agent, approver } = await setup();
    expect(
      (await callTool(agent, "create_invoice", { customer: "acme", amount: 50 }, "k-1", ["support"])).body.model_result
        .status,
    ).toBe("succeeded");
    const pending = await callTool(agent, "create_invoice", { customer: "acme", amount: 700 }, "k-2", ["support"]);
    expect((await approve(approver, pending.body.approval_id)).status).toBe(200);
    const before = (await admin("GET", "/tools/create_invoice")).body;
    const redefined = await admin("PUT", "/tools/create_invoice", INVOICE(50_000));
    expect([redefined.status, redefined.body?.version]).toEqual([200, 2]);
    expect(redefined.body?.revisions.input).not.toBe(before?.history[0].revisions.input);
    // Another call with the old key: the record of the old contract does not match the new one.
    const replayOld = await callTool(
      agent,
      "create_invoice",
      { customer: "acme", amount: 50 },
      "k-1",
      ["support"],
      true,
    );
    expect(replayOld.body.model_result.error.code).toBe("IDEMPOTENCY_CONFLICT");
    // The approved call, repeated under the new contract: its request digest changed, so the call
    // id bound to the old one conflicts and the old approval never lets it run.
    const afterApproval = await callTool(agent, "create_invoice", { customer: "acme", amount: 700 }, "k-2", [
      "support",
    ]);
    expect(afterApproval.body.model_result.error.code).toBe("CALL_ID_CONFLICT");
    const freshCall = await callTool(
      agent,
      "create_invoice",
      { customer: "acme", amount: 700 },
      "k-2",
      ["support"],
      true,
    );
    expect(freshCall.body.model_result.error.code).toBe("APPROVAL_REQUIRED");
    expect(Object.values((await ledger("/_state")).posts)).toEqual([1]);
    const history = (await admin("GET", "/tools/create_invoice")).body;
    expect([history?.current_version, history?.history.map((v: { version: number }) => v.version)]).toEqual([
      2,
      [2, 1],
    ]);
  });

  it("refuses definitions outside the subset, bad CEL, non-https targets and unknown secrets, each with its pointer", async () => {
    await setup();
    const refusals: Array<[string, unknown]> = [];
    const put = async (definition: unknown) => {
      const res = await admin("PUT", "/tools/bad_tool", definition);
      refusals.push([`${res.status} ${res.body?.code}`, res.body?.path]);
    };
    await put({ ...LOOKUP, input: { ...LOOKUP.input, properties: { customer: { type: "string", format: "ipv4" } } } });
    await put({ ...LOOKUP, authorize: "principal.roles.contains(" });
    await put({ ...LOOKUP, target: { kind: "http", url: "http://ledger.test/customers/lookup" } });
    await put({
      ...INVOICE(),
      target: { ...INVOICE().target, secret_headers: { authorization: { secret: "missing_token" } } },
    });
    await put({ ...LOOKUP, output: { ...LOOKUP.output, bound_to_arguments: { tier: "nope" } } });
    await put({ ...LOOKUP, target: { ...LOOKUP.target, headers: { "Idempotency-Key": "mine" } } });
    await put({ ...LOOKUP, target: { ...LOOKUP.target, headers: { "x-a": "1", "X-A": "2" } } });
    await put({ ...LOOKUP, name: "x" });
    expect(refusals).toEqual([
      ["422 INVALID_TOOL_DEFINITION", "/input/properties/customer/format"],
      ["422 INVALID_TOOL_DEFINITION", "/authorize"],
      ["422 INVALID_TOOL_DEFINITION", "/target/url"],
      ["422 INVALID_TOOL_DEFINITION", "/target/secret_headers/authorization/secret"],
      ["422 INVALID_TOOL_DEFINITION", "/output/bound_to_arguments/tier"],
      ["422 INVALID_TOOL_DEFINITION", "/target/headers/Idempotency-Key"],
      ["422 INVALID_TOOL_DEFINITION", "/target/headers"],
      ["400 INVALID_REQUEST", undefined],
    ]);
    expect((await admin("GET", "/tools/bad_tool")).status).toBe(404);
  });

  it("type-checks the CEL rules against the input schema: a misspelt argument or a string compared with a number is refused with the rule's pointer", async () => {
    await setup();
    const refusals: unknown[] = [];
    const put = async (definition: unknown) => {
      const res = await admin("PUT", "/tools/bad_tool", definition);
      refusals.push([res.status, res.body?.code, res.body?.path, res.body?.detail]);
    };
    await put({ ...INVOICE(), approval: "args.amout > 100" });
    await put({ ...LOOKUP, authorize: '"support" in principal.roles && args.customer > 5' });
    await put({ ...INVOICE(), approval: "args.amount" });
    const against = "(checked against the tool's input schema)";
    expect(refusals).toEqual([
      [422, "INVALID_TOOL_DEFINITION", "/approval", `CEL at 5: No such key: amout ${against}`],
      [422, "INVALID_TOOL_DEFINITION", "/authorize", `CEL at 32: no such overload: string > int ${against}`],
      [422, "INVALID_TOOL_DEFINITION", "/approval", `CEL at 0: the expression must answer a bool, not int ${against}`],
    ]);
    expect((await admin("GET", "/tools/bad_tool")).status).toBe(404);
    const accepted = await admin("PUT", "/tools/bad_tool", {
      ...INVOICE(),
      approval: 'args.amount > 100 || args["customer"] == "acme"',
    });
    expect([accepted.status, accepted.body?.version]).toEqual([200, 1]);
  });

  it("validates arguments at the schema's boundaries: code points, int vs float, extra fields", async () => {
    const { agent } = await setup();
    const code = async (args: Record<string, unknown>) =>
      (await callTool(agent, "lookup_customer", args, null, ["support"])).body.model_result.error?.code ?? "OK";
    // maxLength 8 counts code points: eight astral characters fit, nine do not.
    expect([
      await code({ customer: "😀".repeat(8) }),
      await code({ customer: "😀".repeat(9) }),
      await code({ customer: "" }),
      await code({ customer: "a", extra: 1 }),
    ]).toEqual(["OK", "INVALID_ARGUMENTS", "INVALID_ARGUMENTS", "INVALID_ARGUMENTS"]);
    // A data tool's INVALID_ARGUMENTS says where and what was expected; the value itself is never quoted.
    const refused = await callTool(agent, "create_invoice", { customer: "acme", amount: 100_001 }, "k-big", [
      "support",
    ]);
    const error = {
      category: "contract",
      code: "INVALID_ARGUMENTS",
      details: { expected: "an integer ≤ 100000", pointer: "/amount" },
      recovery: "correct_input",
      retry_after_ms: null,
      safe_message: "Arguments do not satisfy the tool contract.",
    };
    expect(refused.body.model_result.error).toEqual(error);
    expect(JSON.parse(refused.body.provider_output.output as string).error).toEqual(error);
    // The reference's int vs float: `60.0` is a float, so not an `integer`.
    const raw = async (amount: string) => {
      n += 1;
      const body = `{"principal":{"subject_id":"user-1","roles":["support"]},"proposal":{"name":"create_invoice","arguments":{"customer":"acme","amount":${amount}}},"context":${JSON.stringify(context(`raw-${n}`, { key: `raw-${n}` }))}}`;
      const res = await gate(`/v1/consumers/${C}/tool-calls`, {
        method: "POST",
        headers: { authorization: `Bearer ${agent}`, "content-type": "application/json" },
        body,
      });
      const answer = (await res.json()) as { model_result: { status: string; error: { code: string } | null } };
      return answer.model_result.error?.code ?? answer.model_result.status;
    };
    expect([
      await raw("60"),
      await raw("60.0"),
      await raw("0"),
      await raw("1"),
      await raw("100000"),
      await raw("100001"),
    ]).toEqual([
      "succeeded",
      "INVALID_ARGUMENTS",
      "INVALID_ARGUMENTS",
      "succeeded",
      "APPROVAL_REQUIRED",
      "INVALID_ARGUMENTS",
    ]);
  });

  it("reads an OpenAI model's null for an optional argument as left out (its strict declaration), and no other provider's", async () => {
    const { agent } = await setup();
    const optional = {
      ...LOOKUP,
      input: { ...LOOKUP.input, properties: { ...LOOKUP.input.properties, region: { type: "string", maxLength: 8 } } },
    };
    expect((await admin("PUT", "/tools/lookup_customer", optional)).status).toBe(200);
    const declared = (await (await send("GET", `/v1/consumers/${C}/tools?format=openai`, agent)).json()) as {
      tools: Array<{ name: string; parameters: { required: string[] } }>;
    };
    expect(declared.tools.find((t) => t.name === "lookup_customer")?.parameters.required).toEqual([
      "customer",
      "region",
    ]);
    const viaOpenAi = await callTool(agent, "lookup_customer", { customer: "acme", region: null }, null, ["support"]);
    expect(viaOpenAi.body.model_result.status).toBe("succeeded");
    n += 1;
    const res = await send("POST", `/v1/consumers/${C}/tool-calls`, agent, {
      principal: { subject_id: "user-1", roles: ["support"] },
      proposal: { name: "lookup_customer", arguments: { customer: "acme", region: null } },
      context: context(`anthropic-${n}`, { provider: "anthropic" }),
    });
    expect(((await res.json()) as { model_result: { error: { code: string } } }).model_result.error.code).toBe(
      "INVALID_ARGUMENTS",
    );
  });

  it("hands a token-verified principal's claims to the CEL rules (principal.claims)", async () => {
    const keys = await generateKeyPair("ES256");
    const jwk = { ...(await exportJWK(keys.publicKey)), kid: "k1" };
    const issuer = { issuer: "https://login.example.test/", audience: "tools-a", jwks: { keys: [jwk] } };
    expect((await admin("PUT", "", { tools: [], approver_subjects: [], principal_tokens: issuer })).status).toBe(200);
    expect(
      (await admin("PUT", "/tools/lookup_customer", { ...LOOKUP, authorize: 'principal.claims.plan == "pro"' })).status,
    ).toBe(200);
    expect(
      (await admin("PUT", "", { tools: ["lookup_customer"], approver_subjects: [], principal_tokens: issuer })).status,
    ).toBe(200);
    await pinClock(C, T0);
    const agent = (await credential(C, "agent", undefined, { principal: "token" })).secret;
    const sign = (plan: string) =>
      new SignJWT({ sub: "user-1", plan })
        .setProtectedHeader({ alg: "ES256", kid: "k1" })
        .setIssuer(issuer.issuer)
        .setAudience("tools-a")
        .setExpirationTime(T0 + 300)
        .sign(keys.privateKey);
    const codes: string[] = [];
    for (const plan of ["pro", "free"]) {
      n += 1;
      const res = await send("POST", `/v1/consumers/${C}/tool-calls`, agent, {
        principal_token: await sign(plan),
        proposal: { name: "lookup_customer", arguments: { customer: "acme" } },
        context: context(`claims-${n}`),
      });
      const body = (await res.json()) as { model_result: { status: string; error: { code: string } | null } };
      codes.push(body.model_result.error?.code ?? body.model_result.status);
    }
    expect(codes).toEqual(["succeeded", "NOT_FOUND"]);
  });

  it("reconciles an unknown outcome through the status URL, and settles one the target never saw through the fence URL", async () => {
    const { agent } = await setup();
    await ledger("/_control", { mode: "error_after_commit" });
    const lost = await callTool(agent, "create_invoice", { customer: "acme", amount: 60 }, "k-lost", ["support"]);
    expect([lost.body.model_result.status, lost.body.model_result.error.code]).toEqual(["unknown", "OUTCOME_UNKNOWN"]);
    await ledger("/_control", { mode: "ok" });
    const status = async (key: string, statusRef: string) => {
      n += 1;
      const res = await send("POST", `/v1/consumers/${C}/tool-calls/status`, agent, {
        principal: { subject_id: "user-1", roles: ["support"] },
        proposal: { name: "create_invoice", arguments: { customer: "acme", amount: key === "k-lost" ? 60 : 70 } },
        context: context(`status-${n}`, { key }),
        status_ref: statusRef,
      });
      return (await res.json()) as Record<string, any>;
    };
    const reconciled = await status("k-lost", lost.body.status_ref);
    expect([reconciled.model_result.status, reconciled.model_result.data]).toEqual([
      "succeeded",
      { invoice_id: "INV-1", customer: "acme", amount: 60 },
    ]);
    await ledger("/_control", { mode: "error" });
    const failed = await callTool(agent, "create_invoice", { customer: "acme", amount: 70 }, "k-never", ["support"]);
    expect(failed.body.model_result.error.code).toBe("OUTCOME_UNKNOWN");
    await ledger("/_control", { mode: "ok" });
    // The 500 answered before any invoice: the status is not_found, the gate fences the key.
    const state = await ledger("/_state");
    expect(state.invoices[failed.body.status_ref]).toBe(undefined);
    const settled = await status("k-never", failed.body.status_ref);
    expect(settled.model_result.error.code).toBe("TOOL_ERROR");
    expect((await ledger("/_state")).fenced).toEqual([failed.body.status_ref]);
  });

  it("refuses a consumer's tool list naming tools nobody defined (422, naming them), and lists declarations for agents", async () => {
    const { agent } = await setup();
    const unknown = await admin("PUT", "", { tools: ["lookup_customer", "send_email", "zeta"], approver_subjects: [] });
    expect([unknown.status, unknown.body?.code, unknown.body?.detail]).toEqual([
      422,
      "UNKNOWN_TOOL_NAMES",
      'No tool is defined under "send_email", "zeta".',
    ]);
    const declared = (await (await send("GET", `/v1/consumers/${C}/tools?format=anthropic`, agent)).json()) as {
      format: string;
      tools: Array<{ name: string; description: string; input_schema: unknown }>;
    };
    expect([declared.format, declared.tools.map((t) => t.name)]).toEqual([
      "anthropic",
      ["create_invoice", "lookup_customer"],
    ]);
    expect(declared.tools[1]).toEqual({
      name: "lookup_customer",
      description: "Look up a customer's tier.",
      input_schema: LOOKUP.input,
    });
    const disabled = await admin("DELETE", "/tools/lookup_customer");
    expect(disabled.status).toBe(204);
    const after = (await (await send("GET", `/v1/consumers/${C}/tools?format=json-schema`, agent)).json()) as {
      tools: Array<{ name: string }>;
    };
    expect(after.tools.map((t) => t.name)).toEqual(["create_invoice"]);
    expect(
      (await callTool(agent, "lookup_customer", { customer: "acme" }, null, ["support"])).body.model_result.error.code,
    ).toBe("UNKNOWN_TOOL");
  });
});
