/**
 * Standing approvals (docs/approvals.md, "Standing approvals"): an approver's grant that one
 * subject may call one tool, for a bounded time and number of calls, optionally only with
 * arguments a CEL constraint admits. The consumer's `standing_approvals` setting
 * (contracts/consumer.ts) says which tools allow it and the longest window and count.
 * @module
 */
import * as z from "../core/zod";
import { httpSchemas, Identifier } from "./registry";
import { DOCS } from "./docs";

/** The longest window any consumer may allow (30 days). */
export const MAX_STANDING_SECONDS = 30 * 86_400;
/** The most calls any consumer may allow one standing approval to cover. */
export const MAX_STANDING_CALLS = 100_000;
/** The most characters of a constraint (the CEL policies' own bound). */
export const MAX_CONSTRAINT_CHARS = 2048;
/** The active standing approvals one consumer may hold at once (bounds each call's look-up). */
export const MAX_ACTIVE_STANDING = 100;

/** A standing approval's id: `sta_` and 32 hex digits. */
export const StandingApprovalId = z.deferred(() => z.string().check(z.regex(/^sta_[0-9a-f]{32}$/)));

/** `POST /v1/consumers/{consumer}/standing-approvals`: what the approver grants. */
export const StandingApprovalGrant = z.deferred(() =>
  z
    .strictObject({
      tool: Identifier.check(
        z.describe(DOCS ? "The tool it covers (one the consumer's `standing_approvals.tools` lists)." : ""),
      ),
      subject_id: Identifier.check(
        z.describe(DOCS ? "The subject whose calls it covers; never the granting approver's own subject." : ""),
      ),
      seconds: z
        .int()
        .check(
          z.gte(1),
          z.lte(MAX_STANDING_SECONDS),
          z.describe(
            DOCS ? "How long it covers calls, from now (at most the consumer's `standing_approvals.max_seconds`)." : "",
          ),
        ),
      max_calls: z
        .int()
        .check(
          z.gte(1),
          z.lte(MAX_STANDING_CALLS),
          z.describe(
            DOCS ? "How many calls it covers at most (at most the consumer's `standing_approvals.max_calls`)." : "",
          ),
        ),
      constraint: z.optional(
        z
          .string()
          .check(
            z.minLength(1),
            z.maxLength(MAX_CONSTRAINT_CHARS),
            z.describe(
              DOCS
                ? "A CEL expression over the call (`args`, `principal`, `tool`, `consumer`, `now`, as a tool's rules read them), type-checked against the tool's input schema; a call is covered only when it answers true for the call's exact arguments. Absent: any arguments."
                : "",
            ),
          ),
      ),
    })
    .register(httpSchemas, { id: "StandingApprovalGrant" }),
);

/** Where a standing approval stands (`exhausted`: every call it allowed was used). */
export const STANDING_STATES = ["active", "expired", "exhausted", "revoked"] as const;

/** A standing approval as stored and answered. */
export const StandingApprovalView = z.deferred(() =>
  z
    .strictObject({
      standing_approval_id: z.string(),
      state: z.enum(STANDING_STATES),
      tool: z.string(),
      subject_id: z.string(),
      approver_id: z.string().check(z.describe(DOCS ? "The approver who granted it." : "")),
      constraint: z.nullable(z.string()),
      granted_at: z.int(),
      expires_at: z.int(),
      max_calls: z.int(),
      used_calls: z
        .int()
        .check(z.describe(DOCS ? "Calls it covered so far (each counted in the call's own transaction)." : "")),
      revoked_at: z.nullable(z.int()),
      revoked_by: z.nullable(z.string()),
    })
    .register(httpSchemas, { id: "StandingApprovalView" }),
);

/** `GET /v1/consumers/{consumer}/standing-approvals`: newest first, at most 100. */
export const StandingApprovalList = z.deferred(() =>
  z
    .strictObject({ standing_approvals: z.array(StandingApprovalView) })
    .register(httpSchemas, { id: "StandingApprovalList" }),
);

/** A parsed grant. */
export type StandingApprovalGrant = z.infer<typeof StandingApprovalGrant>;
/** A standing approval's view. */
export type StandingApprovalView = z.infer<typeof StandingApprovalView>;
/** The list's view. */
export type StandingApprovalList = z.infer<typeof StandingApprovalList>;
