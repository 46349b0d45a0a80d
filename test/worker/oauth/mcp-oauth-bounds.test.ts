/**
 * What OAuth sign-ins may leave behind: one grant credential per subject and client, at most
 * ten per subject, registration and the sign-in page rate-limited per address, unused
 * registrations gone after an hour, a revoked token ending its whole grant and credential, and
 * codes and tokens that name neither consumer nor subject.
 */
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createConsumer, credential, pinClock, send, wipe } from "../../kit";
import {
  A,
  at,
  audit,
  authorize,
  form,
  freshAddress,
  grant,
  INIT,
  mcp,
  pkce,
  refresh,
  register,
  session,
  signIn,
  useAddress,
} from "../oauth-client";

const T0 = 1_784_419_200;
const CAP = 10;

let auditor = "";
let user1 = { id: "", secret: "" };

beforeEach(async () => {
  useAddress(freshAddress());
  // The OAuth KV outlives a test: start each with none of the earlier tests' grants.
  const kv = env.OAUTH_KV;
  for (const key of (await kv?.list())?.keys ?? []) await kv?.delete(key.name);
  await wipe(A);
  await createConsumer(A, ["get_order", "create_refund_draft"], ["rev-1"]);
  await pinClock(A, T0);
  auditor = (await credential(A, "auditor")).secret;
  user1 = await credential(A, "agent", "user-1", { expires_at: T0 + 3600 * 24 * 365 * 2 });
});

/** The grant credentials minted so far, oldest first: each one's `revoked_at` (`null`: live). */
async function minted(): Promise<Array<{ id: string; subject: unknown; revokedAt: number | null }>> {
  const created = (await audit(A, auditor)).filter((e) => e.kind === "credential.created" && e.record.note === "oauth");
  const listed = (await (await send("GET", `/v1/consumers/${A}/credentials`, ADMIN_TOKEN)).json()) as {
    credentials: Array<{ credential_id: string; revoked_at: number | null }>;
  };
  const revoked = new Map(listed.credentials.map((c) => [c.credential_id, c.revoked_at]));
  return created.map((e) => ({
    id: String(e.record.credential_id),
    subject: e.record.subject_id,
    revokedAt: revoked.get(String(e.record.credential_id)) ?? null,
  }));
}

function revoke(client: string, token: string, hint: string): Promise<Response> {
  return at(
    "/oauth/token",
    form([
      ["token", token],
      ["token_type_hint", hint],
      ["client_id", client],
    ]),
  );
}

describe("grant credentials per subject", () => {
  it("a new consent of the same subject and client revokes the previous grant's credential", async () => {
    const client = await register();
    const first = await grant(client, user1.secret, ["get_order"]);
    const second = await grant(client, user1.secret, ["get_order"]);
    expect((await minted()).map((m) => m.revokedAt)).toEqual([T0, null]);
    expect((await session(A, first.tokens.access_token)).slice(0, 1)).toEqual([401]);
    expect(await session(A, second.tokens.access_token)).toEqual([200, 200, ["get_order"]]);
    const ended = (await audit(A, auditor)).filter((e) => e.kind === "credential.revoked").map((e) => e.record);
    expect(ended).toEqual([
      { credential_id: (await minted())[0]?.id, note: "oauth replaced", oauth_client_id: client },
    ]);
  });

  it(`a subject holds at most ${CAP} live grant credentials: the next revokes its own oldest, never another subject's`, async () => {
    const user2 = await credential(A, "agent", "user-2");
    const other = await signIn(user2.secret, ["get_order"]);
    const oldestClient = await register();
    const oldest = await grant(oldestClient, user1.secret, ["get_order"]);
    for (let i = 0; i < CAP; i++) {
      useAddress(freshAddress());
      await signIn(user1.secret, ["get_order"]);
    }
    const all = await minted();
    expect(all.map((m) => [m.subject, m.revokedAt])).toEqual([
      ["user-2", null],
      ["user-1", T0],
      ...Array.from({ length: CAP }, () => ["user-1", null]),
    ]);
    expect(await session(A, other.access_token)).toEqual([200, 200, ["get_order"]]);
    // The displaced credential's grant is gone from the KV too: its refresh token ends, and the subject keeps CAP grants.
    expect(await refresh(oldestClient, oldest.tokens.refresh_token)).toEqual([400, "invalid_grant"]);
    const grants = await env.OAUTH_KV?.list({ prefix: `grant:${oldest.tokens.access_token.split(":")[0] ?? ""}:` });
    expect(grants?.keys.length).toBe(CAP);
  });
});

describe("rate limits of the anonymous endpoints", () => {
  it("refuses an address's 11th registration 429 with Retry-After and an OAuth error, and still registers another address", async () => {
    const started = Date.now();
    for (let i = 0; i < 10; i++) await register();
    const refused = await at("/oauth/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:1/cb"], token_endpoint_auth_method: "none" }),
    });
    // One token per 360 s: the wait is 360 s less what the bucket refilled while the eleven
    // requests ran (the 11th was refused 359 s on a loaded machine, where they took over a second).
    const took = Math.ceil((Date.now() - started) / 1000);
    const wait = Number(refused.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(360 - took);
    expect(wait).toBeLessThanOrEqual(360);
    expect([refused.status, await refused.json()]).toEqual([
      429,
      {
        error: "temporarily_unavailable",
        error_description: `Too many client registrations from this address or on this server; retry after ${wait} seconds.`,
      },
    ]);
    useAddress(freshAddress());
    await register();
  });

  it("refuses an address's 31st sign-in request 429, and still serves another address", async () => {
    const client = await register();
    const { challenge } = await pkce();
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await authorize(client, challenge)).status);
    expect(statuses).toEqual([...Array<number>(30).fill(200), 429]);
    useAddress(freshAddress());
    expect((await authorize(client, challenge)).status).toBe(200);
  });
});

describe("registrations", () => {
  it("expire an hour after registering unless the client exchanges a code, which keeps them 90 days", async () => {
    const expiry = async (client: string) => {
      const listed = await env.OAUTH_KV?.list({ prefix: `client:${client}` });
      return (listed?.keys[0]?.expiration ?? 0) - Math.floor(Date.now() / 1000);
    };
    const client = await register();
    const unused = await expiry(client);
    expect(unused > 3600 - 30 && unused <= 3600).toBe(true);
    await grant(client, user1.secret, ["get_order"]);
    const used = await expiry(client);
    expect(used > 90 * 86_400 - 30 && used <= 90 * 86_400).toBe(true);
  });
});

describe("revocation", () => {
  it("of an access token (RFC 7009) ends its refresh token and its credential", async () => {
    const client = await register();
    const { tokens } = await grant(client, user1.secret, ["get_order"]);
    expect((await revoke(client, tokens.access_token, "access_token")).status).toBe(200);
    expect(await refresh(client, tokens.refresh_token)).toEqual([400, "invalid_grant"]);
    expect((await minted()).map((m) => m.revokedAt)).toEqual([T0]);
    const ended = (await audit(A, auditor)).filter((e) => e.kind === "credential.revoked").map((e) => e.record.note);
    expect(ended).toEqual(["oauth token revoked"]);
  });

  it("by another client ends nothing", async () => {
    const client = await register();
    const stranger = await register();
    const { tokens } = await grant(client, user1.secret, ["get_order"]);
    for (const [token, hint] of [
      [tokens.access_token, "access_token"],
      [tokens.refresh_token, "refresh_token"],
    ] as const)
      expect((await revoke(stranger, token, hint)).status).toBe(200);
    expect((await minted()).map((m) => m.revokedAt)).toEqual([null]);
    expect((await refresh(client, tokens.refresh_token))[0]).toBe(200);
  });

  it("of a refresh token ends its credential too", async () => {
    const client = await register();
    const { tokens } = await grant(client, user1.secret, ["get_order"]);
    expect((await revoke(client, tokens.refresh_token, "refresh_token")).status).toBe(200);
    expect((await minted()).map((m) => m.revokedAt)).toEqual([T0]);
    expect((await mcp(A, tokens.access_token, INIT)).status).toBe(401);
  });

  it("of the credential behind a grant by the gate ends its refresh token", async () => {
    const client = await register();
    const { tokens } = await grant(client, user1.secret, ["get_order"]);
    const [grantCredential] = await minted();
    expect(
      (await send("DELETE", `/v1/consumers/${A}/credentials/${grantCredential?.id ?? ""}`, ADMIN_TOKEN)).status,
    ).toBe(204);
    expect(await refresh(client, tokens.refresh_token)).toEqual([400, "invalid_grant"]);
  });
});

describe("codes and tokens", () => {
  it("carry neither the consumer nor the subject, and one subject's share an opaque user id", async () => {
    const client = await register();
    const first = await grant(client, user1.secret, ["get_order"]);
    const again = await signIn(user1.secret, ["get_order"]);
    const user2 = await signIn((await credential(A, "agent", "user-2")).secret, ["get_order"]);
    const issued = [first.code, first.tokens.access_token, first.tokens.refresh_token];
    expect(issued.map((t) => [t.includes(A), t.includes("user-1"), t.includes(encodeURIComponent(A))])).toEqual(
      issued.map(() => [false, false, false]),
    );
    const userIds = [...issued, again.access_token, user2.access_token].map((t) => t.split(":")[0] ?? "");
    expect(userIds.map((u) => /^[A-Za-z0-9_-]{30,200}\.[A-Za-z0-9_-]{24}$/.test(u))).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(new Set(userIds.slice(0, 4)).size).toBe(1);
    expect(userIds[4] === userIds[0]).toBe(false);
    // Routed by its sealed consumer, the token works where it belongs.
    expect(await session(A, first.tokens.access_token)).toEqual([200, 200, ["get_order"]]);
  });
});
