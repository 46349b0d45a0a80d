/**
 * The MCP endpoint as an OAuth 2.1 protected resource: discovery documents, dynamic client
 * registration, the authorization code flow with PKCE through the sign-in page, and what the
 * granted token is (the subject-bound credential it maps to).
 */
import {
  discoverOAuthServerInfo,
  exchangeAuthorization,
  extractWWWAuthenticateParams,
  registerClient,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { beforeEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createConsumer, credential, gateFetch, pinClock, send, wipe } from "../../kit";
import {
  A,
  allow,
  at,
  audit,
  authorize,
  exchange,
  form,
  freshAddress,
  INIT,
  mcp,
  ORIGIN,
  pageOf,
  pkce,
  REDIRECT,
  register,
  session,
  signIn,
  useAddress,
} from "../oauth-client";

const B = "oauth-mcp-b";
const T0 = 1_784_419_200;
const GRANT_TTL = 30 * 24 * 3600;

async function principalRef(subject: string, tenant: string): Promise<string> {
  const canonical = new TextEncoder().encode(`{"subject_id":"${subject}","tenant_id":"${tenant}"}`);
  return `sha256:${[...new Uint8Array(await crypto.subtle.digest("SHA-256", canonical))].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

const challenge = (consumer: string) =>
  `Bearer resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/v1/consumers/${consumer}/mcp"`;

let auditorA = "";
let user1 = { id: "", secret: "" };

beforeEach(async () => {
  useAddress(freshAddress());
  await wipe(A, B);
  for (const c of [A, B]) {
    await createConsumer(c, ["get_order", "create_refund_draft"], ["rev-1"]);
    await pinClock(c, T0);
  }
  auditorA = (await credential(A, "auditor")).secret;
  user1 = await credential(A, "agent", "user-1", { expires_at: T0 + 3600 * 24 * 365 * 2 });
});

describe("discovery", () => {
  it("serves each consumer endpoint's protected resource metadata (RFC 9728)", async () => {
    const res = await at(`/.well-known/oauth-protected-resource/v1/consumers/${A}/mcp`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      resource: `${ORIGIN}/v1/consumers/${A}/mcp`,
      authorization_servers: [ORIGIN],
      bearer_methods_supported: ["header"],
      resource_name: `toolgate MCP endpoint of ${A}`,
    });
    const cors = await at(`/.well-known/oauth-protected-resource/v1/consumers/${A}/mcp`, {
      headers: { origin: "http://localhost:6274" },
    });
    expect([
      cors.headers.get("access-control-allow-origin"),
      cors.headers.get("access-control-expose-headers"),
    ]).toEqual(["http://localhost:6274", "WWW-Authenticate"]);
  });

  it("serves the authorization server metadata (RFC 8414) with the gate's endpoints and no resource list", async () => {
    const res = await at("/.well-known/oauth-authorization-server");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      issuer: ORIGIN,
      authorization_endpoint: `${ORIGIN}/oauth/authorize`,
      token_endpoint: `${ORIGIN}/oauth/token`,
      registration_endpoint: `${ORIGIN}/oauth/register`,
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
      revocation_endpoint: `${ORIGIN}/oauth/token`,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: false,
    });
  });

  it("answers OAUTH_NOT_CONFIGURED where the origin cannot be an issuer (plain http off loopback)", async () => {
    const res = await gateFetch(new Request(`http://gate/.well-known/oauth-protected-resource/v1/consumers/${A}/mcp`));
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([404, "OAUTH_NOT_CONFIGURED"]);
    // There the endpoint keeps the gate's own challenge, and credentials work as ever.
    const unauthenticated = await gateFetch(
      new Request(`http://gate/v1/consumers/${A}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(INIT),
      }),
    );
    expect([unauthenticated.status, unauthenticated.headers.get("www-authenticate")]).toEqual([
      401,
      'Bearer realm="toolgate"',
    ]);
  });
});

describe("dynamic client registration", () => {
  it("registers a public client with its redirect URI", async () => {
    const res = await at("/oauth/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Test MCP client",
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: "none",
      }),
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    const { client_id, client_id_issued_at, ...fixed } = body;
    expect(typeof client_id === "string" && /^[A-Za-z0-9_-]{16}$/.test(client_id)).toBe(true);
    expect(typeof client_id_issued_at).toBe("number");
    expect(fixed).toEqual({
      redirect_uris: [REDIRECT],
      client_name: "Test MCP client",
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    });
  });
});

describe("sign-in page", () => {
  it("shows the client, the consumer and the requested tools, bound to the browser, framed by nobody", async () => {
    const client = await register();
    const res = await at(
      `/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: client, redirect_uri: REDIRECT, state: "s", code_challenge: (await pkce()).challenge, code_challenge_method: "S256", resource: `${ORIGIN}/v1/consumers/${A}/mcp`, scope: "get_order" })}`,
    );
    expect(res.status).toBe(200);
    expect([
      res.headers.get("content-type"),
      res.headers.get("x-frame-options"),
      res.headers.get("cache-control"),
    ]).toEqual(["text/html; charset=utf-8", "DENY", "no-store"]);
    expect(res.headers.get("content-security-policy")).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    );
    const page = await pageOf(res);
    expect(page.cookie.startsWith("__Host-oauth-consent-")).toBe(true);
    expect(page.html).toContain(
      `<h1>Allow <bdi class="client">Test MCP client</bdi> to call tools of <code>${A}</code>?</h1>`,
    );
    expect(page.html).toContain(
      `<label for="tool-0"><input type="checkbox" id="tool-0" name="tool" value="get_order" checked> <code>get_order</code></label>`,
    );
    expect(page.html).toContain(`<label for="credential">Sign-in credential</label>`);
    expect(page.html).toContain(`<p class="warn">Access goes to an app on this computer.`);
  });

  it("sends a request without a consumer's endpoint as its resource back to the client (invalid_target)", async () => {
    const client = await register();
    const q = new URLSearchParams({
      response_type: "code",
      client_id: client,
      redirect_uri: REDIRECT,
      state: "s-2",
      code_challenge: (await pkce()).challenge,
      code_challenge_method: "S256",
    });
    const res = await at(`/oauth/authorize?${q}`);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location") ?? "");
    expect([
      location.origin + location.pathname,
      location.searchParams.get("error"),
      location.searchParams.get("state"),
      location.searchParams.get("iss"),
    ]).toEqual([REDIRECT, "invalid_target", "s-2", ORIGIN]);
  });

  it("answers an unknown client locally, never redirecting", async () => {
    const q = new URLSearchParams({
      response_type: "code",
      client_id: "nobody",
      redirect_uri: REDIRECT,
      resource: `${ORIGIN}/v1/consumers/${A}/mcp`,
    });
    const res = await at(`/oauth/authorize?${q}`);
    expect([res.status, await res.json()]).toEqual([
      400,
      {
        type: "https://toolgate.dev/problems/invalid-request",
        title: "Request does not match its contract",
        status: 400,
        code: "INVALID_REQUEST",
        detail: "Invalid client_id",
      },
    ]);
  });

  it("shows the form again on a bad sign-in credential and issues nothing; the new form then works", async () => {
    const client = await register();
    const { verifier, challenge } = await pkce();
    const page = await authorize(client, challenge);
    const before = (await audit(A, auditorA)).length;
    const host = await credential(A, "agent");
    const cases: Array<[string, string]> = [
      [
        "tg_agent_0000000000000000000000000000000000000000_00000000000000000000000000000000",
        `That sign-in credential is not valid for ${A}: paste all of it, and ask an administrator for a new one if it expired or was revoked.`,
      ],
      [
        host.secret,
        "Sign in with an agent credential bound to you as a subject (an administrator issues it with a subject_id).",
      ],
    ];
    let current = page;
    for (const [secret, message] of cases) {
      const again = await pageOf(await allow(current, secret, ["get_order"]));
      expect(again.status).toBe(200);
      expect(again.html).toContain(`<p class="error" id="error" role="alert">${message.replace(/'/g, "&#39;")}</p>`);
      expect(again.handle === current.handle || again.handle === "").toBe(false);
      current = again;
    }
    // The spent handle is refused; nothing was issued (the host credential's own creation aside).
    const replay = await allow(page, user1.secret, ["get_order"]);
    expect([replay.status, ((await replay.json()) as { detail: string }).detail]).toEqual([
      400,
      "This authorization expired or was already used; start again",
    ]);
    expect((await audit(A, auditorA)).slice(before).map((e) => e.kind)).toEqual(["credential.created"]);
    const allowed = await allow(current, user1.secret, ["get_order"]);
    expect(allowed.status).toBe(302);
    expect((await exchange(client, allowed.headers.get("location") ?? "", verifier)).status).toBe(200);
  });

  it("sends Deny back to the client as access_denied", async () => {
    const client = await register();
    const page = await authorize(client, (await pkce()).challenge);
    const res = await at(
      "/oauth/authorize",
      form(
        [
          ["handle", page.handle],
          ["decision", "deny"],
        ],
        page.cookie,
      ),
    );
    const location = new URL(res.headers.get("location") ?? "");
    expect([res.status, location.searchParams.get("error"), location.searchParams.get("state")]).toEqual([
      302,
      "access_denied",
      "state-1",
    ]);
  });
});

describe("the granted token", () => {
  it("is issued for the chosen tools and maps to a new subject-bound credential limited to them", async () => {
    const client = await register();
    const { verifier, challenge } = await pkce();
    const page = await authorize(client, challenge);
    const allowed = await allow(page, user1.secret, ["get_order"]);
    expect(allowed.status).toBe(302);
    const location = new URL(allowed.headers.get("location") ?? "");
    expect([
      location.origin + location.pathname,
      location.searchParams.get("state"),
      location.searchParams.get("iss"),
    ]).toEqual([REDIRECT, "state-1", ORIGIN]);
    const res = await exchange(client, location.href, verifier);
    const token = (await res.json()) as Record<string, unknown>;
    expect([res.status, token.token_type, token.expires_in, token.scope, token.resource]).toEqual([
      200,
      "bearer",
      3600,
      "get_order",
      `${ORIGIN}/v1/consumers/${A}/mcp`,
    ]);
    const minted = (await audit(A, auditorA)).filter((e) => e.kind === "credential.created").at(-1)?.record ?? {};
    expect({ ...minted, credential_id: "<id>" }).toEqual({
      credential_id: "<id>",
      kind: "agent",
      subject_id: "user-1",
      principal: "subject",
      roles: [],
      tools: ["get_order"],
      expires_at: T0 + GRANT_TTL,
      note: "oauth",
      oauth_client_id: client,
    });
  });

  it("expires no later than the sign-in credential and never widens its tool scope", async () => {
    const narrow = await credential(A, "agent", "user-2", { tools: ["create_refund_draft"], expires_at: T0 + 600 });
    const token = await signIn(narrow.secret, ["get_order", "create_refund_draft"]);
    expect(token.scope).toBe("create_refund_draft");
    const minted = (await audit(A, auditorA)).filter((e) => e.kind === "credential.created").at(-1)?.record ?? {};
    expect([minted.subject_id, minted.tools, minted.expires_at]).toEqual(["user-2", ["create_refund_draft"], T0 + 600]);
  });

  it("is refused at the token endpoint for another consumer's resource", async () => {
    const client = await register();
    const { verifier, challenge } = await pkce();
    const allowed = await allow(await authorize(client, challenge), user1.secret, ["get_order"]);
    const res = await exchange(client, allowed.headers.get("location") ?? "", verifier, B);
    expect([res.status, ((await res.json()) as { error: string }).error]).toEqual([400, "invalid_target"]);
  });
});

describe("the MCP endpoint as a protected resource", () => {
  it("answers a request without a token 401 with the challenge naming its metadata", async () => {
    for (const token of [
      null,
      "tg_agent_0000000000000000000000000000000000000000_00000000000000000000000000000000",
      "nobody/x:grant:secret",
    ]) {
      const res = await mcp(A, token, INIT);
      expect([res.status, res.headers.get("www-authenticate"), ((await res.json()) as { code: string }).code]).toEqual([
        401,
        challenge(A),
        "UNAUTHENTICATED",
      ]);
    }
  });

  it("runs an OAuth token as the grant's credential, acting as its subject; the gate credential itself is unaffected", async () => {
    const token = await signIn(user1.secret, ["get_order"]);
    // The session lists only the chosen tool (the minted credential's scope) and acts as user-1.
    expect(await session(A, token.access_token)).toEqual([200, 200, ["get_order"]]);
    const calls = (await audit(A, auditorA)).filter((e) => e.kind === "tool_call");
    expect(calls.map((e) => e.record.principal_ref)).toEqual([await principalRef("user-1", A)]);
    expect(await session(A, user1.secret)).toEqual([200, 200, ["create_refund_draft", "get_order"]]);
  });

  it("refuses a token on another consumer's endpoint, and ends it when its credential is revoked", async () => {
    const token = await signIn(user1.secret, ["get_order"]);
    const elsewhere = await mcp(B, token.access_token, INIT);
    expect([elsewhere.status, elsewhere.headers.get("www-authenticate")]).toEqual([401, challenge(B)]);
    const minted = (await audit(A, auditorA)).filter((e) => e.kind === "credential.created").at(-1)?.record ?? {};
    const revoked = await send("DELETE", `/v1/consumers/${A}/credentials/${String(minted.credential_id)}`, ADMIN_TOKEN);
    expect(revoked.status).toBe(204);
    const after = await mcp(A, token.access_token, INIT);
    expect([after.status, after.headers.get("www-authenticate")]).toEqual([401, challenge(A)]);
    // The sign-in credential is another credential: it still works.
    expect((await session(A, user1.secret)).slice(0, 2)).toEqual([200, 200]);
  });

  it("keeps working after a refresh, which rotates the token for the same consumer's resource", async () => {
    const client = await register();
    const { verifier, challenge: pkceChallenge } = await pkce();
    const allowed = await allow(await authorize(client, pkceChallenge), user1.secret, ["get_order"]);
    const first = (await (await exchange(client, allowed.headers.get("location") ?? "", verifier)).json()) as {
      access_token: string;
      refresh_token: string;
    };
    const refreshed = await at(
      "/oauth/token",
      form([
        ["grant_type", "refresh_token"],
        ["refresh_token", first.refresh_token],
        ["client_id", client],
        ["resource", `${ORIGIN}/v1/consumers/${A}/mcp`],
      ]),
    );
    const body = (await refreshed.json()) as { access_token: string; scope: string };
    expect([refreshed.status, body.scope, body.access_token === first.access_token]).toEqual([200, "get_order", false]);
    expect(await session(A, body.access_token)).toEqual([200, 200, ["get_order"]]);
  });
});

describe("the official MCP SDK client's OAuth steps", () => {
  it("discover from the 401, register, authorize with PKCE and the resource, exchange, and call the endpoint", async () => {
    const fetchFn = (url: string | URL, init?: RequestInit) =>
      gateFetch(new Request(url, { redirect: "manual", ...init }));
    const serverUrl = `${ORIGIN}/v1/consumers/${A}/mcp`;
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(await mcp(A, null, INIT));
    expect(resourceMetadataUrl?.href).toBe(`${ORIGIN}/.well-known/oauth-protected-resource/v1/consumers/${A}/mcp`);
    const info = await discoverOAuthServerInfo(serverUrl, { resourceMetadataUrl, fetchFn });
    expect([
      info.authorizationServerUrl,
      info.resourceMetadata?.resource,
      info.authorizationServerMetadata?.issuer,
    ]).toEqual([ORIGIN, serverUrl, ORIGIN]);
    const metadata = info.authorizationServerMetadata;
    const clientMetadata = {
      client_name: "SDK client",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    };
    const client = await registerClient(ORIGIN, { metadata, clientMetadata, fetchFn });
    const resource = new URL(serverUrl);
    const { authorizationUrl, codeVerifier } = await startAuthorization(ORIGIN, {
      metadata,
      clientInformation: client,
      redirectUrl: REDIRECT,
      state: "sdk-state",
      resource,
    });
    // The metadata names no scopes, so the client asks for none: the page offers every tool, ticked.
    const page = await pageOf(await fetchFn(authorizationUrl));
    expect(page.status).toBe(200);
    expect(page.html).toContain("<p>The app asked for no particular tool.</p>");
    expect(page.html).toContain(`<input type="checkbox" id="all-tools" name="all_tools" value="1" checked>`);
    const everything = await at(
      "/oauth/authorize",
      form(
        [
          ["handle", page.handle],
          ["credential", user1.secret],
          ["all_tools", "1"],
          ["decision", "approve"],
        ],
        page.cookie,
      ),
    );
    expect(everything.status).toBe(302);
    const code = new URL(everything.headers.get("location") ?? "").searchParams.get("code") ?? "";
    const tokens = await exchangeAuthorization(ORIGIN, {
      metadata,
      clientInformation: client,
      authorizationCode: code,
      codeVerifier,
      redirectUri: REDIRECT,
      resource,
      fetchFn,
    });
    expect([tokens.token_type, tokens.scope]).toEqual(["bearer", "create_refund_draft get_order"]);
    expect(await session(A, tokens.access_token)).toEqual([200, 200, ["create_refund_draft", "get_order"]]);
  });
});
