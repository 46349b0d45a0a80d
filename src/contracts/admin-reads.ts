/**
 * The admin's read routes: one consumer's configuration, the directory of consumers, and a
 * consumer's credentials. None of them answers a secret, a credential's tag or its hash.
 * @module
 */
import * as z from "../core/zod";
import { CREDENTIAL_KINDS } from "./access";
import { ConsumerView } from "./consumer";
import { PRINCIPAL_MODES } from "./credential";
import { httpSchemas } from "./registry";
import { DOCS } from "./docs";

/** `GET /v1/consumers/{consumer}`: the stored configuration, the limits with their defaults applied, and the object's storage size. */
export const ConsumerDetails = z.deferred(() =>
  z
    .extend(z.omit(ConsumerView, { created: true }), {
      storage_bytes: z.int().check(
        z.gte(0),
        z.meta({
          description: DOCS
            ? "Bytes of the consumer object's SQLite database now (pages in use and free pages kept for reuse; docs/storage.md, Retention)."
            : "",
        }),
      ),
      audit_inconsistent: z.optional(
        z
          .strictObject({
            refusals: z.int().check(z.gte(1)),
            detected_at: z.int(),
            checkpoint_size: z.int().check(z.gte(0)),
            tree_size: z.int().check(z.gte(0)),
            against: z.enum(["stored", "witness"]),
          })
          .check(
            z.meta({
              description: DOCS
                ? "Present once a checkpoint signing since the object started found the stored audit log not extending its signed checkpoint (the stored one, or the witness's newest): signings refused (AUDIT_LOG_INCONSISTENT), the latest one's time and sizes (docs/audit.md)."
                : "",
            }),
          ),
      ),
    })
    .register(httpSchemas, { id: "ConsumerDetails" }),
);

/** One consumer of the directory: its name and when the directory first recorded it (Unix seconds). */
export const ConsumerEntry = z.deferred(() =>
  z.strictObject({ consumer: z.string(), created_at: z.int() }).register(httpSchemas, { id: "ConsumerEntry" }),
);

/** `GET /v1/consumers`: one page of consumer names in code-point order; `next_cursor` is null on the last page. */
export const ConsumerList = z.deferred(() =>
  z
    .strictObject({ consumers: z.array(ConsumerEntry), next_cursor: z.nullable(z.string()) })
    .register(httpSchemas, { id: "ConsumerList" }),
);

/** Largest page of the consumer directory. */
export const MAX_DIRECTORY_PAGE = 500;
/** The directory's page size when `limit` is absent. */
export const DEFAULT_DIRECTORY_PAGE = 100;

/** Query of `GET /v1/consumers`. */
export const ConsumerListQuery = z.deferred(() =>
  z.strictObject({
    cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    limit: z.optional(z.coerce.number().check(z.int(), z.gte(1), z.lte(MAX_DIRECTORY_PAGE))),
  }),
);

/** A credential as listed: what it is bound to and its life, never its secret or tag. */
export const CredentialSummary = z.deferred(() =>
  z
    .strictObject({
      credential_id: z.string(),
      kind: z.enum(CREDENTIAL_KINDS),
      subject_id: z.nullable(z.string()),
      principal: z.nullable(z.enum(PRINCIPAL_MODES)),
      roles: z.array(z.string()),
      tools: z.nullable(z.array(z.string())),
      created_at: z.int(),
      expires_at: z.nullable(z.int()),
      revoked_at: z.nullable(z.int()),
    })
    .register(httpSchemas, { id: "CredentialSummary" }),
);

/** `GET /v1/consumers/{consumer}/credentials`: one page in issue order; `next_cursor` is null on the last page. */
export const CredentialList = z.deferred(() =>
  z
    .strictObject({ credentials: z.array(CredentialSummary), next_cursor: z.nullable(z.string()) })
    .register(httpSchemas, { id: "CredentialList" }),
);

/** Query of `GET /v1/consumers/{consumer}/credentials`. */
export const CredentialListQuery = z.deferred(() =>
  z.strictObject({
    cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  }),
);

/** A parsed consumer configuration view. */
export type ConsumerDetails = z.infer<typeof ConsumerDetails>;
/** One page of the consumer directory. */
export type ConsumerList = z.infer<typeof ConsumerList>;
/** A listed credential. */
export type CredentialSummary = z.infer<typeof CredentialSummary>;
/** One page of credentials. */
export type CredentialList = z.infer<typeof CredentialList>;
