/**
 * Every HTTP tool request carries a signed statement of consumer, subject, roles, tool and call
 * (docs/http-tools.md). The refunds service behind `DOWNSTREAM` (test/support/refunds-service.ts)
 * verifies it with `http-message-signatures` under the public key the gate publishes, and
 * records what it verified. Expected keys and signatures are computed with node:crypto.
 */
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import type { Principal, ToolCall } from "../../../src/core/tool-result/types";
import { lookupRefundTool, submitRefundTool } from "../../../src/worker/targets/catalog";
import { downstreamOf, httpExecutor } from "../../../src/worker/targets/executor";
import { downstreamSigner, encodeIdentity, identityStatement } from "../../../src/worker/targets/http/signature";
import { gateKey, signedHeaders } from "../../support/forgery";
import { context, createConsumer, credential, gate, send, wipe, type ToolCallAnswer } from "../../kit";

/** `TOOLGATE_SIGNING_KEY` as vitest.config.ts binds it (and the refunds service's secret). */
const KEY = "test-signing-key-0123456789abcdef012345";
/** The operator's cause of a run that had no signing key (the model sees the catalog TOOL_ERROR only). */
const NO_SIGNER = {
  kind: "refused",
  detail: "the gate has no signing key (TOOLGATE_SIGNING_KEY): nothing is sent unsigned",
} as const;
const ALICE: Principal = { tenant_id: "tenant-a", subject_id: "user-1", roles: ["support"] };
const REFUND = { order_ref: "ORDER-7", reason: "duplicate" };
/** The keys the gate publishes for tenant-a and tenant-b under KEY (computed with node:crypto: HKDF-SHA256, Ed25519, RFC 7638). */
const TENANT_A_KEY = {
  kty: "OKP",
  crv: "Ed25519",
  x: "M-lbJxbTypqagK876iBxmuSRaA1DlBszUY9NDdgKQXs",
  kid: "D5MYTufZAonKSHAHsIyKHYhugrwiS1KjJjEvQIzbRMA",
  use: "sig",
};
const TENANT_B_KID = "71QXDCIMtUP2I7iodil7qARmrbjpbBWzih1lHx7Pkmw";
const KID = { "tenant-a": TENANT_A_KEY.kid, "tenant-b": TENANT_B_KID } as const;

function toolCall(name: string, args: ToolCall["arguments"], callId: string, key: string | null = null): ToolCall {
  return { ...context(callId, { key }), name, arguments: args };
}

async function downstream(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const init =
    body === undefined
      ? {}
      : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  return (await (await env.DOWNSTREAM!.fetch(new Request(`http://downstream${path}`, init))).json()) as Record<
    string,
    unknown
  >;
}

/** The refunds service through a fetcher that may rewrite each request first. */
function through(
  rewrite: (request: Request) => Request | Promise<Request> = (r) => r,
  secret = KEY,
  nowMs?: () => number,
) {
  const service = downstreamOf({ DOWNSTREAM: env.DOWNSTREAM, TOOLGATE_SIGNING_KEY: secret }, nowMs);
  if (service === undefined) throw new Error("no downstream");
  return httpExecutor({
    ...service,
    fetcher: { fetch: async (request) => env.DOWNSTREAM!.fetch(await rewrite(request)) },
  });
}

beforeEach(async () => {
  await wipe("tenant-a", "tenant-b");
  await downstream("/_control", { reset: true, mode: "ok" });
});

describe("the identity of HTTP tool requests", () => {
  it("hole: tenant-a's and tenant-b's calls of the same tool reach the downstream with different verified identities", async () => {
    for (const tenant of ["tenant-a", "tenant-b"]) {
      await createConsumer(tenant, ["lookup_refund"], ["rev-1"]);
      const agent = (await credential(tenant, "agent", "user-1", { roles: ["support"] })).secret;
      const res = await send("POST", `/v1/consumers/${tenant}/tool-calls`, agent, {
        principal: { subject_id: "user-1", roles: ["support"] },
        proposal: { name: "lookup_refund", arguments: { refund_id: "RF-1" } },
        context: context("call-1"),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as ToolCallAnswer).model_result.status).toBe("succeeded");
    }
    const statement = (consumer: string) => ({
      consumer,
      subject_id: "user-1",
      roles: ["support"],
      tool: "lookup_refund",
      call_id: "call-1",
      operation_id: "op-call-1",
    });
    expect(await downstream("/_identities")).toEqual({
      verified: [
        { method: "POST", path: "/refunds/lookup", keyid: KID["tenant-a"], statement: statement("tenant-a") },
        { method: "POST", path: "/refunds/lookup", keyid: KID["tenant-b"], statement: statement("tenant-b") },
      ],
      refused: [],
    });
  });

  it("hole: a downstream that holds only tenant-a's published key refuses tenant-b's request, which answers TOOL_ERROR", async () => {
    await downstream("/_control", { serve: ["tenant-a"] });
    await createConsumer("tenant-b", ["lookup_refund"], ["rev-1"]);
    const agent = (await credential("tenant-b", "agent", "user-1")).secret;
    const res = await send("POST", "/v1/consumers/tenant-b/tool-calls", agent, {
      principal: { subject_id: "user-1", roles: [] },
      proposal: { name: "lookup_refund", arguments: { refund_id: "RF-1" } },
      context: context("call-1"),
    });
    expect(((await res.json()) as ToolCallAnswer).model_result.error?.code).toBe("TOOL_ERROR");
    expect(await downstream("/_identities")).toEqual({
      verified: [],
      refused: [{ method: "POST", path: "/refunds/lookup", status: 401, reason: "unknown key" }],
    });
  });

  it("signs a write with its status_ref, and the status query and fence with the queried key", async () => {
    const executor = through();
    const ran = await executor.run(
      submitRefundTool.spec,
      ALICE,
      toolCall("submit_refund", REFUND, "call-1", "idem-1"),
      "status_write",
    );
    expect(ran.kind === "result" ? ran.result.data : ran).toEqual({
      refund_id: "RF-1",
      order_ref: "ORDER-7",
      reason: "duplicate",
    });
    expect(
      await executor.query(
        submitRefundTool.spec,
        ALICE,
        toolCall("submit_refund", REFUND, "call-2", "idem-2"),
        "status_lost",
      ),
    ).toEqual({ kind: "not_executed" });
    const statement = (callId: string, statusRef: string) => ({
      consumer: "tenant-a",
      subject_id: "user-1",
      roles: ["support"],
      tool: "submit_refund",
      call_id: callId,
      operation_id: `op-${callId}`,
      status_ref: statusRef,
    });
    expect(await downstream("/_identities")).toEqual({
      verified: [
        { method: "POST", path: "/refunds", keyid: KID["tenant-a"], statement: statement("call-1", "status_write") },
        {
          method: "GET",
          path: "/refunds/status/status_lost",
          keyid: KID["tenant-a"],
          statement: statement("call-2", "status_lost"),
        },
        {
          method: "POST",
          path: "/refunds/status/status_lost/fence",
          keyid: KID["tenant-a"],
          statement: statement("call-2", "status_lost"),
        },
      ],
      refused: [],
    });
  });

  it("sends the documented headers (known answer computed with node:crypto)", async () => {
    const signer = downstreamSigner(
      KEY,
      () => 1_784_419_200_500,
      () => "nonce-1",
    )!;
    const identity = encodeIdentity(
      identityStatement(ALICE, "lookup_refund", toolCall("lookup_refund", {}, "call-1"), null),
    );
    expect(
      await signer.sign(
        { method: "POST", url: "http://downstream/refunds/lookup", body: '{"refund_id":"RF-1"}' },
        identity,
      ),
    ).toEqual({
      "content-digest": "sha-256=:EjiQBdw7cFR14wMYBpfPF+k6veopPmllOKgFF2YKs9I=:",
      "toolgate-identity":
        "eyJjYWxsX2lkIjoiY2FsbC0xIiwiY29uc3VtZXIiOiJ0ZW5hbnQtYSIsIm9wZXJhdGlvbl9pZCI6Im9wLWNhbGwtMSIsInJvbGVzIjpbInN1cHBvcnQiXSwic3ViamVjdF9pZCI6InVzZXItMSIsInRvb2wiOiJsb29rdXBfcmVmdW5kIn0",
      "signature-input": `toolgate=("@method" "@target-uri" "content-digest" "toolgate-identity");created=1784419200;expires=1784419260;nonce="nonce-1";keyid="${TENANT_A_KEY.kid}";alg="ed25519";tag="toolgate"`,
      signature: "toolgate=:glwwx562ffJ1PpklAJ0etJwfWvfSjpcIItz8wPgCxfDt0vHBgexoOiWGcN6d3ocFBxAO8/eXkg5bgBvktEXCAA==:",
    });
  });
});

describe("the downstream refuses what the gate did not sign", () => {
  const tamperings: Array<[string, (r: Request) => Request, string]> = [
    [
      "a tampered Toolgate-Identity (another subject, admin roles)",
      (r) => {
        const headers = new Headers(r.headers);
        headers.set(
          "toolgate-identity",
          encodeIdentity(
            identityStatement(
              { ...ALICE, subject_id: "user-2", roles: ["admin"] },
              "submit_refund",
              toolCall("submit_refund", REFUND, "call-1"),
              "status_write",
            ),
          ).header,
        );
        return new Request(r, { headers });
      },
      "bad signature",
    ],
    [
      "a tampered body",
      (r) =>
        new Request(r.url, {
          method: r.method,
          headers: r.headers,
          body: JSON.stringify({ ...REFUND, order_ref: "ORDER-8" }),
        }),
      "content-digest mismatch",
    ],
    [
      "an unsigned request",
      (r) => {
        const headers = new Headers(r.headers);
        for (const name of ["signature", "signature-input", "toolgate-identity", "content-digest"])
          headers.delete(name);
        return new Request(r, { headers });
      },
      "unsigned",
    ],
  ];

  it.each(tamperings)("hole: %s is refused with 401 and nothing runs", async (_name, rewrite, reason) => {
    const call = toolCall("submit_refund", REFUND, "call-1", "idem-1");
    expect(await through(rewrite).run(submitRefundTool.spec, ALICE, call, "status_write")).toEqual({
      kind: "failed",
      cause: { kind: "status", status: 401, detail: "HTTP 401" },
    });
    expect(await downstream("/_identities")).toEqual({
      verified: [],
      refused: [{ method: "POST", path: "/refunds", status: 401, reason }],
    });
    expect(await downstream("/_stats")).toEqual({ effects: 0, duplicates: [], posts: {}, committed: [] });
    // The same request, untouched, runs: the refusal was the tampering's.
    expect((await through().run(submitRefundTool.spec, ALICE, call, "status_write")).kind).toBe("result");
  });

  it("hole: a request signed with another gate's key is refused", async () => {
    const call = toolCall("lookup_refund", { refund_id: "RF-1" }, "call-1");
    expect(
      await through(undefined, "another-gates-signing-key-0123456789abcdef").run(
        lookupRefundTool.spec,
        ALICE,
        call,
        null,
      ),
    ).toEqual({ kind: "failed", cause: { kind: "status", status: 401, detail: "HTTP 401" } });
    expect((await downstream("/_identities")).refused).toEqual([
      { method: "POST", path: "/refunds/lookup", status: 401, reason: "unknown key" },
    ]);
  });

  it("hole: tenant-b's key cannot vouch for a statement of tenant-a", async () => {
    const body = JSON.stringify({ refund_id: "RF-1" });
    const url = "http://downstream/refunds/lookup";
    const statement = {
      consumer: "tenant-a",
      subject_id: "user-1",
      roles: ["support"],
      tool: "lookup_refund",
      call_id: "call-1",
      operation_id: "op-call-1",
    };
    const headers = signedHeaders(
      gateKey(KEY, "tenant-b", TENANT_B_KID),
      "POST",
      url,
      statement,
      body,
      Math.floor(Date.now() / 1000),
      "nonce-b",
    );
    const res = await env.DOWNSTREAM!.fetch(
      new Request(url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body }),
    );
    expect([res.status, await res.json()]).toEqual([401, { error: "unknown key" }]);
  });

  it("hole: a replayed or stale request is refused", async () => {
    const captured: Request[] = [];
    const call = toolCall("lookup_refund", { refund_id: "RF-1" }, "call-1");
    const capture = async (r: Request) => {
      captured.push(new Request(r.url, { method: r.method, headers: r.headers, body: await r.clone().text() }));
      return r;
    };
    expect((await through(capture).run(lookupRefundTool.spec, ALICE, call, null)).kind).toBe("result");
    const replay = await env.DOWNSTREAM!.fetch(captured[0]!);
    expect([replay.status, await replay.json()]).toEqual([401, { error: "replayed nonce" }]);
    const stale = through(undefined, KEY, () => Date.now() - 120_000);
    expect(await stale.run(lookupRefundTool.spec, ALICE, call, null)).toEqual({
      kind: "failed",
      cause: { kind: "status", status: 401, detail: "HTTP 401" },
    });
    expect((await downstream("/_identities")).refused).toEqual([
      { method: "POST", path: "/refunds/lookup", status: 401, reason: "replayed nonce" },
      { method: "POST", path: "/refunds/lookup", status: 401, reason: "signature refused: Signature is too old" },
    ]);
  });
});

describe("without a signing key", () => {
  it.each([
    ["unset", undefined],
    ["31 characters", "short-signing-key-0123456789abc"],
  ])("hole: HTTP tools send nothing when the key is %s (the call's TOOL_ERROR)", async (_name, secret) => {
    const service = downstreamOf({ DOWNSTREAM: env.DOWNSTREAM, TOOLGATE_SIGNING_KEY: secret });
    expect(service).toBe(undefined);
    const executor = httpExecutor(service);
    expect(
      await executor.run(
        submitRefundTool.spec,
        ALICE,
        toolCall("submit_refund", REFUND, "call-1", "idem-1"),
        "status_write",
      ),
    ).toEqual({ kind: "not_sent", cause: NO_SIGNER });
    expect(executor.canQuery(submitRefundTool.spec)).toBe(false);
    expect(await downstream("/_identities")).toEqual({ verified: [], refused: [] });
    expect(await downstream("/_stats")).toEqual({ effects: 0, duplicates: [], posts: {}, committed: [] });
  });

  it("signs with a key of exactly 32 characters", () => {
    expect(downstreamOf({ DOWNSTREAM: env.DOWNSTREAM, TOOLGATE_SIGNING_KEY: "k".repeat(32) })?.baseUrl).toBe(
      "http://downstream",
    );
  });
});
