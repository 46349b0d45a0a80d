/**
 * The error contract every answer of the gate keeps, as pure logic (workerd and Node alike):
 * below 500, and a 4xx is an RFC 9457 problem whose code is in the catalog at its catalog status.
 */
import { PROBLEM_STATUS } from "../../../src/worker/http/problem";

/** Why an answer breaks the error contract, or null: < 500, and a 4xx is a catalog problem. */
export function contractBreach(status: number, contentType: string | null, text: string): string | null {
  if (status >= 500) return `status ${status}`;
  if (status < 400) return null;
  if (!(contentType ?? "").startsWith("application/problem+json")) return `${status} without problem+json`;
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return `${status} body is not JSON`;
  }
  const code = body?.code;
  if (typeof code !== "string" || !Object.hasOwn(PROBLEM_STATUS, code))
    return `code ${String(code)} not in the catalog`;
  if (PROBLEM_STATUS[code as keyof typeof PROBLEM_STATUS] !== status || body.status !== status)
    return `code ${code} with status ${status}`;
  if (typeof body.type !== "string" || typeof body.title !== "string" || typeof body.detail !== "string")
    return "problem members missing";
  return null;
}
