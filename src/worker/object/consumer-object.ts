import { DurableObject } from "cloudflare:workers";
import { ToolCallRequest, ToolCallStatusRequest } from "../../contracts/tool-call";
import { ToolCallBatchRequest } from "../../contracts/tool-call-batch";
import type { ToolSpec } from "../../core/tool-result/tool-spec";
import { credentialShape } from "../credential-format";
import type { Env } from "../env";
import { UNAUTHENTICATED } from "../problem";
import { fail, ok, type Outcome } from "../result";
import { AUDIT_CALL_OPERATION, type AuditCall } from "./audit/rpc";
import type { CapabilityHost } from "./capability/host";
import { gatedCapabilityCall, type CapabilityCall } from "./capability/plane";
import type { ObjectClock } from "./clock";
import type { ConsoleCall, ConsoleReply, ConsoleSignedIn } from "./console/plane";
import type { AdminCall } from "./consumer/admin-call";
import type { OAuthGrant, OAuthGrantRequest } from "./credentials/oauth-grant";
import type { EventBus } from "./events/bus";
import { FEATURES } from "./features";
import { ObjectKernel } from "./kernel";
import type { McpReply, McpRequest } from "./mcp/plane";
import { trackMemory } from "./memory";
import { received, type Carried } from "./rpc";
import type { RuntimeReply } from "./runtime/plane";
import { consumerServices, start } from "./services";
import { sessionPolicy } from "./sessions";
import type { ApprovalsCall } from "./tool-calls/approvals-call";
import { answerText } from "./tool-calls/agent-call";
import { toolCallBatch } from "./tool-calls/batch-call";
import type { ToolsCall } from "./tools/calls";
import { webhooksCall, type WebhooksCall } from "./webhooks/calls";

/**
 * One object per consumer (`idFromName(consumer)`): owns that consumer's configuration,
 * credentials, engine state, approvals and audit chain in SQLite. Each RPC method
 * authenticates its caller against the access table (`contracts/access.ts`) and forwards to
 * the plane that owns the operation; the planes run each engine step in one `transactionSync`.
 */
export class ConsumerObject extends DurableObject<Env> {
  /** What every feature shares: SQLite, the clock, transactions, audit, events, configuration, alarm (./kernel). */
  readonly #kernel = new ObjectKernel(this.ctx, this.env);
  readonly #s = consumerServices(this.#kernel, () => this.codeTools());
  /** The object's clock (tests pin it through `runInDurableObject`). */
  readonly clock: ObjectClock = this.#kernel.clock;
  /** The consumer's events (events/bus.ts): webhooks store them in their transaction, streams hear them once committed. */
  readonly events: EventBus = this.#kernel.events;
  /** The consumer's capability engine (tests pin its clock through `runInDurableObject`). */
  readonly capability: CapabilityHost = this.#s.capability;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    trackMemory(this, this.#s);
    void ctx.blockConcurrencyWhile(async () => start(this.#s));
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
    return this.#s.admin.call(consumer, call);
  }

  /** Agent: dispatches one tool call (`request`: the body the Worker read and validated, as RPC carries it: ./rpc.ts). */
  async toolCall(consumer: string, token: string, request: Carried<ToolCallRequest>): Promise<Outcome<string>> {
    return answerText(
      await this.#s.agentCalls.call(consumer, token, "toolCall", received(request, ToolCallRequest), null),
    );
  }

  /** Agent: the status of an unknown outcome (`request` as for {@link toolCall}). */
  async toolCallStatus(
    consumer: string,
    token: string,
    request: Carried<ToolCallStatusRequest>,
  ): Promise<Outcome<string>> {
    const input = received(request, ToolCallStatusRequest);
    return answerText(await this.#s.agentCalls.call(consumer, token, "toolCallStatus", input, input.status_ref));
  }

  /** Agent: the tool calls of one model turn, each its own call on the path below, answered as one provider message (tool-calls/batch-call.ts). */
  async toolCallBatch(
    consumer: string,
    token: string,
    request: Carried<ToolCallBatchRequest>,
  ): Promise<Outcome<string>> {
    const auth = this.#s.gate.authenticate(consumer, token, "toolCallBatch");
    return auth.ok
      ? toolCallBatch(received(request, ToolCallBatchRequest), (input, bound) =>
          this.#s.agentCalls.call(consumer, auth.value, "toolCallBatch", input, null, undefined, bound),
        )
      : auth;
  }

  /** Agent: one MCP message (`…/mcp`, mcp/plane.ts); the session acts for the credential's subject, its tool calls take the path above. */
  async mcp(consumer: string, token: string, request: McpRequest): Promise<Outcome<McpReply>> {
    const auth = this.#s.gate.authenticate(consumer, token, "mcp");
    return auth.ok
      ? this.#s.mcp.handle(auth.value, request, (input, statusRef, notify) =>
          this.#s.agentCalls.call(consumer, auth.value, "mcp", input, statusRef, notify),
        )
      : auth;
  }

  /** MCP OAuth sign-in: a subject-bound agent credential mints a narrower one for the client's grant (credentials/oauth-grant.ts). */
  oauthGrant(consumer: string, token: string, request: OAuthGrantRequest): Outcome<OAuthGrant> {
    return this.#s.oauth.grant(consumer, token, request);
  }

  /** Whether a grant's credential still works on the MCP endpoint (a refresh needs it). */
  oauthLive(consumer: string, token: string): boolean {
    return this.#s.oauth.live(consumer, token);
  }

  /** The Worker ended an OAuth grant (its token was revoked): its credential ends too. */
  oauthEnd(credentialId: string): boolean {
    return this.#s.oauth.end(credentialId);
  }

  /** Approvals (tool-calls/approvals-call.ts): an approver's list and decision; an approval's status, waiting for its decision. */
  async approvalsCall(consumer: string, token: string, call: ApprovalsCall): Promise<Outcome<string>> {
    return this.#s.approvals.call(consumer, token, call);
  }

  /** The SSE stream of approvals (an agent's own, or all for an approver). */
  approvalEvents(consumer: string, token: string): Outcome<ReadableStream<Uint8Array>> {
    return this.#s.approvals.events(consumer, token);
  }

  /** Approver console: an approver credential exchanged for a session (`sessionId`: the Worker's; only its hash is stored). */
  consoleSignIn(consumer: string, token: string, sessionId: string): Outcome<ConsoleSignedIn> {
    const [who, credentialId] = [
      this.#s.gate.approver(consumer, token, "consoleSignIn"),
      credentialShape(token)?.credentialId,
    ];
    return !who.ok
      ? who
      : credentialId === undefined
        ? fail(UNAUTHENTICATED)
        : ok(this.#s.console.signIn(who.value.approverId, credentialId, sessionId));
  }

  /** Approver console: one call of a signed-in session (its page, an approval, a decision, the live stream, sign-out). */
  consoleCall(consumer: string, sessionId: string, call: ConsoleCall): Outcome<ConsoleReply> {
    const config = this.#kernel.config.current();
    return config !== undefined && config.name === consumer
      ? this.#s.console.call(config, sessionId, call)
      : fail(UNAUTHENTICATED);
  }

  /** Auditor: one bounded step of the chain's verification walk (`cursor`: where the last step stopped). */
  auditVerify(consumer: string, token: string, cursor: string | null = null): Outcome<string> {
    const auth = this.#s.gate.authenticate(consumer, token, "auditVerify");
    return auth.ok ? this.#kernel.audit.verify(cursor, this.#kernel.limits()) : auth;
  }

  /** Auditor: a page of the chain, the signed checkpoint, proofs and the export (audit/rpc.ts). */
  async auditCall(consumer: string, token: string, call: AuditCall): Promise<Outcome<string>> {
    const auth = this.#s.gate.authenticate(consumer, token, AUDIT_CALL_OPERATION[call.kind]);
    return auth.ok ? this.#s.audit.call(consumer, call, this.#kernel.limits()) : auth;
  }

  /** Runtime: one execution envelope (`POST …/runtime/envelopes`). */
  async runtimeEnvelope(consumer: string, token: string, body: Uint8Array): Promise<Outcome<RuntimeReply>> {
    const auth = this.#s.gate.authenticate(consumer, token, "runtimeEnvelope");
    if (!auth.ok) return auth;
    const origin = { credentialId: auth.value.caller.credentialId, socket: null };
    return this.#s.runtime.envelope(body, origin, sessionPolicy(this.#kernel.limits(), this.#s.credentials));
  }

  /** Capability plane: one call; `token` null means the Worker already checked the admin secret. */
  async capabilityCall(consumer: string, token: string | null, call: CapabilityCall): Promise<Outcome<string>> {
    return gatedCapabilityCall(this.#s.gate, this.capability, consumer, token, call, this.#kernel.limits());
  }

  /** Tools as data, consumer secrets, and the tool list (`token` null: the admin secret, checked by the Worker). */
  async toolsCall(consumer: string, token: string | null, call: ToolsCall): Promise<Outcome<string | null>> {
    return this.#s.toolsCalls.call(consumer, token, call);
  }

  /** Admin: webhook endpoints, the delivery log, a redelivery (webhooks/calls.ts); the Worker checked the admin secret. */
  async webhooksCall(consumer: string, call: WebhooksCall): Promise<Outcome<string | null>> {
    const config = this.#s.gate.admin(consumer, call.kind);
    return config.ok ? webhooksCall(this.#s.webhooks, call, this.#kernel.limits().page_items) : config;
  }

  /**
   * WebSocket upgrades, forwarded by the Worker's routes (which matched the path): the runtime
   * socket and a provider's capability socket. The route passes what it matched in headers.
   */
  override async fetch(request: Request): Promise<Response> {
    return this.#s.sockets.upgrade(request);
  }

  /** Hibernation API: one message of an accepted WebSocket, handled only once admitted (live credential, size, rate). */
  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    return this.#s.sockets.message(ws, message);
  }

  /** Hibernation API: the peer closed an accepted WebSocket. */
  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.#s.sockets.close(ws, code, reason);
  }

  /** Alarm (shared, ./alarms): each feature's handler in registry order (./features): the retention sweep, the capability engine's next deadline, the audit log's periodic checkpoint, webhook deliveries; each idempotent. */
  override async alarm(): Promise<void> {
    this.#kernel.alarms.fired(Date.now());
    for (const feature of FEATURES) {
      const done = feature.alarm?.(this.#s);
      if (done !== undefined) await done;
    }
  }
}
