import type { Context } from "hono";
import { bearerToken, parseCredential, tokenKeys, type ParsedCredential } from "../features/credentials/format";
import type { Env } from "../env";
import { secretsEqual } from "./timing-safe";

/** Shortest admin secret accepted: a shorter (or unset) one admits no one. */
export const MIN_ADMIN_TOKEN_CHARS = 16;

/**
 * Whether the request carries the admin secret, checked in the Worker: constant-time against
 * the `TOOLGATE_ADMIN_TOKEN` secret. An unset (or too short) secret admits no one.
 */
export function isAdmin<E extends { Bindings: Env }>(c: Context<E>): boolean {
  const token = bearerToken(c.req.header("authorization") ?? null);
  const secret = c.env.TOOLGATE_ADMIN_TOKEN;
  if (token === null || secret === undefined || secret.length < MIN_ADMIN_TOKEN_CHARS) return false;
  return secretsEqual(token, secret);
}

/**
 * The Worker's half of credential checking: shape and the keyed tag for this consumer, so a
 * forged token or another consumer's never wakes (or creates) a Durable Object. The consumer's
 * object checks the secret, the kind, expiry and revocation.
 */
export function credentialOf<E extends { Bindings: Env }>(c: Context<E>, consumer: string): ParsedCredential | null {
  return keyedCredential(bearerToken(c.req.header("authorization") ?? null), consumer, c.env);
}

/** {@link credentialOf} for a token read elsewhere (a WebSocket subprotocol). */
export function keyedCredential(token: string | null, consumer: string, env: Env): ParsedCredential | null {
  return token === null ? null : parseCredential(token, consumer, tokenKeys(env));
}
