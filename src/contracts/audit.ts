import * as z from "zod";
import { httpSchemas, Sha256Hex } from "./registry";

/** One audit-chain entry. */
export const AuditEntryView = z
  .strictObject({
    seq: z.number().int().min(1),
    kind: z.string(),
    at: z.number().int(),
    record: z.record(z.string(), z.unknown()),
    prev_sha256: Sha256Hex,
    entry_sha256: Sha256Hex,
  })
  .register(httpSchemas, { id: "AuditEntry" });

/** A page of the audit chain; `next_after` is the `after` of the next page, or null at the end. */
export const AuditPage = z
  .strictObject({ entries: z.array(AuditEntryView), next_after: z.number().int().nullable() })
  .register(httpSchemas, { id: "AuditPage" });

/** Query of `GET …/audit`. */
export const AuditQuery = z.strictObject({
  after: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/** `GET …/audit/verify`. */
export const AuditVerifyView = z
  .strictObject({ ok: z.boolean(), count: z.number().int(), head: Sha256Hex })
  .register(httpSchemas, { id: "AuditVerification" });
