import * as z from "zod";
import { httpSchemas, Sha256Hex } from "./registry";

/** `POST …/approvals/{approval_id}`: the decision, bound to the digest the approver saw. */
export const ApprovalDecisionRequest = z
  .strictObject({
    decision: z.enum(["approve", "deny"]),
    approval_digest: Sha256Hex,
  })
  .register(httpSchemas, { id: "ApprovalDecisionRequest" });

/** A pending approval as an approver sees it. */
export const ApprovalView = z
  .strictObject({
    approval_id: z.string(),
    state: z.enum(["pending", "approved", "denied"]),
    tool: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    subject_id: z.string(),
    approval_digest: Sha256Hex,
    requested_at: z.number().int(),
    expires_at: z.number().int(),
  })
  .register(httpSchemas, { id: "Approval" });

/** `GET …/approvals`. */
export const ApprovalList = z.strictObject({ approvals: z.array(ApprovalView) }).register(httpSchemas, { id: "ApprovalList" });

/** The stored decision. */
export const ApprovalDecisionView = z
  .strictObject({
    approval_id: z.string(),
    state: z.enum(["approved", "denied"]),
    approver_id: z.string(),
    decided_at: z.number().int(),
    valid_until: z.number().int().nullable(),
  })
  .register(httpSchemas, { id: "ApprovalDecision" });

/** Query of `GET …/approvals`. */
export const ApprovalQuery = z.strictObject({ state: z.enum(["pending"]).default("pending") });

/** Parsed decision. */
export type ApprovalDecisionRequest = z.infer<typeof ApprovalDecisionRequest>;
/** An approval as listed. */
export type ApprovalView = z.infer<typeof ApprovalView>;
