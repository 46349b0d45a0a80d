import type { Outcome } from "../../result";
import { defineFeature } from "../../kernel/feature";
import type { ToolCallRequest, ToolCallStatusRequest } from "../../../contracts/tool-call";
import type { ToolCallBatchRequest } from "../../../contracts/tool-call-batch";
import type { Carried } from "../../kernel/rpc";
import type { TraceParent } from "../../trace/context";
import { AgentCalls } from "./agent-call";
import { approvalRoutes } from "./approval-routes";
import { ApprovalCalls, type ApprovalsCall } from "./approvals-call";
import { toolCallBatchRoutes } from "./batch-routes";
import { toolCallRoutes } from "./routes";
import { ToolCallServices } from "./services";
import { TOOL_CALL_EXPIRY, TOOL_CALL_MIGRATIONS } from "./store";

declare module "../../kernel/feature" {
  interface Services {
    readonly toolCalls: ToolCallServices;
    readonly agentCalls: AgentCalls;
    readonly approvals: ApprovalCalls;
  }
  interface Operations {
    /** One agent call (its answer's text, sent as it is). */
    toolCall(
      s: Services,
      consumer: string,
      token: string,
      request: Carried<ToolCallRequest>,
      trace?: TraceParent | null,
    ): Promise<Outcome<string>>;
    /** An unknown outcome's status. */
    toolCallStatus(
      s: Services,
      consumer: string,
      token: string,
      request: Carried<ToolCallStatusRequest>,
    ): Promise<Outcome<string>>;
    /** One model turn's calls. */
    toolCallBatch(
      s: Services,
      consumer: string,
      token: string,
      request: Carried<ToolCallBatchRequest>,
      trace?: TraceParent | null,
    ): Promise<Outcome<string>>;
    /** Approvers' reads and decisions. */
    approvalsCall(s: Services, consumer: string, token: string, call: ApprovalsCall): Promise<Outcome<string>>;
    /** The approval events stream. */
    approvalEvents(s: Services, consumer: string, token: string): Outcome<ReadableStream<Uint8Array>>;
  }
}

/** Tool calls and approvals: their tables, the records and decided approvals that expire, calls in flight recovered at start. */
export const feature = defineFeature({
  name: "tool-calls",
  // The batch before a call's own routes; approvals' `…/approvals/events` before `…/approvals/{approval_id}`.
  routes: [toolCallRoutes, toolCallBatchRoutes, approvalRoutes],
  services: {
    toolCalls: (use) => new ToolCallServices(use("kernel"), use("tools"), use("standing")),
    agentCalls: (use) =>
      new AgentCalls(
        use("kernel"),
        use("gate"),
        use("admission"),
        use("toolCalls"),
        use("tracer"),
        use("capabilityTools"),
      ),
    approvals: (use) => new ApprovalCalls(use("kernel"), use("gate"), use("toolCalls"), use("admission")),
  },
  operations: {
    toolCall: (s, consumer, token, request, trace) => s.agentCalls.toolCall(consumer, token, request, trace ?? null),
    toolCallStatus: (s, consumer, token, request) => s.agentCalls.toolCallStatus(consumer, token, request),
    toolCallBatch: (s, consumer, token, request, trace) =>
      s.agentCalls.toolCallBatch(consumer, token, request, trace ?? null),
    approvalsCall: (s, consumer, token, call) => s.approvals.call(consumer, token, call),
    approvalEvents: (s, consumer, token) => s.approvals.events(consumer, token),
  },
  migrations: TOOL_CALL_MIGRATIONS,
  expiry: TOOL_CALL_EXPIRY,
  start: (s) =>
    s.kernel.transaction(() => {
      const config = s.kernel.config.load();
      if (config !== undefined) s.toolCalls.for(config).recover(s.kernel.now());
    }),
});
