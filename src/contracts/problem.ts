import * as z from "../core/zod";
import { httpSchemas } from "./registry";
import { DOCS } from "./docs";

/**
 * Every HTTP-level error code and its status. A code without a status does not compile.
 * Model-level failures (`APPROVAL_REQUIRED`, `NOT_FOUND` of a tool call, …) are not here:
 * they are `200` answers carrying a `model_result`.
 */
export const PROBLEM_STATUS = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVALID_JSON: 400,
  INVALID_REQUEST: 400,
  INVALID_HOST_CONTEXT: 400,
  INVALID_PROVIDER_ITEM: 400,
  IDEMPOTENCY_IN_PROGRESS: 409,
  APPROVAL_ALREADY_DECIDED: 409,
  APPROVAL_EXPIRED: 409,
  APPROVER_NOT_ALLOWED: 403,
  SELF_APPROVAL_FORBIDDEN: 403,
  // An approval the requesting end user confirms: an approver may deny it, never approve or edit it.
  END_USER_CONFIRMS: 403,
  // An end user's decision on an approval the consumer's approvers decide.
  END_USER_CONFIRMATION_NOT_OFFERED: 403,
  // A standing approval outside what the consumer's `standing_approvals` setting allows.
  STANDING_APPROVAL_NOT_ALLOWED: 403,
  APPROVAL_DIGEST_MISMATCH: 409,
  // An approver's edit whose arguments the tool's input contract refuses (the pointer in `path`).
  INVALID_ARGUMENTS: 422,
  // Identity: the principal a call acts for must come from what the gate verified.
  PRINCIPAL_MISMATCH: 403,
  ROLE_NOT_ALLOWED: 403,
  TOOL_NOT_IN_SCOPE: 403,
  PRINCIPAL_TOKEN_REJECTED: 403,
  // Quotas and rate limits (each with Retry-After where waiting helps).
  RATE_LIMITED: 429,
  QUOTA_EXCEEDED: 429,
  INVALID_CURSOR: 400,
  ACTION_COMMIT_IN_FLIGHT: 409,
  // Tools as data: a definition outside the supported subset (with the JSON pointer in `path`),
  // a consumer enabling tool names nobody defined.
  INVALID_TOOL_DEFINITION: 422,
  UNKNOWN_TOOL_NAMES: 422,
  INTERNAL: 500,
  // Answered by the local edge of `npm start` before a request reaches the Worker (in production
  // Cloudflare's edge refuses malformed HTTP itself); listed so clients see one catalog.
  MALFORMED_HTTP: 400,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  UPSTREAM_UNAVAILABLE: 503,
  // Execution envelope refusals: the codec's codes in upper case (an envelope that is not JSON
  // of the envelope's shape is INVALID_JSON).
  UNKNOWN_FIELD: 422,
  UNSUPPORTED_VERSION: 422,
  MISSING_IDENTIFIER: 422,
  INVALID_BINDING: 422,
  UNSUPPORTED_FAMILY: 422,
  UPGRADE_REQUIRED: 426,
  // Capability engine refusals (the engine's tagged error is in the `error` member).
  CAPABILITY_INVALID: 422,
  CAPABILITY_REJECTED: 409,
  CAPABILITY_CAPACITY: 429,
  // OAuth sign-in of MCP clients: the deployment binds no OAUTH_KV (or the origin cannot be an issuer).
  OAUTH_NOT_CONFIGURED: 404,
  // MCP endpoint: an Origin or Host that fails the DNS-rebinding rule, an Accept it cannot answer.
  ORIGIN_REFUSED: 403,
  NOT_ACCEPTABLE: 406,
  // MCP servers as targets: a name registered twice; a server that could not be listed (the
  // registration is refused, nothing stored).
  MCP_SERVER_EXISTS: 409,
  MCP_SERVER_UNREACHABLE: 422,
  // Verifiable audit log: the deployment sets no TOOLGATE_AUDIT_SIGNING_KEY (checkpoint routes only);
  // the stored log does not extend its latest signed checkpoint (rewritten): nothing is signed.
  AUDIT_SIGNING_NOT_CONFIGURED: 404,
  // Request signatures: the deployment sets no usable TOOLGATE_SIGNING_KEY (no key is published).
  SIGNING_NOT_CONFIGURED: 404,
  AUDIT_LOG_INCONSISTENT: 500,
  // Webhooks: the deployment sets no TOOLGATE_SECRETS_KEY (endpoint secrets are sealed with it);
  // a redelivery of a delivery that is still pending.
  WEBHOOKS_NOT_CONFIGURED: 404,
  WEBHOOK_DELIVERY_PENDING: 409,
  // Approver console: a state-changing request without the session's CSRF token or from another origin.
  CSRF_REFUSED: 403,
  // The `Idempotency-Key` header (draft-ietf-httpapi-idempotency-key-header): not one structured-field
  // String or token, or sent more than once; a key that differs from the body's `context.idempotency_key`.
  INVALID_IDEMPOTENCY_KEY: 400,
  IDEMPOTENCY_KEY_MISMATCH: 422,
  // The deployment lacks a secret the request needs (`GET /healthz` names the missing ones): the
  // operator's fix, not the client's, and nothing a retry changes until it is set.
  GATE_MISCONFIGURED: 503,
} as const satisfies Record<
  string,
  400 | 401 | 403 | 404 | 405 | 406 | 408 | 409 | 413 | 415 | 422 | 426 | 429 | 431 | 500 | 503
>;

/** A stable HTTP error code of the gate. */
export type ProblemCode = keyof typeof PROBLEM_STATUS;

/** The codes whose answers may carry `Retry-After` (where waiting helps). */
export const RETRY_AFTER_CODES: ReadonlySet<ProblemCode> = new Set<ProblemCode>([
  "RATE_LIMITED",
  "QUOTA_EXCEEDED",
  "IDEMPOTENCY_IN_PROGRESS",
]);

/** The RFC 9457 `title` of each code. */
export const PROBLEM_TITLES: Record<ProblemCode, string> = {
  UNAUTHENTICATED: "Unauthorized",
  FORBIDDEN: "Forbidden",
  NOT_FOUND: "Not found",
  BODY_TOO_LARGE: "Request body too large",
  UNSUPPORTED_MEDIA_TYPE: "Unsupported media type",
  INVALID_JSON: "Request body is not strict JSON",
  INVALID_REQUEST: "Request does not match its contract",
  INVALID_HOST_CONTEXT: "Host context is not valid",
  INVALID_PROVIDER_ITEM: "Provider item is not valid",
  IDEMPOTENCY_IN_PROGRESS: "The same call is still executing",
  APPROVAL_ALREADY_DECIDED: "Approval already decided",
  APPROVAL_EXPIRED: "Approval request expired",
  APPROVER_NOT_ALLOWED: "Subject may not approve",
  SELF_APPROVAL_FORBIDDEN: "The requesting subject may not approve its own call",
  END_USER_CONFIRMS: "The requesting end user confirms this call",
  END_USER_CONFIRMATION_NOT_OFFERED: "The consumer's approvers decide this call",
  STANDING_APPROVAL_NOT_ALLOWED: "The consumer does not allow this standing approval",
  APPROVAL_DIGEST_MISMATCH: "Approval digest is not the pending call's",
  INVALID_ARGUMENTS: "Edited arguments do not fit the tool's contract",
  PRINCIPAL_MISMATCH: "Credential may not act for this subject",
  ROLE_NOT_ALLOWED: "Credential may not assert this role",
  TOOL_NOT_IN_SCOPE: "Credential may not call this tool",
  PRINCIPAL_TOKEN_REJECTED: "Principal token was not verified",
  RATE_LIMITED: "Too many requests",
  QUOTA_EXCEEDED: "Quota exceeded",
  INVALID_CURSOR: "Cursor is not valid",
  ACTION_COMMIT_IN_FLIGHT: "The action's commit is in flight",
  INVALID_TOOL_DEFINITION: "Tool definition is not supported",
  UNKNOWN_TOOL_NAMES: "Consumer enables tools that are not defined",
  INTERNAL: "Internal error",
  MALFORMED_HTTP: "Malformed HTTP request",
  METHOD_NOT_ALLOWED: "Method not allowed",
  REQUEST_TIMEOUT: "Request not received in time",
  HEADERS_TOO_LARGE: "Request head too large",
  UPSTREAM_UNAVAILABLE: "The gate is not reachable",
  UNKNOWN_FIELD: "Envelope has a field outside the contract",
  UNSUPPORTED_VERSION: "Envelope protocol version is not supported",
  MISSING_IDENTIFIER: "Envelope is missing a required identifier",
  INVALID_BINDING: "Envelope binding is invalid",
  UNSUPPORTED_FAMILY: "The gate does not accept this envelope family",
  UPGRADE_REQUIRED: "WebSocket upgrade required",
  CAPABILITY_INVALID: "Capability engine refused invalid input",
  CAPABILITY_REJECTED: "Capability engine rejected the operation",
  CAPABILITY_CAPACITY: "Capability engine capacity exceeded",
  OAUTH_NOT_CONFIGURED: "OAuth sign-in is not configured",
  ORIGIN_REFUSED: "Origin or Host refused",
  NOT_ACCEPTABLE: "Accept names no media type the endpoint answers",
  MCP_SERVER_EXISTS: "An MCP server of this name is registered",
  MCP_SERVER_UNREACHABLE: "The MCP server could not be imported",
  AUDIT_SIGNING_NOT_CONFIGURED: "Audit checkpoint signing is not configured",
  SIGNING_NOT_CONFIGURED: "Request signing is not configured",
  AUDIT_LOG_INCONSISTENT: "The audit log does not extend its signed checkpoint",
  WEBHOOKS_NOT_CONFIGURED: "Webhooks are not configured",
  WEBHOOK_DELIVERY_PENDING: "The webhook delivery is still pending",
  CSRF_REFUSED: "Cross-site request refused",
  INVALID_IDEMPOTENCY_KEY: "Idempotency-Key header is not valid",
  IDEMPOTENCY_KEY_MISMATCH: "Idempotency-Key header and body disagree",
  GATE_MISCONFIGURED: "The gate is missing a required secret",
};

/** The stable code of a problem, as the document lists them (once, referred to by each problem). */
export const ProblemCodeSchema = z.deferred(() =>
  z.enum(Object.keys(PROBLEM_STATUS) as [ProblemCode, ...ProblemCode[]]).register(httpSchemas, {
    id: "ProblemCode",
    description: DOCS ? "toolgate's stable problem code; its status is fixed (docs/http-api.md)." : "",
  }),
);

/** The RFC 9457 members every problem of the gate carries, its stable `code` among them. */
export const PROBLEM_MEMBERS = z.deferredShape(() => ({
  type: z.string(),
  title: z.string(),
  status: z.int(),
  code: ProblemCodeSchema,
  detail: z.string(),
}));

/** RFC 9457 problem details with toolgate's stable `code`. */
export const ProblemDetails = z.deferred(() =>
  z
    .strictObject({
      ...PROBLEM_MEMBERS(),
      path: z.optional(z.string()).check(
        z.meta({
          description: DOCS
            ? "Where the offending input is: a JSON path (envelope `unknown_field`), a JSON pointer into a tool definition (`INVALID_TOOL_DEFINITION`) or into a decision's edited arguments (`INVALID_ARGUMENTS`, e.g. `/arguments/amount`)."
            : "",
        }),
      ),
      error: z.optional(z.record(z.string(), z.unknown())).check(
        z.meta({
          description: DOCS
            ? 'With CAPABILITY_INVALID, CAPABILITY_REJECTED and CAPABILITY_CAPACITY: the capability engine\'s tagged error, one member named by its kind (`{"sequence-out-of-range": {…}}`; docs/capability-http.md).'
            : "",
          minProperties: 1,
          maxProperties: 1,
        }),
      ),
    })
    .register(httpSchemas, { id: "ProblemDetails" }),
);
