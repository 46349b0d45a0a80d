import type { ContentfulStatusCode } from "hono/utils/http-status";

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
  INTERNAL: 500,
  // Answered by the local edge of `npm start` before a request reaches the Worker (in production
  // Cloudflare's edge refuses malformed HTTP itself); listed so clients see one catalog.
  MALFORMED_HTTP: 400,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  UPSTREAM_UNAVAILABLE: 503,
  // Execution envelope refusals: the codec's own codes (runtime transport).
  invalid_json: 400,
  unknown_field: 422,
  unsupported_version: 422,
  missing_identifier: 422,
  invalid_binding: 422,
  UNSUPPORTED_FAMILY: 422,
  UPGRADE_REQUIRED: 426,
  // Capability engine refusals (the engine's tagged error is in the `error` member).
  CAPABILITY_INVALID: 422,
  CAPABILITY_REJECTED: 409,
  CAPABILITY_CAPACITY: 429,
} as const satisfies Record<string, ContentfulStatusCode>;

/** A stable HTTP error code of the gate. */
export type ProblemCode = keyof typeof PROBLEM_STATUS;

/** An expected failure as a value; only this module turns it into HTTP. */
export interface Problem {
  code: ProblemCode;
  detail: string;
  /** Seconds for a `Retry-After` header (in-progress answers). */
  retryAfterSeconds?: number;
  /** JSON path of the offending field (`unknown_field` refusals of an envelope). */
  path?: string;
  /** Pre-serialized JSON of an `error` extension member (the capability engine's tagged error). */
  errorJson?: string;
}

const TITLES: Record<ProblemCode, string> = {
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
  INTERNAL: "Internal error",
  MALFORMED_HTTP: "Malformed HTTP request",
  METHOD_NOT_ALLOWED: "Method not allowed",
  REQUEST_TIMEOUT: "Request not received in time",
  HEADERS_TOO_LARGE: "Request head too large",
  UPSTREAM_UNAVAILABLE: "The gate is not reachable",
  invalid_json: "Envelope is not JSON of the envelope's shape",
  unknown_field: "Envelope has a field outside the contract",
  unsupported_version: "Envelope protocol version is not supported",
  missing_identifier: "Envelope is missing a required identifier",
  invalid_binding: "Envelope binding is invalid",
  UNSUPPORTED_FAMILY: "The gate does not accept this envelope family",
  UPGRADE_REQUIRED: "WebSocket upgrade required",
  CAPABILITY_INVALID: "Capability engine refused invalid input",
  CAPABILITY_REJECTED: "Capability engine rejected the operation",
  CAPABILITY_CAPACITY: "Capability engine capacity exceeded",
};

/** The `type` URI of a problem code (RFC 9457 §3.1.1). */
export function problemType(code: ProblemCode): string {
  return `https://toolgate.dev/problems/${code.toLowerCase().replaceAll("_", "-")}`;
}

/** Builds a problem value. */
export function problem(code: ProblemCode, detail: string, retryAfterSeconds?: number): Problem {
  return retryAfterSeconds === undefined ? { code, detail } : { code, detail, retryAfterSeconds };
}

/** The single body every authentication failure gets, whatever the reason. */
export const UNAUTHENTICATED: Problem = { code: "UNAUTHENTICATED", detail: "Missing or invalid credential." };

/** Renders a problem as an RFC 9457 `application/problem+json` response. */
export function problemResponse(p: Problem): Response {
  const status = PROBLEM_STATUS[p.code];
  const base = JSON.stringify({ type: problemType(p.code), title: TITLES[p.code], status, code: p.code, detail: p.detail, ...(p.path === undefined ? {} : { path: p.path }) });
  const body = p.errorJson === undefined ? base : `${base.slice(0, -1)},"error":${p.errorJson}}`;
  const headers: Record<string, string> = { "content-type": "application/problem+json" };
  if (p.retryAfterSeconds !== undefined) headers["retry-after"] = String(p.retryAfterSeconds);
  if (p.code === "UNAUTHENTICATED") headers["www-authenticate"] = 'Bearer realm="toolgate"';
  return new Response(body, { status, headers });
}
