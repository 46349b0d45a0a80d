import { env } from "cloudflare:workers";
import { listDurableObjectIds } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createConsumer, credential, gate, send } from "../../kit";

const UNAUTHORIZED_BODY = {
  type: "https://toolgate.dev/problems/unauthenticated",
  title: "Unauthorized",
  status: 401,
  code: "UNAUTHENTICATED",
  detail: "Missing or invalid credential.",
};

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

describe("PUT /v1/consumers/{consumer}", () => {
  it("creates, then updates, a consumer", async () => {
    const first = await send("PUT", "/v1/consumers/acme", ADMIN_TOKEN, {
      tools: ["get_order"],
      approver_subjects: ["rev-1"],
    });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({
      consumer: "acme",
      tools: ["get_order"],
      approver_subjects: ["rev-1"],
      principal_tokens: null,
      limits: DEFAULT_LIMITS,
      created: true,
    });
    const second = await send("PUT", "/v1/consumers/acme", ADMIN_TOKEN, {
      tools: ["get_order", "create_refund_draft"],
      approver_subjects: [],
      limits: { page_items: 7 },
    });
    expect(await second.json()).toEqual({
      consumer: "acme",
      tools: ["create_refund_draft", "get_order"],
      approver_subjects: [],
      principal_tokens: null,
      limits: { ...DEFAULT_LIMITS, page_items: 7 },
      created: false,
    });
  });

  it("refuses a token issuer whose JWKS carries anything but text members (R5 found a 500: a float went on to the object)", async () => {
    const res = await gate("/v1/consumers/acme", {
      method: "PUT",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: '{"tools":[],"approver_subjects":[],"principal_tokens":{"issuer":"i","audience":"a","jwks":{"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AA","ext":1.0}]}}}',
    });
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([400, "INVALID_REQUEST"]);
  });

  it("refuses a wrong admin token with the one 401 body", async () => {
    const res = await send("PUT", "/v1/consumers/acme", "not-the-admin-token", { tools: [], approver_subjects: [] });
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toEqual(UNAUTHORIZED_BODY);
  });

  it("refuses duplicate keys and a BOM before any contract check", async () => {
    const dup = await gate("/v1/consumers/acme", {
      method: "PUT",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: '{"tools":[],"tools":[],"approver_subjects":[]}',
    });
    expect(dup.status).toBe(400);
    expect(((await dup.json()) as { code: string }).code).toBe("INVALID_JSON");
    const bom = await gate("/v1/consumers/acme", {
      method: "PUT",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: '\ufeff{"tools":[],"approver_subjects":[]}',
    });
    expect(bom.status).toBe(400);
    expect(((await bom.json()) as { code: string }).code).toBe("INVALID_JSON");
  });

  it("refuses an unknown field and an oversized body", async () => {
    const extra = await send("PUT", "/v1/consumers/acme", ADMIN_TOKEN, {
      tools: [],
      approver_subjects: [],
      owner: "x",
    });
    expect(extra.status).toBe(400);
    expect(((await extra.json()) as { code: string }).code).toBe("INVALID_REQUEST");
    const big = await send("PUT", "/v1/consumers/acme", ADMIN_TOKEN, {
      tools: ["x".repeat(70_000)],
      approver_subjects: [],
    });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { code: string }).code).toBe("BODY_TOO_LARGE");
  });
});

describe("credentials", () => {
  it("mints typed credentials with a keyed tag, shown once", async () => {
    await createConsumer("acme", ["get_order"], ["rev-1"]);
    const res = await send("POST", "/v1/consumers/acme/credentials", ADMIN_TOKEN, { kind: "auditor" });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { credential_id: string; secret: string };
    expect(/^tg_auditor_[0-9A-Za-z]{40}_[0-9a-f]{32}$/.test(body.secret)).toBe(true);
    expect(body.credential_id).toBe(`cred_${body.secret.slice(11, 27)}`);
    expect(body).toEqual({
      credential_id: body.credential_id,
      secret: body.secret,
      kind: "auditor",
      subject_id: null,
      principal: null,
      roles: [],
      tools: null,
      expires_at: null,
    });
  });

  it("needs a subject for an approver credential", async () => {
    await createConsumer("acme", [], []);
    const res = await send("POST", "/v1/consumers/acme/credentials", ADMIN_TOKEN, { kind: "approver" });
    expect(res.status).toBe(400);
  });

  it("answers 404 for a consumer that does not exist", async () => {
    const res = await send("POST", "/v1/consumers/ghost/credentials", ADMIN_TOKEN, { kind: "agent" });
    expect(res.status).toBe(404);
  });

  it("revokes at once", async () => {
    await createConsumer("acme", [], []);
    const auditor = await credential("acme", "auditor");
    expect((await send("GET", "/v1/consumers/acme/audit/verify", auditor.secret)).status).toBe(200);
    const del = await send("DELETE", `/v1/consumers/acme/credentials/${auditor.id}`, ADMIN_TOKEN);
    expect(del.status).toBe(204);
    const after = await send("GET", "/v1/consumers/acme/audit/verify", auditor.secret);
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual(UNAUTHORIZED_BODY);
    expect((await send("DELETE", `/v1/consumers/acme/credentials/${auditor.id}`, ADMIN_TOKEN)).status).toBe(404);
  });

  it("gives every authentication failure the same 401 body", async () => {
    await createConsumer("acme", [], []);
    await createConsumer("other", [], []);
    const foreign = await credential("other", "auditor");
    const own = await credential("acme", "auditor");
    const tampered = own.secret.slice(0, -7) + (own.secret.at(-7) === "A" ? "B" : "A") + own.secret.slice(-6);
    const forged = "tg_auditor_" + "A".repeat(40) + "_AAAAAA";
    for (const token of [null, "garbage", forged, tampered, foreign.secret]) {
      const res = await send("GET", "/v1/consumers/acme/audit/verify", token);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(UNAUTHORIZED_BODY);
    }
  });

  it("refuses a forged credential without creating any Durable Object storage", async () => {
    // The probe works: creating a consumer is one more object with storage.
    const start = (await listDurableObjectIds(env.CONSUMER)).length;
    await createConsumer("acme-probe-source", [], []);
    const real = (await credential("acme-probe-source", "agent")).secret;
    const before = (await listDurableObjectIds(env.CONSUMER)).length;
    expect(before).toBe(start + 1);
    const body = {
      principal: { subject_id: "u", roles: [] },
      proposal: { name: "x", arguments: {} },
      context: {
        call_id: "c",
        operation_id: "o",
        provider: "openai",
        api_family: "responses",
        response_id: "r",
        adapter_revision: "openai-responses-v1",
      },
    };
    const hex = () =>
      [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
    const alnum = () =>
      [...crypto.getRandomValues(new Uint8Array(40))]
        .map((b) => "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[b % 62])
        .join("");
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const consumer = `forged-${hex().slice(0, 12)}`;
      // A well-formed token with a tag made without the key; the old CRC-32 check would have let a forger compute it.
      statuses.push(
        (await send("POST", `/v1/consumers/${consumer}/tool-calls`, `tg_agent_${alnum()}_${hex()}`, body)).status,
      );
      // Another consumer's genuine token, and the same for the socket and admin routes.
      statuses.push((await send("POST", `/v1/consumers/${consumer}/tool-calls`, real, body)).status);
      statuses.push(
        (
          await gate(`/v1/consumers/${consumer}/runtime/connect`, {
            headers: { upgrade: "websocket", authorization: `Bearer ${real}` },
          })
        ).status,
      );
    }
    expect(statuses).toEqual(Array.from({ length: 60 }, () => 401));
    expect((await listDurableObjectIds(env.CONSUMER)).length).toBe(before);
  });

  it("answers 403 to a genuine credential of the wrong kind", async () => {
    await createConsumer("acme", [], []);
    const agent = await credential("acme", "agent");
    const res = await send("GET", "/v1/consumers/acme/audit/verify", agent.secret);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe("FORBIDDEN");
  });
});

describe("GET /v1/openapi.json", () => {
  it("serves an OpenAPI 3.1 document generated from the contracts", async () => {
    const res = await gate("/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, unknown>;
      components: { schemas: Record<string, { additionalProperties?: boolean }> };
    };
    expect(doc.openapi).toBe("3.1.0");
    // Other planes add their own paths; every path of the tool-call plane and the shared ones is there.
    const expected = [
      "/healthz",
      "/v1/consumers/{consumer}",
      "/v1/consumers/{consumer}/approvals",
      "/v1/consumers/{consumer}/approvals/{approval_id}",
      "/v1/consumers/{consumer}/audit",
      "/v1/consumers/{consumer}/audit/verify",
      "/v1/consumers/{consumer}/credentials",
      "/v1/consumers/{consumer}/credentials/{credential_id}",
      "/v1/consumers/{consumer}/ping",
      "/v1/consumers/{consumer}/tool-calls",
      "/v1/consumers/{consumer}/tool-calls/status",
      "/v1/openapi.json",
    ];
    expect(expected.filter((p) => !(p in doc.paths))).toEqual([]);
    expect(doc.components.schemas.ToolCallRequest?.additionalProperties).toBe(false);
  });
});
