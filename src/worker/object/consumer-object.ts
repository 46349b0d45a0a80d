import { DurableObject } from "cloudflare:workers";
import type { Operation } from "../../contracts/access";
import { ToolCallRequest, ToolCallStatusRequest } from "../../contracts/tool-call";
import { ToolCallBatchRequest } from "../../contracts/tool-call-batch";
import type { JsonObject } from "../../core/json";
import type { ToolSpec } from "../../core/tool-result/tool-spec";
import type { Env } from "../env";
import { UNAUTHENTICATED } from "../problem";
import { fail, ok, type Outcome } from "../result";
import { AuditHost, AUDIT_CALL_OPERATION, type AuditCall } from "./audit/rpc";
import { AlarmSlots } from "./alarms";
import { CapabilityHost } from "./capability/host";
import { gatedCapabilityCall, type CapabilityCall } from "./capability/plane";
import { detachProvider, isCapabilitySocket, onCapabilityClose, onCapabilityMessage, providerSockets } from "./capability/socket";
import { ObjectClock } from "./clock";
import { ConsumerPlane, limitsOf, type ConsumerRecord } from "./consumer/plane";
import { CredentialPlane } from "./credentials/plane";
import { AgentAdmission } from "./identity/admission";
import type { Limits } from "./limits";
import { migrate } from "./migrations";
import { received, type Carried } from "./rpc";
import { Gatekeeper } from "./gatekeeper";
import { toolsCall, type ToolsCall } from "./tools/calls";
import { ToolsHost } from "./tools/host";
import { targetFetch } from "../tools/target-fetch";
import { upgradeSocket, type Authenticated } from "./socket-upgrade";
import { RuntimeTransport, type RuntimeReply } from "./runtime/plane";
import { isRuntimeSocket, onRuntimeClose, onRuntimeMessage } from "./runtime/socket";
import { admitMessage, closeCredentialSockets, sessionPolicy } from "./sessions";
import { McpPlane, type McpNotifySink, type McpReply, type McpRequest } from "./mcp/plane";
import { ToolCallPlane } from "./tool-calls/plane";
import { ConsolePlane, type ConsoleCall, type ConsoleReply, type ConsoleSignedIn } from "./console/plane";
import { credentialShape, tokenKeys } from "../credential-format";
import { agentCall, answerText } from "./tool-calls/agent-call";
import { toolCallBatch } from "./tool-calls/batch-call";
import { tracerFor } from "../trace/config";
import { approvalEvents, approvalsCall, type ApprovalsCall, type ApprovalsDeps } from "./tool-calls/approvals-call";
import { EventBus } from "./events/bus";
import type { BoundCall, ToolCallInput } from "./tool-calls/bind";
import { endOAuthCredential, oauthGrant, type OAuthGrant, type OAuthGrantDeps, type OAuthGrantRequest } from "./credentials/oauth-grant";
import { WebhookPlane } from "./webhooks/plane";
import { webhooksCall, type WebhooksCall } from "./webhooks/calls";
import { adminCall, type AdminCall } from "./consumer/admin-call";
import { trackMemory } from "./memory";

/**
 * One object per consumer (`idFromName(consumer)`): owns that consumer's configuration,
 * credentials, engine state, approvals and audit chain in SQLite. Each RPC method
 * authenticates its caller against the access table (`contracts/access.ts`) and forwards to
 * the plane that owns the operation; the planes run each engine step in one `transactionSync`.
 */
export class ConsumerObject extends DurableObject<Env> {
  readonly clock = new ObjectClock();
  /** The consumer's events (events/bus.ts): webhooks store them in their transaction, streams hear them once committed. */
  readonly events = new EventBus();
  /** The consumer's capability engine (tests pin its clock through `runInDurableObject`). */
  readonly capability: CapabilityHost;
  readonly #alarms = new AlarmSlots(this.ctx.storage, { now: () => this.clock.now(), window: () => this.#limits().retention_seconds });
  /** The audit log (chain, tree, checkpoints) every plane appends to; the alarm is shared (./alarms). */
  readonly #auditHost = new AuditHost({ sql: this.ctx.storage.sql, env: this.env, alarms: this.#alarms, now: () => this.clock.now(), transaction: (step) => this.#transaction(step) });
  readonly #audit = this.#auditHost.chain;
  readonly #credentials: CredentialPlane;
  readonly #consumer: ConsumerPlane;
  readonly #gate: Gatekeeper;
  readonly #tools: ToolsHost;
  /** Webhook endpoints and their outbox (webhooks/): a durable listener of {@link events}, delivered from the alarm. */
  readonly #webhooks: WebhookPlane;
  /** Where outbound requests may go (tools/build.ts `checkUrl`): loopback only under `npm start`. */
  readonly #targets = { allowLoopback: this.env.TOOLGATE_ALLOW_LOOPBACK_TARGETS === "1" };
  /** The issuer's JWKS is fetched under the target rule, like any consumer-named URL. */
  readonly #admission = new AgentAdmission({ now: () => this.clock.now(), rateMs: () => this.clock.rateMs(), fetch: targetFetch(this.#targets, (request) => fetch(request)) });
  readonly #mcp = new McpPlane({ sql: this.ctx.storage.sql, now: () => this.clock.now(), transaction: (step) => this.#transaction(step), toolCalls: (config) => this.#planeFor(config), audit: () => this.#audit, rate: (id, limits) => this.#admission.rate(id, limits) });
  /** The approver console's sessions and calls (console/plane.ts). */
  readonly #console = new ConsolePlane({ sql: this.ctx.storage.sql, env: this.env, audit: this.#audit, now: () => this.clock.now(), transaction: (step) => this.#transaction(step),
    isLive: (id) => this.#credentials.isLive(id), expiresAt: (id) => this.#credentials.expiresAt(id), consumer: () => this.#consumer.current(), toolCalls: (config) => this.#planeFor(config), limits: () => this.#limits(), events: () => this.events });
  #toolCalls: ToolCallPlane | undefined;
  /** Traces of agent tool calls (../trace, docs/traces.md): exported when TOOLGATE_OTLP_ENDPOINT is set, a no-op otherwise. */
  readonly #tracer = tracerFor(this.env, (promise) => this.ctx.waitUntil(promise));
  #runtime: RuntimeTransport | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    this.#credentials = new CredentialPlane({ sql, consumer: () => this.#consumer.current()?.name, keys: tokenKeys(env), now: () => this.clock.now() });
    this.#consumer = new ConsumerPlane(sql, this.#audit);
    this.#gate = new Gatekeeper(this.#consumer, this.#credentials);
    this.#tools = new ToolsHost({ sql, audit: this.#audit, env, consumer: () => this.#consumer.current()?.name ?? "", codeTools: () => this.codeTools(), now: () => this.clock.now(), transaction: (step) => this.#transaction(step) });
    const targets = this.#targets;
    const webhooks = { sql, vault: this.#tools.vault, audit: this.#audit, targets, now: () => this.clock.now(), wallMs: () => Date.now(), fetch: targetFetch(targets, (request) => fetch(request)) };
    this.#webhooks = new WebhookPlane({ ...webhooks, transaction: (step) => this.#transaction(step), setAlarm: (ms) => this.#alarms.set("webhooks", ms) });
    this.events.durable((event, now) => this.#webhooks.enqueue(event, now));
    this.capability = new CapabilityHost({
      sql, audit: this.#audit, transaction: (step) => this.#transaction(step), nowSeconds: () => this.clock.now(),
      sockets: (provider) => providerSockets(ctx, provider, (id) => this.#credentials.isLive(id)), setAlarm: (ms) => this.#alarms.set("capability", ms),
    });
    trackMemory(this, () => ({ credentials: this.#credentials.cached, rateBuckets: this.#admission.rateBuckets, listeners: this.events.listeners, relayed: this.#mcp.relayed, pollers: this.capability.waiting, sockets: ctx.getWebSockets().length }));
    void ctx.blockConcurrencyWhile(async () => {
      this.#transaction(() => migrate(sql));
      this.#webhooks.rearm();
      this.#auditHost.backfill();
      this.#transaction(() => {
        const config = this.#consumer.load();
        if (config !== undefined) this.#planeFor(config).recover(this.clock.now());
      });
    });
  }

  #transaction<T>(step: () => T): T {
    try {
      const done = this.ctx.storage.transactionSync(step);
      this.events.committed();
      return done;
    } catch (error) {
      this.events.rolledBack();
      this.#audit.reset();
      this.#tools.data.reset();
      throw error;
    }
  }

  /** The consumer's limits (its configuration's overrides of the documented defaults). */
  #limits(): Limits {
    return limitsOf(this.#consumer.current());
  }

  /** In-process tools of the embedding Worker; `createGate({ tools })` overrides this (src/worker/gate.ts). */
  protected codeTools(): readonly ToolSpec[] {
    return [];
  }

  #planeFor(config: ConsumerRecord): ToolCallPlane {
    this.#toolCalls ??= new ToolCallPlane({
      sql: this.ctx.storage.sql, audit: this.#audit, registry: this.#tools.registry(config.tools), approvers: config.approverSubjects,
      executor: this.#tools.executor(), limits: () => this.#limits(), transaction: (step) => this.#transaction(step), events: (event, now) => this.events.emit(event, now), retention: this.#alarms.retention,
    });
    return this.#toolCalls;
  }

  #runtimeOf(config: ConsumerRecord): RuntimeTransport {
    this.#runtime ??= new RuntimeTransport({
      ctx: this.ctx, sql: this.ctx.storage.sql, audit: this.#audit, bucket: this.env.CHECKPOINTS, consumer: config.name, now: () => this.clock.now(),
      transaction: (step) => this.#transaction(step), toolCalls: () => this.#planeFor(this.#consumer.current() ?? config), caller: (id) => this.#credentials.liveCaller(id),
    });
    return this.#runtime;
  }

  /** A bare round trip (benchmark baseline). */
  ping(): string {
    return "pong";
  }

  /** The consumer's CORS allow-list (the Worker caches it: http/cors-origins.ts); empty before it is configured. */
  corsOrigins(): string[] {
    return [...(this.#consumer.current()?.corsOrigins ?? [])];
  }

  /** Admin: the consumer's configuration, its credentials and the App Facade's targets (consumer/admin-call.ts). */
  admin(consumer: string, call: AdminCall): Outcome<string | null> {
    return adminCall(
      {
        sql: this.ctx.storage.sql, gate: this.#gate, consumer: this.#consumer, credentials: this.#credentials, audit: this.#audit, limits: this.#limits(), targets: this.#targets, now: this.clock.now(),
        transaction: (step) => this.#transaction(step), unknownNames: (names) => this.#tools.unknownNames(names), configured: () => (this.#toolCalls = undefined), runtimeOf: (config) => this.#runtimeOf(config), events: this.events,
        revoked: this.#revoked,
      },
      consumer,
      call,
    );
  }

  /** Agent: dispatches one tool call (`request`: the body the Worker read and validated, as RPC carries it: ./rpc.ts). */
  async toolCall(consumer: string, token: string, request: Carried<ToolCallRequest>): Promise<Outcome<string>> {
    return answerText(await this.#agentCall(consumer, token, "toolCall", received(request, ToolCallRequest), null));
  }

  /** Agent: the status of an unknown outcome (`request` as for {@link toolCall}). */
  async toolCallStatus(consumer: string, token: string, request: Carried<ToolCallStatusRequest>): Promise<Outcome<string>> {
    const input = received(request, ToolCallStatusRequest);
    return answerText(await this.#agentCall(consumer, token, "toolCallStatus", input, input.status_ref));
  }

  /** Agent: the tool calls of one model turn, each its own call on the path below, answered as one provider message (tool-calls/batch-call.ts). */
  async toolCallBatch(consumer: string, token: string, request: Carried<ToolCallBatchRequest>): Promise<Outcome<string>> {
    const auth = this.#gate.authenticate(consumer, token, "toolCallBatch");
    return auth.ok ? toolCallBatch(received(request, ToolCallBatchRequest), (input, bound) => this.#agentCall(consumer, auth.value, "toolCallBatch", input, null, undefined, bound)) : auth;
  }

  /** Every agent tool call (HTTP and MCP): authenticate (`who`: a token, or a caller already authenticated), then tool-calls/agent-call.ts. */
  async #agentCall(consumer: string, who: string | Authenticated, operation: Operation, input: ToolCallInput, statusRef: string | null, notify?: McpNotifySink, bound?: BoundCall): Promise<Outcome<JsonObject>> {
    const auth = typeof who === "string" ? this.#gate.authenticate(consumer, who, operation) : ok(who);
    if (!auth.ok) return auth;
    const deps = { admission: this.#admission, limits: this.#limits(), plane: this.#planeFor(auth.value.config), now: () => this.clock.now(), tracer: this.#tracer };
    return agentCall(deps, consumer, auth.value, input, statusRef, notify, bound);
  }

  /** Agent: one MCP message (`…/mcp`, mcp/plane.ts); the session acts for the credential's subject, its tool calls take the path above. */
  async mcp(consumer: string, token: string, request: McpRequest): Promise<Outcome<McpReply>> {
    const auth = this.#gate.authenticate(consumer, token, "mcp");
    return auth.ok ? this.#mcp.handle(auth.value, request, (input, statusRef, notify) => this.#agentCall(consumer, auth.value, "mcp", input, statusRef, notify)) : auth;
  }

  /** A credential was revoked: its sockets close (1008; a provider's binding detaches first), its waits and streams end, its MCP sessions and tasks go. */
  readonly #revoked = (id: string): number => {
    this.#mcp.credentialEnded(id);
    const closed = closeCredentialSockets(this.ctx, id, (ws) => isCapabilitySocket(this.ctx, ws) && detachProvider(this.capability, ws));
    this.events.recheck();
    return closed;
  };
  readonly #oauthDeps = (): OAuthGrantDeps => ({ sql: this.ctx.storage.sql, credentials: this.#credentials, audit: this.#audit, revoked: this.#revoked });

  /** MCP OAuth sign-in: a subject-bound agent credential mints a narrower one for the client's grant (credentials/oauth-grant.ts). */
  oauthGrant(consumer: string, token: string, request: OAuthGrantRequest): Outcome<OAuthGrant> {
    const auth = this.#gate.authenticate(consumer, token, "mcp");
    return auth.ok ? this.#transaction(() => oauthGrant(this.#oauthDeps(), consumer, auth.value, request, this.clock.now())) : auth;
  }

  /** Whether a grant's credential still works on the MCP endpoint (a refresh needs it). */
  oauthLive(consumer: string, token: string): boolean {
    return this.#gate.authenticate(consumer, token, "mcp").ok;
  }

  /** The Worker ended an OAuth grant (its token was revoked): its credential ends too. */
  oauthEnd(credentialId: string): boolean {
    return this.#transaction(() => endOAuthCredential(this.#oauthDeps(), credentialId, this.clock.now(), "oauth token revoked"));
  }

  /** Approvals (tool-calls/approvals-call.ts): an approver's list and decision; an approval's status, waiting for its decision. */
  async approvalsCall(consumer: string, token: string, call: ApprovalsCall): Promise<Outcome<string>> {
    return approvalsCall(this.#approvalDeps(), consumer, token, call);
  }

  /** The SSE stream of approvals (an agent's own, or all for an approver). */
  approvalEvents(consumer: string, token: string): Outcome<ReadableStream<Uint8Array>> {
    return approvalEvents(this.#approvalDeps(), consumer, token);
  }

  readonly #approvalDeps = (): ApprovalsDeps => ({ gate: this.#gate, bus: this.events, limits: this.#limits(), plane: (config) => this.#planeFor(config), now: () => this.clock.now() });

  /** Approver console: an approver credential exchanged for a session (`sessionId`: the Worker's; only its hash is stored). */
  consoleSignIn(consumer: string, token: string, sessionId: string): Outcome<ConsoleSignedIn> {
    const [who, credentialId] = [this.#gate.approver(consumer, token, "consoleSignIn"), credentialShape(token)?.credentialId];
    return !who.ok ? who : credentialId === undefined ? fail(UNAUTHENTICATED) : ok(this.#console.signIn(who.value.approverId, credentialId, sessionId));
  }

  /** Approver console: one call of a signed-in session (its page, an approval, a decision, the live stream, sign-out). */
  consoleCall(consumer: string, sessionId: string, call: ConsoleCall): Outcome<ConsoleReply> {
    const config = this.#consumer.current();
    return config !== undefined && config.name === consumer ? this.#console.call(config, sessionId, call) : fail(UNAUTHENTICATED);
  }

  /** Auditor: one bounded step of the chain's verification walk (`cursor`: where the last step stopped). */
  auditVerify(consumer: string, token: string, cursor: string | null = null): Outcome<string> {
    const auth = this.#gate.authenticate(consumer, token, "auditVerify");
    return auth.ok ? this.#audit.verify(cursor, this.#limits()) : auth;
  }

  /** Auditor: a page of the chain, the signed checkpoint, proofs and the export (audit/rpc.ts). */
  async auditCall(consumer: string, token: string, call: AuditCall): Promise<Outcome<string>> {
    const auth = this.#gate.authenticate(consumer, token, AUDIT_CALL_OPERATION[call.kind]);
    return auth.ok ? this.#auditHost.call(consumer, call, this.#limits()) : auth;
  }

  /** Runtime: one execution envelope (`POST …/runtime/envelopes`). */
  async runtimeEnvelope(consumer: string, token: string, body: Uint8Array): Promise<Outcome<RuntimeReply>> {
    const auth = this.#gate.authenticate(consumer, token, "runtimeEnvelope");
    if (!auth.ok) return auth;
    const origin = { credentialId: auth.value.caller.credentialId, socket: null };
    return this.#runtimeOf(auth.value.config).envelope(body, origin, sessionPolicy(this.#limits(), this.#credentials));
  }

  /** Capability plane: one call; `token` null means the Worker already checked the admin secret. */
  async capabilityCall(consumer: string, token: string | null, call: CapabilityCall): Promise<Outcome<string>> {
    return gatedCapabilityCall(this.#gate, this.capability, consumer, token, call, this.#limits());
  }

  /** Tools as data, consumer secrets, and the tool list (`token` null: the admin secret, checked by the Worker). */
  async toolsCall(consumer: string, token: string | null, call: ToolsCall): Promise<Outcome<string | null>> {
    const who = this.#gate.either(consumer, token, call.kind);
    if (!who.ok) return who;
    const deps = { host: this.#tools, audit: this.#audit, enabled: who.value.config.tools, scope: who.value.caller?.tools ?? null, now: this.clock.now(), pageItems: this.#limits().page_items, transaction: <T>(step: () => T) => this.#transaction(step), invalidate: () => (this.#toolCalls = undefined) };
    return toolsCall(deps, who.value.caller === null, call);
  }

  /** Admin: webhook endpoints, the delivery log, a redelivery (webhooks/calls.ts); the Worker checked the admin secret. */
  async webhooksCall(consumer: string, call: WebhooksCall): Promise<Outcome<string | null>> {
    const config = this.#gate.admin(consumer, call.kind);
    return config.ok ? webhooksCall(this.#webhooks, call, this.#limits().page_items) : config;
  }

  /**
   * WebSocket upgrades, forwarded by the Worker's routes (which matched the path): the runtime
   * socket and a provider's capability socket. The route passes what it matched in headers.
   */
  override async fetch(request: Request): Promise<Response> {
    return upgradeSocket(request, {
      ctx: this.ctx, capability: this.capability, policy: sessionPolicy(this.#limits(), this.#credentials), runtimeOf: (config) => this.#runtimeOf(config),
      authenticate: (consumer, token, operation) => this.#gate.authenticate(consumer, token, operation),
    });
  }

  /** Hibernation API: one message of an accepted WebSocket, handled only once admitted (live credential, size, rate). */
  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const policy = sessionPolicy(this.#limits(), this.#credentials);
    if (!admitMessage(this.ctx, ws, message, policy, this.clock.rateMs())) return;
    if (isCapabilitySocket(this.ctx, ws)) return onCapabilityMessage(this.capability, ws, message);
    const config = this.#consumer.current();
    if (isRuntimeSocket(this.ctx, ws) && config !== undefined) await onRuntimeMessage(this.#runtimeOf(config), ws, message, policy);
  }

  /** Hibernation API: the peer closed an accepted WebSocket. */
  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    if (isCapabilitySocket(this.ctx, ws)) return onCapabilityClose(this.capability, ws);
    if (isRuntimeSocket(this.ctx, ws)) onRuntimeClose(ws, code, reason);
  }

  /** Alarm (shared, ./alarms): the retention sweep, the capability engine's next deadline, the audit log's periodic checkpoint, webhook deliveries; each idempotent. */
  override async alarm(): Promise<void> {
    this.#alarms.ran(Date.now());
    this.capability.alarm();
    await this.#auditHost.alarm(this.#consumer.current()?.name);
    await this.#webhooks.deliver();
  }
}
