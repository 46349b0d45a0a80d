/**
 * The types of the consumer object's RPC surface (./consumer-object.ts), in one place: what each
 * method takes and answers. Types only: each is defined by the feature that owns it.
 * @module
 */
import type { ToolCallRequest, ToolCallStatusRequest } from "../../contracts/tool-call";
import type { ToolCallBatchRequest } from "../../contracts/tool-call-batch";
import type { Outcome } from "../result";
import type { TraceParent } from "../trace/context";
import type { Carried } from "./rpc";

export type { AuditCall } from "../features/audit/rpc";
export type { CapabilityService } from "../features/capability/service";
export type { CapabilityCall } from "../features/capability/calls";
export type { ObjectClock } from "./clock";
export type { ConsoleCall, ConsoleReply, ConsoleSignedIn } from "../features/console/service";
export type { AdminCall } from "../features/consumers/admin-call";
export type { OAuthGrant, OAuthGrantRequest } from "../features/credentials/oauth-grant";
export type { EventBus } from "../features/events/bus";
export type { McpReply, McpRequest } from "../features/mcp/service";
export type { RuntimeReply } from "../features/runtime/service";
export type { ApprovalsCall } from "../features/tool-calls/approvals-call";
export type { ToolsCall } from "../features/tools/calls";
export type { WebhooksCall } from "../features/webhooks/calls";
export type { TraceParent } from "../trace/context";
/** The text answer of an agent call (the Worker sends it as it is). */
export type Answer = Promise<Outcome<string>>;
/** A call's W3C trace context as the Worker read it (null or absent: a new trace). */
export type Trace = TraceParent | null;

/** A tool call's body as RPC carries it (./rpc.ts). */
export type ToolCallIn = Carried<ToolCallRequest>;
/** A status query's body as RPC carries it. */
export type StatusIn = Carried<ToolCallStatusRequest>;
/** A batch's body as RPC carries it. */
export type BatchIn = Carried<ToolCallBatchRequest>;
