/**
 * The consumer object's half of an MCP client's sign-in (it runs inside `ConsumerObject.oauthGrant`,
 * in one transaction): a subject-bound agent credential mints a new one for the same subject,
 * narrowed to the tools the user chose, for the OAuth grant to carry.
 * @module
 */
import { compareCodePoints } from "../../../core/json";
import { problem } from "../../problem";
import { fail, ok, type Outcome } from "../../result";
import type { AuditChain } from "../audit/plane";
import type { CredentialPlane } from "./plane";
import { CredentialTable, type CredentialBinding } from "./store";
import type { Authenticated } from "../socket-upgrade";

/** What the consent page asks the object for. */
export interface OAuthGrantRequest {
  /** The tools the user chose; `null`: every tool the sign-in credential may call. */
  readonly tools: readonly string[] | null;
  /** The OAuth client the credential is minted for (audited). */
  readonly clientId: string;
  /** The grant's lifetime: the credential expires no later than this many seconds from now. */
  readonly maxLifetimeSeconds: number;
}

/** The minted credential; `secret` goes into the grant's encrypted props and nowhere else. */
export interface OAuthGrant {
  readonly credentialId: string;
  readonly secret: string;
  readonly subjectId: string;
  /** The credential's tool scope, which is also the grant's OAuth scope. */
  readonly tools: readonly string[];
  readonly expiresAt: number;
}

/** What the grant needs of its object. */
export interface OAuthGrantDeps {
  readonly sql: SqlStorage;
  readonly credentials: CredentialPlane;
  readonly audit: AuditChain;
}

/**
 * Mints the credential of an OAuth grant: kind `agent`, principal `subject`, the sign-in
 * credential's subject and roles; tools = the chosen ones ∩ the sign-in credential's scope ∩ the
 * consumer's enabled tools (never empty); expiry = the earlier of the sign-in credential's and
 * the grant's. Audited as `credential.created` with `note: "oauth"` and the client id.
 */
export function oauthGrant(deps: OAuthGrantDeps, consumer: string, auth: Authenticated, request: OAuthGrantRequest, now: number): Outcome<OAuthGrant> {
  const { caller, config } = auth;
  if (caller.kind !== "agent" || caller.principal !== "subject" || caller.subjectId === null) {
    return fail(problem("FORBIDDEN", "Sign in with a subject-bound agent credential."));
  }
  const chosen = request.tools === null ? null : new Set(request.tools);
  const tools = [...new Set(config.tools)]
    .filter((tool) => (caller.tools === null || caller.tools.includes(tool)) && (chosen === null || chosen.has(tool)))
    .sort(compareCodePoints);
  if (tools.length === 0) return fail(problem("TOOL_NOT_IN_SCOPE", "None of the chosen tools is enabled for the consumer and within the sign-in credential's scope."));
  const signInExpiry = new CredentialTable(deps.sql).get(caller.credentialId)?.expiresAt ?? null;
  const grantExpiry = now + request.maxLifetimeSeconds;
  const binding: CredentialBinding = {
    kind: "agent",
    subjectId: caller.subjectId,
    principal: "subject",
    roles: [...caller.roles],
    tools,
    expiresAt: signInExpiry === null ? grantExpiry : Math.min(signInExpiry, grantExpiry),
  };
  const created = deps.credentials.create(consumer, binding, now);
  deps.audit.append("credential.created", now, {
    credential_id: created.credential_id,
    kind: binding.kind,
    subject_id: binding.subjectId,
    principal: binding.principal,
    roles: [...binding.roles],
    tools: [...tools],
    expires_at: binding.expiresAt,
    note: "oauth",
    oauth_client_id: request.clientId,
  });
  return ok({ credentialId: created.credential_id, secret: created.secret, subjectId: caller.subjectId, tools, expiresAt: binding.expiresAt ?? grantExpiry });
}
