/** Test helpers of the MCP OAuth sign-in: a client's registration, the sign-in page, the code exchange and MCP calls with the token. */
import { expect } from "vitest";
import { gateFetch, send } from "../kit";

export const ORIGIN = "https://gate.test";
export const A = "oauth-mcp-a";
export const REDIRECT = "http://127.0.0.1:33418/callback";

/** The client address of the requests (`CF-Connecting-IP`): each test its own, so the per-address limits of one never meet another's. */
let address = "198.51.100.1";

/** Sends the following requests from `ip`. */
export function useAddress(ip: string): void {
  address = ip;
}

let addresses = Math.floor(Math.random() * 10_000);

/** An address not used yet in this run (the isolate's per-address buckets outlive a test file). */
export function freshAddress(): string {
  const n = ++addresses;
  return `10.${Math.floor(n / 62_500) % 256}.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
}

/** A request to the gate as a browser or client would send it, from this test's address, redirects not followed. */
export function at(path: string, init: RequestInit = {}): Promise<Response> {
  const request = new Request(`${ORIGIN}${path}`, { redirect: "manual", ...init });
  if (!request.headers.has("cf-connecting-ip")) request.headers.set("cf-connecting-ip", address);
  return gateFetch(request);
}

export function form(fields: Array<[string, string]>, cookie?: string): RequestInit {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (cookie !== undefined) headers.cookie = cookie;
  return { method: "POST", headers, body: new URLSearchParams(fields).toString() };
}

export function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
  );
  return { verifier, challenge };
}

export async function register(): Promise<string> {
  const res = await at("/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Test MCP client",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

/** The consent page's form state: its handle and the browser-binding cookie. */
export interface Page {
  status: number;
  html: string;
  handle: string;
  cookie: string;
}

export async function pageOf(res: Response): Promise<Page> {
  const html = await res.text();
  const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1] ?? "";
  const bound = res.headers.getAll("set-cookie").filter((c) => c.includes("Max-Age=600"));
  return { status: res.status, html, handle, cookie: bound.map((c) => c.split(";")[0]).join("; ") };
}

export async function authorize(
  clientId: string,
  challenge: string,
  consumer = A,
  scope = "get_order create_refund_draft",
): Promise<Page> {
  const q = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    state: "state-1",
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource: `${ORIGIN}/v1/consumers/${consumer}/mcp`,
    scope,
  });
  return pageOf(await at(`/oauth/authorize?${q}`));
}

export async function allow(page: Page, secret: string, tools: string[]): Promise<Response> {
  return at(
    "/oauth/authorize",
    form(
      [
        ["handle", page.handle],
        ["credential", secret],
        ...tools.map((t): [string, string] => ["tool", t]),
        ["decision", "approve"],
      ],
      page.cookie,
    ),
  );
}

export async function exchange(clientId: string, location: string, verifier: string, consumer = A): Promise<Response> {
  const code = new URL(location).searchParams.get("code") ?? "";
  return at(
    "/oauth/token",
    form([
      ["grant_type", "authorization_code"],
      ["code", code],
      ["redirect_uri", REDIRECT],
      ["client_id", clientId],
      ["code_verifier", verifier],
      ["resource", `${ORIGIN}/v1/consumers/${consumer}/mcp`],
    ]),
  );
}

/** A token response. */
export interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
}

/** A registered client's sign-in: page, allow with `tools`, exchange. Answers the code and the token response. */
export async function grant(
  client: string,
  secret: string,
  tools: string[],
  consumer = A,
): Promise<{ code: string; tokens: Tokens }> {
  const { verifier, challenge } = await pkce();
  const page = await authorize(client, challenge, consumer);
  const allowed = await allow(page, secret, tools);
  expect(allowed.status).toBe(302);
  const location = allowed.headers.get("location") ?? "";
  const token = await exchange(client, location, verifier, consumer);
  expect(token.status).toBe(200);
  return { code: new URL(location).searchParams.get("code") ?? "", tokens: (await token.json()) as Tokens };
}

/** The whole sign-in: register, page, allow with `tools`, exchange. Answers the token response. */
export async function signIn(secret: string, tools: string[], consumer = A): Promise<Tokens> {
  return (await grant(await register(), secret, tools, consumer)).tokens;
}

/** A refresh of a public client's grant: the token endpoint's status and OAuth error code (`null` on success). */
export async function refresh(client: string, refreshToken: string, consumer = A): Promise<[number, string | null]> {
  const res = await at(
    "/oauth/token",
    form([
      ["grant_type", "refresh_token"],
      ["refresh_token", refreshToken],
      ["client_id", client],
      ["resource", `${ORIGIN}/v1/consumers/${consumer}/mcp`],
    ]),
  );
  const body = (await res.json()) as { error?: string };
  return [res.status, body.error ?? null];
}

export type AuditEntry = { kind: string; record: Record<string, unknown> };

export async function audit(consumer: string, auditor: string): Promise<AuditEntry[]> {
  const res = await send("GET", `/v1/consumers/${consumer}/audit?limit=100`, auditor);
  return ((await res.json()) as { entries: AuditEntry[] }).entries;
}

export const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "oauth-test", version: "1.0.0" } },
};
export const CALL = {
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
};

export function mcp(consumer: string, token: string | null, message: object, session?: string): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
  };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (session !== undefined) headers["mcp-session-id"] = session;
  return at(`/v1/consumers/${consumer}/mcp`, { method: "POST", headers, body: JSON.stringify(message) });
}

export const LIST = { jsonrpc: "2.0", id: 3, method: "tools/list", params: {} };

/** `initialize`, `tools/list` and one `tools/call` of get_order in that session: the statuses and the listed tool names. */
export async function session(consumer: string, token: string): Promise<[number, number, string[]]> {
  const init = await mcp(consumer, token, INIT);
  await init.text();
  if (init.status !== 200) return [init.status, 0, []];
  const id = init.headers.get("mcp-session-id") ?? "";
  const list = (await (await mcp(consumer, token, LIST, id)).json()) as { result: { tools: Array<{ name: string }> } };
  const call = await mcp(consumer, token, CALL, id);
  await call.text();
  return [init.status, call.status, list.result.tools.map((t) => t.name)];
}
