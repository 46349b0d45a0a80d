/**
 * The admin's reads of one consumer: its configuration and a page of its credentials. Neither
 * answers a secret: a credential is listed by what it is bound to, never by its hash or tag.
 * @module
 */
import { canonicalJson } from "../../../core/json";
import { CredentialId } from "../../../contracts/credential";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import type { AlarmView } from "../audit/consistency";
import { standingOf, type ConsumerRecord } from "./service";
import { CredentialStore } from "../credentials/store";
import { cursorCodec } from "../../kernel/cursor";
import type { Limits } from "../../kernel/limits";

/**
 * `GET /v1/consumers/{consumer}`: the stored configuration with its limits' defaults applied,
 * `storageBytes`, and the audit log's alarm when raised (contracts `ConsumerDetails`).
 */
export function consumerDetails(
  record: ConsumerRecord,
  limits: Limits,
  storageBytes: number,
  auditAlarm: AlarmView | null = null,
): string {
  return canonicalJson({
    consumer: record.name,
    tools: record.tools,
    approver_subjects: record.approverSubjects,
    principal_tokens: record.principalTokens,
    limits: { ...limits },
    ...(record.corsOrigins.length === 0 ? {} : { cors_origins: record.corsOrigins }),
    ...(record.auditArguments === "digest" ? {} : { audit_arguments: record.auditArguments }),
    ...(record.approvalValidSeconds === null ? {} : { approval_valid_seconds: record.approvalValidSeconds }),
    ...standingOf(record),
    storage_bytes: storageBytes,
    ...(auditAlarm === null ? {} : { audit_inconsistent: { ...auditAlarm } }),
  });
}

/** The credential list's cursors: base64url of a credential id, at most 64 characters. */
const CREDENTIALS_CURSOR = cursorCodec<string>({
  prefix: "",
  maxChars: 64,
  write: (id) => id,
  read: (id) => (CredentialId.safeParse(id).success ? id : null),
  detail: "The cursor is not one this list answered.",
});

/** `GET …/credentials`: one page in issue order after the cursor's credential (contracts `CredentialList`). */
export function credentialPage(sql: SqlStorage, cursor: string | null, pageItems: number): Outcome<string> {
  const table = new CredentialStore(sql);
  let after: string | null = null;
  if (cursor !== null) {
    const id = CREDENTIALS_CURSOR.read(cursor);
    if (!id.ok) return id;
    if (table.get(id.value) === null)
      return fail(problem("INVALID_CURSOR", "The cursor is not one this list answered."));
    after = id.value;
  }
  const rows = table.listed(after, pageItems + 1);
  const page = rows.slice(0, pageItems);
  const last = page[page.length - 1];
  const credentials = page.map((c) => ({
    credential_id: c.credentialId,
    kind: c.kind,
    subject_id: c.subjectId,
    principal: c.principal,
    roles: [...c.roles],
    tools: c.tools === null ? null : [...c.tools],
    created_at: c.createdAt,
    expires_at: c.expiresAt,
    revoked_at: c.revokedAt,
  }));
  return ok(
    canonicalJson({
      credentials,
      next_cursor: rows.length > pageItems && last !== undefined ? CREDENTIALS_CURSOR.encode(last.credentialId) : null,
    }),
  );
}
