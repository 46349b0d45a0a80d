import * as z from "zod";
import { CREDENTIAL_KINDS } from "./access";
import { httpSchemas, Identifier } from "./registry";

/** `POST /v1/consumers/{consumer}/credentials`. Approvers need a subject (their approver id). */
export const CreateCredentialRequest = z
  .strictObject({
    kind: z.enum(CREDENTIAL_KINDS),
    subject_id: Identifier.optional(),
  })
  .refine((v) => v.kind !== "approver" || v.subject_id !== undefined, {
    message: "an approver credential needs a subject_id",
    path: ["subject_id"],
  })
  .register(httpSchemas, { id: "CreateCredentialRequest" });

/** The new credential; `secret` is shown this once and stored only as SHA-256. */
export const CreatedCredential = z
  .strictObject({
    credential_id: z.string(),
    secret: z.string(),
    kind: z.enum(CREDENTIAL_KINDS),
    subject_id: z.string().nullable(),
  })
  .register(httpSchemas, { id: "CreatedCredential" });

/** Path segment naming a credential. */
export const CredentialId = z.string().regex(/^cred_[0-9A-Za-z]{16}$/);

/** Parsed credential request. */
export type CreateCredentialRequest = z.infer<typeof CreateCredentialRequest>;
