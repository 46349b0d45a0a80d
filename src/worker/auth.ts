import type { Context } from "hono";
import { bearerToken, parseCredential, type ParsedCredential } from "./credential-format";
import type { Env } from "./env";
import { UNAUTHENTICATED, problemResponse } from "./problem";
import { secretsEqual } from "./timing-safe";

/** Hono context of the gate. */
export type GateContext = Context<{ Bindings: Env }>;

/**
 * The admin check, done in the Worker: constant-time against the `TOOLGATE_ADMIN_TOKEN`
 * secret. An unset secret refuses everyone, with the same 401 as a wrong token.
 */
export function adminProblem(c: GateContext): Response | null {
  const token = bearerToken(c.req.header("authorization") ?? null);
  const secret = c.env.TOOLGATE_ADMIN_TOKEN;
  if (token === null || secret === undefined || secret.length < 16) return problemResponse(UNAUTHENTICATED);
  return secretsEqual(token, secret) ? null : problemResponse(UNAUTHENTICATED);
}

/**
 * The Worker's half of credential checking: shape and checksum only, so malformed input never
 * wakes a Durable Object. The consumer's object checks the secret, the kind and revocation.
 */
export function credentialOf(c: GateContext): ParsedCredential | Response {
  const token = bearerToken(c.req.header("authorization") ?? null);
  const parsed = token === null ? null : parseCredential(token);
  return parsed ?? problemResponse(UNAUTHENTICATED);
}
