/**
 * The types of the consumer object's RPC surface (./consumer-object.ts), in one place: what each
 * method takes and answers. Types only: each is defined by the feature that owns it.
 * @module
 */
import type { ToolCallRequest, ToolCallStatusRequest } from "../../contracts/tool-call";
import type { ToolCallBatchRequest } from "../../contracts/tool-call-batch";
import type { Carried } from "./rpc";

export type { AuditCall } from "./audit/rpc";
export type { CapabilityHost } from "./capability/host";
export type { CapabilityCall } from "./capability/plane";
export type { ObjectClock } from "./clock";
export type { ConsoleCall, ConsoleReply, ConsoleSignedIn } from "./console/plane";
export type { AdminCall } from "./consumer/admin-call";
export type { OAuthGrant, OAuthGrantRequest } from "./credentials/oauth-grant";
export type { EventBus } from "./events/bus";
export type { McpReply, McpRequest } from "./mcp/plane";
export type { RuntimeReply } from "./runtime/plane";
export type { ApprovalsCall } from "./tool-calls/approvals-call";
export type { ToolsCall } from "./tools/calls";
export type { WebhooksCall } from "./webhooks/calls";

/** A tool call's body as RPC carries it (./rpc.ts). */
export type ToolCallIn = Carried<ToolCallRequest>;
/** A status query's body as RPC carries it. */
export type StatusIn = Carried<ToolCallStatusRequest>;
/** A batch's body as RPC carries it. */
export type BatchIn = Carried<ToolCallBatchRequest>;
