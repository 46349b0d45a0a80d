/**
 * The consumer object's services, built once over its kernel: each takes the kernel and the
 * service objects of the other features it uses. The object's RPC methods forward to them.
 * @module
 */
import type { ToolSpec } from "../../core/tool-result/tool-spec";
import { tokenKeys } from "../features/credentials/format";
import { tracerFor } from "../trace/config";
import { AuditHost } from "../features/audit/rpc";
import { CapabilityService } from "../features/capability/service";
import { CapabilityCalls } from "../features/capability/calls";
import { CapabilityTools } from "../features/capability/tool-call";
import { ConsoleService } from "../features/console/service";
import { AdminCalls } from "../features/consumers/admin-call";
import { OAuthGrants } from "../features/credentials/oauth-grant";
import { CredentialService } from "../features/credentials/service";
import type { ObjectServices } from "./feature";
import { Gatekeeper } from "./gatekeeper";
import { AgentAdmission } from "../features/identity/admission";
import type { ObjectKernel } from "./kernel";
import { McpService } from "../features/mcp/service";
import { migrate } from "./migrations";
import { Revocation } from "../features/credentials/revocation";
import { RuntimeTransport } from "../features/runtime/service";
import { ObjectSockets } from "../features/sockets/upgrade";
import { AgentCalls } from "../features/tool-calls/agent-call";
import { ApprovalCalls } from "../features/tool-calls/approvals-call";
import { ToolCallServices } from "../features/tool-calls/services";
import { ToolsCalls } from "../features/tools/calls";
import { ToolsHost } from "../features/tools/host";
import { WebhooksCalls } from "../features/webhooks/calls";
import { WebhookService } from "../features/webhooks/service";

/** Every service of one consumer object. */
export interface ConsumerServices extends ObjectServices {
  readonly gate: Gatekeeper;
  readonly tools: ToolsHost;
  readonly toolCalls: ToolCallServices;
  /** The approver console's sessions and calls (console/service.ts). */
  readonly console: ConsoleService;
  readonly agentCalls: AgentCalls;
  readonly runtime: RuntimeTransport;
  readonly admin: AdminCalls;
  readonly approvals: ApprovalCalls;
  readonly oauth: OAuthGrants;
  readonly toolsCalls: ToolsCalls;
  readonly capabilityCalls: CapabilityCalls;
  readonly webhooksCalls: WebhooksCalls;
  readonly sockets: ObjectSockets;
}

/** Builds the services (`codeTools`: the embedding Worker's in-process tools, `createGate({ tools })`). */
export function consumerServices(kernel: ObjectKernel, codeTools: () => readonly ToolSpec[]): ConsumerServices {
  const credentials = new CredentialService(kernel, tokenKeys(kernel.env));
  const gate = new Gatekeeper(kernel.config, credentials);
  const tools = new ToolsHost(kernel, codeTools);
  const toolCalls = new ToolCallServices(kernel, tools);
  // Webhook endpoints and their outbox: a durable listener of the events bus, delivered from the alarm.
  const webhooks = new WebhookService(kernel, tools.vault);
  kernel.events.durable((event, now) => webhooks.enqueue(event, now));
  const capability = CapabilityService.of(kernel, credentials);
  const admission = new AgentAdmission(kernel);
  // Traces of agent tool calls (../trace, docs/traces.md): exported when TOOLGATE_OTLP_ENDPOINT is set, a no-op otherwise.
  const tracer = tracerFor(kernel.env, (promise) => kernel.waitUntil(promise));
  // The capabilities providers offer, as tools of MCP and the tool-call route.
  const capabilityTools = new CapabilityTools(kernel, capability);
  const agentCalls = new AgentCalls(kernel, gate, admission, toolCalls, tracer, capabilityTools);
  const mcp = new McpService(kernel, toolCalls, admission, gate, agentCalls, capabilityTools);
  const runtime = new RuntimeTransport(kernel, toolCalls, credentials, gate);
  const revocation = new Revocation(kernel, mcp, capability);
  return {
    kernel,
    credentials,
    admission,
    mcp,
    capability,
    webhooks,
    gate,
    tools,
    toolCalls,
    runtime,
    audit: new AuditHost(kernel, gate),
    console: new ConsoleService(kernel, credentials, toolCalls, gate),
    agentCalls,
    admin: new AdminCalls(kernel, gate, credentials, tools, toolCalls, runtime, revocation),
    approvals: new ApprovalCalls(kernel, gate, toolCalls),
    oauth: new OAuthGrants(kernel, gate, credentials, revocation),
    toolsCalls: new ToolsCalls(kernel, gate, tools, toolCalls),
    capabilityCalls: new CapabilityCalls(kernel, gate, capability),
    webhooksCalls: new WebhooksCalls(kernel, gate, webhooks),
    sockets: new ObjectSockets(kernel, gate, credentials, capability, runtime),
  };
}

/** The object's start (inside `blockConcurrencyWhile`): the schema, the webhook alarm, the audit tree, then calls in flight before a restart. */
export function start(services: ConsumerServices): void {
  const { kernel } = services;
  kernel.transaction(() => migrate(kernel.sql));
  services.webhooks.rearm();
  services.audit.backfill();
  kernel.transaction(() => {
    const config = kernel.config.load();
    if (config !== undefined) services.toolCalls.for(config).recover(kernel.now());
  });
}
