import { PROBLEM_STATUS, PROBLEM_TITLES, type ProblemCode } from "../contracts/problem";

export { PROBLEM_STATUS, type ProblemCode };

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
  const base = JSON.stringify({ type: problemType(p.code), title: PROBLEM_TITLES[p.code], status, code: p.code, detail: p.detail, ...(p.path === undefined ? {} : { path: p.path }) });
  const body = p.errorJson === undefined ? base : `${base.slice(0, -1)},"error":${p.errorJson}}`;
  const headers: Record<string, string> = { "content-type": "application/problem+json" };
  if (p.retryAfterSeconds !== undefined) headers["retry-after"] = String(p.retryAfterSeconds);
  if (p.code === "UNAUTHENTICATED") headers["www-authenticate"] = 'Bearer realm="toolgate"';
  return new Response(body, { status, headers });
}
