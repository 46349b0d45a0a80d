import { compareCodePoints, type JsonObject } from "../../../core/json";
import type { Principal } from "../../../core/tool-result/types";
import type { PrincipalTokenIssuer } from "../../../contracts/consumer";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import type { Caller } from "../credentials/service";
import type { VerifiedPrincipal } from "./principal-token";
import { admitsCapability, admitsTool } from "./scope";

/**
 * What a request says about whom it acts for: an asserted principal and/or an end user's token.
 * A principal without `roles` (an App Facade call names only its user) asserts none of its own:
 * it takes the mode's default — a subject-bound credential's roles, none for a host, the token's.
 */
export interface PrincipalClaim {
  readonly principal?: { readonly subject_id: string; readonly roles?: readonly string[] | undefined } | undefined;
  readonly principal_token?: string | undefined;
}

/** The principal a call acts for, and the verified claims behind it (empty unless an end user's token). */
export interface ResolvedPrincipal {
  readonly principal: Principal;
  readonly claims: JsonObject;
}

/** Verifies an end user's token against the consumer's issuer. */
export type VerifyToken = (issuer: PrincipalTokenIssuer, token: string) => Promise<Outcome<VerifiedPrincipal>>;

function sorted(roles: readonly string[]): string[] {
  return [...new Set(roles)].sort(compareCodePoints);
}

function rolesWithin(roles: readonly string[], allowed: readonly string[], whose: string): Outcome<null> {
  const extra = roles.find((role) => !allowed.includes(role));
  return extra === undefined
    ? ok(null)
    : fail(problem("ROLE_NOT_ALLOWED", `${whose} may not assert the role ${JSON.stringify(extra)}.`));
}

function invalid(detail: string): Outcome<never> {
  return fail(problem("INVALID_REQUEST", detail));
}

/**
 * The principal a call acts for (an agent's tool call, a runtime's App Facade call), from what
 * the gate verified (docs/security.md):
 * - a subject-bound credential acts only as its subject, with roles within its own;
 * - a host credential names any subject of the consumer, with roles within its allow-list;
 * - a token-verified credential acts as the subject of the end user's verified JWT, with the
 *   roles of its claims (a request may narrow them, never widen or change the subject).
 * The tenant is always the consumer. Every other combination is refused and nothing runs.
 */
export async function resolvePrincipal(
  consumer: string,
  caller: Caller,
  claim: PrincipalClaim,
  issuer: PrincipalTokenIssuer | null,
  verify: VerifyToken,
): Promise<Outcome<ResolvedPrincipal>> {
  const asserted = claim.principal;
  const principal = (subject: string, roles: readonly string[], claims: JsonObject = {}): Outcome<ResolvedPrincipal> =>
    ok({ principal: { tenant_id: consumer, subject_id: subject, roles: sorted(roles) }, claims });
  switch (caller.principal) {
    case "subject": {
      const subject = caller.subjectId;
      if (subject === null) throw new Error("a subject-bound credential without a subject");
      if (claim.principal_token !== undefined)
        return invalid("$.principal_token: this credential is bound to a subject and takes no token.");
      if (asserted !== undefined && asserted.subject_id !== subject) {
        return fail(problem("PRINCIPAL_MISMATCH", "This credential acts only for the subject it was issued for."));
      }
      const roles = asserted?.roles ?? caller.roles;
      const within = rolesWithin(roles, caller.roles, "This credential");
      return within.ok ? principal(subject, roles) : within;
    }
    case "host": {
      if (claim.principal_token !== undefined)
        return invalid("$.principal_token: a host credential asserts the principal; it takes no token.");
      if (asserted === undefined) return invalid("$.principal: required with a host credential.");
      const roles = asserted.roles ?? [];
      const within = rolesWithin(roles, caller.roles, "This host credential");
      return within.ok ? principal(asserted.subject_id, roles) : within;
    }
    case "token": {
      if (claim.principal_token === undefined)
        return invalid("$.principal_token: required with a token-verified credential.");
      if (issuer === null)
        return fail(problem("PRINCIPAL_TOKEN_REJECTED", "The consumer has no principal token issuer configured."));
      const verified = await verify(issuer, claim.principal_token);
      if (!verified.ok) return verified;
      if (asserted === undefined)
        return principal(verified.value.subjectId, verified.value.roles, verified.value.claims);
      if (asserted.subject_id !== verified.value.subjectId)
        return fail(problem("PRINCIPAL_MISMATCH", "The principal differs from the verified token's subject."));
      const roles = asserted.roles ?? verified.value.roles;
      const within = rolesWithin(roles, verified.value.roles, "The verified token");
      return within.ok ? principal(asserted.subject_id, roles, verified.value.claims) : within;
    }
    case null:
      return fail(problem("FORBIDDEN", `A ${caller.kind} credential does not act for a principal.`));
  }
}

/** A capability tool's scope check: the scope names its capability (`capability:<id>`), not the tool. */
export function capabilityInScope(caller: Caller, tool: string, capabilityId: string): Outcome<null> {
  return admitsCapability(caller.tools, capabilityId)
    ? ok(null)
    : fail(problem("TOOL_NOT_IN_SCOPE", `This credential may not call ${JSON.stringify(tool)}.`));
}

/** Whether the credential's tool scope admits a tool. */
export function toolInScope(caller: Caller, tool: string): Outcome<null> {
  return admitsTool(caller.tools, tool)
    ? ok(null)
    : fail(problem("TOOL_NOT_IN_SCOPE", `This credential may not call ${JSON.stringify(tool)}.`));
}
