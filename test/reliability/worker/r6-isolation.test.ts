/**
 * R6 tenant isolation, in-process through the Worker's fetch: three consumers with real data
 * (tool calls, approvals pending and decided, an unknown outcome's status_ref, audit entries,
 * capability providers, grants, requests and a capability approval, a runtime outbox event, a
 * facade map), then every consumer route of the OpenAPI document × every credential kind of
 * each consumer × {foreign consumer, missing consumer}, every id route × {the other consumers'
 * ids, random well-formed ids, malformed ids}, malformed and forged consumer segments, and the
 * admin token on the credential routes, and CORS: each consumer allows its own origin, which on
 * another consumer is a never-allowed origin (preflight and actual answer alike).
 * Pass: 0 answers holding another consumer's data (any of its secrets, ids or argument
 * canaries the caller did not send itself), a foreign answer equal to the missing answer
 * (status, content-type, www-authenticate, body), a foreign id answered as a random one, every
 * 4xx a catalog problem, and no other consumer's state changed.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import eventFixture from "../../../fixtures/execution/completed-event.v1.json?raw";
import enqueueFixture from "../../../fixtures/execution/enqueue.v1.json?raw";
import { CANARY_PREFIX, prng, report, seedOf } from "../support/figures";
import { ADMIN, approveCall, callBody, contractBreach, fetchGate, send, tenant, type Tenant, opening } from "./client";

const SEED = seedOf(6006);
const random = prng(SEED);
const T0 = 1_000_000;
const SNAPSHOT = "browser.page.snapshot";
/** The provider each tenant's subject-bound provider credential attaches. */
const PROVIDER = "provider-1";

type Kind = "agent" | "approver" | "auditor" | "provider" | "runtime";
const KINDS: readonly Kind[] = ["agent", "approver", "auditor", "provider", "runtime"];
type IdKind =
  | "approval"
  | "status_ref"
  | "credential"
  | "provider"
  | "request"
  | "instance"
  | "tool"
  | "secret"
  | "mcp_server"
  | "mcp_session"
  | "webhook"
  | "delivery"
  | "call"
  | "standing";

function hex(n: number): string {
  let out = "";
  for (let i = 0; i < n; i++) out += Math.floor(random() * 16).toString(16);
  return out;
}

function base62(n: number): string {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  let out = "";
  for (let i = 0; i < n; i++) out += alphabet[Math.floor(random() * 62)];
  return out;
}

/** A data-defined read tool whose description carries the consumer's canary, with a secret header. */
const dataTool = (canary: string, secret: string) => ({
  description: `${canary}-tool`,
  risk: "read",
  input: {
    type: "object",
    properties: { q: { type: "string", maxLength: 16 } },
    required: ["q"],
    additionalProperties: false,
  },
  output: {
    schema: {
      type: "object",
      properties: { a: { type: "string", maxLength: 16 } },
      required: ["a"],
      additionalProperties: false,
    },
  },
  target: {
    kind: "http",
    url: "https://ledger.test/customers/lookup",
    secret_headers: { authorization: { secret, prefix: "Bearer " } },
  },
});

/** One consumer of the check and everything that is its own. */
interface World extends Tenant {
  letter: string;
  canary: string;
  actor: string;
  /** A provider registered only in this consumer (never attached). */
  ownProvider: string;
  instance: number;
  anyProvider: string;
  pendingApproval: string;
  decidedApproval: string;
  statusRef: string;
  submitBody: unknown;
  /** A tool defined as data in this consumer only, and a secret stored in it only. */
  toolName: string;
  secretName: string;
  /** A subject-bound agent credential (the MCP endpoint acts for a subject), its MCP session, and an MCP server registered here only. */
  mcpAgent: string;
  mcpSession: string;
  mcpServer: string;
  /** A webhook endpoint of this consumer (its URL holds the canary) and one of its deliveries. */
  webhook: string;
  delivery: string;
  /** Every string that is this consumer's and no one else's. */
  strings: string[];
  /** The one browser origin this consumer allows (its `cors_origins`). */
  origin: string;
}

const capabilityRequest = (w: { actor: string }, localId: number, scope: string, summary: string) => ({
  actor_id: w.actor,
  request: {
    local_id: localId,
    instance_id: 7,
    generation: 1,
    provider_id: PROVIDER,
    capability_id: SNAPSHOT,
    resource_scope_id: scope,
    approval_summary: summary,
    deadline_tick: T0 + 3_600_000,
    payload: [123, 125],
  },
});
const grant = (consumer: string, actor: string, scope: string, mode: string) => ({
  command: {
    "set-grant": {
      grant: {
        key: {
          consumer_id: consumer,
          actor_id: actor,
          instance_id: 7,
          generation: 1,
          provider_id: PROVIDER,
          capability_id: SNAPSHOT,
          resource_scope_id: scope,
        },
        mode,
      },
    },
  },
});
const observation = (consumer: string, actor: string) => ({
  binding_id: 1,
  observation: {
    operation_id: 1,
    request_key: { consumer_id: consumer, actor_id: actor, local_id: 1 },
    instance_id: 7,
    generation: 1,
    provider_id: PROVIDER,
    observation: {
      succeeded: {
        result: {
          metadata: { byte_len: 2, media_type: "application/json", truncated: false, redacted_summary: null },
          delivery: { inline: { bytes: [123, 125] } },
        },
      },
    },
  },
});

function event(id: string): unknown {
  const envelope = JSON.parse(eventFixture);
  envelope.payload.payload.event.id = id;
  return envelope;
}

/** An MCP client's headers: JSON and SSE accepted; `session`, once initialized. */
const MCP_HEADERS = (token: string | null, session: string | null): Record<string, string> => ({
  ...(token === null ? {} : { authorization: `Bearer ${token}` }),
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...(session === null ? {} : { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }),
});
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "r6", version: "1" } },
};

async function downstreamMode(mode: string): Promise<void> {
  const fetcher = (env as unknown as { DOWNSTREAM: Fetcher }).DOWNSTREAM;
  await fetcher.fetch("http://downstream/_control", { method: "POST", body: JSON.stringify({ mode }) });
}

function must(r: { status: number; text: string }, status: number, what: string): void {
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 200)}`);
}

async function world(letter: string): Promise<World> {
  const name = `r6${letter}-${hex(8)}`;
  const t = await tenant(name);
  const origin = `https://r6-${letter}-${hex(8)}.example`;
  must(
    await send("PUT", `/v1/consumers/${name}`, ADMIN, {
      tools: ["get_order", "create_refund_draft", "submit_refund", "lookup_refund"],
      approver_subjects: ["human-reviewer-1"],
      limits: { calls_per_second: 1_000_000, call_burst: 1_000_000 },
      cors_origins: [origin],
    }),
    200,
    "cors origins",
  );
  const canary = `${CANARY_PREFIX}-${letter}-${hex(12)}`;
  const actor = `actor-${letter}-${hex(8)}`;
  const ownProvider = `browser-${letter}-${hex(8)}`;
  const instance = 1_000 + Math.floor(random() * 1_000_000);
  await runInDurableObject(env.CONSUMER.get(env.CONSUMER.idFromName(name)), (object) => {
    object.capability.pinnedMillis = T0;
  });
  const calls = `/v1/consumers/${name}/tool-calls`;
  // A webhook endpoint first, so the approvals below queue deliveries to it.
  const hook = await send("POST", `/v1/consumers/${name}/webhooks`, ADMIN, {
    url: `https://hooks.test/${canary}-hook`,
    include_arguments: true,
  });
  must(hook, 201, "webhook");
  const webhook = hook.json?.endpoint_id as string;
  const webhookSecret = hook.json?.secret as string;
  // A read with a canary argument.
  must(
    await send(
      "POST",
      calls,
      t.agent,
      callBody({ callId: `read-${letter}`, tool: "get_order", args: { order_ref: `${canary}-read` }, key: null }),
    ),
    200,
    "read",
  );
  // A pending approval and a decided, executed one.
  const pending = await send(
    "POST",
    calls,
    t.agent,
    callBody({
      callId: `${canary}-pend`,
      tool: "submit_refund",
      args: { order_ref: `${canary}-pend`, reason: "duplicate" },
    }),
  );
  const pendingApproval = pending.json?.approval_id as string;
  if (typeof pendingApproval !== "string") throw new Error(`pending approval: ${pending.text}`);
  const decidedBody = callBody({
    callId: `${canary}-dec`,
    tool: "submit_refund",
    args: { order_ref: `${canary}-dec`, reason: "damaged" },
  });
  const decidedApproval = await approveCall(t, decidedBody);
  must(await send("POST", calls, t.agent, decidedBody), 200, "decided call");
  // An HTTP write whose outcome is unknown: its status_ref.
  const submitBody = callBody({
    callId: `${canary}-sub`,
    tool: "submit_refund",
    args: { order_ref: `${canary}-sub`, reason: "other" },
    key: `idem-${letter}-${hex(8)}`,
  });
  await approveCall(t, submitBody);
  await downstreamMode("error_after_commit");
  const unknown = await send("POST", calls, t.agent, submitBody);
  await downstreamMode("ok");
  const statusRef = unknown.json?.status_ref as string;
  if (typeof statusRef !== "string") throw new Error(`status_ref: ${unknown.text}`);
  // Capability state: two providers, instances, grants, an executed-path request, a pending capability approval.
  const admin = (method: string, path: string, body?: unknown) =>
    send(method, `/v1/consumers/${name}/capability${path}`, ADMIN, body);
  const descriptor = (id: string) => ({
    descriptor: {
      id,
      owner: { consumer: name },
      capabilities: [{ id: SNAPSHOT, class: "browser", description: `${canary}-desc` }],
    },
  });
  must(await admin("POST", "/providers", descriptor(PROVIDER)), 201, "provider");
  must(await admin("POST", "/providers", descriptor(ownProvider)), 201, "own provider");
  must(await admin("PUT", "/instances/7", { generation: 1, state: "active" }), 200, "instance 7");
  must(await admin("PUT", `/instances/${instance}`, { generation: 1, state: "active" }), 200, "own instance");
  const cap = `/v1/consumers/${name}/capability`;
  must(await send("POST", `${cap}/authority`, t.approver, grant(name, actor, "tab:1", "allow")), 200, "grant allow");
  must(
    await send("POST", `${cap}/authority`, t.approver, grant(name, actor, "tab:2", "require-approval")),
    200,
    "grant approval",
  );
  must(await send("POST", `${cap}/providers/${PROVIDER}/attach`, t.provider), 200, "attach");
  must(
    await send("POST", `${cap}/requests`, t.agent, capabilityRequest({ actor }, 1, "tab:1", `${canary}-cap1`)),
    200,
    "capability request",
  );
  must(
    await send("POST", `${cap}/requests`, t.agent, capabilityRequest({ actor }, 2, "tab:2", `${canary}-cap2`)),
    200,
    "capability approval",
  );
  // Runtime: an unacknowledged outbox event and a facade map.
  const evt = await fetchGate(
    new Request(`http://gate/v1/consumers/${name}/runtime/envelopes`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.runtime}`, "content-type": "application/json" },
      body: JSON.stringify(event(`${canary}-evt`)),
    }),
  );
  await evt.text();
  if (evt.status !== 202) throw new Error(`outbox event: ${evt.status}`);
  must(
    await send("PUT", `/v1/consumers/${name}/runtime/facade-targets`, ADMIN, {
      targets: { [`/app/${canary}-target`]: "get_order" },
    }),
    200,
    "facade targets",
  );
  const any = await send("POST", `/v1/consumers/${name}/credentials`, ADMIN, { kind: "provider" });
  must(any, 201, "unbound provider credential");
  // Tools as data: a secret and a tool of this consumer only.
  const toolName = `tool_${letter}_${hex(8)}`;
  const secretName = `secret_${letter}_${hex(8)}`;
  must(
    await send("PUT", `/v1/consumers/${name}/secrets/${secretName}`, ADMIN, { value: `${canary}-secret` }),
    204,
    "secret",
  );
  must(
    await send("PUT", `/v1/consumers/${name}/tools/${toolName}`, ADMIN, dataTool(canary, secretName)),
    200,
    "data tool",
  );
  // MCP: a session of a subject-bound agent, and a registered MCP server (a real SDK server behind https://mcp.test).
  const mcpAgent = await send("POST", `/v1/consumers/${name}/credentials`, ADMIN, {
    kind: "agent",
    subject_id: `user-${letter}`,
  });
  must(mcpAgent, 201, "mcp agent");
  const init = await fetchGate(
    new Request(`http://gate/v1/consumers/${name}/mcp`, {
      method: "POST",
      headers: MCP_HEADERS(mcpAgent.json.secret, null),
      body: JSON.stringify(INITIALIZE),
    }),
  );
  await init.text();
  const mcpSession = init.headers.get("mcp-session-id") ?? "";
  if (init.status !== 200 || mcpSession === "") throw new Error(`mcp session: ${init.status}`);
  const mcpServer = `srv_${letter}_${hex(8)}`;
  must(
    await send("POST", `/v1/consumers/${name}/mcp-servers`, ADMIN, {
      name: mcpServer,
      url: "https://mcp.test/json/mcp",
      prefix: `${letter}_`,
    }),
    200,
    "mcp server",
  );
  const deliveries = await send("GET", `/v1/consumers/${name}/webhooks/deliveries`, ADMIN);
  const delivery = (deliveries.json?.deliveries as Array<{ delivery_id: string }> | undefined)?.[0]?.delivery_id;
  if (typeof delivery !== "string") throw new Error(`webhook delivery: ${deliveries.text}`);
  const auditor = await send("GET", `/v1/consumers/${name}/audit/verify`, t.auditor);
  const head = String(auditor.json?.head ?? auditor.json?.head_digest ?? "");
  const strings = [
    name,
    canary,
    actor,
    ownProvider,
    toolName,
    secretName,
    mcpAgent.json.secret,
    mcpAgent.json.credential_id,
    mcpSession,
    mcpServer,
    t.agent,
    t.approver,
    t.auditor,
    t.provider,
    t.runtime,
    any.json.secret,
    t.agentId,
    t.approverId,
    any.json.credential_id,
    pendingApproval,
    decidedApproval,
    statusRef,
    webhook,
    webhookSecret,
    delivery,
    origin,
  ];
  if (head.length >= 16) strings.push(head);
  return {
    ...t,
    letter,
    canary,
    actor,
    ownProvider,
    instance,
    anyProvider: any.json.secret,
    pendingApproval,
    decidedApproval,
    statusRef,
    submitBody,
    toolName,
    secretName,
    mcpAgent: mcpAgent.json.secret,
    mcpSession,
    mcpServer,
    webhook,
    delivery,
    strings,
    origin,
  };
}

/** One route of the OpenAPI document as the check drives it. */
interface Route {
  method: string;
  /** The OpenAPI path. */
  path: string;
  /** Who may call it. */
  auth: Kind | "admin" | "approver-or-admin" | "auditor-or-admin" | "agent-or-admin";
  /** The path for a consumer segment (already encoded) and an id. */
  url: (consumer: string, id: string) => string;
  /** The caller's own body for this route (independent of the target consumer). */
  body?: (owner: World, id: string) => unknown;
  rawBody?: (owner: World) => string;
  query?: string;
  upgrade?: boolean;
  /** Headers of the request besides the credential (the MCP session id travels in one). */
  headers?: (id: string) => Record<string, string>;
  /** The owner's credential for the route when its own kind's default does not fit (MCP: a subject-bound agent). */
  own?: (w: World) => string;
  /** The route's id parameter: which consumer-owned id it names, and the owner's own value. */
  id?: { kind: IdKind; own: (w: World) => string };
}

const C = (consumer: string) => `/v1/consumers/${consumer}`;

const ROUTES: Route[] = [
  {
    method: "PUT",
    path: "/v1/consumers/{consumer}",
    auth: "admin",
    url: (c) => C(c),
    body: (w) => ({
      tools: ["get_order", "create_refund_draft", "submit_refund", "lookup_refund"],
      approver_subjects: ["human-reviewer-1"],
      cors_origins: [w.origin],
    }),
  },
  {
    method: "PATCH",
    path: "/v1/consumers/{consumer}",
    auth: "admin",
    url: (c) => C(c),
    headers: () => ({ "content-type": "application/merge-patch+json" }),
    body: () => ({ approver_subjects: ["human-reviewer-1"] }),
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/tools",
    auth: "agent-or-admin",
    url: (c) => `${C(c)}/tools`,
    query: "?format=openai",
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/tools/{name}",
    auth: "admin",
    url: (c, id) => `${C(c)}/tools/${id}`,
    id: { kind: "tool", own: (w) => w.toolName },
  },
  {
    method: "PUT",
    path: "/v1/consumers/{consumer}/tools/{name}",
    auth: "admin",
    url: (c, id) => `${C(c)}/tools/${id}`,
    body: (w) => dataTool(w.canary, w.secretName),
  },
  {
    method: "PATCH",
    path: "/v1/consumers/{consumer}/tools/{name}",
    auth: "admin",
    url: (c, id) => `${C(c)}/tools/${id}`,
    body: () => ({ state: "enabled" }),
    id: { kind: "tool", own: (w) => w.toolName },
  },
  {
    method: "DELETE",
    path: "/v1/consumers/{consumer}/tools/{name}",
    auth: "admin",
    url: (c, id) => `${C(c)}/tools/${id}`,
    id: { kind: "tool", own: (w) => w.toolName },
  },
  { method: "GET", path: "/v1/consumers/{consumer}/secrets", auth: "admin", url: (c) => `${C(c)}/secrets` },
  {
    method: "PUT",
    path: "/v1/consumers/{consumer}/secrets/{name}",
    auth: "admin",
    url: (c, id) => `${C(c)}/secrets/${id}`,
    body: (w) => ({ value: `${w.canary}-secret` }),
  },
  {
    method: "DELETE",
    path: "/v1/consumers/{consumer}/secrets/{name}",
    auth: "admin",
    url: (c, id) => `${C(c)}/secrets/${id}`,
    id: { kind: "secret", own: (w) => w.secretName },
  },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/credentials",
    auth: "admin",
    url: (c) => `${C(c)}/credentials`,
    body: () => ({ kind: "auditor" }),
  },
  {
    method: "DELETE",
    path: "/v1/consumers/{consumer}/credentials/{credential_id}",
    auth: "admin",
    url: (c, id) => `${C(c)}/credentials/${id}`,
    id: { kind: "credential", own: () => `cred_${base62(16)}` },
  },
  { method: "GET", path: "/v1/consumers/{consumer}/ping", auth: "admin", url: (c) => `${C(c)}/ping` },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/tool-calls",
    auth: "agent",
    url: (c) => `${C(c)}/tool-calls`,
    body: (w) =>
      callBody({ callId: `probe-${w.letter}`, tool: "get_order", args: { order_ref: "ORDER-7" }, key: null }),
  },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/tool-calls/status",
    auth: "agent",
    url: (c) => `${C(c)}/tool-calls/status`,
    body: (w, id) => ({ ...(w.submitBody as object), status_ref: id }),
    id: { kind: "status_ref", own: (w) => w.statusRef },
  },
  // One model turn's calls in one request: each its own tool call of the caller's consumer.
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/tool-calls/batch",
    auth: "agent",
    url: (c) => `${C(c)}/tool-calls/batch`,
    body: (w) => ({
      principal: { subject_id: "user-1", roles: [] },
      context: {
        provider: "openai",
        api_family: "responses",
        response_id: "resp-1",
        adapter_revision: "openai-responses-v1",
      },
      calls: [
        {
          proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
          call_id: `batch-${w.letter}-1`,
          operation_id: `op-batch-${w.letter}-1`,
        },
        {
          proposal: { name: "get_order", arguments: { order_ref: `${w.canary}-batch` } },
          call_id: `batch-${w.letter}-2`,
          operation_id: `op-batch-${w.letter}-2`,
        },
      ],
    }),
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/approvals",
    auth: "approver",
    url: (c) => `${C(c)}/approvals`,
    query: "?state=pending",
  },
  // The approval stream replays the pending approvals first: the owner's own, nobody else's.
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/approvals/events",
    auth: "approver",
    url: (c) => `${C(c)}/approvals/events`,
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/approvals/{approval_id}",
    auth: "approver",
    url: (c, id) => `${C(c)}/approvals/${id}`,
    id: { kind: "approval", own: (w) => w.pendingApproval },
  },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/approvals/{approval_id}",
    auth: "approver",
    url: (c, id) => `${C(c)}/approvals/${id}`,
    body: () => ({ decision: "deny", approval_digest: "0".repeat(64) }),
    id: { kind: "approval", own: () => `apr_${hex(32)}` },
  },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/approvals/{approval_id}/confirmation",
    auth: "agent",
    url: (c, id) => `${C(c)}/approvals/${id}/confirmation`,
    body: () => ({ decision: "deny", principal_token: "x.y.z", request_sha256: "0".repeat(64) }),
    id: { kind: "approval", own: () => `apr_${hex(32)}` },
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/audit",
    auth: "auditor",
    url: (c) => `${C(c)}/audit`,
    query: "?after=0&limit=500",
  },
  { method: "GET", path: "/v1/consumers/{consumer}/audit/verify", auth: "auditor", url: (c) => `${C(c)}/audit/verify` },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/audit/calls/{call_id}",
    auth: "auditor-or-admin",
    url: (c, id) => `${C(c)}/audit/calls/${id}`,
    id: { kind: "call", own: (w) => `${w.canary}-sub` },
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/standing-approvals",
    auth: "approver",
    url: (c) => `${C(c)}/standing-approvals`,
  },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/standing-approvals",
    auth: "approver",
    url: (c) => `${C(c)}/standing-approvals`,
    // The consumers allow none: the owner's own grant is refused as the foreign one is.
    body: () => ({ tool: "create_refund_draft", subject_id: "user-1", seconds: 60, max_calls: 1 }),
  },
  {
    method: "DELETE",
    path: "/v1/consumers/{consumer}/standing-approvals/{standing_approval_id}",
    auth: "approver",
    url: (c, id) => `${C(c)}/standing-approvals/${id}`,
    id: { kind: "standing", own: () => `sta_${"0".repeat(32)}` },
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/tools/{name}/shadow",
    auth: "admin",
    url: (c, id) => `${C(c)}/tools/${id}/shadow`,
    id: { kind: "tool", own: (w) => w.toolName },
  },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/tools/{name}/replay",
    auth: "admin",
    url: (c, id) => `${C(c)}/tools/${id}/replay`,
    body: (w) => ({ definition: dataTool(w.canary, w.secretName), limit: 5 }),
    id: { kind: "tool", own: (w) => w.toolName },
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/audit/checkpoint",
    auth: "auditor",
    url: (c) => `${C(c)}/audit/checkpoint`,
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/audit/proof/inclusion",
    auth: "auditor",
    url: (c) => `${C(c)}/audit/proof/inclusion`,
    query: "?seq=2",
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/audit/proof/consistency",
    auth: "auditor",
    url: (c) => `${C(c)}/audit/proof/consistency`,
    query: "?from=1&to=3",
  },
  { method: "GET", path: "/v1/consumers/{consumer}/audit/export", auth: "auditor", url: (c) => `${C(c)}/audit/export` },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/runtime/envelopes",
    auth: "runtime",
    url: (c) => `${C(c)}/runtime/envelopes`,
    rawBody: () => enqueueFixture,
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/runtime/connect",
    auth: "runtime",
    url: (c) => `${C(c)}/runtime/connect`,
    upgrade: true,
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/runtime/facade-targets",
    auth: "admin",
    url: (c) => `${C(c)}/runtime/facade-targets`,
  },
  {
    method: "PUT",
    path: "/v1/consumers/{consumer}/runtime/facade-targets",
    auth: "admin",
    url: (c) => `${C(c)}/runtime/facade-targets`,
    body: (w) => ({ targets: { [`/app/${w.canary}-target`]: "get_order" } }),
  },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/capability/providers",
    auth: "admin",
    url: (c) => `${C(c)}/capability/providers`,
    body: (w) => ({
      descriptor: {
        id: `browser-probe-${w.letter}`,
        owner: "gate",
        capabilities: [{ id: SNAPSHOT, class: "browser", description: "probe" }],
      },
    }),
  },
  {
    method: "PUT",
    path: "/v1/consumers/{consumer}/capability/instances/{instance_id}",
    auth: "admin",
    url: (c, id) => `${C(c)}/capability/instances/${id}`,
    body: () => ({ generation: 1, state: "active" }),
  },
  {
    method: "DELETE",
    path: "/v1/consumers/{consumer}/capability/instances/{instance_id}",
    auth: "admin",
    url: (c, id) => `${C(c)}/capability/instances/${id}`,
    id: { kind: "instance", own: () => String(1 + Math.floor(random() * 900)) },
  },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/capability/authority",
    auth: "approver-or-admin",
    url: (c) => `${C(c)}/capability/authority`,
    body: (w) => grant(w.name, w.actor, "tab:3", "allow"),
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/capability/approvals",
    auth: "approver-or-admin",
    url: (c) => `${C(c)}/capability/approvals`,
  },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/capability/requests",
    auth: "agent",
    url: (c) => `${C(c)}/capability/requests`,
    body: (w) => capabilityRequest(w, 3, "tab:3", "probe"),
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/capability/requests/{actor_id}/{local_id}",
    auth: "agent",
    url: (c, id) => `${C(c)}/capability/requests/${id}`,
    id: { kind: "request", own: (w) => `${w.actor}/1` },
  },
  // A host credential names the actor whose completions it drains.
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/capability/completions/drain",
    auth: "agent",
    url: (c) => `${C(c)}/capability/completions/drain`,
    query: "?actor_id=agent-1",
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/capability/snapshot",
    auth: "auditor-or-admin",
    url: (c) => `${C(c)}/capability/snapshot`,
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/capability/providers/{provider_id}/connect",
    auth: "provider",
    url: (c, id) => `${C(c)}/capability/providers/${id}/connect`,
    upgrade: true,
    id: { kind: "provider", own: () => PROVIDER },
  },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/capability/providers/{provider_id}/attach",
    auth: "provider",
    url: (c, id) => `${C(c)}/capability/providers/${id}/attach`,
    id: { kind: "provider", own: () => PROVIDER },
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/capability/providers/{provider_id}/effects",
    auth: "provider",
    url: (c, id) => `${C(c)}/capability/providers/${id}/effects`,
    query: "?binding_id=1&wait=0",
    id: { kind: "provider", own: () => PROVIDER },
  },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/capability/providers/{provider_id}/observations",
    auth: "provider",
    url: (c, id) => `${C(c)}/capability/providers/${id}/observations`,
    body: (w) => observation(w.name, w.actor),
    id: { kind: "provider", own: () => PROVIDER },
  },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/capability/providers/{provider_id}/detach",
    auth: "provider",
    url: (c, id) => `${C(c)}/capability/providers/${id}/detach`,
    body: () => ({ binding_id: 999 }),
    id: { kind: "provider", own: () => PROVIDER },
  },
  // MCP: the endpoint (a session's id is the consumer's own), and the registered MCP servers.
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/mcp",
    auth: "agent",
    own: (w) => w.mcpAgent,
    url: (c) => `${C(c)}/mcp`,
    headers: (id) => MCP_HEADERS(null, id),
    body: () => ({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
    id: { kind: "mcp_session", own: (w) => w.mcpSession },
  },
  {
    method: "DELETE",
    path: "/v1/consumers/{consumer}/mcp",
    auth: "agent",
    own: (w) => w.mcpAgent,
    url: (c) => `${C(c)}/mcp`,
    headers: (id) => MCP_HEADERS(null, id),
    id: { kind: "mcp_session", own: () => hex(32) },
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/mcp",
    auth: "agent",
    own: (w) => w.mcpAgent,
    url: (c) => `${C(c)}/mcp`,
    headers: () => ({ accept: "text/event-stream" }),
  },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/mcp-servers",
    auth: "admin",
    url: (c) => `${C(c)}/mcp-servers`,
    body: (w) => ({ name: `probe_${w.letter}`, url: "https://mcp.test/missing/mcp" }),
  },
  { method: "GET", path: "/v1/consumers/{consumer}/mcp-servers", auth: "admin", url: (c) => `${C(c)}/mcp-servers` },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/mcp-servers/{name}",
    auth: "admin",
    url: (c, id) => `${C(c)}/mcp-servers/${id}`,
    id: { kind: "mcp_server", own: (w) => w.mcpServer },
  },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/mcp-servers/{name}/import",
    auth: "admin",
    url: (c, id) => `${C(c)}/mcp-servers/${id}/import`,
    id: { kind: "mcp_server", own: (w) => w.mcpServer },
  },
  {
    method: "DELETE",
    path: "/v1/consumers/{consumer}/mcp-servers/{name}",
    auth: "admin",
    url: (c, id) => `${C(c)}/mcp-servers/${id}`,
    id: { kind: "mcp_server", own: () => `srv_gone_${hex(8)}` },
  },
  // Webhook endpoints, their delivery log and a redelivery (admin).
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/webhooks",
    auth: "admin",
    url: (c) => `${C(c)}/webhooks`,
    body: (w) => ({ url: `https://hooks.test/${w.canary}-probe` }),
  },
  { method: "GET", path: "/v1/consumers/{consumer}/webhooks", auth: "admin", url: (c) => `${C(c)}/webhooks` },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/webhooks/{endpoint_id}",
    auth: "admin",
    url: (c, id) => `${C(c)}/webhooks/${id}`,
    id: { kind: "webhook", own: (w) => w.webhook },
  },
  {
    method: "DELETE",
    path: "/v1/consumers/{consumer}/webhooks/{endpoint_id}",
    auth: "admin",
    url: (c, id) => `${C(c)}/webhooks/${id}`,
    id: { kind: "webhook", own: () => `ep_${hex(32)}` },
  },
  {
    method: "GET",
    path: "/v1/consumers/{consumer}/webhooks/deliveries",
    auth: "admin",
    url: (c) => `${C(c)}/webhooks/deliveries`,
  },
  {
    method: "POST",
    path: "/v1/consumers/{consumer}/webhooks/deliveries/{delivery_id}/redeliver",
    auth: "admin",
    url: (c, id) => `${C(c)}/webhooks/deliveries/${id}/redeliver`,
    id: { kind: "delivery", own: (w) => w.delivery },
  },
  // The admin's reads: the consumer's configuration and its credentials (never a secret).
  { method: "GET", path: "/v1/consumers/{consumer}", auth: "admin", url: (c) => C(c) },
  { method: "GET", path: "/v1/consumers/{consumer}/credentials", auth: "admin", url: (c) => `${C(c)}/credentials` },
  // OAuth protected resource metadata names the consumer's MCP URL, nothing of the consumer's state.
  {
    method: "GET",
    path: "/.well-known/oauth-protected-resource/v1/consumers/{consumer}/mcp",
    auth: "agent",
    url: (c) => `/.well-known/oauth-protected-resource${C(c)}/mcp`,
  },
];
/**
 * Routes without a consumer: nothing of a consumer to isolate. The OAuth endpoints answer
 * OAuth's own error bodies (RFC 6749), and a token for one consumer's MCP URL is refused on
 * another's (test/worker/oauth/mcp-oauth.test.ts).
 */
const GLOBAL = [
  "GET /healthz",
  // The directory of consumers (admin): every consumer's name is its answer by design.
  "GET /v1/consumers",
  "GET /v1/openapi.json",
  "GET /v1/audit/verifier-keys",
  // Under a consumer's path but public and derived, not stored: any valid name's public key,
  // the same answer whether the consumer exists or not (test/worker/tool-calls/request-signing-keys.test.ts).
  "GET /v1/consumers/{consumer}/signing-keys",
  "GET /.well-known/oauth-authorization-server",
  "GET /oauth/authorize",
  "POST /oauth/authorize",
  "POST /oauth/token",
  "POST /oauth/register",
];

/** Foreign ids of `other` for an id kind (what the caller might have learned or guessed). */
function foreignIds(kind: IdKind, other: World): string[] {
  switch (kind) {
    case "approval":
      return [other.pendingApproval, other.decidedApproval];
    case "status_ref":
      return [other.statusRef];
    case "credential":
      return [other.agentId, other.approverId];
    case "provider":
      return [other.ownProvider];
    case "request":
      return [`${other.actor}/1`, `${other.actor}/2`];
    case "instance":
      return [String(other.instance)];
    case "tool":
      return [other.toolName];
    case "secret":
      return [other.secretName];
    case "mcp_server":
      return [other.mcpServer];
    case "mcp_session":
      return [other.mcpSession];
    case "webhook":
      return [other.webhook];
    case "delivery":
      return [other.delivery];
    case "call":
      return [`${other.canary}-pend`, `${other.canary}-dec`, `${other.canary}-sub`];
    case "standing":
      // No consumer here allows standing approvals: there is no foreign one to name.
      return [];
  }
}

function randomId(kind: IdKind): string {
  switch (kind) {
    case "approval":
      return `apr_${hex(32)}`;
    case "status_ref":
      return `status_${hex(32)}`;
    case "credential":
      return `cred_${base62(16)}`;
    case "provider":
      return `browser-q-${hex(8)}`;
    case "request":
      return `actor-q-${hex(8)}/1`;
    case "instance":
      return String(2_000_000 + Math.floor(random() * 1_000_000));
    case "tool":
      return `tool_q_${hex(8)}`;
    case "secret":
      return `secret_q_${hex(8)}`;
    case "mcp_server":
      return `srv_q_${hex(8)}`;
    case "mcp_session":
      return hex(32);
    case "webhook":
      return `ep_${hex(32)}`;
    case "delivery":
      return `dlv_${hex(32)}`;
    case "call":
      return `call-q-${hex(8)}`;
    case "standing":
      return `sta_${hex(32)}`;
  }
}

const LONG = "x".repeat(300);
function malformedIds(kind: IdKind, other: World): string[] {
  switch (kind) {
    case "approval":
      return ["apr_XYZ", `APR_${hex(32)}`, `${other.pendingApproval}x`, `apr_${hex(32)}%2F..`, LONG, "%00"];
    case "status_ref":
      return ["status_zz", "", `${other.statusRef}0`, `sr_${hex(16)}`, LONG];
    case "credential":
      return ["cred_!!", `${other.agentId}x`, `cred_${base62(15)}`, "%2E%2E", LONG];
    case "provider":
      return [`${other.ownProvider}%2F..`, "%00", LONG, "a%20b"];
    case "request":
      return [`${other.actor}/x`, `${other.actor}/-1`, `${other.actor}/18446744073709551616`, `%2E%2E/1`, `${LONG}/1`];
    case "instance":
      return ["-1", "18446744073709551616", "0x10", "1e3", LONG];
    case "tool":
      return [`${other.toolName}%2F..`, "%00", "9tool", LONG];
    case "secret":
      return [`${other.secretName}%2F..`, "UPPER", "%00", LONG];
    case "mcp_server":
      return [`${other.mcpServer}%2F..`, "%00", "9srv", LONG];
    case "mcp_session":
      return [`${other.mcpSession}x`, "zz", LONG, "a b"];
    case "webhook":
      return [`${other.webhook}x`, "ep_XYZ", "deliveries%2F..", LONG];
    case "delivery":
      return [`${other.delivery}x`, "dlv_XYZ", "%00", LONG];
    case "call":
      return [`${other.canary}-sub%2F..`, "%00", LONG];
    case "standing":
      return ["sta_XYZ", `STA_${hex(32)}`, "%00", LONG];
  }
}

interface Answer {
  status: number;
  type: string | null;
  auth: string | null;
  retry: string | null;
  text: string;
  /** The CORS headers (`name=value; …`, `-` where absent). */
  cors: string;
}

const CORS_NAMES = [
  "access-control-allow-origin",
  "access-control-allow-methods",
  "access-control-allow-headers",
  "access-control-max-age",
  "access-control-expose-headers",
  "vary",
];

function corsOf(res: Response): string {
  return CORS_NAMES.map((name) => `${name}=${res.headers.get(name) ?? "-"}`).join("; ");
}

/** A CORS preflight of `method` on `path` from `origin`. */
async function preflightOf(path: string, method: string, origin: string): Promise<Answer> {
  requests++;
  const headers = {
    origin,
    "access-control-request-method": method,
    "access-control-request-headers": "authorization, content-type",
  };
  const res = await fetchGate(new Request(`http://gate${path}`, { method: "OPTIONS", headers }));
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    auth: res.headers.get("www-authenticate"),
    retry: res.headers.get("retry-after"),
    text: await res.text(),
    cors: corsOf(res),
  };
}

let requests = 0;

async function call(
  route: Route,
  path: string,
  token: string | null,
  owner: World,
  id: string,
  origin?: string,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (origin !== undefined) headers.origin = origin;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (route.upgrade === true) headers.upgrade = "websocket";
  Object.assign(headers, route.headers?.(id) ?? {});
  let body: string | undefined;
  if (route.rawBody !== undefined) body = route.rawBody(owner);
  else if (route.body !== undefined) body = JSON.stringify(route.body(owner, id));
  if (body !== undefined && headers["content-type"] === undefined) headers["content-type"] = "application/json";
  requests++;
  const res = await fetchGate(
    new Request(`http://gate${path}${route.query ?? ""}`, { method: route.method, headers, body }),
  );
  if (res.webSocket !== null && res.webSocket !== undefined) {
    res.webSocket.accept();
    res.webSocket.close(1000, "r6");
  }
  const type = res.headers.get("content-type");
  const text = (type ?? "").startsWith("text/event-stream") ? await opening(res) : await res.text();
  return {
    status: res.status,
    type,
    auth: res.headers.get("www-authenticate"),
    retry: res.headers.get("retry-after"),
    text,
    cors: corsOf(res),
  };
}

function tokenOf(w: World, kind: Kind | "admin"): string {
  return kind === "admin" ? ADMIN : w[kind];
}

/** The owner's credential for its own calls of a route. */
function ownToken(w: World, route: Route): string {
  return route.own?.(w) ?? tokenOf(w, ownKind(route));
}

function ownKind(route: Route): Kind | "admin" {
  if (route.auth === "approver-or-admin") return "approver";
  if (route.auth === "auditor-or-admin") return "auditor";
  if (route.auth === "agent-or-admin") return "agent";
  return route.auth;
}

describe("R6 tenant isolation (in-process)", () => {
  it("answers no route with another consumer's data; foreign ≡ missing; foreign ids ≡ random ids", async () => {
    const started = Date.now();
    const worlds = [await world("a"), await world("b"), await world("c")];
    const missing = `r6m-${hex(8)}`;
    const before = await Promise.all(worlds.map((w) => send("GET", `/v1/consumers/${w.name}/audit/verify`, w.auditor)));

    // Every consumer route of the OpenAPI document is driven here, and nothing else (the MCP
    // endpoint's GET, its server-to-client stream, is documented now).
    const doc = (await send("GET", "/v1/openapi.json", null)).json as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    const driven = [...ROUTES.map((r) => `${r.method} ${r.path}`), ...GLOBAL].sort();

    const leaks = new Map<string, number>();
    const breaches = new Map<string, number>();
    const differ = new Map<string, number>();
    let compared = 0;
    let equal = 0;
    const note = (m: Map<string, number>, what: string) => m.set(what, (m.get(what) ?? 0) + 1);

    /** Scans an answer for another consumer's strings the caller did not send, and checks the error contract. */
    const check = (label: string, a: Answer, caller: World, sent: string): void => {
      for (const w of worlds) {
        if (w === caller) continue;
        for (const s of w.strings)
          if (a.text.includes(s) && !sent.includes(s))
            note(
              leaks,
              `${label}: ${w.letter}'s ${s === w.name ? "name" : s.startsWith("tg_") ? "secret" : s.slice(0, 12)}`,
            );
        if (a.text.includes(`${CANARY_PREFIX}-${w.letter}-`) && !sent.includes(`${CANARY_PREFIX}-${w.letter}-`))
          note(leaks, `${label}: ${w.letter}'s canary`);
      }
      const breach = contractBreach(a.status, a.type, a.text);
      if (breach !== null) note(breaches, `${label}: ${breach} (${a.text.slice(0, 80)})`);
    };
    /** Two answers that must be indistinguishable (ids the caller sent replaced by a placeholder). */
    const same = (label: string, x: Answer, y: Answer, xId = "", yId = ""): void => {
      compared++;
      // The MCP 401's challenge names the consumer segment the caller sent (its metadata URL).
      const norm = (a: Answer, id: string) => ({
        ...a,
        auth: a.auth?.replace(/\/v1\/consumers\/[^/"]*\/mcp/, "/v1/consumers/<consumer>/mcp") ?? null,
        // A tool-call answer's audit reference is the caller's own log position, new on every call;
        // its observed_at is the second it was answered in (two answers may straddle a second), in the
        // model result and again, escaped, inside the provider output's text.
        text: (id === "" ? a.text : a.text.split(id).join("<id>"))
          .replace(/"audit":\{"leaf_hash":"[0-9a-f]{64}","seq":\d+\}/g, '"audit":<ref>')
          .replace(/(\\?)"observed_at\1":\1"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\1"/g, '"observed_at":<second>'),
      });
      const [nx, ny] = [norm(x, xId), norm(y, yId)];
      if (
        nx.status === ny.status &&
        nx.type === ny.type &&
        nx.auth === ny.auth &&
        nx.retry === ny.retry &&
        nx.text === ny.text
      )
        equal++;
      else note(differ, `${label}: ${nx.status} ${nx.text.slice(0, 60)} ≠ ${ny.status} ${ny.text.slice(0, 60)}`);
    };
    const sentOf = (route: Route, owner: World, path: string, id: string) =>
      `${path} ${route.body === undefined ? "" : JSON.stringify(route.body(owner, id))}`;

    let foreignRequests = 0;
    let idRequests = 0;
    let malformedRequests = 0;
    for (const owner of worlds) {
      const others = worlds.filter((w) => w !== owner);
      for (const route of ROUTES) {
        const ownId = route.id?.own(owner) ?? String(1 + Math.floor(random() * 900));
        // (0) The owner's own call of the route: its own data only.
        if (route.upgrade !== true) {
          const path = route.url(owner.name, ownId);
          check(
            `${route.method} ${route.path} own`,
            await call(route, path, ownToken(owner, route), owner, ownId),
            owner,
            sentOf(route, owner, path, ownId),
          );
        }
        // (1, 2) Every credential of the owner (and none) on each other consumer ≡ on a missing consumer.
        for (const kind of [...KINDS, null] as const) {
          const token = kind === null ? null : owner[kind];
          const label = `${route.method} ${route.path} ${kind ?? "no credential"} of ${owner.letter}`;
          const missingPath = route.url(missing, ownId);
          const onMissing = await call(route, missingPath, token, owner, ownId);
          check(`${label} on missing`, onMissing, owner, sentOf(route, owner, missingPath, ownId));
          for (const other of others) {
            const path = route.url(other.name, ownId);
            const onForeign = await call(route, path, token, owner, ownId);
            foreignRequests++;
            check(`${label} on ${other.letter}`, onForeign, owner, sentOf(route, owner, path, ownId));
            same(`${label} on ${other.letter} vs missing`, onForeign, onMissing);
            // The same path forged through the owner's segment: `…/A/../B/…` and an encoded name.
            const forged = path.replace(`/v1/consumers/${other.name}`, `/v1/consumers/${owner.name}/../${other.name}`);
            const dotted = await call(route, forged, token, owner, ownId);
            check(`${label} via ${owner.letter}/../${other.letter}`, dotted, owner, "");
            same(`${label} via ${owner.letter}/../${other.letter} vs missing`, dotted, onMissing);
            const encodedName = `${other.name.slice(0, 2)}${encodeURIComponent(other.name.slice(2, 3)).replace(/^[^%]$/, (ch) => `%${ch.charCodeAt(0).toString(16)}`)}${other.name.slice(3)}`;
            const encoded = await call(route, route.url(encodedName, ownId), token, owner, ownId);
            check(`${label} via encoded ${other.letter}`, encoded, owner, "");
            if (encoded.status !== 404) same(`${label} via encoded ${other.letter} vs missing`, encoded, onMissing);
          }
        }
        // The admin secret on a route of a consumer credential: the same 401 as no credential.
        if (
          route.auth !== "admin" &&
          route.auth !== "approver-or-admin" &&
          route.auth !== "auditor-or-admin" &&
          route.auth !== "agent-or-admin"
        ) {
          const label = `${route.method} ${route.path} admin token`;
          for (const target of [owner.name, others[0]!.name, missing]) {
            const asAdmin = await call(route, route.url(target, ownId), ADMIN, owner, ownId);
            const anonymous = await call(route, route.url(target, ownId), null, owner, ownId);
            check(label, asAdmin, owner, "");
            same(
              `${label} on ${target === owner.name ? "own" : target === missing ? "missing" : "foreign"} vs none`,
              asAdmin,
              anonymous,
            );
          }
        }
        // (5) Malformed and slash-smuggling consumer segments: a catalog 4xx, nothing of anyone.
        for (const other of others) {
          for (const segment of [
            `${owner.name}%2F..%2F${other.name}`,
            `${owner.name}%2F${other.name}`,
            `..%2F${other.name}`,
            `${other.name}%00`,
            `%2E%2E`,
            LONG,
          ]) {
            const a = await call(route, route.url(segment, ownId), ownToken(owner, route), owner, ownId);
            malformedRequests++;
            check(`${route.method} ${route.path} consumer ${segment.slice(0, 24)}`, a, owner, segment);
            if (a.status < 400)
              note(breaches, `${route.method} ${route.path} consumer ${segment.slice(0, 24)}: accepted (${a.status})`);
          }
        }
        // (3, 4) The other consumers' ids on the owner's own path ≡ random well-formed ids; malformed ids refused.
        if (route.id !== undefined) {
          const kindOf = route.id.kind;
          const credentials = kindOf === "provider" ? [owner.provider, owner.anyProvider] : [ownToken(owner, route)];
          for (const token of credentials) {
            const rnd = randomId(kindOf);
            const label = `${route.method} ${route.path} ${kindOf}`;
            const onRandom = await call(route, route.url(owner.name, rnd), token, owner, rnd);
            check(`${label} random`, onRandom, owner, rnd);
            for (const other of others) {
              for (const fid of foreignIds(kindOf, other)) {
                const a = await call(route, route.url(owner.name, fid), token, owner, fid);
                idRequests++;
                check(`${label} of ${other.letter}`, a, owner, fid);
                same(`${label} of ${other.letter} vs random`, a, onRandom, fid, rnd);
              }
              for (const bad of malformedIds(kindOf, other)) {
                const a = await call(route, route.url(owner.name, bad), token, owner, bad);
                malformedRequests++;
                check(`${label} malformed ${bad.slice(0, 20)}`, a, owner, bad);
                if (a.status < 400) note(breaches, `${label} malformed ${bad.slice(0, 20)}: accepted (${a.status})`);
              }
            }
          }
        }
      }
    }

    // CORS: each consumer allows its own origin on the routes a consumer credential may call. On another consumer that
    // origin is a never-allowed one — in the preflight, in the answer to the owner's request, in the answer to the other
    // consumer's own reads — and a consumer that does not exist answers its preflight the same.
    const never = `https://r6-never-${hex(8)}.example`;
    const corsStart = requests;
    /** Two answers that must be indistinguishable once each origin reads as `<origin>` (OAuth metadata echoes any). */
    const corsSame = (label: string, x: Answer, xOrigin: string, y: Answer, yOrigin: string): void => {
      compared++;
      const norm = (a: Answer, origin: string) =>
        `${a.status} ${a.type} ${a.auth} ${a.retry} ${a.cors.split(origin).join("<origin>")} ${a.text}`;
      if (norm(x, xOrigin) === norm(y, yOrigin)) equal++;
      else note(differ, `${label}: ${x.status} ${x.cors} ≠ ${y.status} ${y.cors}`);
    };
    for (const owner of worlds) {
      for (const route of ROUTES) {
        if (route.upgrade === true) continue;
        const ownId = route.id?.own(owner) ?? String(1 + Math.floor(random() * 900));
        const label = `CORS ${route.method} ${route.path}`;
        const own = await preflightOf(route.url(owner.name, ownId), route.method, owner.origin);
        check(`${label} own preflight`, own, owner, owner.origin);
        // OAuth's metadata answers its own preflights; every other route offers CORS exactly where a consumer credential may call.
        if (!route.path.startsWith("/.well-known/")) {
          const offered = own.status === 204 && own.cors.startsWith(`access-control-allow-origin=${owner.origin};`);
          if (offered !== (route.auth !== "admin"))
            note(breaches, `${label} own preflight of ${owner.letter}: ${own.status} ${own.cors}`);
        }
        const onMissing = await preflightOf(route.url(missing, ownId), route.method, owner.origin);
        for (const other of worlds.filter((w) => w !== owner)) {
          const path = route.url(other.name, ownId);
          const foreign = await preflightOf(path, route.method, owner.origin);
          check(`${label} preflight on ${other.letter}`, foreign, owner, owner.origin);
          corsSame(
            `${label} preflight of ${owner.letter}'s origin on ${other.letter} vs a never-allowed origin`,
            foreign,
            owner.origin,
            await preflightOf(path, route.method, never),
            never,
          );
          corsSame(
            `${label} preflight of ${owner.letter}'s origin on ${other.letter} vs missing`,
            foreign,
            owner.origin,
            onMissing,
            owner.origin,
          );
          // The owner's request (its admin-only routes with its agent credential: nothing is configured), its origin vs a never-allowed one.
          const token = route.auth === "admin" ? owner.agent : ownToken(owner, route);
          const withOrigin = await call(route, path, token, owner, ownId, owner.origin);
          check(`${label} ${owner.letter}'s request on ${other.letter}`, withOrigin, owner, `${path} ${owner.origin}`);
          corsSame(
            `${label} ${owner.letter}'s request with its origin on ${other.letter}`,
            withOrigin,
            owner.origin,
            await call(route, path, token, owner, ownId, never),
            never,
          );
          // The other consumer's own reads: the owner's origin unlocks nothing there.
          if (route.method === "GET" && route.auth !== "admin") {
            const theirs = (origin: string) => call(route, path, ownToken(other, route), other, ownId, origin);
            const [a, b] = [await theirs(owner.origin), await theirs(never)];
            compared++;
            if (
              a.status === b.status &&
              a.cors.split(owner.origin).join("<origin>") === b.cors.split(never).join("<origin>")
            )
              equal++;
            else
              note(
                differ,
                `${label} ${other.letter}'s own read with ${owner.letter}'s origin: ${a.status} ${a.cors} ≠ ${b.status} ${b.cors}`,
              );
          }
        }
      }
    }
    const corsRequests = requests - corsStart;

    // No consumer's state moved through another's requests: its own reads still see its data, unchanged.
    const after = await Promise.all(worlds.map((w) => send("GET", `/v1/consumers/${w.name}/audit/verify`, w.auditor)));
    const ownUnchanged: string[] = [];
    for (const [i, w] of worlds.entries()) {
      const list = await send("GET", `/v1/consumers/${w.name}/approvals?state=pending`, w.approver);
      const stillPending =
        (list.json?.approvals as Array<{ approval_id: string }> | undefined)?.some(
          (a) => a.approval_id === w.pendingApproval,
        ) === true;
      const agentWorks =
        (
          await send(
            "POST",
            `/v1/consumers/${w.name}/tool-calls`,
            w.agent,
            callBody({ callId: `final-${w.letter}`, tool: "get_order", args: { order_ref: "ORDER-7" }, key: null }),
          )
        ).status === 200;
      const auditOk = after[i]?.json?.ok === true && before[i]?.json?.ok === true;
      if (!stillPending || !agentWorks || !auditOk)
        ownUnchanged.push(`${w.letter}: pending ${stillPending}, agent ${agentWorks}, audit ${auditOk}`);
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const missingRoutes = documented.filter((r) => !driven.includes(r));
    const figure =
      `${ROUTES.length} consumer routes (+${GLOBAL.length} global) × 3 consumers × 5 id kinds (foreign, missing, foreign ids, random ids, malformed): ` +
      `${requests.toLocaleString("en-US")} requests (${foreignRequests} foreign-consumer, ${idRequests} foreign-id, ${malformedRequests} malformed) in ${seconds} s, ` +
      `${leaks.size} foreign data, foreign ≡ missing/random in ${equal}/${compared}, ${breaches.size} contract breaches, ${corsRequests} CORS requests (own origin on foreign ≡ never-allowed)` +
      `${missingRoutes.length > 0 ? `, undriven: ${missingRoutes.join(", ")}` : ""}` +
      `${leaks.size > 0 ? `; e.g. ${[...leaks.keys()].slice(0, 3).join(" | ")}` : ""}` +
      `${differ.size > 0 ? `; e.g. ${[...differ.keys()].slice(0, 3).join(" | ")}` : ""}` +
      `${breaches.size > 0 ? `; e.g. ${[...breaches.keys()].slice(0, 3).join(" | ")}` : ""}`;
    report({
      id: "R6",
      check: "every route × foreign, missing, foreign-id, random-id and malformed ids across 3 consumers",
      figure,
      pass:
        leaks.size === 0 &&
        equal === compared &&
        breaches.size === 0 &&
        missingRoutes.length === 0 &&
        ownUnchanged.length === 0,
      seed: SEED,
    });
    expect(driven).toEqual(documented);
    expect([...leaks.keys()].slice(0, 20)).toEqual([]);
    expect([...differ.keys()].slice(0, 20)).toEqual([]);
    expect(equal).toBe(compared);
    expect([...breaches.keys()].slice(0, 20)).toEqual([]);
    expect(ownUnchanged).toEqual([]);
  });
});
