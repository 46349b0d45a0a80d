import * as z from "../core/zod";
import { CREDENTIAL_KINDS, type CredentialKind } from "./access";
import { httpSchemas, Identifier } from "./registry";
import { DOCS } from "./docs";

/**
 * How an agent (or runtime) credential's calls get their principal (docs/security.md):
 * - `subject`: the subject is fixed at issue; a call may name only that subject and roles
 *   within the credential's `roles`;
 * - `host`: the agent host acts for any subject of the consumer and may assert only the roles
 *   in the credential's `roles` (its allow-list);
 * - `token`: every call carries the end user's JWT (`principal_token`); the gate verifies it
 *   against the consumer's issuer and takes subject and roles from its claims (agent
 *   credentials only: an execution envelope carries no end-user token).
 */
export const PRINCIPAL_MODES = ["subject", "host", "token"] as const;

/** An agent or runtime credential's principal mode. */
export type PrincipalMode = (typeof PRINCIPAL_MODES)[number];

/** Largest Unix time accepted as an expiry (year 9999). */
const MAX_EXPIRY = 253_402_300_799;

/** `POST /v1/consumers/{consumer}/credentials`. */
export const CreateCredentialRequest = z.deferred(() =>
  z
    .strictObject({
      kind: z.enum(CREDENTIAL_KINDS),
      subject_id: z.optional(Identifier).check(
        z.meta({
          description: DOCS
            ? "The subject the credential is bound to: an agent's or runtime's end user (principal `subject`), an approver's id (required), a provider's id."
            : "",
        }),
      ),
      principal: z.optional(z.enum(PRINCIPAL_MODES)).check(
        z.meta({
          description: DOCS
            ? "Agent and runtime credentials: `subject` (default with a subject_id), `host` (default without), or (agent only) `token`."
            : "",
        }),
      ),
      roles: z.optional(z.array(Identifier).check(z.maxLength(256))).check(
        z.meta({
          description: DOCS
            ? "Agent and runtime credentials (`subject` and `host`): the roles its calls may assert. Absent: none."
            : "",
        }),
      ),
      tools: z.optional(z.array(Identifier).check(z.minLength(1), z.maxLength(256))).check(
        z.meta({
          description: DOCS
            ? "Agent and runtime credentials: the only tools it may call and, as `capability:<capability_id>`, the only capabilities it may request. Absent: every tool and capability of the consumer."
            : "",
        }),
      ),
      expires_at: z
        .optional(z.int().check(z.gte(1), z.lte(MAX_EXPIRY)))
        .check(z.meta({ description: DOCS ? "Unix seconds after which the credential is refused." : "" })),
    })
    .check(
      z.superRefine((v, ctx) => {
        const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
        if (v.kind === "approver" && v.subject_id === undefined)
          issue("subject_id", "an approver credential needs a subject_id");
        if (!actsForPrincipal(v.kind)) {
          if (v.principal !== undefined) issue("principal", "only agent and runtime credentials have a principal mode");
          if (v.roles !== undefined) issue("roles", "only agent and runtime credentials assert roles");
          if (v.tools !== undefined) issue("tools", "only agent and runtime credentials have a tool scope");
          if (v.subject_id !== undefined && v.kind !== "approver" && v.kind !== "provider")
            issue("subject_id", `a ${v.kind} credential has no subject`);
          return;
        }
        const mode = principalModeOf(v);
        if (v.kind === "runtime" && mode === "token")
          issue(
            "principal",
            "an execution envelope carries no end-user token: a runtime credential is subject or host",
          );
        if (mode === "subject" && v.subject_id === undefined)
          issue("subject_id", "a subject-bound credential needs a subject_id");
        if (mode !== "subject" && v.subject_id !== undefined)
          issue("subject_id", `a ${mode} credential is bound to no subject`);
        if (mode === "token" && v.roles !== undefined)
          issue("roles", "a token-verified credential takes roles from the token's claims");
      }),
    )
    .register(httpSchemas, { id: "CreateCredentialRequest" }),
);

/** Whether a credential kind's calls act for a principal (and carry a principal mode, roles and a tool scope). */
export function actsForPrincipal(kind: CredentialKind): boolean {
  return kind === "agent" || kind === "runtime";
}

/** The principal mode of an agent or runtime credential request (`subject` with a subject_id, else `host`). */
export function principalModeOf(request: {
  principal?: PrincipalMode | undefined;
  subject_id?: string | undefined;
}): PrincipalMode {
  return request.principal ?? (request.subject_id === undefined ? "host" : "subject");
}

/** The new credential; `secret` is shown this once and stored only as SHA-256. */
export const CreatedCredential = z.deferred(() =>
  z
    .strictObject({
      credential_id: z.string(),
      secret: z.string(),
      kind: z.enum(CREDENTIAL_KINDS),
      subject_id: z.nullable(z.string()),
      principal: z.nullable(z.enum(PRINCIPAL_MODES)),
      roles: z.array(z.string()),
      tools: z.nullable(z.array(z.string())),
      expires_at: z.nullable(z.int()),
    })
    .register(httpSchemas, { id: "CreatedCredential" }),
);

/** Path segment naming a credential. */
export const CredentialId = z.deferred(() => z.string().check(z.regex(/^cred_[0-9A-Za-z]{16}$/)));

/** Parsed credential request. */
export type CreateCredentialRequest = z.infer<typeof CreateCredentialRequest>;
