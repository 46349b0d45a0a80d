import type { Principal } from "../../../core/tool-result/types";
import type { Caller } from "../credentials/service";
import { resolvePrincipal } from "../identity/principal";
import { admitsTool } from "../identity/scope";
import { failed, type FacadeAnswer } from "./facade-answer";

/**
 * The principal an App Facade call acts for under the runtime credential's rules, exactly as a
 * tool call's (identity/principal.ts): the call names its user (`context.actor.user_id`) and,
 * for a commit, the roles stored at prepare; a subject-bound credential acts only for its
 * subject, a host credential for any user with roles within its allow-list. An envelope names
 * no roles of its own, so a new call takes the mode's default: the subject-bound credential's
 * roles, none for a host. Refused: `PRINCIPAL_MISMATCH`, `ROLE_NOT_ALLOWED`.
 */
export async function facadePrincipal(
  consumer: string,
  caller: Caller,
  subjectId: string,
  roles?: readonly string[],
): Promise<Principal | FacadeAnswer> {
  const resolved = await resolvePrincipal(
    consumer,
    caller,
    { principal: { subject_id: subjectId, roles } },
    null,
    () => {
      throw new Error("an App Facade call carries no end-user token");
    },
  );
  if (resolved.ok) return resolved.value.principal;
  const code = resolved.error.code;
  if (code === "PRINCIPAL_MISMATCH" || code === "ROLE_NOT_ALLOWED") return failed(code);
  // Runtime credentials are subject-bound or host (the credential contract refuses `token`).
  throw new Error(`unexpected principal refusal for a runtime credential: ${code}`);
}

/**
 * The tool a facade target maps to, under the credential's tool scope (identity/scope.ts), like
 * `/tool-calls`: for a scoped credential, an unmapped target and one whose tool is outside the
 * scope are the same `TOOL_NOT_IN_SCOPE`, so the answer never tells which targets exist.
 */
export function facadeTool(caller: Caller, tool: string | undefined): string | FacadeAnswer {
  if (caller.tools !== null && (tool === undefined || !admitsTool(caller.tools, tool)))
    return failed("TOOL_NOT_IN_SCOPE");
  return tool === undefined ? failed("UNKNOWN_TARGET") : tool;
}

/** Whether {@link facadePrincipal} refused. */
export function refused(value: Principal | FacadeAnswer): value is FacadeAnswer {
  return "type" in value;
}
