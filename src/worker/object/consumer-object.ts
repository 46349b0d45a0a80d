import { DurableObject } from "cloudflare:workers";
import { canonicalJson, readJson } from "../../core/json";
import { createEngine, type ToolResultEngine } from "../../core/tool-result/engine";
import { recoverInFlight } from "../../core/tool-result/query-status";
import type { ApprovalDecisionRequest } from "../contracts/approval";
import type { ConsumerConfig } from "../contracts/consumer";
import type { CreateCredentialRequest } from "../contracts/credential";
import type { ToolCallRequest, ToolCallStatusRequest } from "../contracts/tool-call";
import { bearerToken, type CredentialKind } from "../credential-format";
import type { Env } from "../env";
import { UNAUTHENTICATED, problem, problemResponse } from "../problem";
import { fail, ok, type Outcome } from "../result";
import { registryFor } from "../tools/catalog";
import type { DownstreamService } from "../tools/http-tool";
import { ApprovalBook } from "./approvals";
import { AuditChain } from "./audit-chain";
import { CapabilityHost } from "./capability-host";
import { CAPABILITY_CALL_AUTH, capabilityCall, type CapabilityCall, type CapabilityCaller } from "./capability-plane";
import { CAPABILITY_CONNECT_PATH, connectProvider, isCapabilitySocket, onCapabilityClose, onCapabilityMessage, providerTag, socketToken } from "./capability-socket";
import { ObjectClock } from "./clock";
import { loadConsumer, saveConsumer, type ConsumerRecord } from "./consumer-config";
import { CredentialStore, type Caller } from "./credentials";
import { migrate } from "./schema";
import { STORED_JSON } from "./sql";
import { SqlToolResultStore } from "./sql-store";
import { dispatchToolCall, queryToolCallStatus, type ToolCallPlane } from "./tool-calls";
import { acceptRuntimeSocket, isRuntimeSocket, onRuntimeClose, onRuntimeMessage } from "./runtime-socket";
import { facadeTargetsJson, loadFacadeTargets, saveFacadeTargets } from "./runtime-targets";
import { RuntimeTransport, type RuntimeReply } from "./runtime-transport";

/** Reads a body the Worker already validated against its contract and re-encoded canonically. */
function validated<T>(text: string): T {
  const parsed = readJson(text, STORED_JSON);
  if (!parsed.ok) throw new Error("the Worker sent a body that is not strict JSON");
  return parsed.value as unknown as T;
}

/**
 * One object per consumer (`idFromName(consumer)`): owns that consumer's configuration,
 * credentials, engine state, approvals and audit chain in SQLite. Typed RPC methods only;
 * each engine step runs in one `transactionSync`.
 */
export class ConsumerObject extends DurableObject<Env> {
  readonly clock = new ObjectClock();
  readonly #sql: SqlStorage;
  readonly #store: SqlToolResultStore;
  readonly #credentials: CredentialStore;
  readonly #approvals: ApprovalBook;
  readonly #audit: AuditChain;
  /** The consumer's capability engine (tests pin its clock through `runInDurableObject`). */
  readonly capability: CapabilityHost;
  #consumer: ConsumerRecord | undefined;
  #engine: ToolResultEngine | undefined;
  #runtimeTransport: RuntimeTransport | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#store = new SqlToolResultStore(this.#sql);
    this.#credentials = new CredentialStore(this.#sql);
    this.#approvals = new ApprovalBook(this.#sql);
    this.#audit = new AuditChain(this.#sql);
    this.capability = new CapabilityHost({
      sql: this.#sql,
      audit: this.#audit,
      transaction: (step) => this.#transaction(step),
      nowSeconds: () => this.clock.now(),
      sockets: (provider) => ctx.getWebSockets(providerTag(provider)),
      setAlarm: (ms) => void (ms === null ? ctx.storage.deleteAlarm() : ctx.storage.setAlarm(ms)),
    });
    void ctx.blockConcurrencyWhile(async () => {
      this.#transaction(() => {
        migrate(this.#sql);
        this.#consumer = loadConsumer(this.#sql);
        // A write still in flight when the object stopped may have committed: it becomes an
        // unknown outcome with its status_ref, never a second execution.
        if (this.#consumer !== undefined) {
          const now = this.clock.now();
          for (const recovered of recoverInFlight(this.#engineFor(this.#consumer), now)) {
            this.#audit.append("tool_call.recovered", now, recovered.package.protected_audit);
          }
        }
      });
    });
  }

  #transaction<T>(step: () => T): T {
    try {
      return this.ctx.storage.transactionSync(step);
    } catch (error) {
      this.#audit.reset();
      throw error;
    }
  }

  #engineFor(consumer: ConsumerRecord): ToolResultEngine {
    if (this.#engine === undefined) {
      this.#engine = createEngine({ registry: registryFor(consumer.tools), store: this.#store, approvers: new Set(consumer.approverSubjects) });
    }
    return this.#engine;
  }

  #downstream(): DownstreamService | undefined {
    const base = this.env.TOOLGATE_DOWNSTREAM_URL;
    if (this.env.DOWNSTREAM !== undefined) return { fetcher: this.env.DOWNSTREAM, baseUrl: base ?? "http://downstream" };
    if (base !== undefined && base !== "") return { fetcher: { fetch: (r) => fetch(r) }, baseUrl: base };
    return undefined;
  }

  #authenticate(consumer: string, token: string, kinds: readonly CredentialKind[]): Outcome<{ caller: Caller; config: ConsumerRecord }> {
    const config = this.#consumer;
    if (config === undefined || config.name !== consumer) return fail(UNAUTHENTICATED);
    const caller = this.#credentials.authenticate(token, kinds);
    if (!caller.ok) return caller;
    return ok({ caller: caller.value, config });
  }

  #plane(config: ConsumerRecord): ToolCallPlane {
    return {
      engine: this.#engineFor(config),
      approvals: this.#approvals,
      audit: this.#audit,
      downstream: this.#downstream(),
      transaction: (step) => this.#transaction(step),
    };
  }

  /** A bare round trip (benchmark baseline). */
  ping(): string {
    return "pong";
  }

  /** Admin: creates or updates the consumer. */
  configure(consumer: string, config: ConsumerConfig): Outcome<string> {
    const now = this.clock.now();
    const record: ConsumerRecord = { name: consumer, tools: config.tools, approverSubjects: config.approver_subjects };
    const created = this.#transaction(() => {
      const isNew = saveConsumer(this.#sql, record, now);
      this.#consumer = loadConsumer(this.#sql);
      this.#audit.append("consumer.configured", now, { consumer, tools: this.#consumer?.tools ?? [], approver_subjects: this.#consumer?.approverSubjects ?? [] });
      return isNew;
    });
    this.#engine = undefined;
    const stored = this.#consumer as ConsumerRecord | undefined;
    if (stored === undefined) throw new Error("consumer row missing right after it was saved");
    return ok(canonicalJson({ consumer, tools: stored.tools, approver_subjects: stored.approverSubjects, created }));
  }

  /** Admin: mints a credential; the secret is answered once. */
  createCredential(consumer: string, request: CreateCredentialRequest): Outcome<string> {
    if (this.#consumer === undefined || this.#consumer.name !== consumer) return fail(problem("NOT_FOUND", "No such consumer."));
    const now = this.clock.now();
    const subject = request.subject_id ?? null;
    const created = this.#transaction(() => {
      const c = this.#credentials.create(request.kind, subject, now);
      this.#audit.append("credential.created", now, { credential_id: c.credential_id, kind: request.kind, subject_id: subject });
      return c;
    });
    return ok(canonicalJson({ ...created, kind: request.kind, subject_id: subject }));
  }

  /** Admin: revokes a credential at once. */
  revokeCredential(consumer: string, credentialId: string): Outcome<null> {
    if (this.#consumer === undefined || this.#consumer.name !== consumer) return fail(problem("NOT_FOUND", "No such consumer."));
    const now = this.clock.now();
    const revoked = this.#transaction(() => {
      const done = this.#credentials.revoke(credentialId, now);
      if (done) this.#audit.append("credential.revoked", now, { credential_id: credentialId });
      return done;
    });
    return revoked ? ok(null) : fail(problem("NOT_FOUND", "No such credential."));
  }

  /** Agent: dispatches one tool call (`request` is the Worker-validated body as canonical JSON). */
  async toolCall(consumer: string, token: string, request: string): Promise<Outcome<string>> {
    const auth = this.#authenticate(consumer, token, ["agent"]);
    if (!auth.ok) return auth;
    return dispatchToolCall(this.#plane(auth.value.config), consumer, validated<ToolCallRequest>(request), this.clock.now());
  }

  /** Agent: the status of an unknown outcome (`request` as for {@link toolCall}). */
  async toolCallStatus(consumer: string, token: string, request: string): Promise<Outcome<string>> {
    const auth = this.#authenticate(consumer, token, ["agent"]);
    if (!auth.ok) return auth;
    return queryToolCallStatus(this.#plane(auth.value.config), consumer, validated<ToolCallStatusRequest>(request), this.clock.now());
  }

  #approver(consumer: string, token: string): Outcome<{ approverId: string; config: ConsumerRecord }> {
    const auth = this.#authenticate(consumer, token, ["approver"]);
    if (!auth.ok) return auth;
    const approverId = auth.value.caller.subjectId;
    if (approverId === null || !auth.value.config.approverSubjects.includes(approverId)) {
      return fail(problem("APPROVER_NOT_ALLOWED", "This subject is not an approver of the consumer."));
    }
    return ok({ approverId, config: auth.value.config });
  }

  /** Approver: pending approvals with the digest computed for this approver. */
  listApprovals(consumer: string, token: string): Outcome<string> {
    const who = this.#approver(consumer, token);
    if (!who.ok) return who;
    const registry = this.#engineFor(who.value.config).registry;
    const approvals = this.#approvals.listPending(who.value.approverId, this.clock.now(), (tool) => registry.get(tool));
    return ok(canonicalJson({ approvals: approvals as unknown as Parameters<typeof canonicalJson>[0] }));
  }

  /** Approver: one decision, bound to the digest the approver saw. */
  decideApproval(consumer: string, token: string, approvalId: string, request: ApprovalDecisionRequest): Outcome<string> {
    const who = this.#approver(consumer, token);
    if (!who.ok) return who;
    const registry = this.#engineFor(who.value.config).registry;
    const now = this.clock.now();
    return this.#transaction(() => {
      const decided = this.#approvals.decide(approvalId, who.value.approverId, request.decision, request.approval_digest, now, (tool) => registry.get(tool));
      if (!decided.ok) return decided;
      const { record, pending } = decided.value;
      this.#audit.append("approval.decision", now, {
        ...record,
        approval_digest: request.approval_digest,
        tool: pending.tool,
        subject_id: pending.subjectId,
        request_sha256: pending.requestSha256,
        operation_id: pending.call.operation_id,
        call_id: pending.call.call_id,
      });
      return ok(canonicalJson(record as unknown as Parameters<typeof canonicalJson>[0]));
    });
  }

  /** Auditor: one page of the audit chain. */
  auditPage(consumer: string, token: string, after: number, limit: number): Outcome<string> {
    const auth = this.#authenticate(consumer, token, ["auditor"]);
    if (!auth.ok) return auth;
    return ok(canonicalJson(this.#audit.page(after, limit) as unknown as Parameters<typeof canonicalJson>[0]));
  }

  /** Auditor: verifies the whole chain. */
  auditVerify(consumer: string, token: string): Outcome<string> {
    const auth = this.#authenticate(consumer, token, ["auditor"]);
    if (!auth.ok) return auth;
    return ok(canonicalJson({ ...this.#audit.verify() }));
  }

  #runtime(): RuntimeTransport {
    this.#runtimeTransport ??= new RuntimeTransport({
      ctx: this.ctx,
      sql: this.#sql,
      audit: this.#audit,
      bucket: this.env.CHECKPOINTS,
      now: () => this.clock.now(),
      transaction: (step) => this.#transaction(step),
      plane: () => {
        if (this.#consumer === undefined) throw new Error("runtime envelope reached an unconfigured consumer");
        return { consumer: this.#consumer.name, plane: this.#plane(this.#consumer) };
      },
    });
    return this.#runtimeTransport;
  }

  /** Runtime: one execution envelope (`POST …/runtime/envelopes`). */
  async runtimeEnvelope(consumer: string, token: string, body: Uint8Array): Promise<Outcome<RuntimeReply>> {
    const auth = this.#authenticate(consumer, token, ["runtime"]);
    if (!auth.ok) return auth;
    return this.#runtime().envelope(body, null);
  }

  /** Admin: reads (`targets` null) or replaces the App Facade target map. */
  facadeTargets(consumer: string, targets: Record<string, string> | null): Outcome<string> {
    if (this.#consumer === undefined || this.#consumer.name !== consumer) return fail(problem("NOT_FOUND", "No such consumer."));
    if (targets === null) return ok(facadeTargetsJson(loadFacadeTargets(this.#sql)));
    const now = this.clock.now();
    const saved = this.#transaction(() => {
      const value = saveFacadeTargets(this.#sql, targets);
      this.#audit.append("runtime.facade_targets", now, { targets: Object.fromEntries(value.targets), revision: value.revision });
      return value;
    });
    return ok(facadeTargetsJson(saved));
  }

  /** Runtime WebSocket upgrade (`GET …/runtime/connect`), forwarded by the Worker. */
  override async fetch(request: Request): Promise<Response> {
    const connect = CAPABILITY_CONNECT_PATH.exec(new URL(request.url).pathname);
    if (connect !== null) return this.#capabilityConnect(request, connect[1] ?? "", connect[2] ?? "");
    const match = /^\/v1\/consumers\/([^/]+)\/runtime\/connect$/.exec(new URL(request.url).pathname);
    const token = bearerToken(request.headers.get("authorization"));
    if (match === null || match[1] === undefined) return problemResponse(problem("NOT_FOUND", "No such route."));
    const auth = this.#authenticate(match[1], token ?? "", ["runtime"]);
    if (!auth.ok) return problemResponse(auth.problem);
    return acceptRuntimeSocket(this.ctx, this.#runtime(), auth.value.caller.credentialId);
  }

  /** Hibernation API: one message of an accepted WebSocket. */
  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (isCapabilitySocket(this.ctx, ws)) return onCapabilityMessage(this.capability, ws, message);
    if (isRuntimeSocket(this.ctx, ws)) await onRuntimeMessage(this.#sql, this.#runtime(), ws, message);
  }

  /** Hibernation API: the peer closed an accepted WebSocket. */
  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    if (isCapabilitySocket(this.ctx, ws)) return onCapabilityClose(this.capability, ws);
    if (isRuntimeSocket(this.ctx, ws)) onRuntimeClose(ws, code, reason);
  }

  /** Capability plane: one call; `token` null means the Worker already checked the admin secret. */
  async capabilityCall(consumer: string, token: string | null, call: CapabilityCall): Promise<Outcome<string>> {
    const allowed = CAPABILITY_CALL_AUTH[call.kind];
    // The admin secret on a route it may not call is refused before the consumer is looked up,
    // so that refusal is the same 401 whether or not the consumer exists.
    if (token === null && !allowed.includes("admin")) return fail(UNAUTHENTICATED);
    const config = this.#consumer;
    if (config === undefined || config.name !== consumer) return fail(token === null ? problem("NOT_FOUND", "No such consumer.") : UNAUTHENTICATED);
    let caller: CapabilityCaller = { kind: "admin" };
    if (token !== null) {
      const auth = this.#authenticate(consumer, token, allowed.filter((k): k is CredentialKind => k !== "admin"));
      if (!auth.ok) return auth;
      caller = { kind: auth.value.caller.kind, subjectId: auth.value.caller.subjectId };
    }
    return capabilityCall(this.capability, consumer, caller, config.approverSubjects, call);
  }

  #capabilityConnect(request: Request, consumer: string, providerId: string): Response {
    const auth = this.#authenticate(consumer, socketToken(request) ?? "", ["provider"]);
    if (!auth.ok) return problemResponse(auth.problem);
    const subject = auth.value.caller.subjectId;
    if (subject !== null && subject !== providerId) return problemResponse(problem("FORBIDDEN", "This provider credential attaches only its own provider."));
    return connectProvider(this.ctx, this.capability, request, providerId);
  }

  /** Alarm: the capability engine's next deadline (advance time to now; idempotent). */
  override async alarm(): Promise<void> {
    this.capability.alarm();
  }
}
