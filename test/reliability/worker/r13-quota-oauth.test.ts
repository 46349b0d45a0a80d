/**
 * R13d OAuth quotas: an attacker holding a subject's sign-in credential floods the anonymous
 * OAuth endpoints and the consent form, while another subject's grant keeps working. From one
 * address: 300 client registrations; 40 consents through one client; consents through 15 more
 * clients; then 300 registrations from 300 addresses (the isolate's bucket).
 * Pass: the address's registrations stop at its burst (10, the rest 429 with Retry-After); one
 * live credential per subject and client; the attacker's live grant credentials stop at the cap
 * (10), all its own; the 300 addresses together get no more than the isolate's burst (200); the
 * victim's token still calls the endpoint and its refresh still works.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { OAUTH_CREDENTIALS_PER_SUBJECT } from "../../../src/worker/features/credentials/oauth-grant";
import { REGISTRATION_LIMITS } from "../../../src/worker/features/oauth/throttle";
import { form, pageOf, pkce, REDIRECT } from "../../worker/oauth-client";
import { report } from "../support/figures";
import { ADMIN, fetchGate, pinClock, send, tenant } from "./client";

const ORIGIN = "https://gate.test";
const NAME = "r13d-oauth";
const RESOURCE = `${ORIGIN}/v1/consumers/${NAME}/mcp`;
const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "r13d", version: "1.0.0" } },
};

let addresses = 0;
/** A client address not used before in this check. */
const fresh = () => `10.13.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;

function at(path: string, address: string, init: RequestInit = {}): Promise<Response> {
  const request = new Request(`${ORIGIN}${path}`, { redirect: "manual", ...init });
  request.headers.set("cf-connecting-ip", address);
  return fetchGate(request);
}

/** A registration's status and client id. */
async function register(address: string): Promise<[number, string, string | null]> {
  const res = await at("/oauth/register", address, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "R13d client",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  const body = (await res.json()) as { client_id?: string };
  return [res.status, body.client_id ?? "", res.headers.get("retry-after")];
}

/** Page and Allow from `address`: the redirect's code and the PKCE verifier. */
async function consent(client: string, secret: string, address: string): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = await pkce();
  const q = new URLSearchParams({
    response_type: "code",
    client_id: client,
    redirect_uri: REDIRECT,
    state: "s",
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource: RESOURCE,
  });
  const page = await pageOf(await at(`/oauth/authorize?${q}`, address));
  const allowed = await at(
    "/oauth/authorize",
    address,
    form(
      [
        ["handle", page.handle],
        ["credential", secret],
        ["all_tools", "1"],
        ["decision", "approve"],
      ],
      page.cookie,
    ),
  );
  if (allowed.status !== 302) throw new Error(`consent failed: ${allowed.status}`);
  return { code: new URL(allowed.headers.get("location") ?? "").searchParams.get("code") ?? "", verifier };
}

async function token(
  fields: Array<[string, string]>,
  address: string,
): Promise<{ status: number; body: { access_token?: string; refresh_token?: string } }> {
  const res = await at("/oauth/token", address, form(fields));
  return { status: res.status, body: (await res.json()) as { access_token?: string; refresh_token?: string } };
}

/** A subject's live credentials other than its sign-in credential. */
async function liveGrants(subject: string, signIn: string): Promise<number> {
  const listed = await send("GET", `/v1/consumers/${NAME}/credentials`, ADMIN);
  const rows = listed.json.credentials as Array<{
    credential_id: string;
    subject_id: string | null;
    revoked_at: number | null;
  }>;
  return rows.filter((c) => c.subject_id === subject && c.credential_id !== signIn && c.revoked_at === null).length;
}

describe("R13d OAuth quotas", () => {
  it(
    "an attacker's floods stop at the per-address, per-subject and isolate limits; the victim's grant keeps working",
    { timeout: 60_000 },
    async () => {
      const kv = env.OAUTH_KV;
      for (const key of (await kv?.list())?.keys ?? []) await kv?.delete(key.name);
      await tenant(NAME);
      await pinClock(NAME, 1_900_000_000);
      const victimSignIn = await send("POST", `/v1/consumers/${NAME}/credentials`, ADMIN, {
        kind: "agent",
        subject_id: "victim",
      });
      const attackerSignIn = await send("POST", `/v1/consumers/${NAME}/credentials`, ADMIN, {
        kind: "agent",
        subject_id: "attacker",
      });

      // The victim signs in first.
      const victimAddress = fresh();
      const [, victimClient] = await register(victimAddress);
      const victimCode = await consent(victimClient, victimSignIn.json.secret, victimAddress);
      const victim = await token(
        [
          ["grant_type", "authorization_code"],
          ["code", victimCode.code],
          ["redirect_uri", REDIRECT],
          ["client_id", victimClient],
          ["code_verifier", victimCode.verifier],
          ["resource", RESOURCE],
        ],
        victimAddress,
      );

      // 300 registrations from one address.
      const flooder = fresh();
      const registered = [];
      for (let i = 0; i < 300; i++) registered.push(await register(flooder));
      const accepted = registered.filter(([status]) => status === 201);
      const refused = registered.filter(([status, , retry]) => status === 429 && retry !== null);

      // 40 consents through one client, each from a new address (the page's own limit is per address).
      const [client] = accepted.map(([, id]) => id);
      for (let i = 0; i < 40; i++) await consent(client ?? "", attackerSignIn.json.secret, fresh());
      const perClient = await liveGrants("attacker", attackerSignIn.json.credential_id);

      // 15 more clients, one consent each.
      for (let i = 0; i < 15; i++) {
        const address = fresh();
        const [, other] = await register(address);
        await consent(other, attackerSignIn.json.secret, address);
      }
      const perSubject = await liveGrants("attacker", attackerSignIn.json.credential_id);

      // 300 registrations from 300 addresses: together they meet the isolate's bucket.
      let spread = 0;
      for (let i = 0; i < 300; i++) if ((await register(fresh()))[0] === 201) spread += 1;

      const mcp = await at(`/v1/consumers/${NAME}/mcp`, victimAddress, {
        method: "POST",
        headers: {
          authorization: `Bearer ${victim.body.access_token ?? ""}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify(INIT),
      });
      await mcp.text();
      const refreshed = await token(
        [
          ["grant_type", "refresh_token"],
          ["refresh_token", victim.body.refresh_token ?? ""],
          ["client_id", victimClient],
          ["resource", RESOURCE],
        ],
        victimAddress,
      );
      const victimLive = await liveGrants("victim", victimSignIn.json.credential_id);

      const cap = OAUTH_CREDENTIALS_PER_SUBJECT;
      const pass =
        accepted.length === REGISTRATION_LIMITS.perAddress.burst &&
        refused.length === 300 - REGISTRATION_LIMITS.perAddress.burst &&
        perClient === 1 &&
        perSubject === cap &&
        spread <= REGISTRATION_LIMITS.perIsolate.burst &&
        spread < 300 &&
        victim.status === 200 &&
        mcp.status === 200 &&
        refreshed.status === 200 &&
        victimLive === 1;
      report({
        id: "R13d",
        check: "OAuth quotas: one attacker floods registration and consent",
        figure:
          `1 address: 300 registrations → ${accepted.length} accepted/${refused.length} refused 429; 40 consents via 1 client → ${perClient} live credential; ` +
          `16 clients → ${perSubject} live (cap ${cap}); 300 addresses → ${spread} registrations accepted (isolate burst ${REGISTRATION_LIMITS.perIsolate.burst}); ` +
          `victim's token ${mcp.status}, refresh ${refreshed.status}, ${victimLive} live credential`,
        pass,
      });
      expect([accepted.length, refused.length, perClient, perSubject]).toEqual([10, 290, 1, cap]);
      expect(spread <= REGISTRATION_LIMITS.perIsolate.burst && spread < 300).toBe(true);
      expect([victim.status, mcp.status, refreshed.status, victimLive]).toEqual([200, 200, 200, 1]);
    },
  );
});
