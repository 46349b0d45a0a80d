import { canonicalJson, type Json, type JsonObject } from "../../../core/json";
import {
  InitializeParams,
  isMcpVersion,
  JsonRpcMessage,
  ListParams,
  MCP_LATEST_VERSION,
  MCP_PROTOCOL_VERSIONS,
  RPC_ERRORS,
  SetLevelParams,
  type JsonRpcId,
  type McpProtocolVersion,
} from "../../../contracts/mcp";
import { GATE_VERSION } from "../../version";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import { limitsOf } from "../consumers/service";
import { received } from "../../kernel/rpc";
import type { Authenticated } from "../sockets/upgrade";
import { callTool, derivedId } from "./call";
import { ApprovalElicitations } from "./elicitations";
import { publicOrigin } from "../webhooks/service";
import type { Gatekeeper } from "../../kernel/gatekeeper";
import type { AgentAdmission } from "../identity/admission";
import type { AgentCalls } from "../tool-calls/agent-call";
import type { ToolCallServices } from "../tool-calls/services";
import type { McpContext, McpKernel, RunCall } from "./context";
import * as jsonRpc from "./rpc";
import { randomHex } from "../../kernel/random-id";
import { receivedTrace } from "../../trace/context";
import { MAX_MCP_SESSIONS, MAX_MCP_SESSIONS_PER_CREDENTIAL, MAX_MCP_SESSIONS_PER_SUBJECT } from "./quota";
import { relayPlan } from "./relay";
import { PendingRelays } from "./requests";
import { McpStore, type McpSession } from "./store";
import {
  answer,
  capabilitiesOf,
  checkedHttpVersion,
  declaredOf,
  INSTRUCTIONS,
  MCP_SERVER_NAME,
  relayed,
  type McpReply,
  type McpRequest,
} from "./exchange";
import { listTools } from "./tools";
import { McpTasks } from "./tasks";
import { FEDERATED_METHODS, MCP_STREAMABLE_HTTP_VERSION, McpFederation, type FederatedServers } from "./resources";
import type { CapabilityToolEntry, CapabilityTools } from "../capability/tool-call";

export type { RunCall } from "./context";
export type { McpNotifySink } from "../../targets/mcp/notify";

export { MCP_SERVER_NAME, type McpReply, type McpRequest } from "./exchange";

/**
 * The MCP server of one consumer (docs/mcp.md): sessions bound to the credential that opened
 * them, each request of a session answered for the credential's subject (the session is the
 * host context), tool calls run through the agent's tool-call path, tasks over approvals.
 */
export class McpService {
  readonly #store: McpStore;
  readonly #tasks: McpTasks;
  readonly #kernel: McpKernel;
  /** The consumer's tool-call service (its registry, approvals and withdrawals). */
  readonly #toolCalls: ToolCallServices;
  /** The credential's call rate (credentials/rate.ts), shared with its tool calls. */
  readonly #admission: AgentAdmission;
  /** Relayed requests awaiting the client's response (memory only). */
  readonly #pending = new PendingRelays();
  /** Who may use the endpoint (the `mcp` operation of the access table). */
  readonly #gate: Gatekeeper;
  /** The agent's tool-call path every `tools/call` takes. */
  readonly #agentCalls: AgentCalls;
  /** Resources, prompts and completion of the consumer's MCP servers; the GET streams. */
  readonly #federation: McpFederation;
  /** The capabilities a provider offers, listed as tools (../capability/tool-call.ts). */
  readonly #capabilities: CapabilityTools | undefined;
  /** The approvals whose URL elicitation awaits their decision (memory only). */
  readonly #elicitations: ApprovalElicitations;
  /** Whether a tool's target is an MCP server (target-result.ts). */
  readonly #mcpTarget: (tool: string) => boolean;

  constructor(
    kernel: McpKernel,
    toolCalls: ToolCallServices,
    admission: AgentAdmission,
    gate: Gatekeeper,
    agentCalls: AgentCalls,
    servers: FederatedServers,
    mcpTarget: (tool: string) => boolean,
    capabilities?: CapabilityTools,
  ) {
    this.#capabilities = capabilities;
    this.#mcpTarget = mcpTarget;
    this.#kernel = kernel;
    this.#toolCalls = toolCalls;
    this.#admission = admission;
    this.#gate = gate;
    this.#agentCalls = agentCalls;
    this.#store = new McpStore(kernel.sql);
    this.#tasks = new McpTasks(this.#store, kernel, toolCalls);
    const live = (id: string) => this.#store.session(id, kernel.now()) !== undefined;
    this.#federation = new McpFederation(servers, kernel, live);
    this.#elicitations = new ApprovalElicitations({
      events: kernel.events,
      streams: this.#federation.streams,
      live,
      publicOrigin: publicOrigin(kernel.env.TOOLGATE_PUBLIC_URL),
      expiresIn: (config, approvalId) => {
        const approval = toolCalls.for(config).book.get(approvalId);
        return approval === undefined ? undefined : approval.expires_at - kernel.now();
      },
    });
  }

  /** Relayed requests awaiting the client's response now. */
  get relayed(): number {
    return this.#pending.size;
  }

  /** Approvals watched for the completion of their URL elicitation now. */
  get elicitations(): number {
    return this.#elicitations.size;
  }

  /** A credential was revoked: its sessions and tasks go at once (their places free for others). */
  credentialEnded(credentialId: string): void {
    this.#store.forgetCredential(credentialId);
  }

  /** One MCP message (`…/mcp`): the credential authenticates for `mcp`, then {@link handle} with the agent's tool-call path as that caller. */
  async call(consumer: string, token: string, request: McpRequest): Promise<Outcome<McpReply>> {
    const auth = this.#gate.authenticate(consumer, token, "mcp");
    return auth.ok
      ? this.handle(auth.value, request, (input, statusRef, notify, trace) =>
          this.#agentCalls.call(consumer, auth.value, "mcp", input, statusRef, notify, undefined, trace),
        )
      : auth;
  }

  /** One request of an authenticated agent credential; `run` is the object's tool-call path for that caller. */
  async handle(auth: Authenticated, request: McpRequest, run: RunCall): Promise<Outcome<McpReply>> {
    if (auth.caller.principal !== "subject" || auth.caller.subjectId === null) {
      return fail(
        problem(
          "PRINCIPAL_MISMATCH",
          "An MCP session acts for its credential's subject: use a subject-bound agent credential (a host or token-verified credential cannot name a principal over MCP).",
        ),
      );
    }
    if (request.method === "GET") {
      const session = this.#session(auth, request);
      return session.ok ? this.#federation.open(session.value.sessionId) : session;
    }
    if (request.method === "DELETE" || request.message === null) {
      const session = this.#session(auth, request);
      if (!session.ok) return session;
      this.#kernel.transaction(() => this.#store.endSession(session.value.sessionId));
      this.#federation.streams.end(session.value.sessionId);
      return ok({ kind: "ended" });
    }
    const message = received(request.message, JsonRpcMessage);
    // The strict reader made every params object; the contract's type only says "an object".
    const params = "method" in message ? (message.params as JsonObject | undefined) : undefined;
    if ("method" in message && "id" in message && message.method === "initialize") {
      // Each initialize stores a session: it takes a token of the credential's call rate.
      const rate = this.#admission.rate(auth.caller.credentialId, limitsOf(auth.config));
      return rate.ok ? this.#initialize(auth, message.id, params) : rate;
    }
    const session = this.#session(auth, request);
    if (!session.ok) return session;
    // Marks the session used now; a session already used this second would be left as it is.
    const now = this.#kernel.now();
    if (session.value.lastSeen !== now)
      this.#kernel.transaction(() => this.#store.touchSession(session.value.sessionId, now));
    // A response answers a relayed request of this session's only; any other is dropped.
    if ("result" in message)
      await this.#pending.answer(session.value.sessionId, message.id, { result: message.result as JsonObject });
    else if ("error" in message)
      await this.#pending.answer(session.value.sessionId, message.id, { error: { ...message.error } as JsonObject });
    if (!("method" in message) || !("id" in message)) return ok({ kind: "accepted" });
    const ctx: McpContext = {
      auth,
      session: session.value,
      registry: this.#toolCalls.for(auth.config).engine.registry,
      mcpTarget: this.#mcpTarget,
      run,
      derivedKey: (tool, args) => this.#derivedKey(auth.caller.credentialId, tool, args),
      consoleOrigin: request.origin ?? null,
      transport: { trace: receivedTrace(request.trace), httpVersion: checkedHttpVersion(request.httpVersion) },
    };
    const plan =
      request.events === true && message.method === "tools/call"
        ? relayPlan(params, session.value.logLevel ?? null, declaredOf(session.value))
        : null;
    if (plan !== null) {
      const host = {
        pending: this.#pending,
        sessionId: session.value.sessionId,
        audit: (record: JsonObject) => this.#audit(record),
      };
      return ok(
        relayed(
          (notify) => {
            const elicitUrl = this.#elicitations.forCall(ctx, notify);
            const relaying = elicitUrl === undefined ? { ...ctx, notify } : { ...ctx, notify, elicitUrl };
            return this.#dispatch(relaying, message.method, params, message.id);
          },
          plan,
          message.id,
          session.value.sessionId,
          host,
        ),
      );
    }
    return ok(
      answer(message.id, await this.#dispatch(ctx, message.method, params, message.id), session.value.sessionId),
    );
  }

  /** The audit entry of one relayed request. */
  #audit(record: JsonObject): void {
    const now = this.#kernel.now();
    this.#kernel.transaction(() => this.#kernel.audit.append("mcp.relayed", now, record));
  }

  /**
   * `initialize`: a new session with the version negotiated (the client's if spoken here, else
   * the latest), in the place the credential's quota makes for it (mcp/quota.ts); `QUOTA_EXCEEDED`
   * when the subject's or the consumer's sessions are all other credentials'.
   */
  #initialize(auth: Authenticated, id: JsonRpcId, params: JsonObject | undefined): Outcome<McpReply> {
    const parsed = jsonRpc.params(InitializeParams, params);
    if (!parsed.ok) return ok(answer(id, parsed.answer, null));
    const version = isMcpVersion(parsed.value.protocolVersion) ? parsed.value.protocolVersion : MCP_LATEST_VERSION;
    const subjectId = auth.caller.subjectId;
    if (subjectId === null) throw new Error("a subject-bound credential without a subject");
    const declared = parsed.value.capabilities as JsonObject;
    const relayable = {
      sampling: jsonRpc.objectMember(declared, "sampling"),
      elicitation: jsonRpc.objectMember(declared, "elicitation"),
    };
    const clientCapabilities = canonicalJson(
      Object.fromEntries(Object.entries(relayable).filter(([, value]) => value !== undefined)),
    );
    const session: McpSession = {
      sessionId: randomHex(16),
      credentialId: auth.caller.credentialId,
      subjectId,
      protocolVersion: version,
      logLevel: null,
      clientCapabilities,
      lastSeen: this.#kernel.now(),
    };
    const room = this.#kernel.transaction(() => this.#store.openSession(session, session.lastSeen));
    if (!room.fits) {
      const detail = `A credential keeps at most ${MAX_MCP_SESSIONS_PER_CREDENTIAL} MCP sessions, a subject ${MAX_MCP_SESSIONS_PER_SUBJECT} across its credentials and a consumer ${MAX_MCP_SESSIONS}; the subject's or the consumer's are all other credentials'. Retry when one has ended.`;
      return fail(problem("QUOTA_EXCEEDED", detail, room.retryAfterSeconds));
    }
    const result = {
      protocolVersion: version,
      capabilities: capabilitiesOf(version),
      serverInfo: { name: MCP_SERVER_NAME, version: GATE_VERSION },
      instructions: INSTRUCTIONS,
    };
    return ok(answer(id, jsonRpc.result(result), session.sessionId));
  }

  /** The session a request names: required (400), this credential's (else 404), with a protocol version spoken here (400). */
  /** A stock client's write: one key per credential, tool and canonical arguments while identical calls keep coming (store.ts `callKey`). */
  #derivedKey(credentialId: string, tool: string, args: Json): string {
    const scope = derivedId("mcps", ["scope", credentialId, tool, args]);
    const now = this.#kernel.now();
    return this.#kernel.transaction(() =>
      this.#store.callKey(scope, credentialId, now, derivedId("mcpk", ["derived", scope, now])),
    );
  }

  /** The capability tools the session's subject may see (its scope, its grants, attached providers). */
  #capabilityTools(ctx: McpContext): CapabilityToolEntry[] {
    const { caller, config } = ctx.auth;
    if (this.#capabilities === undefined || caller.subjectId === null) return [];
    return this.#capabilities.list(config.name, caller.subjectId, caller.tools, ctx.registry);
  }

  #session(auth: Authenticated, request: McpRequest): Outcome<McpSession> {
    if (request.sessionId === null)
      return fail(problem("INVALID_REQUEST", "Send the Mcp-Session-Id header that initialize answered."));
    const session = this.#store.session(request.sessionId, this.#kernel.now());
    if (session === undefined || session.credentialId !== auth.caller.credentialId) {
      return fail(
        problem(
          "NOT_FOUND",
          "No such MCP session: it was deleted, or never opened with this credential. Initialize a new one.",
        ),
      );
    }
    if (
      request.protocolVersion !== null &&
      !isMcpVersion(request.protocolVersion) &&
      request.protocolVersion !== MCP_STREAMABLE_HTTP_VERSION
    ) {
      return fail(
        problem(
          "INVALID_REQUEST",
          `MCP-Protocol-Version names a version this endpoint does not speak (it speaks ${MCP_PROTOCOL_VERSIONS.join(", ")}).`,
        ),
      );
    }
    return ok(session);
  }

  async #dispatch(
    ctx: McpContext,
    method: string,
    params: JsonObject | undefined,
    id: JsonRpcId,
  ): Promise<jsonRpc.Answer> {
    const version = ctx.session.protocolVersion as McpProtocolVersion;
    if (method.startsWith("tasks/")) {
      if (version !== "2025-11-25")
        return jsonRpc.error(
          RPC_ERRORS.methodNotFound,
          "Method not found: tasks exist from protocol version 2025-11-25.",
        );
      // A task method may wait (tasks/result) or run the call (tasks/get): it takes a token of the credential's call rate.
      const rate = this.#admission.rate(ctx.auth.caller.credentialId, limitsOf(ctx.auth.config));
      if (!rate.ok) return jsonRpc.refusal(rate.error);
    }
    if (FEDERATED_METHODS.includes(method)) {
      // Each reaches the consumer's MCP servers: it takes a token of the credential's call rate.
      const rate = this.#admission.rate(ctx.auth.caller.credentialId, limitsOf(ctx.auth.config));
      return rate.ok ? this.#federation.handle(ctx, method, params) : jsonRpc.refusal(rate.error);
    }
    switch (method) {
      case "ping":
        return jsonRpc.result({});
      case "tools/list": {
        const parsed = jsonRpc.params(ListParams, params);
        if (!parsed.ok) return parsed.answer;
        return parsed.value.cursor === undefined
          ? jsonRpc.result(listTools(ctx.registry, ctx.auth.caller, version, this.#capabilityTools(ctx), ctx.mcpTarget))
          : jsonRpc.invalidParams("Invalid cursor: tools/list answers one page.");
      }
      case "tools/call":
        return callTool(ctx, params, id, this.#tasks);
      case "logging/setLevel": {
        const parsed = jsonRpc.params(SetLevelParams, params);
        if (!parsed.ok) return parsed.answer;
        this.#kernel.transaction(() => this.#store.setLogLevel(ctx.session.sessionId, parsed.value.level));
        return jsonRpc.result({});
      }
      case "tasks/get":
        return this.#tasks.get(ctx, params);
      case "tasks/result":
        return this.#tasks.result(ctx, params);
      case "tasks/list":
        return this.#tasks.list(ctx, params);
      case "tasks/cancel":
        return this.#tasks.cancel(ctx, params);
      default:
        return jsonRpc.error(
          RPC_ERRORS.methodNotFound,
          "Method not found: this endpoint serves initialize, ping, tools/list, tools/call, logging/setLevel, resources/list, resources/templates/list, resources/read, resources/subscribe, resources/unsubscribe, prompts/list, prompts/get, completion/complete and (from 2025-11-25) tasks/get, tasks/result, tasks/list, tasks/cancel.",
        );
    }
  }
}
