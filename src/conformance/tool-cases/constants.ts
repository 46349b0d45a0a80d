/**
 * The `tool-cases-v2` fixture contract's own limits and vocabularies, and the reference's demo
 * approver. Values are the reference's, so fixtures it accepts are accepted here and no other.
 * @module
 */

/** Schema of a scenario fixture. */
export const FIXTURE_SCHEMA_VERSION = "tool-cases-v2";

/** Largest fixture file accepted, in bytes. */
export const MAX_FIXTURE_BYTES = 65_536;
/** Deepest container nesting accepted in a fixture. */
export const MAX_JSON_DEPTH = 32;
/** At most this many cases per fixture. */
export const MAX_CASES = 256;
/** At most this many steps per case. */
export const MAX_STEPS_PER_CASE = 256;
/** The approver fixture approvals name. */
export const DEFAULT_APPROVER_ID = "human-reviewer-1";
/** Approvers the reference's demo dispatcher trusts. */
export const AUTHORIZED_APPROVER_IDS: ReadonlySet<string> = new Set([DEFAULT_APPROVER_ID]);

/** The two engine actions a fixture step may take. */
export const VALID_ACTIONS = ["dispatch", "query_status"] as const;
/** Fixture approval modes. */
export const VALID_APPROVAL_MODES = ["none", "valid", "expired", "mismatched"] as const;

/** A fixture step action. */
export type Action = (typeof VALID_ACTIONS)[number];
/** A fixture approval mode. */
export type ApprovalMode = (typeof VALID_APPROVAL_MODES)[number];
