/**
 * Ending grants in `OAUTH_KV` with their gate credentials. Token revocation (RFC 7009): the
 * library revokes an access token alone, and a refresh token with its grant; here revoking either
 * ends the grant (RFC 7009 §2.1 lets an access token's revocation take its refresh token along)
 * and the credential it carried, so nothing of it works or counts against its subject any more.
 * And a consent whose credential displaced the subject's oldest ends those credentials' grants.
 * @module
 */
import type { GrantSummary } from "@cloudflare/workers-oauth-provider";
import type { Env } from "../../env";
import { objectOf } from "../../http/middleware";
import type { OAuthServer } from "./server";

/** Every grant of `userId` (one subject of one consumer: at most its cap of live ones, and codes not yet exchanged). */
async function grantsOf(oauth: OAuthServer, userId: string): Promise<GrantSummary[]> {
  const grants: GrantSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await oauth.api.listUserGrants(userId, cursor === undefined ? {} : { cursor });
    grants.push(...page.items);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return grants;
}

/** The grant `grantId` of `userId`, or `null`. */
async function grantOf(oauth: OAuthServer, userId: string, grantId: string): Promise<GrantSummary | null> {
  return (await grantsOf(oauth, userId)).find((grant) => grant.id === grantId) ?? null;
}

/** The gate credential a grant carries, as its metadata names it. */
function credentialOf(grant: GrantSummary): string | null {
  const metadata: unknown = grant.metadata;
  const id =
    typeof metadata === "object" && metadata !== null
      ? (metadata as { credential_id?: unknown }).credential_id
      : undefined;
  return typeof id === "string" ? id : null;
}

/** Ends the grants of `userId` whose credentials the consumer's object ended (`credentialIds`). */
export async function endGrantsOf(oauth: OAuthServer, userId: string, credentialIds: readonly string[]): Promise<void> {
  if (credentialIds.length === 0) return;
  const ended = (await grantsOf(oauth, userId)).filter((grant) => credentialIds.includes(credentialOf(grant) ?? ""));
  await Promise.all(ended.map((grant) => oauth.api.revokeGrant(grant.id, userId)));
}

/**
 * Answers a revocation request of `consumer`'s authorization server (the library checks the
 * client owns the token); when it revoked something, the grant and its credential end too.
 */
export async function revokeGrant(
  oauth: OAuthServer,
  consumer: string,
  token: string,
  request: Request,
  env: Env,
  ctx: ExecutionContext,
): Promise<Response> {
  const [userId = "", grantId = ""] = token.split(":");
  const grant = await grantOf(oauth, userId, grantId);
  const access = grant === null ? null : await oauth.api.unwrapToken(token);
  const answer = await oauth.server.fetch(request, env, ctx);
  if (grant === null || answer.status !== 200) return answer;
  // What the library revoked for the client that owns it: the access token (gone now, though not
  // yet expired: an expiry in between is no revocation), or the refresh token with its grant.
  const revoked =
    access !== null
      ? access.expiresAt > Math.floor(Date.now() / 1000) && (await oauth.api.unwrapToken(token)) === null
      : (await grantOf(oauth, userId, grantId)) === null;
  if (!revoked) return answer;
  await oauth.api.revokeGrant(grantId, userId);
  const credentialId = credentialOf(grant);
  const stub = objectOf(env, consumer);
  if (credentialId !== null && stub !== null) await stub.oauthEnd(credentialId);
  return answer;
}
