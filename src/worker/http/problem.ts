import { PROBLEM_STATUS, PROBLEM_TITLES, type ProblemCode } from "../../contracts/problem";

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

/** The members of a problem's RFC 9457 body, in the order every rendering writes them. */
export interface ProblemMembers {
  type: string;
  title: string;
  status: number;
  code: ProblemCode;
  detail: string;
  path?: string;
}

/** A problem's RFC 9457 members (a batch's entry embeds them as they are). */
export function problemMembers(p: Problem): ProblemMembers {
  const members: ProblemMembers = {
    type: problemType(p.code),
    title: PROBLEM_TITLES[p.code],
    status: PROBLEM_STATUS[p.code],
    code: p.code,
    detail: p.detail,
  };
  if (p.path !== undefined) members.path = p.path;
  return members;
}

/**
 * Renders a problem as an RFC 9457 `application/problem+json` response: the one renderer of the
 * gate. `extension`: members a wrapper adds after the problem's own (the MCP endpoint's JSON-RPC
 * error response); `headers`: answer headers it adds.
 */
export function problemResponse(
  p: Problem,
  extension: Readonly<Record<string, unknown>> = {},
  headers: Readonly<Record<string, string>> = {},
): Response {
  const base = JSON.stringify({ ...problemMembers(p), ...extension });
  const body = p.errorJson === undefined ? base : `${base.slice(0, -1)},"error":${p.errorJson}}`;
  const answer: Record<string, string> = { "content-type": "application/problem+json", ...headers };
  if (p.retryAfterSeconds !== undefined) answer["retry-after"] = String(p.retryAfterSeconds);
  if (p.code === "UNAUTHENTICATED") answer["www-authenticate"] = 'Bearer realm="toolgate"';
  return new Response(body, { status: PROBLEM_STATUS[p.code], headers: answer });
}
