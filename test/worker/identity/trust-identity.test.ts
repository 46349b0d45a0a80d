/**
 * Issue #11, principals the gate can vouch for: every identity a call acts on comes from what
 * the gate verified (the credential's binding or the end user's JWT), never from the body alone.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { mintCredential, parseCredential } from "../../../src/worker/features/credentials/format";
import { CredentialService } from "../../../src/worker/features/credentials/service";
import { context, createConsumer, credential, pinClock, send, wipe } from "../../kit";

const T0 = 1_784_419_200;
const C = "tenant-a";
const ISSUER = "https://login.example.test/";
const AUDIENCE = "toolgate-trust-a";
const READ = { name: "get_order", arguments: { order_ref: "ORDER-7" } };

let signing: { privateKey: CryptoKey; jwk: JWK };
let stranger: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair("ES256");
  signing = { privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" } };
  stranger = (await generateKeyPair("ES256")).privateKey;
});

async function configure(extra: Record<string, unknown> = {}): Promise<void> {
  const res = await send("PUT", `/v1/consumers/${C}`, "test-admin-token-0123456789", {
    tools: ["get_order", "create_refund_draft"],
    approver_subjects: ["rev-1"],
    principal_tokens: { issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [signing.jwk] } },
    ...extra,
  });
  if (res.status !== 200) throw new Error(`configure: ${res.status} ${await res.text()}`);
}

function jwt(
  claims: Record<string, unknown>,
  opts: { key?: CryptoKey; iss?: string; aud?: string; exp?: number; nbf?: number } = {},
): Promise<string> {
  const token = new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", kid: "k1" })
    .setIssuer(opts.iss ?? ISSUER)
    .setAudience(opts.aud ?? AUDIENCE)
    .setIssuedAt(T0)
    .setExpirationTime(opts.exp ?? T0 + 300);
  if (opts.nbf !== undefined) token.setNotBefore(opts.nbf);
  return token.sign(opts.key ?? signing.privateKey);
}

let n = 0;
async function toolCall(secret: string, body: Record<string, unknown>) {
  n += 1;
  const res = await send("POST", `/v1/consumers/${C}/tool-calls`, secret, {
    proposal: READ,
    context: context(`call-${n}`),
    ...body,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

async function auditKinds(auditor: string): Promise<string[]> {
  const res = await send("GET", `/v1/consumers/${C}/audit?limit=100`, auditor);
  return ((await res.json()) as { entries: Array<{ kind: string }> }).entries.map((e) => e.kind);
}

beforeEach(async () => {
  await wipe(C);
  await configure();
  await pinClock(C, T0);
});

describe("subject-bound agent credentials", () => {
  it("hole: a credential issued for user-2 calling as user-1 is refused and executes nothing", async () => {
    const agent = (await credential(C, "agent", "user-2")).secret;
    const auditor = (await credential(C, "auditor")).secret;
    const before = await auditKinds(auditor);
    const as = await toolCall(agent, { principal: { subject_id: "user-1", roles: [] } });
    expect([as.status, as.body.code, as.body.detail]).toEqual([
      403,
      "PRINCIPAL_MISMATCH",
      "This credential acts only for the subject it was issued for.",
    ]);
    expect(await auditKinds(auditor)).toEqual(before);
  });

  it("acts as its subject with its own roles when the body names none, and refuses a wider role", async () => {
    const agent = (await credential(C, "agent", "user-1", { roles: ["support"] })).secret;
    const own = await toolCall(agent, {});
    expect([own.status, own.body.model_result.status, own.body.model_result.data]).toEqual([
      200,
      "succeeded",
      { order_ref: "ORDER-7", status: "paid" },
    ]);
    const wider = await toolCall(agent, { principal: { subject_id: "user-1", roles: ["support", "support_admin"] } });
    expect([wider.status, wider.body.code, wider.body.detail]).toEqual([
      403,
      "ROLE_NOT_ALLOWED",
      'This credential may not assert the role "support_admin".',
    ]);
    const token = await toolCall(agent, { principal_token: "x.y.z" });
    expect([token.status, token.body.code]).toEqual([400, "INVALID_REQUEST"]);
  });
});

describe("host agent credentials", () => {
  it("act for any subject with roles from their allow-list only", async () => {
    const host = (await credential(C, "agent", undefined, { roles: ["support"] })).secret;
    const ok = await toolCall(host, { principal: { subject_id: "user-1", roles: ["support"] } });
    expect([ok.status, ok.body.model_result.status]).toEqual([200, "succeeded"]);
    const other = await toolCall(host, { principal: { subject_id: "user-9", roles: [] } });
    // Another subject is the host's to name; the engine's authorization decides (ORDER-7 is user-1's).
    expect([other.status, other.body.model_result.error.code]).toEqual([200, "NOT_FOUND"]);
    const role = await toolCall(host, { principal: { subject_id: "user-1", roles: ["support_admin"] } });
    expect([role.status, role.body.code]).toEqual([403, "ROLE_NOT_ALLOWED"]);
    const none = await toolCall(host, {});
    expect([none.status, none.body.code, none.body.detail]).toEqual([
      400,
      "INVALID_REQUEST",
      "$.principal: required with a host credential.",
    ]);
  });
});

describe("token-verified agent credentials", () => {
  it("refuse an expired, wrong-audience, wrong-issuer, not-yet-valid or wrongly signed JWT; run a valid one as its claims' subject", async () => {
    const agent = (await credential(C, "agent", undefined, { principal: "token" })).secret;
    const auditor = (await credential(C, "auditor")).secret;
    const cases: Array<[string, Promise<string>, string]> = [
      ["expired", jwt({ sub: "user-1" }, { exp: T0 - 61 }), "The principal token has expired."],
      [
        "audience",
        jwt({ sub: "user-1" }, { aud: "someone-else" }),
        "The principal token's `aud` claim is not accepted (check_failed).",
      ],
      [
        "issuer",
        jwt({ sub: "user-1" }, { iss: "https://evil.example.test/" }),
        "The principal token's `iss` claim is not accepted (check_failed).",
      ],
      [
        "not before",
        jwt({ sub: "user-1" }, { nbf: T0 + 120 }),
        "The principal token's `nbf` claim is not accepted (check_failed).",
      ],
      ["signature", jwt({ sub: "user-1" }, { key: stranger }), "The principal token's signature does not verify."],
      ["garbage", Promise.resolve("not-a-jwt"), "The principal token is not a valid JWT."],
    ];
    const before = await auditKinds(auditor);
    for (const [, token, detail] of cases) {
      const res = await toolCall(agent, { principal_token: await token });
      expect([res.status, res.body.code, res.body.detail]).toEqual([403, "PRINCIPAL_TOKEN_REJECTED", detail]);
    }
    expect(await auditKinds(auditor)).toEqual(before);
    // Within the skew an expired-by-30-seconds token still verifies (max_skew_seconds 60).
    const valid = await toolCall(agent, {
      principal_token: await jwt({ sub: "user-1", roles: ["support"] }, { exp: T0 - 30 }),
    });
    expect([valid.status, valid.body.model_result.status]).toEqual([200, "succeeded"]);
    const page = await send("GET", `/v1/consumers/${C}/audit?limit=100`, auditor);
    const entries = ((await page.json()) as { entries: Array<{ kind: string; record: Record<string, any> }> }).entries;
    const last = entries.filter((e) => e.kind === "tool_call").at(-1);
    // The audit names the principal by digest: SHA-256 of its canonical JSON (sorted keys, no spaces).
    const canonical = new TextEncoder().encode(`{"subject_id":"user-1","tenant_id":"${C}"}`);
    const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", canonical))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    expect(last?.record.principal_ref).toBe(`sha256:${digest}`);
    // Another end user's token: the engine authorizes user-2, who does not own ORDER-7.
    const user2 = await toolCall(agent, { principal_token: await jwt({ sub: "user-2" }) });
    expect([user2.status, user2.body.model_result.error.code]).toEqual([200, "NOT_FOUND"]);
    // A body may narrow the verified roles, never change the subject or widen them.
    const swap = await toolCall(agent, {
      principal_token: await jwt({ sub: "user-2" }),
      principal: { subject_id: "user-1", roles: [] },
    });
    expect([swap.status, swap.body.code]).toEqual([403, "PRINCIPAL_MISMATCH"]);
    const widen = await toolCall(agent, {
      principal_token: await jwt({ sub: "user-1", roles: "support" }),
      principal: { subject_id: "user-1", roles: ["admin"] },
    });
    expect([widen.status, widen.body.code]).toEqual([403, "ROLE_NOT_ALLOWED"]);
    const missing = await toolCall(agent, { principal: { subject_id: "user-1", roles: [] } });
    expect([missing.status, missing.body.code]).toEqual([400, "INVALID_REQUEST"]);
  });

  it("refuse every token when the consumer has no issuer", async () => {
    await send("PUT", `/v1/consumers/${C}`, "test-admin-token-0123456789", {
      tools: ["get_order"],
      approver_subjects: [],
    });
    const agent = (await credential(C, "agent", undefined, { principal: "token" })).secret;
    const res = await toolCall(agent, { principal_token: await jwt({ sub: "user-1" }) });
    expect([res.status, res.body.code, res.body.detail]).toEqual([
      403,
      "PRINCIPAL_TOKEN_REJECTED",
      "The consumer has no principal token issuer configured.",
    ]);
  });
});

describe("credential scope, expiry and rate", () => {
  it("refuses a tool outside the credential's scope", async () => {
    const agent = (await credential(C, "agent", "user-1", { tools: ["create_refund_draft"] })).secret;
    const res = await toolCall(agent, {});
    expect([res.status, res.body.code, res.body.detail]).toEqual([
      403,
      "TOOL_NOT_IN_SCOPE",
      'This credential may not call "get_order".',
    ]);
  });

  it("refuses an expired credential with the one 401, and will not issue one already expired", async () => {
    const agent = (await credential(C, "agent", "user-1", { expires_at: T0 + 10 })).secret;
    expect((await toolCall(agent, {})).status).toBe(200);
    await pinClock(C, T0 + 10);
    const late = await toolCall(agent, {});
    expect([late.status, late.body.code]).toEqual([401, "UNAUTHENTICATED"]);
    const past = await send("POST", `/v1/consumers/${C}/credentials`, "test-admin-token-0123456789", {
      kind: "agent",
      subject_id: "u",
      expires_at: T0,
    });
    expect(past.status).toBe(400);
  });

  it("answers 429 RATE_LIMITED with Retry-After past the credential's burst", async () => {
    await configure({ limits: { calls_per_second: 1, call_burst: 2 } });
    const agent = (await credential(C, "agent", "user-1")).secret;
    const other = (await credential(C, "agent", "user-1")).secret;
    const statuses = [(await toolCall(agent, {})).status, (await toolCall(agent, {})).status];
    const third = await toolCall(agent, {});
    expect([...statuses, third.status, third.body.code, third.headers.get("retry-after")]).toEqual([
      200,
      200,
      429,
      "RATE_LIMITED",
      "1",
    ]);
    // The bucket is the credential's: another credential of the consumer still calls.
    expect((await toolCall(other, {})).status).toBe(200);
  });
});

describe("keyed credential tags", () => {
  const A = { current: "key-a-0123456789abcdef0123456789abcdef", previous: null };
  const B = { current: "key-b-0123456789abcdef0123456789abcdef", previous: null };

  it("are the first 16 bytes of HMAC-SHA-256 over the consumer and the token's body (a tag computed by Python's hmac module)", () => {
    const keys = { current: "k".repeat(32), previous: null };
    const token = "tg_agent_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5_df43ca3754691962bb2e01f171cc65ff";
    // Twice: the second check reuses the key's prepared HMAC state.
    expect([parseCredential(token, "tenant-a", keys), parseCredential(token, "tenant-a", keys)]).toEqual([
      { kind: "agent", credentialId: "cred_A1b2C3d4E5A1b2C3", token },
      { kind: "agent", credentialId: "cred_A1b2C3d4E5A1b2C3", token },
    ]);
    expect(parseCredential(token.replace(/f$/, "e"), "tenant-a", keys)).toBe(null);
  });

  it("are bound to the consumer and the key; the previous key is accepted during a rotation", () => {
    const minted = mintCredential("agent", "tenant-a", A);
    expect(parseCredential(minted.token, "tenant-a", A)?.credentialId).toBe(minted.credentialId);
    expect(parseCredential(minted.token, "tenant-b", A)).toBe(null);
    expect(parseCredential(minted.token, "tenant-a", B)).toBe(null);
    expect(parseCredential(minted.token, "tenant-a", { current: B.current, previous: A.current })?.credentialId).toBe(
      minted.credentialId,
    );
    expect(parseCredential(minted.token, "tenant-a", { current: null, previous: A.current })).toBe(null);
    expect(() => mintCredential("agent", "tenant-a", { current: null, previous: null })).toThrow(
      "TOOLGATE_TOKEN_KEY is unset or shorter than 32 characters",
    );
  });
});

describe("the credential cache", () => {
  it("hole: the credential cache never evicts — it holds at most 256 decoded credentials", async () => {
    const stub = env.CONSUMER.get(env.CONSUMER.idFromName(C));
    const figures = await runInDurableObject(stub, (_instance, state) => {
      const keys = { current: "test-token-key-0123456789abcdef0123456789", previous: null };
      const plane = new CredentialService({ sql: state.storage.sql, consumerName: () => C, now: () => T0 }, keys);
      const binding = {
        kind: "auditor" as const,
        subjectId: null,
        principal: null,
        roles: [],
        tools: null,
        expiresAt: null,
      };
      const tokens = Array.from({ length: 300 }, () => plane.create(C, binding, T0).secret);
      const authenticated = tokens.filter((token) => plane.authenticate(token, "auditPage").ok).length;
      const cachedAfterAll = plane.cached;
      const firstAgain = plane.authenticate(tokens[0] as string, "auditPage").ok;
      return { authenticated, cachedAfterAll, firstAgain };
    });
    expect(figures).toEqual({ authenticated: 300, cachedAfterAll: 256, firstAgain: true });
  });
});
