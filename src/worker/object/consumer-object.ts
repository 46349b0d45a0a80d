import { DurableObject } from "cloudflare:workers";
import { canonicalJson } from "../../core/json";
import type { Operation } from "../../contracts/access";
import { ApprovalDecisionRequest } from "../../contracts/approval";
import type { ConsumerConfig } from "../../contracts/consumer";
import type { CreateCredentialRequest } from "../../contracts/credential";
import { ToolCallRequest, ToolCallStatusRequest } from "../../contracts/tool-call";
import type { ToolSpec } from "../../core/tool-result/tool-spec";
import type { Env } from "../env";
import { problem } from "../problem";
import { fail, ok, type Outcome } from "../result";
import { AuditHost, AUDIT_CALL_OPERATION, type AuditCall } from "./audit/rpc";
import { AlarmSlots } from "./alarms";
import { CapabilityHost } from "./capability/host";
import { capabilityCall, type CapabilityCall, type CapabilityCaller } from "./capability/plane";
import { detachProvider, isCapabilitySocket, onCapabilityClose, onCapabilityMessage, providerSockets } from "./capability/socket";
import { ObjectClock } from "./clock";
import { ConsumerPlane, limitsOf, type ConsumerRecord } from "./consumer/plane";
import { bindingOf, CredentialPlane } from "./credentials/plane";
import { tokenKeys } from "../credential-format";
import { AgentAdmission } from "./identity/admission";
import type { Limits } from "./limits";
import { migrate } from "./migrations";
import { fromWorker } from "./rpc";
import { Gatekeeper } from "./gatekeeper";
import { toolsCall, type ToolsCall } from "./tools/calls";
import { ToolsHost } from "./tools/host";
import { upgradeSocket, type Authenticated } from "./socket-upgrade";
import { RuntimeTransport, type RuntimeReply } from "./runtime/plane";
import { isRuntimeSocket, onRuntimeClose, onRuntimeMessage } from "./runtime/socket";
import { admitMessage, closeCredentialSockets, sessionPolicy } from "./sessions";
import { McpPlane, type McpNotifySink, type McpReply, type McpRequest } from "./mcp/plane";
import { ToolCallPlane } from "./tool-calls/plane";
import { agentCall } from "./tool-calls/agent-call";
import type { ToolCallInput } from "./tool-calls/bind";
import { oauthGrant, type OAuthGrant, type OAuthGrantRequest } from "./credentials/oauth-grant";

/**
 * One object per consumer (`idFromName(consumer)`): owns that consumer's configuration,
 * credentials, engine state, approvals and audit chain in SQLite. Each RPC method
 * authenticates its caller against the access table (`contracts/access.ts`) and forwards to
 * the plane that owns the operation; the planes run each engine step in one `transactionSync`.
 */
export class ConsumerObject extends DurableObject<Env> {
  readonly clock = new ObjectClock();
  /** The consumer's capability engine (tests pin its clock through `runInDurableObject`). */
  readonly capability: CapabilityHost;
  readonly #alarms = new AlarmSlots(this.ctx.storage);
  /** The audit log (chain, tree, checkpoints) every plane appends to; the alarm is shared (./alarms). */
  readonly #auditHost = new AuditHost({ sql: this.ctx.storage.sql, env: this.env, alarms: this.#alarms, now: () => this.clock.now(), transaction: (step) => this.#transaction(step) });
  readonly #audit = this.#auditHost.chain;
  readonly #credentials: CredentialPlane;
  readonly #consumer: ConsumerPlane;
  readonly #gate: Gatekeeper;
  readonly #tools: ToolsHost;
  readonly #admission = new AgentAdmission({ now: () => this.clock.now(), rateMs: () => this.clock.rateMs(), fetch: (url, init) => fetch(url, init) });
  readonly #mcp = new McpPlane({ sql: this.ctx.storage.sql, now: () => this.clock.now(), transaction: (step) => this.#transaction(step), toolCalls: (config) => this.#planeFor(config), audit: () => this.#audit });
  #toolCalls: ToolCallPlane | undefined;
  #runtime: RuntimeTransport | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    this.#credentials = new CredentialPlane({ sql, consumer: () => this.#consumer.current()?.name, keys: tokenKeys(env), now: () => this.clock.now() });
    this.#consumer = new ConsumerPlane(sql, this.#audit);
    this.#gate = new Gatekeeper(this.#consumer, this.#credentials);
    this.#tools = new ToolsHost({ sql, audit: this.#audit, env, consumer: () => this.#consumer.current()?.name ?? "", codeTools: () => this.codeTools(), now: () => this.clock.now(), transaction: (step) => this.#transaction(step) });
    this.capability = new CapabilityHost({
      sql,
      audit: this.#audit,
      transaction: (step) => this.#transaction(step),
      nowSeconds: () => this.clock.now(),
      sockets: (provider) => providerSockets(ctx, provider, (id) => this.#credentials.isLive(id)),
      setAlarm: (ms) => this.#alarms.set("capability", ms),
    });
    void ctx.blockConcurrencyWhile(async () => {
      this.#transaction(() => migrate(sql));
      this.#auditHost.backfill();
      this.#transaction(() => {
        const config = this.#consumer.load();
        if (config !== undefined) this.#planeFor(config).recover(this.clock.now());
      });
    });
  }

  #transaction<T>(step: () => T): T {
    try {
      return this.ctx.storage.transactionSync(step);
    } catch (error) {
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
      executor: this.#tools.executor(), limits: () => this.#limits(), transaction: (step) => this.#transaction(step),
    });
    return this.#toolCalls;
  }

  #runtimeOf(config: ConsumerRecord): RuntimeTransport {
    this.#runtime ??= new RuntimeTransport({
      ctx: this.ctx,
      sql: this.ctx.storage.sql,
      audit: this.#audit,
      bucket: this.env.CHECKPOINTS,
      consumer: config.name,
      now: () => this.clock.now(),
      transaction: (step) => this.#transaction(step),
      toolCalls: () => this.#planeFor(this.#consumer.current() ?? config),
    });
    return this.#runtime;
  }

  /** A bare round trip (benchmark baseline). */
  ping(): string {
    return "pong";
  }

  /** Admin: creates or updates the consumer (its tool registry is rebuilt on the next call). */
  configure(consumer: string, config: ConsumerConfig): Outcome<string> {
    const unknown = this.#tools.unknownNames(config.tools);
    if (unknown.length > 0) return fail(problem("UNKNOWN_TOOL_NAMES", `No tool is defined under ${unknown.map((n) => JSON.stringify(n)).join(", ")}.`));
    const saved = this.#transaction(() => this.#consumer.configure(consumer, config, this.clock.now()));
    this.#toolCalls = undefined;
    return ok(saved);
  }

  /** Admin: mints a credential; the secret is answered once. */
  createCredential(consumer: string, request: CreateCredentialRequest): Outcome<string> {
    const auth = this.#gate.admin(consumer, "createCredential");
    if (!auth.ok) return auth;
    const now = this.clock.now();
    return this.#transaction(() => this.#credentials.issue(consumer, bindingOf(request), now, this.#audit));
  }

  /** Admin: revokes a credential at once. */
  revokeCredential(consumer: string, credentialId: string): Outcome<null> {
    const auth = this.#gate.admin(consumer, "revokeCredential");
    if (!auth.ok) return auth;
    const now = this.clock.now();
    const revoked = this.#transaction(() => {
      const done = this.#credentials.revoke(credentialId, now);
      if (done) this.#audit.append("credential.revoked", now, { credential_id: credentialId });
      return done;
    });
    // Every live session of the credential ends now (1008); a provider's binding detaches first.
    if (revoked) closeCredentialSockets(this.ctx, credentialId, (ws) => isCapabilitySocket(this.ctx, ws) && detachProvider(this.capability, ws));
    return revoked ? ok(null) : fail(problem("NOT_FOUND", "No such credential."));
  }

  /** Agent: dispatches one tool call (`request`: the Worker-validated body as canonical JSON). */
  async toolCall(consumer: string, token: string, request: string): Promise<Outcome<string>> {
    return this.#agentCall(consumer, token, "toolCall", fromWorker(request, ToolCallRequest), null);
  }

  /** Agent: the status of an unknown outcome (`request` as for {@link toolCall}). */
  async toolCallStatus(consumer: string, token: string, request: string): Promise<Outcome<string>> {
    const input = fromWorker(request, ToolCallStatusRequest);
    return this.#agentCall(consumer, token, "toolCallStatus", input, input.status_ref);
  }

  /** Every agent tool call (HTTP and MCP): authenticate (`who`: a token, or a caller already authenticated), then tool-calls/agent-call.ts. */
  async #agentCall(consumer: string, who: string | Authenticated, operation: Operation, input: ToolCallInput, statusRef: string | null, notify?: McpNotifySink): Promise<Outcome<string>> {
    const auth = typeof who === "string" ? this.#gate.authenticate(consumer, who, operation) : ok(who);
    if (!auth.ok) return auth;
    const deps = { admission: this.#admission, limits: this.#limits(), plane: this.#planeFor(auth.value.config), now: () => this.clock.now() };
    return agentCall(deps, consumer, auth.value, input, statusRef, notify);
  }

  /** Agent: one MCP message (`…/mcp`, mcp/plane.ts); the session acts for the credential's subject, its tool calls take the path above. */
  async mcp(consumer: string, token: string, request: McpRequest): Promise<Outcome<McpReply>> {
    const auth = this.#gate.authenticate(consumer, token, "mcp");
    return auth.ok ? this.#mcp.handle(auth.value, request, (input, statusRef, notify) => this.#agentCall(consumer, auth.value, "mcp", input, statusRef, notify)) : auth;
  }

  /** MCP OAuth sign-in: a subject-bound agent credential mints a narrower one for the client's grant (oauth/grant.ts). */
  oauthGrant(consumer: string, token: string, request: OAuthGrantRequest): Outcome<OAuthGrant> {
    const auth = this.#gate.authenticate(consumer, token, "mcp");
    return auth.ok ? this.#transaction(() => oauthGrant({ sql: this.ctx.storage.sql, credentials: this.#credentials, audit: this.#audit }, consumer, auth.value, request, this.clock.now())) : auth;
  }

  /** Approver: one page of pending approvals (`cursor`: a `next_cursor` answered before), each with the digest computed for this approver. */
  listApprovals(consumer: string, token: string, cursor: string | null = null): Outcome<string> {
    const who = this.#gate.approver(consumer, token, "listApprovals");
    if (!who.ok) return who;
    const request = { tenantId: consumer, approverId: who.value.approverId, cursor, pageItems: this.#limits().page_items };
    const page = this.#planeFor(who.value.config).listApprovals(request, this.clock.now());
    return page.ok ? ok(canonicalJson(page.value)) : page;
  }

  /** Approver: one decision, bound to the digest the approver saw. */
  decideApproval(consumer: string, token: string, approvalId: string, request: ApprovalDecisionRequest): Outcome<string> {
    const who = this.#gate.approver(consumer, token, "decideApproval");
    if (!who.ok) return who;
    const body = ApprovalDecisionRequest.parse(request);
    const decided = this.#planeFor(who.value.config).decide(approvalId, who.value.approverId, body.decision, body.approval_digest, this.clock.now());
    return decided.ok ? ok(canonicalJson(decided.value)) : decided;
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

  /** Admin: reads (`targets` null) or replaces the App Facade target map. */
  facadeTargets(consumer: string, targets: Record<string, string> | null): Outcome<string> {
    const config = this.#gate.admin(consumer, "facadeTargets");
    if (!config.ok) return config;
    const unknown = targets === null ? [] : this.#tools.unknownNames(Object.values(targets));
    if (unknown.length > 0) return fail(problem("UNKNOWN_TOOL_NAMES", `No tool is defined under ${unknown.map((n) => JSON.stringify(n)).join(", ")}.`));
    return ok(this.#runtimeOf(config.value).facadeTargets(targets));
  }

  /** Capability plane: one call; `token` null means the Worker already checked the admin secret. */
  async capabilityCall(consumer: string, token: string | null, call: CapabilityCall): Promise<Outcome<string>> {
    if (token === null) {
      const config = this.#gate.admin(consumer, call.kind);
      return config.ok ? capabilityCall(this.capability, consumer, { kind: "admin" }, config.value.approverSubjects, call, this.#limits()) : config;
    }
    const auth = this.#gate.authenticate(consumer, token, call.kind);
    if (!auth.ok) return auth;
    // Capability bodies carry no end-user token: a token-verified credential has no verified actor here.
    if (auth.value.caller.principal === "token") return fail(problem("PRINCIPAL_MISMATCH", "A token-verified credential acts on the tool-call plane only."));
    const caller: CapabilityCaller = { kind: auth.value.caller.kind, subjectId: auth.value.caller.subjectId };
    return capabilityCall(this.capability, consumer, caller, auth.value.config.approverSubjects, call, this.#limits());
  }

  /** Tools as data, consumer secrets, and the tool list (`token` null: the admin secret, checked by the Worker). */
  async toolsCall(consumer: string, token: string | null, call: ToolsCall): Promise<Outcome<string | null>> {
    const who = this.#gate.either(consumer, token, call.kind);
    if (!who.ok) return who;
    const deps = { host: this.#tools, audit: this.#audit, enabled: who.value.config.tools, now: this.clock.now(), transaction: <T>(step: () => T) => this.#transaction(step), invalidate: () => (this.#toolCalls = undefined) };
    return toolsCall(deps, who.value.caller === null, call);
  }

  /**
   * WebSocket upgrades, forwarded by the Worker's routes (which matched the path): the runtime
   * socket and a provider's capability socket. The route passes what it matched in headers.
   */
  override async fetch(request: Request): Promise<Response> {
    return upgradeSocket(request, {
      ctx: this.ctx,
      capability: this.capability,
      policy: sessionPolicy(this.#limits(), this.#credentials),
      authenticate: (consumer, token, operation) => this.#gate.authenticate(consumer, token, operation),
      runtimeOf: (config) => this.#runtimeOf(config),
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

  /** Alarm (shared, ./alarms): the capability engine's next deadline, the audit log's periodic checkpoint; both idempotent. */
  override async alarm(): Promise<void> {
    this.#alarms.fired(Date.now());
    this.capability.alarm();
    await this.#auditHost.alarm(this.#consumer.current()?.name);
  }
}
