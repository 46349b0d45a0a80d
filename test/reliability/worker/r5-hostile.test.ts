/**
 * R5 hostile input, in-process through the Worker's fetch: ≥ 5,000 malformed inputs per surface.
 * Pass: 0 thrown requests, 0 5xx, every refusal a 4xx problem+json whose code is in the catalog
 * with its catalog status, and (where a surface sets a bound) no request slower than its bound.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import prepareFixture from "../../../fixtures/execution/app-facade-prepare.v1.json?raw";
import userActionFixture from "../../../fixtures/execution/app-facade-user-action.v1.json?raw";
import purgeFixture from "../../../fixtures/execution/checkpoint-purge.v1.json?raw";
import eventAckFixture from "../../../fixtures/execution/event-ack.v1.json?raw";
import enqueueFixture from "../../../fixtures/execution/enqueue.v1.json?raw";
import { CANARY_PREFIX, prng, report, seedOf } from "../support/figures";
import { hostileAuthorization, hostileInput } from "../support/hostile";
import { ADMIN, callBody, contractBreach, fetchGate, send, tenant, type Tenant } from "./client";
import {
  HOSTILE_DEFINITIONS,
  R5_SECRET,
  R5_TOOL,
  READ_DEFINITION,
  SECRET_BODIES,
  WRITE_DEFINITION,
} from "./r5-tool-definitions";

/** Inputs per surface: `TOOLGATE_R5_PER_SURFACE` (the brief's figure is 5,000; see docs/reliability.md). */
const PER_SURFACE = Number((env as unknown as Record<string, string | undefined>).TOOLGATE_R5_PER_SURFACE ?? "5000");
const BATCH = 16;
const SEED = seedOf(5005);

interface Surface {
  name: string;
  path: (t: HostileTenant) => string;
  token: (t: HostileTenant) => string;
  /** Valid bodies the hostile inputs are derived from (one picked per input). */
  base: (t: HostileTenant) => unknown[];
  method?: string;
  /** The slowest request's bound, in ms (a surface whose bodies are compiled: schemas, patterns, CEL). */
  maxMs?: number;
  /** Headers every input of the surface carries besides the credential (an MCP client's Accept and session). */
  headers?: (t: HostileTenant) => Record<string, string>;
}

/** The agent subject of the capability plane (its `actor_id`). */
const ACTOR = "agent-1";
const PROVIDER = "provider-1";
const SNAPSHOT = "browser.page.snapshot";
/** The capability clock (ms) is pinned here for the whole check. */
const T0 = 1_000_000;
/** A secret-looking value (sent as the idempotency key): a refusal must never echo it. */
const CANARY = `${CANARY_PREFIX}-r5-7f3a`;

const capabilityRequest = (localId: number) => ({
  actor_id: ACTOR,
  request: {
    local_id: localId,
    instance_id: 7,
    generation: 1,
    provider_id: PROVIDER,
    capability_id: SNAPSHOT,
    resource_scope_id: "tab:1",
    approval_summary: "Read the active tab",
    deadline_tick: T0 + 3_600_000,
    payload: [123, 125],
  },
});
const grantKey = (consumer: string) => ({
  consumer_id: consumer,
  actor_id: ACTOR,
  instance_id: 7,
  generation: 1,
  provider_id: PROVIDER,
  capability_id: SNAPSHOT,
  resource_scope_id: "tab:1",
});
const observation = (consumer: string) => ({
  binding_id: 1,
  observation: {
    operation_id: 1,
    request_key: { consumer_id: consumer, actor_id: ACTOR, local_id: 1 },
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

const SURFACES: Surface[] = [
  {
    name: "tool calls",
    path: (t) => `/v1/consumers/${t.name}/tool-calls`,
    token: (t) => t.agent,
    base: () => [callBody({ callId: "c-1", tool: "create_refund_draft", key: CANARY })],
  },
  {
    name: "status queries",
    path: (t) => `/v1/consumers/${t.name}/tool-calls/status`,
    token: (t) => t.agent,
    base: () => [{ ...callBody({ callId: "c-2", key: `${CANARY}-2` }), status_ref: "sr_0123456789abcdef" }],
  },
  {
    name: "approvals",
    path: (t) => `/v1/consumers/${t.name}/approvals/${t.pendingApproval}`,
    token: (t) => t.approver,
    base: () => [{ decision: "approve", approval_digest: "0".repeat(64) }],
  },
  {
    name: "provider attach",
    path: (t) => `/v1/consumers/${t.name}/capability/providers/${PROVIDER}/attach`,
    token: (t) => t.provider,
    base: () => [{}],
  },
  {
    name: "provider observations",
    path: (t) => `/v1/consumers/${t.name}/capability/providers/${PROVIDER}/observations`,
    token: (t) => t.provider,
    base: (t) => [observation(t.name)],
  },
  {
    name: "capability requests",
    path: (t) => `/v1/consumers/${t.name}/capability/requests`,
    token: (t) => t.capabilityAgent,
    base: () => [capabilityRequest(2)],
  },
  {
    name: "capability authority",
    path: (t) => `/v1/consumers/${t.name}/capability/authority`,
    token: (t) => t.approver,
    base: (t) => [{ command: { "set-grant": { grant: { key: grantKey(t.name), mode: "allow" } } } }],
  },
  {
    name: "runtime envelopes",
    path: (t) => `/v1/consumers/${t.name}/runtime/envelopes`,
    token: (t) => t.runtime,
    base: () =>
      [prepareFixture, userActionFixture, purgeFixture, eventAckFixture, enqueueFixture].map((text) =>
        JSON.parse(text),
      ),
  },
  {
    name: "token-verified tool calls",
    path: (t) => `/v1/consumers/${t.name}/tool-calls`,
    token: (t) => t.tokenAgent,
    base: (t) => {
      const { principal: _asserted, ...body } = callBody({ callId: "c-3", tool: "get_order", key: null });
      return t.jwts.map((principal_token) => ({ ...body, principal_token }));
    },
  },
  {
    name: "credentials (admin body)",
    path: (t) => `/v1/consumers/${t.name}/credentials`,
    token: () => ADMIN,
    base: () => [
      { kind: "approver", subject_id: "human-reviewer-1" },
      { kind: "agent", subject_id: "user-1", roles: ["support"], tools: ["get_order"], expires_at: 4_102_444_800 },
      { kind: "agent", principal: "host", roles: ["support", "support_admin"] },
      { kind: "agent", principal: "token" },
    ],
  },
  {
    name: "consumer config (admin body)",
    path: (t) => `/v1/consumers/${t.name}-config`,
    token: () => ADMIN,
    base: (t) => [
      {
        tools: ["get_order", "create_refund_draft", "submit_refund", "lookup_refund"],
        approver_subjects: ["human-reviewer-1"],
      },
      {
        tools: ["get_order"],
        approver_subjects: [],
        principal_tokens: t.issuer,
        limits: { calls_per_second: 5, page_items: 10 },
      },
      {
        tools: [],
        approver_subjects: [],
        principal_tokens: { issuer: ISSUER, audience: "r5", jwks_uri: "https://login.example.test/jwks.json" },
      },
    ],
    method: "PUT",
  },
  {
    name: "tool definitions (admin body)",
    path: (t) => `/v1/consumers/${t.name}/tools/${R5_TOOL}`,
    token: () => ADMIN,
    // Half the inputs derive from a valid definition, half from a hostile one (r5-tool-definitions.ts).
    base: () => HOSTILE_DEFINITIONS.flatMap(([, body], i) => [body, i % 2 === 0 ? READ_DEFINITION : WRITE_DEFINITION]),
    method: "PUT",
    maxMs: 2_000,
  },
  {
    name: "secrets (admin body)",
    path: (t) => `/v1/consumers/${t.name}/secrets/r5_secret`,
    token: () => ADMIN,
    base: () => SECRET_BODIES,
    method: "PUT",
    maxMs: 2_000,
  },
  {
    name: "MCP messages",
    path: (t) => `/v1/consumers/${t.name}/mcp`,
    token: (t) => t.capabilityAgent,
    headers: (t) => ({
      accept: "application/json, text/event-stream",
      "mcp-session-id": t.mcpSession,
      "mcp-protocol-version": "2025-11-25",
    }),
    base: () => [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
      },
      {
        jsonrpc: "2.0",
        id: "w-1",
        method: "tools/call",
        params: {
          name: "create_refund_draft",
          arguments: { order_ref: "ORDER-7", reason: "duplicate" },
          _meta: { "io.toolgate/idempotency_key": CANARY },
        },
      },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "create_refund_draft",
          arguments: { order_ref: "ORDER-7", reason: "other" },
          task: { ttl: 60_000 },
        },
      },
      { jsonrpc: "2.0", id: 3, method: "tools/list", params: {} },
      { jsonrpc: "2.0", id: 4, method: "ping" },
      {
        jsonrpc: "2.0",
        id: 5,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "r5", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 6, method: "tasks/list", params: {} },
      { jsonrpc: "2.0", id: 7, method: "tasks/get", params: { taskId: "0123456789abcdef0123456789abcdef" } },
      { jsonrpc: "2.0", id: 8, method: "logging/setLevel", params: { level: "info" } },
    ],
  },
  {
    name: "MCP server registrations (admin body)",
    path: (t) => `/v1/consumers/${t.name}/mcp-servers`,
    token: () => ADMIN,
    base: () => [
      { name: "srv_r5", url: "https://mcp.test/json/mcp", prefix: "r5_" },
      {
        name: "srv_r5_shop",
        url: "https://mcp.test/shop/mcp",
        prefix: "shop_",
        auth: { secret: R5_SECRET, prefix: "Bearer " },
        timeout_ms: 2_000,
      },
      { name: "srv_r5_gone", url: "https://mcp.test/missing/mcp" },
    ],
  },
  {
    name: "tool-call batches (one model turn)",
    path: (t) => `/v1/consumers/${t.name}/tool-calls/batch`,
    token: (t) => t.agent,
    base: () => [
      {
        principal: { subject_id: "user-1", roles: [] },
        context: {
          provider: "openai",
          api_family: "responses",
          response_id: "resp-b",
          adapter_revision: "openai-responses-v1",
        },
        calls: [
          {
            proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
            call_id: "b-1",
            operation_id: "op-b-1",
          },
          {
            proposal: { name: "create_refund_draft", arguments: { order_ref: "ORDER-7", reason: "duplicate" } },
            call_id: "b-2",
            operation_id: "op-b-2",
            idempotency_key: CANARY,
          },
        ],
      },
      {
        principal: { subject_id: "user-1", roles: [] },
        context: {
          provider: "anthropic",
          api_family: "messages",
          response_id: "msg-b",
          adapter_revision: "anthropic-messages-v1",
        },
        calls: [
          {
            provider_item: { type: "tool_use", id: "toolu_b1", name: "get_order", input: { order_ref: "ORDER-7" } },
            operation_id: "op-b-3",
          },
        ],
      },
    ],
  },
  {
    name: "console decisions (session, CSRF)",
    path: (t) => `/console/approvals/${t.pendingApproval}`,
    token: (t) => t.approver,
    headers: (t) => ({ cookie: t.consoleCookie, origin: "http://gate", "x-csrf-token": t.consoleCsrf }),
    base: () => [
      { decision: "approve", approval_digest: "0".repeat(64) },
      { decision: "deny", approval_digest: "f".repeat(64) },
    ],
  },
  {
    name: "webhook endpoints (admin body)",
    path: (t) => `/v1/consumers/${t.name}/webhooks`,
    token: () => ADMIN,
    base: () => [
      { url: "https://hooks.test/r5" },
      {
        url: "https://hooks.test/r5/all",
        events: ["approval.requested", "approval.decided", "call.outcome_unknown", "call.reconciled"],
        include_arguments: true,
        description: "R5 receiver",
      },
    ],
  },
];

const ISSUER = "https://login.example.test/";

/** The R5 tenant: every credential kind, a capability provider, instance 7, an allow grant. */
interface HostileTenant extends Tenant {
  capabilityAgent: string;
  /** A write waiting for its approval (the approvals surface decides it). */
  pendingApproval: string;
  /** A token-verified agent credential, and end-user JWTs (valid, expired, foreign) for it. */
  tokenAgent: string;
  jwts: string[];
  /** The consumer's token issuer (inline JWKS). */
  issuer: Record<string, unknown>;
  /** An MCP session of the subject-bound agent `capabilityAgent`. */
  mcpSession: string;
  /** An approver console session: its cookie and CSRF token. */
  consoleCookie: string;
  consoleCsrf: string;
}

async function hostileTenant(name: string): Promise<HostileTenant> {
  const t = await tenant(name);
  const keys = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: "r5" };
  const issuer = { issuer: ISSUER, audience: "r5", jwks: { keys: [jwk] } };
  const reconfigured = await send("PUT", `/v1/consumers/${name}`, ADMIN, {
    tools: ["get_order", "create_refund_draft", "submit_refund", "lookup_refund"],
    approver_subjects: ["human-reviewer-1"],
    principal_tokens: issuer,
    limits: { calls_per_second: 1_000_000, call_burst: 1_000_000 },
  });
  if (reconfigured.status !== 200) throw new Error(`issuer setup failed: ${reconfigured.status} ${reconfigured.text}`);
  const sign = (exp: number, aud = "r5") =>
    new SignJWT({ sub: "user-1", roles: ["support"] })
      .setProtectedHeader({ alg: "ES256", kid: "r5" })
      .setIssuer(ISSUER)
      .setAudience(aud)
      .setExpirationTime(exp)
      .sign(keys.privateKey);
  const far = Math.floor(Date.now() / 1000) + 86_400;
  const jwts = [await sign(far), await sign(1_000), await sign(far, "elsewhere")];
  const tokenAgent = (
    await send("POST", `/v1/consumers/${name}/credentials`, ADMIN, { kind: "agent", principal: "token" })
  ).json.secret as string;
  await runInDurableObject(env.CONSUMER.get(env.CONSUMER.idFromName(name)), (object) => {
    object.capability.pinnedMillis = T0;
  });
  const agent = await send("POST", `/v1/consumers/${name}/credentials`, ADMIN, { kind: "agent", subject_id: ACTOR });
  const descriptor = {
    id: PROVIDER,
    owner: { consumer: name },
    capabilities: [{ id: SNAPSHOT, class: "browser", description: "Read page state" }],
  };
  const steps = [
    await send("POST", `/v1/consumers/${name}/capability/providers`, ADMIN, { descriptor }),
    await send("PUT", `/v1/consumers/${name}/capability/instances/7`, ADMIN, { generation: 1, state: "active" }),
    await send("POST", `/v1/consumers/${name}/capability/authority`, t.approver, {
      command: { "set-grant": { grant: { key: grantKey(name), mode: "allow" } } },
    }),
    await send("POST", `/v1/consumers/${name}/capability/providers/${PROVIDER}/attach`, t.provider),
    await send("POST", `/v1/consumers/${name}/capability/requests`, agent.json.secret, capabilityRequest(1)),
  ];
  const statuses = steps.map((r) => r.status);
  if (statuses.some((st) => st >= 300))
    throw new Error(
      `capability setup failed: ${statuses.join(",")} ${steps.map((r) => r.text.slice(0, 120)).join(" | ")}`,
    );
  const secret = await send("PUT", `/v1/consumers/${name}/secrets/${R5_SECRET}`, ADMIN, { value: "s3cret-token" });
  if (secret.status !== 204) throw new Error(`secret setup failed: ${secret.status} ${secret.text}`);
  const asked = await send(
    "POST",
    `/v1/consumers/${name}/tool-calls`,
    t.agent,
    callBody({ callId: "c-pending", key: `${CANARY}-3` }),
  );
  if (asked.json?.model_result?.error?.code !== "APPROVAL_REQUIRED")
    throw new Error(`approval setup failed: ${asked.status} ${asked.text.slice(0, 300)}`);
  const init = await fetchGate(
    new Request(`http://gate/v1/consumers/${name}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${agent.json.secret}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "r5", version: "1" } },
      }),
    }),
  );
  await init.text();
  const mcpSession = init.headers.get("mcp-session-id");
  if (init.status !== 200 || mcpSession === null) throw new Error(`mcp setup failed: ${init.status}`);
  const signIn = await fetchGate(
    new Request("http://gate/console/session", {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://gate" },
      body: new URLSearchParams({ consumer: name, credential: t.approver }).toString(),
    }),
  );
  await signIn.text();
  const consoleCookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const page = await (
    await fetchGate(new Request("http://gate/console/approvals", { headers: { cookie: consoleCookie } }))
  ).text();
  const consoleCsrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page)?.[1];
  if (signIn.status !== 303 || consoleCsrf === undefined) throw new Error(`console setup failed: ${signIn.status}`);
  return {
    ...t,
    capabilityAgent: agent.json.secret,
    pendingApproval: asked.json.approval_id,
    tokenAgent,
    jwts,
    issuer,
    mcpSession,
    consoleCookie,
    consoleCsrf,
  };
}

const ROUTES_FOR_AUTH = (t: Tenant): Array<[string, string]> => [
  ["POST", `/v1/consumers/${t.name}/tool-calls`],
  ["POST", `/v1/consumers/${t.name}/tool-calls/status`],
  ["GET", `/v1/consumers/${t.name}/approvals`],
  ["GET", `/v1/consumers/${t.name}/audit`],
  ["GET", `/v1/consumers/${t.name}/audit/verify`],
  ["POST", `/v1/consumers/${t.name}/runtime/envelopes`],
  ["GET", `/v1/consumers/${t.name}/capability/snapshot`],
  ["POST", `/v1/consumers/${t.name}/capability/providers/provider-1/attach`],
  ["PUT", `/v1/consumers/${t.name}`],
  ["POST", `/v1/consumers/${t.name}/credentials`],
  ["POST", `/v1/consumers/${t.name}/capability/completions/drain?actor_id=agent-1`],
  ["POST", `/v1/consumers/${t.name}/capability/requests`],
  ["GET", `/v1/consumers/${t.name}/approvals?cursor=AAAA`],
  ["POST", `/v1/consumers/${t.name}/mcp`],
  ["DELETE", `/v1/consumers/${t.name}/mcp`],
  ["POST", `/v1/consumers/${t.name}/mcp-servers`],
];

interface Tally {
  sent: number;
  thrown: number;
  fiveXx: number;
  breaches: Map<string, number>;
  accepted: number;
  /** The slowest request, from sending it to its body read, in ms (batches of 16 run concurrently). */
  slowestMs: number;
}

/** Secrets a refusal must never echo (the caller's credential, the argument canary). */
const secrets: string[] = [CANARY];

async function fire(tally: Tally, request: () => Request, label: string): Promise<void> {
  tally.sent++;
  const note = (what: string) => tally.breaches.set(what, (tally.breaches.get(what) ?? 0) + 1);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const hung = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error("no answer within 10 s")), 10_000)),
    );
    const started = performance.now();
    const r = await Promise.race([fetchGate(request()), hung]);
    const text = await Promise.race([r.text(), hung]);
    tally.slowestMs = Math.max(tally.slowestMs, performance.now() - started);
    if (r.status >= 500) tally.fiveXx++;
    if (r.status < 300) tally.accepted++;
    const echoed = r.status >= 400 && secrets.some((secret) => text.includes(secret));
    const breach = echoed ? "refusal echoes a secret" : contractBreach(r.status, r.headers.get("content-type"), text);
    if (breach !== null) note(`${label}: ${breach} (${r.status} ${text.slice(0, 80)})`);
  } catch (error) {
    tally.thrown++;
    note(`${label}: threw ${(error as Error).message.slice(0, 60)}`);
  } finally {
    clearTimeout(timer);
  }
}

describe("R5 hostile input (in-process)", () => {
  let t: HostileTenant;

  it("refuses every malformed body on every surface with a catalog problem, never a 5xx", async () => {
    t = await hostileTenant("tenant-a");
    secrets.push(
      t.agent,
      t.approver,
      t.auditor,
      t.provider,
      t.runtime,
      t.capabilityAgent,
      t.tokenAgent,
      ...t.jwts,
      ADMIN,
    );
    const random = prng(SEED);
    const rows: string[] = [];
    let allOk = true;
    for (const surface of SURFACES) {
      const bases = surface.base(t);
      const tally: Tally = { sent: 0, thrown: 0, fiveXx: 0, breaches: new Map(), accepted: 0, slowestMs: 0 };
      for (let i = 0; i < PER_SURFACE; i += BATCH) {
        const batch: Promise<void>[] = [];
        for (let j = 0; j < BATCH && i + j < PER_SURFACE; j++) {
          const h = hostileInput(random, bases[Math.floor(random() * bases.length)]);
          const headers = new Headers();
          headers.set("authorization", `Bearer ${surface.token(t)}`);
          for (const [k, v] of Object.entries(surface.headers?.(t) ?? {})) headers.set(k, v);
          if (h.contentType !== null) headers.set("content-type", h.contentType);
          for (const [k, v] of h.headers) headers.append(k, v);
          const url = `http://gate${surface.path(t)}`;
          batch.push(
            fire(tally, () => new Request(url, { method: surface.method ?? "POST", headers, body: h.body }), h.family),
          );
        }
        await Promise.all(batch);
      }
      const breaches = [...tally.breaches].map(([k, n]) => `${k} ×${n}`);
      const slow = surface.maxMs !== undefined && tally.slowestMs > surface.maxMs;
      const pass =
        tally.thrown === 0 && tally.fiveXx === 0 && breaches.length === 0 && tally.sent >= PER_SURFACE && !slow;
      allOk &&= pass;
      const bound = surface.maxMs === undefined ? "" : ` (bound ${surface.maxMs} ms)`;
      const figure = `${tally.sent} inputs, ${tally.fiveXx} 5xx, ${tally.thrown} crashes, ${breaches.length} non-catalog, ${tally.accepted} 2xx, slowest ${Math.round(tally.slowestMs)} ms${bound}`;
      report({ id: "R5", check: `hostile bodies: ${surface.name}`, figure, pass, seed: SEED });
      rows.push(
        ...breaches.slice(0, 5),
        ...(slow ? [`${surface.name}: slowest request ${Math.round(tally.slowestMs)} ms`] : []),
      );
    }
    // The accepted definitions still build: the list compiles every enabled tool, the view reads each stored version.
    const after = [
      await send("GET", `/v1/consumers/${t.name}/tools?format=openai`, t.agent),
      await send("GET", `/v1/consumers/${t.name}/tools/${R5_TOOL}`, ADMIN),
    ];
    expect(rows).toEqual([]);
    expect(after.map((r) => r.status)).toEqual([200, 200]);
    expect(allOk).toBe(true);
  });

  it("answers every hostile Authorization header with the one 401 body", async () => {
    const random = prng(SEED + 1);
    const tally: Tally = { sent: 0, thrown: 0, fiveXx: 0, breaches: new Map(), accepted: 0, slowestMs: 0 };
    const bodies = new Set<string>();
    const routes = ROUTES_FOR_AUTH(t);
    for (let i = 0; i < PER_SURFACE; i += BATCH) {
      const batch: Promise<void>[] = [];
      for (let j = 0; j < BATCH; j++) {
        const [method, path] = routes[Math.floor(random() * routes.length)] as [string, string];
        const auth = hostileAuthorization(random, random() < 0.5 ? t.agent : t.auditor);
        const headers = new Headers({ "content-type": "application/json" });
        if (auth !== null) headers.set("authorization", auth);
        tally.sent++;
        batch.push(
          (async () => {
            try {
              const r = await fetchGate(
                new Request(`http://gate${path}`, { method, headers, body: method === "GET" ? null : "{}" }),
              );
              const text = await r.text();
              if (r.status >= 500) tally.fiveXx++;
              if (r.status !== 401)
                tally.breaches.set(
                  `status ${r.status} for ${method} ${path} ${auth?.slice(0, 30)} ${text.slice(0, 80)}`,
                  1,
                );
              else bodies.add(`${r.headers.get("www-authenticate")} ${text}`);
            } catch {
              tally.thrown++;
            }
          })(),
        );
      }
      await Promise.all(batch);
    }
    const pass = tally.thrown === 0 && tally.fiveXx === 0 && tally.breaches.size === 0 && bodies.size === 1;
    report({
      id: "R5",
      check: "hostile credentials (Authorization)",
      figure: `${tally.sent} inputs, ${tally.fiveXx} 5xx, ${tally.breaches.size} not 401, ${bodies.size} distinct 401 bodies`,
      pass,
      seed: SEED + 1,
    });
    expect([...tally.breaches.keys()]).toEqual([]);
    expect(bodies.size).toBe(1);
  });
});
