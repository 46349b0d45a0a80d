/**
 * Token revocation (RFC 7009) that ends the whole grant: the library revokes an access token
 * alone, and a refresh token with its grant; here revoking either ends the grant (RFC 7009 §2.1
 * lets an access token's revocation take its refresh token along) and the gate credential it
 * carried, so nothing of it works or counts against its subject any more.
 * @module
 */
import type { GrantSummary } from "@cloudflare/workers-oauth-provider";
import type { Env } from "../env";
import { stubOf } from "../routes/middleware";
import type { OAuthServer } from "./server";

/** Grants of one user read while looking for the one a revoked token names (a subject holds a handful). */
const GRANTS_READ = 100;

/** The grant `grantId` of `userId`, or `null`. */
async function grantOf(oauth: OAuthServer, userId: string, grantId: string): Promise<GrantSummary | null> {
  const { items } = await oauth.api.listUserGrants(userId, { limit: GRANTS_READ });
  return items.find((grant) => grant.id === grantId) ?? null;
}

/**
 * Answers a revocation request of `consumer`'s authorization server (the library checks the
 * client owns the token); when it revoked something, the grant and its credential end too.
 */
export async function revokeGrant(oauth: OAuthServer, consumer: string, token: string, request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const [userId = "", grantId = ""] = token.split(":");
  const grant = await grantOf(oauth, userId, grantId);
  const access = grant === null ? null : await oauth.api.unwrapToken(token);
  const answer = await oauth.server.fetch(request, env, ctx);
  if (grant === null || answer.status !== 200) return answer;
  // What the library revoked: the access token (gone now), or the refresh token with its grant.
  const revoked = access !== null ? (await oauth.api.unwrapToken(token)) === null : (await grantOf(oauth, userId, grantId)) === null;
  if (!revoked) return answer;
  await oauth.api.revokeGrant(grantId, userId);
  const credentialId: unknown = grant.metadata?.credential_id;
  const stub = stubOf(env, consumer);
  if (typeof credentialId === "string" && stub !== null) await stub.oauthEnd(credentialId);
  return answer;
}
