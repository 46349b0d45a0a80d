/**
 * The gate signs downstream requests with a key only it holds, and publishes the public key
 * (`GET /v1/consumers/{consumer}/signing-keys`): a downstream can verify the gate's statements
 * and cannot make one that another downstream of the same consumer accepts. The downstream is
 * the refunds service behind `DOWNSTREAM` (test/support/refunds-service.ts), verifying with
 * `http-message-signatures` under the published key; the forger is test/support/forgery.ts.
 * Expected keys are computed with node:crypto (HKDF-SHA256, Ed25519, RFC 7638 thumbprints).
 */
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { routeApp } from "../../../src/worker/http/registry";
import { signingKeyRoutes } from "../../../src/worker/targets/http/routes";
import { downstreamSigner, encodeIdentity } from "../../../src/worker/targets/http/signature";
import { gateKey, keysFrom, signedHeaders, type Statement } from "../../support/forgery";
import { gate } from "../../kit";

/** `TOOLGATE_SIGNING_KEY` as vitest.config.ts binds it (and the refunds service's secret). */
const KEY = "test-signing-key-0123456789abcdef012345";
const TENANT_A_KEY = {
  kty: "OKP",
  crv: "Ed25519",
  x: "M-lbJxbTypqagK876iBxmuSRaA1DlBszUY9NDdgKQXs",
  kid: "D5MYTufZAonKSHAHsIyKHYhugrwiS1KjJjEvQIzbRMA",
  use: "sig",
};
/** tenant-a's key under the secret `rotated-signing-key-0123456789abcdef0123`. */
const ROTATED_KEY = {
  kty: "OKP",
  crv: "Ed25519",
  x: "ObOxEgZpHGFUu_HRwTkhpLT_LQJN_KogLlN2IW7RWUQ",
  kid: "JCC2H6IuiONWydOVxix_QLOl7ZY1YqPcbvJvvTkwiMw",
  use: "sig",
};
const PATH = "/v1/consumers/tenant-a/signing-keys";

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

/** Sends a request to the refunds service; answers [status, body]. */
async function post(url: string, headers: Record<string, string>, body: string): Promise<[number, unknown]> {
  const res = await env.DOWNSTREAM!.fetch(
    new Request(url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body }),
  );
  return [res.status, await res.json()];
}

beforeEach(async () => {
  await downstream("/_control", { reset: true, mode: "ok" });
});

describe("the published request-signing keys", () => {
  it("hole: are each consumer's public key only, as a JWK Set the downstream verifies with", async () => {
    const res = await gate(PATH);
    expect([res.status, res.headers.get("content-type"), res.headers.get("cache-control")]).toEqual([
      200,
      "application/json",
      "public, max-age=300",
    ]);
    expect(await res.text()).toBe(
      `{"keys":[{"crv":"Ed25519","kid":"${TENANT_A_KEY.kid}","kty":"OKP","use":"sig","x":"${TENANT_A_KEY.x}"}]}`,
    );
    const other = await gate("/v1/consumers/tenant-b/signing-keys");
    expect(((await other.json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid)).toEqual([
      "71QXDCIMtUP2I7iodil7qARmrbjpbBWzih1lHx7Pkmw",
    ]);
  });

  it("publish the previous secret's key after the current one, and none without a usable secret", async () => {
    const answer = async (bindings: Record<string, string>) => {
      const res = await routeApp([signingKeyRoutes]).request(PATH, {}, bindings);
      return [res.status, await res.json()];
    };
    const rotated = "rotated-signing-key-0123456789abcdef0123";
    expect(await answer({ TOOLGATE_SIGNING_KEY: rotated, TOOLGATE_SIGNING_KEY_PREVIOUS: KEY })).toEqual([
      200,
      { keys: [ROTATED_KEY, TENANT_A_KEY] },
    ]);
    expect(await answer({ TOOLGATE_SIGNING_KEY: KEY, TOOLGATE_SIGNING_KEY_PREVIOUS: "too-short" })).toEqual([
      200,
      { keys: [TENANT_A_KEY] },
    ]);
    const unset = await answer({});
    const short = await answer({
      TOOLGATE_SIGNING_KEY: "short-signing-key-0123456789abc",
      TOOLGATE_SIGNING_KEY_PREVIOUS: KEY,
    });
    for (const [status, body] of [unset, short])
      expect([status, (body as { code: string }).code]).toEqual([404, "SIGNING_NOT_CONFIGURED"]);
    const invalid = await gate("/v1/consumers/not%20a%20name/signing-keys");
    expect([invalid.status, ((await invalid.json()) as { code: string }).code]).toEqual([404, "NOT_FOUND"]);
  });
});

describe("a downstream holding what the gate gives it", () => {
  /** A statement the gate never made: another subject, admin, a write. */
  const forged = (ref: string): Statement => ({
    consumer: "tenant-a",
    subject_id: "user-2",
    roles: ["admin"],
    tool: "submit_refund",
    call_id: ref,
    operation_id: `op-${ref}`,
    status_ref: ref,
  });
  const body = JSON.stringify({ order_ref: "ORDER-9", reason: "forged" });
  const url = "http://downstream/refunds";

  it("hole: cannot forge a statement another downstream of the consumer accepts", async () => {
    const res = await gate(PATH);
    expect(res.status).toBe(200);
    const held = await res.text();
    const now = Math.floor(Date.now() / 1000);
    const answers: Array<[string, number, unknown]> = [];
    for (const [i, key] of keysFrom(held).entries())
      answers.push([
        key.name,
        ...(await post(
          url,
          signedHeaders(key, "POST", url, forged(`forged-${i}`), body, now, `forged-nonce-${i}`),
          body,
        )),
      ]);
    const ed = (what: string): [string, number, unknown] => [
      `ed25519, seed = ${what}`,
      401,
      { error: "bad signature" },
    ];
    const mac = (what: string): [string, number, unknown] => [
      `hmac-sha256, key = ${what}`,
      401,
      { error: "unknown key" },
    ];
    expect(answers).toEqual([
      ed("x"),
      mac("x"),
      ed("kid"),
      mac("kid"),
      ed("sha-256 of the JWK Set"),
      mac("sha-256 of the JWK Set"),
    ]);
    expect(await downstream("/_stats")).toEqual({ effects: 0, duplicates: [], posts: {}, committed: [] });
    // The control: the same forger's code with the key only the gate can derive is accepted, so the refusals above were the keys'.
    const control = await post(
      url,
      signedHeaders(
        gateKey(KEY, "tenant-a", TENANT_A_KEY.kid),
        "POST",
        url,
        forged("control"),
        body,
        now,
        "control-nonce",
      ),
      body,
    );
    expect(control).toEqual([
      200,
      {
        data: { refund_id: "RF-1", order_ref: "ORDER-9", reason: "forged" },
        resource_revision: "rf-1-r1",
        observed_at: "2026-07-19T00:00:00Z",
        request_id: "refunds-request-1",
        receipt_id: "refunds-receipt-1",
      },
    ]);
  });

  it("hole: cannot move a genuine request to another target URI or tool", async () => {
    const lookup = JSON.stringify({ refund_id: "RF-1" });
    const target = "http://downstream/refunds/lookup";
    const statement = {
      consumer: "tenant-a",
      subject_id: "user-1",
      roles: ["support"],
      tool: "lookup_refund",
      call_id: "call-1",
      operation_id: "op-call-1",
    };
    const signer = downstreamSigner(KEY, Date.now, () => "genuine-nonce")!;
    const headers: Record<string, string> = {
      ...(await signer.sign({ method: "POST", url: target, body: lookup }, encodeIdentity(statement))),
    };
    const otherTool = encodeIdentity({ ...statement, tool: "submit_refund" }).header;
    expect([
      await post(`${target}?all=1`, headers, lookup),
      await post("http://downstream/refunds", headers, lookup),
      await post("http://other-downstream/refunds/lookup", headers, lookup),
      await post(target, { ...headers, "toolgate-identity": otherTool }, lookup),
      await post(target, headers, lookup),
    ]).toEqual([
      [401, { error: "bad signature" }],
      [401, { error: "bad signature" }],
      [401, { error: "bad signature" }],
      [401, { error: "bad signature" }],
      [
        200,
        {
          data: { refund_id: "RF-1", state: "submitted" },
          resource_revision: null,
          observed_at: "2026-07-19T00:00:00Z",
          request_id: "lookup-1",
        },
      ],
    ]);
  });
});
