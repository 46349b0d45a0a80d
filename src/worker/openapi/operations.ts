import { Health, OpenApiDescription } from "../../contracts/service";
import type { OperationDoc } from "./operation";
import { oauthOperations } from "../oauth/routes";
import { adminOperations } from "../routes/admin";
import { adminReadOperations } from "../routes/admin-reads";
import { approvalOperations } from "../routes/approvals";
import { auditOperations } from "../routes/audit";
import { capabilityOperations } from "../routes/capability";
import { mcpOperations } from "../routes/mcp";
import { runtimeOperations } from "../routes/runtime";
import { signingKeyOperations } from "../routes/signing-keys";
import { toolCallOperations } from "../routes/tool-calls";
import { toolCallBatchOperations } from "../routes/tool-call-batch";
import { toolOperations } from "../routes/tools";
import { mcpServerOperations } from "../routes/mcp-servers";
import { webhookOperations } from "../routes/webhooks";

/** Every route the gate serves, as the OpenAPI document shows it and CORS and `405` read it. */
export const operations: readonly OperationDoc[] = [
  { method: "get", path: "/healthz", summary: "Liveness.", operation: "none", response: { status: 200, schema: Health, description: "Serving." }, problems: [] },
  { method: "get", path: "/v1/openapi.json", summary: "This document (a Worker embedding the gate without the ASSETS binding answers 404).", operation: "none", response: { status: 200, schema: OpenApiDescription, description: "OpenAPI 3.1." }, problems: ["NOT_FOUND"] },
  ...adminOperations,
  ...adminReadOperations,
  ...toolOperations,
  ...mcpServerOperations,
  ...webhookOperations,
  ...toolCallOperations,
  ...toolCallBatchOperations,
  ...mcpOperations,
  ...oauthOperations,
  ...approvalOperations,
  ...auditOperations,
  ...signingKeyOperations,
  ...runtimeOperations,
  ...capabilityOperations,
];
