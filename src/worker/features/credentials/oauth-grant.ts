/**
 * The consumer object's half of an MCP client's sign-in (it runs as the object's `oauthGrant` operation,
 * in one transaction): a subject-bound agent credential mints a new one for the same subject,
 * narrowed to the tools the user chose, for the OAuth grant to carry. A subject holds one live
 * grant credential per OAuth client and at most {@link OAUTH_CREDENTIALS_PER_SUBJECT} in all.
 * @module
 */
import { compareCodePoints } from "../../../core/json";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import type { Gatekeeper } from "../../kernel/gatekeeper";
import type { ObjectKernel } from "../../kernel/kernel";
import type { Revocation } from "./revocation";
import type { CredentialService } from "./service";
import { CredentialStore, type CredentialBinding } from "./store";
import type { Authenticated } from "../sockets/upgrade";

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
  /** The subject's grant credentials this one ended: the same client's earlier one, and the oldest beyond the cap. */
  readonly ended: readonly string[];
}

/**
 * Live OAuth grant credentials one subject of a consumer holds at once, over all its OAuth clients:
 * a new grant beyond it revokes the subject's oldest (never another subject's).
 */
export const OAUTH_CREDENTIALS_PER_SUBJECT = 10;

/** The object's half of the MCP OAuth sign-in: a grant minted, a grant's credential checked or ended. */
export class OAuthGrants {
  constructor(
    readonly kernel: Pick<ObjectKernel, "sql" | "audit" | "now" | "transaction">,
    readonly gate: Gatekeeper,
    readonly credentials: CredentialService,
    /** A credential was revoked here: its live sessions end. */
    readonly revocation: Revocation,
  ) {}

  /** A subject-bound agent credential mints a narrower one for the client's grant. */
  grant(consumer: string, token: string, request: OAuthGrantRequest): Outcome<OAuthGrant> {
    const auth = this.gate.authenticate(consumer, token, "mcp");
    return auth.ok
      ? this.kernel.transaction(() => oauthGrant(this, consumer, auth.value, request, this.kernel.now()))
      : auth;
  }

  /** Whether a grant's credential still works on the MCP endpoint (a refresh needs it). */
  live(consumer: string, token: string): boolean {
    return this.gate.authenticate(consumer, token, "mcp").ok;
  }

  /** The Worker ended an OAuth grant (its token was revoked): its credential ends too. */
  end(credentialId: string): boolean {
    return this.kernel.transaction(() =>
      endOAuthCredential(this, credentialId, this.kernel.now(), "oauth token revoked"),
    );
  }
}

/** Why a grant credential ends before its expiry (the `note` of its `credential.revoked` entry). */
export type OAuthEnd = "oauth replaced" | "oauth cap" | "oauth token revoked";

/**
 * Mints the credential of an OAuth grant: kind `agent`, principal `subject`, the sign-in
 * credential's subject and roles; tools = the chosen ones ∩ the sign-in credential's scope ∩ the
 * consumer's enabled tools (never empty); expiry = the earlier of the sign-in credential's and
 * the grant's. Audited as `credential.created` with `note: "oauth"` and the client id.
 */
export function oauthGrant(
  deps: OAuthGrants,
  consumer: string,
  auth: Authenticated,
  request: OAuthGrantRequest,
  now: number,
): Outcome<OAuthGrant> {
  const { caller, config } = auth;
  if (caller.kind !== "agent" || caller.principal !== "subject" || caller.subjectId === null) {
    return fail(problem("FORBIDDEN", "Sign in with a subject-bound agent credential."));
  }
  const chosen = request.tools === null ? null : new Set(request.tools);
  const tools = [...new Set(config.tools)]
    .filter((tool) => (caller.tools === null || caller.tools.includes(tool)) && (chosen === null || chosen.has(tool)))
    .sort(compareCodePoints);
  if (tools.length === 0)
    return fail(
      problem(
        "TOOL_NOT_IN_SCOPE",
        "None of the chosen tools is enabled for the consumer and within the sign-in credential's scope.",
      ),
    );
  const table = new CredentialStore(deps.kernel.sql);
  const signInExpiry = table.get(caller.credentialId)?.expiresAt ?? null;
  const grantExpiry = now + request.maxLifetimeSeconds;
  const binding: CredentialBinding = {
    kind: "agent",
    subjectId: caller.subjectId,
    principal: "subject",
    roles: [...caller.roles],
    tools,
    expiresAt: signInExpiry === null ? grantExpiry : Math.min(signInExpiry, grantExpiry),
  };
  // The same subject and client's earlier grant is replaced; the subject's oldest go beyond the cap.
  const live = table.liveOAuth(caller.subjectId, now);
  const replaced = live.filter((grant) => grant.clientId === request.clientId);
  const kept = live.filter((grant) => grant.clientId !== request.clientId);
  const beyond = kept.slice(0, Math.max(0, kept.length - (OAUTH_CREDENTIALS_PER_SUBJECT - 1)));
  for (const grant of replaced) endOAuthCredential(deps, grant.credentialId, now, "oauth replaced");
  for (const grant of beyond) endOAuthCredential(deps, grant.credentialId, now, "oauth cap");
  const created = deps.credentials.create(consumer, binding, now);
  table.markOAuth(created.credential_id, request.clientId);
  deps.kernel.audit.append("credential.created", now, {
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
  const ended = [...replaced, ...beyond].map((grant) => grant.credentialId);
  return ok({
    credentialId: created.credential_id,
    secret: created.secret,
    subjectId: caller.subjectId,
    tools,
    expiresAt: binding.expiresAt ?? grantExpiry,
    ended,
  });
}

/**
 * Revokes a credential minted by an OAuth grant (its grant ended, or a newer one replaces it) and
 * audits `credential.revoked` with the reason; `false` for any other credential, or one already
 * revoked.
 */
export function endOAuthCredential(deps: OAuthGrants, credentialId: string, now: number, note: OAuthEnd): boolean {
  const clientId = new CredentialStore(deps.kernel.sql).oauthClientOf(credentialId);
  if (clientId === null || !deps.credentials.revoke(credentialId, now)) return false;
  deps.kernel.audit.append("credential.revoked", now, { credential_id: credentialId, note, oauth_client_id: clientId });
  deps.revocation.revoked(credentialId);
  return true;
}
