/**
 * The consumer object's services, built once over its kernel: each takes the kernel and the
 * service objects of the other features it uses. The object's RPC methods forward to them.
 * @module
 */
import type { ToolSpec } from "../../core/tool-result/tool-spec";
import { tokenKeys } from "../credential-format";
import { tracerFor } from "../trace/config";
import { AuditHost } from "./audit/rpc";
import { CapabilityHost } from "./capability/host";
import { CapabilityCalls } from "./capability/plane";
import { ConsolePlane } from "./console/plane";
import { AdminCalls } from "./consumer/admin-call";
import { OAuthGrants } from "./credentials/oauth-grant";
import { CredentialPlane } from "./credentials/plane";
import type { ObjectServices } from "./feature";
import { Gatekeeper } from "./gatekeeper";
import { AgentAdmission } from "./identity/admission";
import type { ObjectKernel } from "./kernel";
import { McpPlane } from "./mcp/plane";
import { migrate } from "./migrations";
import { Revocation } from "./revocation";
import { RuntimeTransport } from "./runtime/plane";
import { ObjectSockets } from "./socket-upgrade";
import { AgentCalls } from "./tool-calls/agent-call";
import { ApprovalCalls } from "./tool-calls/approvals-call";
import { ToolCallPlanes } from "./tool-calls/planes";
import { ToolsCalls } from "./tools/calls";
import { ToolsHost } from "./tools/host";
import { WebhooksCalls } from "./webhooks/calls";
import { WebhookPlane } from "./webhooks/plane";

/** Every service of one consumer object. */
export interface ConsumerServices extends ObjectServices {
  readonly gate: Gatekeeper;
  readonly tools: ToolsHost;
  readonly toolCalls: ToolCallPlanes;
  /** The approver console's sessions and calls (console/plane.ts). */
  readonly console: ConsolePlane;
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
  const credentials = new CredentialPlane(kernel, tokenKeys(kernel.env));
  const gate = new Gatekeeper(kernel.config, credentials);
  const tools = new ToolsHost(kernel, codeTools);
  const toolCalls = new ToolCallPlanes(kernel, tools);
  // Webhook endpoints and their outbox: a durable listener of the events bus, delivered from the alarm.
  const webhooks = new WebhookPlane(kernel, tools.vault);
  kernel.events.durable((event, now) => webhooks.enqueue(event, now));
  const capability = CapabilityHost.of(kernel, credentials);
  const admission = new AgentAdmission(kernel);
  // Traces of agent tool calls (../trace, docs/traces.md): exported when TOOLGATE_OTLP_ENDPOINT is set, a no-op otherwise.
  const tracer = tracerFor(kernel.env, (promise) => kernel.waitUntil(promise));
  const agentCalls = new AgentCalls(kernel, gate, admission, toolCalls, tracer);
  const mcp = new McpPlane(kernel, toolCalls, admission, gate, agentCalls);
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
    console: new ConsolePlane(kernel, credentials, toolCalls, gate),
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
