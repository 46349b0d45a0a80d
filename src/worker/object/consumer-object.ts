import { DurableObject } from "cloudflare:workers";
import { ToolCallRequest, ToolCallStatusRequest } from "../../contracts/tool-call";
import { ToolCallBatchRequest } from "../../contracts/tool-call-batch";
import type { ToolSpec } from "../../core/tool-result/tool-spec";
import { credentialShape, tokenKeys } from "../credential-format";
import type { Env } from "../env";
import { UNAUTHENTICATED } from "../problem";
import { fail, ok, type Outcome } from "../result";
import { tracerFor } from "../trace/config";
import { AUDIT_CALL_OPERATION, AuditHost, type AuditCall } from "./audit/rpc";
import { CapabilityHost } from "./capability/host";
import { gatedCapabilityCall, type CapabilityCall } from "./capability/plane";
import type { ObjectClock } from "./clock";
import { ConsolePlane, type ConsoleCall, type ConsoleReply, type ConsoleSignedIn } from "./console/plane";
import { AdminCalls, type AdminCall } from "./consumer/admin-call";
import { OAuthGrants, type OAuthGrant, type OAuthGrantRequest } from "./credentials/oauth-grant";
import { CredentialPlane } from "./credentials/plane";
import type { EventBus } from "./events/bus";
import type { ObjectServices } from "./feature";
import { FEATURES } from "./features";
import { Gatekeeper } from "./gatekeeper";
import { AgentAdmission } from "./identity/admission";
import { ObjectKernel } from "./kernel";
import { McpPlane, type McpReply, type McpRequest } from "./mcp/plane";
import { trackMemory } from "./memory";
import { migrate } from "./migrations";
import { Revocation } from "./revocation";
import { fromWorker } from "./rpc";
import { RuntimeTransport, type RuntimeReply } from "./runtime/plane";
import { sessionPolicy } from "./sessions";
import { ObjectSockets } from "./socket-upgrade";
import { AgentCalls } from "./tool-calls/agent-call";
import { ApprovalCalls, type ApprovalsCall } from "./tool-calls/approvals-call";
import { toolCallBatch } from "./tool-calls/batch-call";
import { ToolCallPlanes } from "./tool-calls/planes";
import { ToolsCalls, type ToolsCall } from "./tools/calls";
import { ToolsHost } from "./tools/host";
import { WebhookPlane } from "./webhooks/plane";
import { webhooksCall, type WebhooksCall } from "./webhooks/calls";

/**
 * One object per consumer (`idFromName(consumer)`): owns that consumer's configuration,
 * credentials, engine state, approvals and audit chain in SQLite. Each RPC method
 * authenticates its caller against the access table (`contracts/access.ts`) and forwards to
 * the plane that owns the operation; the planes run each engine step in one `transactionSync`.
 */
export class ConsumerObject extends DurableObject<Env> {
  /** What every plane shares: SQLite, the clock, transactions, audit, events, configuration, alarm (./kernel). */
  readonly #kernel = new ObjectKernel(this.ctx, this.env);
  /** The object's clock (tests pin it through `runInDurableObject`). */
  readonly clock: ObjectClock = this.#kernel.clock;
  /** The consumer's events (events/bus.ts): webhooks store them in their transaction, streams hear them once committed. */
  readonly events: EventBus = this.#kernel.events;
  readonly #credentials = new CredentialPlane(this.#kernel, tokenKeys(this.env));
  readonly #gate = new Gatekeeper(this.#kernel.config, this.#credentials);
  readonly #tools = new ToolsHost(this.#kernel, () => this.codeTools());
  readonly #toolCalls = new ToolCallPlanes(this.#kernel, this.#tools);
  /** Webhook endpoints and their outbox (webhooks/): a durable listener of {@link events}, delivered from the alarm. */
  readonly #webhooks = new WebhookPlane(this.#kernel, this.#tools.vault);
  /** The consumer's capability engine (tests pin its clock through `runInDurableObject`). */
  readonly capability = CapabilityHost.of(this.#kernel, this.#credentials);
  /** The audit log (chain, tree, checkpoints) every plane appends to; the alarm is shared (./alarms). */
  readonly #auditHost = new AuditHost(this.#kernel);
  /** The issuer's JWKS is fetched under the target rule, like any consumer-named URL. */
  readonly #admission = new AgentAdmission(this.#kernel);
  readonly #mcp = new McpPlane(this.#kernel, this.#toolCalls, this.#admission);
  /** The approver console's sessions and calls (console/plane.ts). */
  readonly #console = new ConsolePlane(this.#kernel, this.#credentials, this.#toolCalls);
  /** Traces of agent tool calls (../trace, docs/traces.md): exported when TOOLGATE_OTLP_ENDPOINT is set, a no-op otherwise. */
  readonly #agentCalls = new AgentCalls(this.#kernel, this.#gate, this.#admission, this.#toolCalls, tracerFor(this.env, (promise) => this.#kernel.waitUntil(promise)));
  readonly #runtime = new RuntimeTransport(this.#kernel, this.#toolCalls, this.#credentials);
  readonly #revocation = new Revocation(this.#kernel, this.#mcp, this.capability);
  readonly #admin = new AdminCalls(this.#kernel, this.#gate, this.#credentials, this.#tools, this.#toolCalls, this.#runtime, this.#revocation);
  readonly #approvals = new ApprovalCalls(this.#kernel, this.#gate, this.#toolCalls);
  readonly #oauth = new OAuthGrants(this.#kernel, this.#gate, this.#credentials, this.#revocation);
  readonly #toolsCalls = new ToolsCalls(this.#kernel, this.#gate, this.#tools, this.#toolCalls);
  readonly #sockets = new ObjectSockets(this.#kernel, this.#gate, this.#credentials, this.capability, this.#runtime);
  /** What the features' alarm handlers and memory reports read (./features). */
  readonly #services: ObjectServices = { kernel: this.#kernel, credentials: this.#credentials, admission: this.#admission, mcp: this.#mcp, capability: this.capability, audit: this.#auditHost, webhooks: this.#webhooks };

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const kernel = this.#kernel;
    this.events.durable((event, now) => this.#webhooks.enqueue(event, now));
    trackMemory(this, this.#services);
    void ctx.blockConcurrencyWhile(async () => {
      kernel.transaction(() => migrate(kernel.sql));
      this.#webhooks.rearm();
      this.#auditHost.backfill();
      kernel.transaction(() => {
        const config = kernel.config.load();
        if (config !== undefined) this.#toolCalls.for(config).recover(kernel.now());
      });
    });
  }

  /** In-process tools of the embedding Worker; `createGate({ tools })` overrides this (src/worker/gate.ts). */
  protected codeTools(): readonly ToolSpec[] {
    return [];
  }

  /** A bare round trip (benchmark baseline). */
  ping(): string {
    return "pong";
  }

  /** The consumer's CORS allow-list (the Worker caches it: http/cors-origins.ts); empty before it is configured. */
  corsOrigins(): string[] {
    return [...(this.#kernel.config.current()?.corsOrigins ?? [])];
  }

  /** Admin: the consumer's configuration, its credentials and the App Facade's targets (consumer/admin-call.ts). */
  admin(consumer: string, call: AdminCall): Outcome<string | null> {
    return this.#admin.call(consumer, call);
  }

  /** Agent: dispatches one tool call (`request`: the Worker-validated body as canonical JSON). */
  async toolCall(consumer: string, token: string, request: string): Promise<Outcome<string>> {
    return this.#agentCalls.call(consumer, token, "toolCall", fromWorker(request, ToolCallRequest), null);
  }

  /** Agent: the status of an unknown outcome (`request` as for {@link toolCall}). */
  async toolCallStatus(consumer: string, token: string, request: string): Promise<Outcome<string>> {
    const input = fromWorker(request, ToolCallStatusRequest);
    return this.#agentCalls.call(consumer, token, "toolCallStatus", input, input.status_ref);
  }

  /** Agent: the tool calls of one model turn, each its own call on the path below, answered as one provider message (tool-calls/batch-call.ts). */
  async toolCallBatch(consumer: string, token: string, request: string): Promise<Outcome<string>> {
    const auth = this.#gate.authenticate(consumer, token, "toolCallBatch");
    return auth.ok ? toolCallBatch(fromWorker(request, ToolCallBatchRequest), (input) => this.#agentCalls.call(consumer, auth.value, "toolCallBatch", input, null)) : auth;
  }

  /** Agent: one MCP message (`…/mcp`, mcp/plane.ts); the session acts for the credential's subject, its tool calls take the path above. */
  async mcp(consumer: string, token: string, request: McpRequest): Promise<Outcome<McpReply>> {
    const auth = this.#gate.authenticate(consumer, token, "mcp");
    return auth.ok ? this.#mcp.handle(auth.value, request, (input, statusRef, notify) => this.#agentCalls.call(consumer, auth.value, "mcp", input, statusRef, notify)) : auth;
  }

  /** MCP OAuth sign-in: a subject-bound agent credential mints a narrower one for the client's grant (credentials/oauth-grant.ts). */
  oauthGrant(consumer: string, token: string, request: OAuthGrantRequest): Outcome<OAuthGrant> {
    return this.#oauth.grant(consumer, token, request);
  }

  /** Whether a grant's credential still works on the MCP endpoint (a refresh needs it). */
  oauthLive(consumer: string, token: string): boolean {
    return this.#oauth.live(consumer, token);
  }

  /** The Worker ended an OAuth grant (its token was revoked): its credential ends too. */
  oauthEnd(credentialId: string): boolean {
    return this.#oauth.end(credentialId);
  }

  /** Approvals (tool-calls/approvals-call.ts): an approver's list and decision; an approval's status, waiting for its decision. */
  async approvalsCall(consumer: string, token: string, call: ApprovalsCall): Promise<Outcome<string>> {
    return this.#approvals.call(consumer, token, call);
  }

  /** The SSE stream of approvals (an agent's own, or all for an approver). */
  approvalEvents(consumer: string, token: string): Outcome<ReadableStream<Uint8Array>> {
    return this.#approvals.events(consumer, token);
  }

  /** Approver console: an approver credential exchanged for a session (`sessionId`: the Worker's; only its hash is stored). */
  consoleSignIn(consumer: string, token: string, sessionId: string): Outcome<ConsoleSignedIn> {
    const [who, credentialId] = [this.#gate.approver(consumer, token, "consoleSignIn"), credentialShape(token)?.credentialId];
    return !who.ok ? who : credentialId === undefined ? fail(UNAUTHENTICATED) : ok(this.#console.signIn(who.value.approverId, credentialId, sessionId));
  }

  /** Approver console: one call of a signed-in session (its page, an approval, a decision, the live stream, sign-out). */
  consoleCall(consumer: string, sessionId: string, call: ConsoleCall): Outcome<ConsoleReply> {
    const config = this.#kernel.config.current();
    return config !== undefined && config.name === consumer ? this.#console.call(config, sessionId, call) : fail(UNAUTHENTICATED);
  }

  /** Auditor: one bounded step of the chain's verification walk (`cursor`: where the last step stopped). */
  auditVerify(consumer: string, token: string, cursor: string | null = null): Outcome<string> {
    const auth = this.#gate.authenticate(consumer, token, "auditVerify");
    return auth.ok ? this.#kernel.audit.verify(cursor, this.#kernel.limits()) : auth;
  }

  /** Auditor: a page of the chain, the signed checkpoint, proofs and the export (audit/rpc.ts). */
  async auditCall(consumer: string, token: string, call: AuditCall): Promise<Outcome<string>> {
    const auth = this.#gate.authenticate(consumer, token, AUDIT_CALL_OPERATION[call.kind]);
    return auth.ok ? this.#auditHost.call(consumer, call, this.#kernel.limits()) : auth;
  }

  /** Runtime: one execution envelope (`POST …/runtime/envelopes`). */
  async runtimeEnvelope(consumer: string, token: string, body: Uint8Array): Promise<Outcome<RuntimeReply>> {
    const auth = this.#gate.authenticate(consumer, token, "runtimeEnvelope");
    if (!auth.ok) return auth;
    const origin = { credentialId: auth.value.caller.credentialId, socket: null };
    return this.#runtime.envelope(body, origin, sessionPolicy(this.#kernel.limits(), this.#credentials));
  }

  /** Capability plane: one call; `token` null means the Worker already checked the admin secret. */
  async capabilityCall(consumer: string, token: string | null, call: CapabilityCall): Promise<Outcome<string>> {
    return gatedCapabilityCall(this.#gate, this.capability, consumer, token, call, this.#kernel.limits());
  }

  /** Tools as data, consumer secrets, and the tool list (`token` null: the admin secret, checked by the Worker). */
  async toolsCall(consumer: string, token: string | null, call: ToolsCall): Promise<Outcome<string | null>> {
    return this.#toolsCalls.call(consumer, token, call);
  }

  /** Admin: webhook endpoints, the delivery log, a redelivery (webhooks/calls.ts); the Worker checked the admin secret. */
  async webhooksCall(consumer: string, call: WebhooksCall): Promise<Outcome<string | null>> {
    const config = this.#gate.admin(consumer, call.kind);
    return config.ok ? webhooksCall(this.#webhooks, call, this.#kernel.limits().page_items) : config;
  }

  /**
   * WebSocket upgrades, forwarded by the Worker's routes (which matched the path): the runtime
   * socket and a provider's capability socket. The route passes what it matched in headers.
   */
  override async fetch(request: Request): Promise<Response> {
    return this.#sockets.upgrade(request);
  }

  /** Hibernation API: one message of an accepted WebSocket, handled only once admitted (live credential, size, rate). */
  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    return this.#sockets.message(ws, message);
  }

  /** Hibernation API: the peer closed an accepted WebSocket. */
  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.#sockets.close(ws, code, reason);
  }

  /** Alarm (shared, ./alarms): each feature's handler in registry order (./features): the retention sweep, the capability engine's next deadline, the audit log's periodic checkpoint, webhook deliveries; each idempotent. */
  override async alarm(): Promise<void> {
    this.#kernel.alarms.fired(Date.now());
    for (const feature of FEATURES) {
      const done = feature.alarm?.(this.#services);
      if (done !== undefined) await done;
    }
  }
}
