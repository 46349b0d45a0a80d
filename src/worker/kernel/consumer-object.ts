import { DurableObject } from "cloudflare:workers";
import type { ToolSpec } from "../../core/tool-result/tool-spec";
import type { Env } from "../env";
import type { Outcome } from "../result";
import { fireAlarm } from "./features";
import { ObjectKernel } from "./kernel";
import { trackMemory } from "./memory";
import type * as Rpc from "./rpc-types";
import { consumerServices, start } from "./services";

/**
 * One object per consumer (`idFromName(consumer)`): its configuration, credentials, engine state, approvals
 * and audit chain in SQLite. The kernel (./kernel) is what every feature shares; each RPC method forwards to
 * the owning feature's service (./services), which authenticates the caller against the access table.
 */
export class ConsumerObject extends DurableObject<Env> {
  readonly #kernel = new ObjectKernel(this.ctx, this.env);
  readonly #s = consumerServices(this.#kernel, () => this.codeTools());
  /** The object's clock, events and capability engine (tests pin them through `runInDurableObject`). */
  readonly clock: Rpc.ObjectClock = this.#kernel.clock;
  readonly events: Rpc.EventBus = this.#kernel.events;
  readonly capability: Rpc.CapabilityService = this.#s.capability;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    trackMemory(this, this.#s);
    void ctx.blockConcurrencyWhile(async () => start(this.#s));
  }

  /** In-process tools of the embedding Worker; `createGate({ tools })` overrides this (src/worker/gate.ts). */
  protected codeTools(): readonly ToolSpec[] {
    return [];
  }

  // A round trip (benchmark baseline); the CORS allow-list (http/cors-origins.ts); admin (consumer/admin-call.ts).
  ping(): string {
    return "pong";
  }
  corsOrigins(): string[] {
    return [...(this.#kernel.config.current()?.corsOrigins ?? [])];
  }
  admin(consumer: string, call: Rpc.AdminCall): Outcome<string | null> {
    return this.#s.admin.call(consumer, call);
  }

  // Agent (tool-calls/agent-call.ts): one call, an unknown outcome's status, one model turn; MCP (mcp/service.ts).
  async toolCall(consumer: string, token: string, request: Rpc.ToolCallIn, trace?: Rpc.Trace): Rpc.Answer {
    return this.#s.agentCalls.toolCall(consumer, token, request, trace ?? null);
  }
  async toolCallStatus(consumer: string, token: string, request: Rpc.StatusIn): Promise<Outcome<string>> {
    return this.#s.agentCalls.toolCallStatus(consumer, token, request);
  }
  async toolCallBatch(consumer: string, token: string, request: Rpc.BatchIn, trace?: Rpc.Trace): Rpc.Answer {
    return this.#s.agentCalls.toolCallBatch(consumer, token, request, trace ?? null);
  }
  async mcp(consumer: string, token: string, request: Rpc.McpRequest): Promise<Outcome<Rpc.McpReply>> {
    return this.#s.mcp.call(consumer, token, request);
  }

  // MCP OAuth (credentials/oauth-grant.ts): a grant's credential minted, checked, ended.
  oauthGrant(consumer: string, token: string, request: Rpc.OAuthGrantRequest): Outcome<Rpc.OAuthGrant> {
    return this.#s.oauth.grant(consumer, token, request);
  }
  oauthLive(consumer: string, token: string): boolean {
    return this.#s.oauth.live(consumer, token);
  }
  oauthEnd(credentialId: string): boolean {
    return this.#s.oauth.end(credentialId);
  }

  // Approvals (tool-calls/approvals-call.ts) and the approver console (console/service.ts).
  async approvalsCall(consumer: string, token: string, call: Rpc.ApprovalsCall): Promise<Outcome<string>> {
    return this.#s.approvals.call(consumer, token, call);
  }
  approvalEvents(consumer: string, token: string): Outcome<ReadableStream<Uint8Array>> {
    return this.#s.approvals.events(consumer, token);
  }
  consoleSignIn(consumer: string, token: string, sessionId: string): Outcome<Rpc.ConsoleSignedIn> {
    return this.#s.console.signIn(consumer, token, sessionId);
  }
  consoleCall(consumer: string, sessionId: string, call: Rpc.ConsoleCall): Outcome<Rpc.ConsoleReply> {
    return this.#s.console.call(consumer, sessionId, call);
  }

  // Auditor (audit/rpc.ts): a verification step (`cursor`: where the last stopped), pages, checkpoint, proofs, export.
  auditVerify(consumer: string, token: string, cursor: string | null = null): Outcome<string> {
    return this.#s.audit.verify(consumer, token, cursor);
  }
  async auditCall(consumer: string, token: string, call: Rpc.AuditCall): Promise<Outcome<string>> {
    return this.#s.audit.call(consumer, token, call);
  }

  // Runtime, capability, tools and webhooks; `token` null: the Worker checked the admin secret.
  async runtimeEnvelope(consumer: string, token: string, body: Uint8Array): Promise<Outcome<Rpc.RuntimeReply>> {
    return this.#s.runtime.post(consumer, token, body);
  }
  async capabilityCall(consumer: string, token: string | null, call: Rpc.CapabilityCall): Promise<Outcome<string>> {
    return this.#s.capabilityCalls.call(consumer, token, call);
  }
  async toolsCall(consumer: string, token: string | null, call: Rpc.ToolsCall): Promise<Outcome<string | null>> {
    return this.#s.toolsCalls.call(consumer, token, call);
  }
  async webhooksCall(consumer: string, call: Rpc.WebhooksCall): Promise<Outcome<string | null>> {
    return this.#s.webhooksCalls.call(consumer, call);
  }

  // WebSockets (socket-upgrade.ts): the upgrade the route matched, the Hibernation API; the alarm (features.ts).
  override async fetch(request: Request): Promise<Response> {
    return this.#s.sockets.upgrade(request);
  }
  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    return this.#s.sockets.message(ws, message);
  }
  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.#s.sockets.close(ws, code, reason);
  }
  override async alarm(): Promise<void> {
    return fireAlarm(this.#s);
  }
}
