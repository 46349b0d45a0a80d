/**
 * What the approver console shows, as plain data the Worker renders (console/pages.ts): the
 * approver's own view of each pending approval with the tool's description and risk, the
 * decided approvals, the latest audit entries, and the latest signed checkpoint checked with
 * the gate's own verifier keys against the tree.
 * @module
 */
import { openNote, parseCheckpoint, rootHash, encodeBase64, sameBytes } from "../../../core/audit";
import { canonicalJson } from "../../../core/json";
import type { ApprovalRecord } from "../../../core/tool-result/approval-book";
import type { ToolSpec } from "../../../core/tool-result/tool-spec";
import type { ApprovalView } from "../../../contracts/approval";
import { withoutArguments, type ApprovalEventData } from "../../../contracts/events";
import { auditOrigin, auditSigner, auditVerifiers } from "../audit/keys";
import type { Env } from "../../env";
import type { AuditChain } from "../audit/service";
import { approvalStatus } from "../tool-calls/events";

/** A pending approval as the console shows it. */
export interface ConsoleApproval {
  /** The approver's view (contracts/approval.ts) without `arguments`: every digest input and this approver's digest. */
  readonly view: Omit<ApprovalView, "arguments">;
  /** Canonical JSON of the arguments (text: RPC cannot carry the strict reader's integral floats). */
  readonly argumentsJson: string;
  readonly description: string | null;
  readonly risk: "read" | "write";
  /** Why a person decides: the tool's CEL rule as written, every call of it asks, or its own code asked. */
  readonly approvalRule: { readonly cel: string } | "every" | "code";
}

/** An approval that is no longer pending (decided, withdrawn or expired), without its arguments. */
export type ConsoleSettled = Omit<ApprovalEventData, "arguments">;

/** One audit entry as the console lists it (the record itself is the auditor's). */
export interface ConsoleAuditLine {
  readonly seq: number;
  readonly kind: string;
  readonly at: number;
  readonly entry_sha256: string;
}

/** The latest signed checkpoint, checked: verified, absent (with why), or failed (with why). */
export type CheckpointStatus =
  | {
      readonly state: "verified";
      readonly size: number;
      readonly root: string;
      readonly signedAt: number;
      readonly verifiedBy: readonly string[];
      readonly treeSize: number;
    }
  | { readonly state: "absent"; readonly reason: string }
  | { readonly state: "failed"; readonly reason: string };

/** The audit part of the console page. */
export interface ConsoleAudit {
  /** The newest entries first. */
  readonly entries: readonly ConsoleAuditLine[];
  /** Entries in the log. */
  readonly size: number;
  readonly checkpoint: CheckpointStatus;
}

/** Who is signed in, and what every console page carries. */
export interface ConsoleIdentity {
  readonly consumer: string;
  readonly approverId: string;
  readonly csrf: string;
  /** The object's clock (Unix seconds): the page's countdowns start from it. */
  readonly now: number;
  readonly sessionExpiresAt: number;
}

/** Everything the approvals page shows. */
export interface ConsolePage extends ConsoleIdentity {
  readonly pending: readonly ConsoleApproval[];
  /** More pending approvals exist than one page shows. */
  readonly morePending: boolean;
  /** Newest decision first. */
  readonly decided: readonly ConsoleSettled[];
  readonly audit: ConsoleAudit;
}

/** The console's item of one pending approval view. */
export function consoleApproval(view: ApprovalView, spec: ToolSpec): ConsoleApproval {
  // The description and the rule are shown in their own places, not among the digest inputs.
  const { arguments: args, tool_description: _description, approval_rule: _rule, ...rest } = view;
  return {
    view: rest,
    argumentsJson: canonicalJson(args),
    description: spec.description ?? null,
    risk: spec.risk,
    approvalRule:
      spec.approvalRule !== undefined
        ? { cel: spec.approvalRule }
        : spec.needsApproval === undefined
          ? "every"
          : "code",
  };
}

/** A stored approval as settled (its state at `now`), without arguments. */
export function consoleSettled(record: ApprovalRecord, now: number): ConsoleSettled {
  return withoutArguments(approvalStatus(record, now));
}

/**
 * The latest signed checkpoint, verified as an outside auditor would: its signed note under the
 * gate's published verifier keys, its origin, and its root against the tree the object holds.
 * Never signs one (the periodic alarm and the auditor's routes do).
 */
export function checkpointStatus(chain: AuditChain, env: Env, consumer: string): CheckpointStatus {
  const latest = chain.store.latestCheckpoint();
  if (latest === undefined) {
    const reason =
      auditSigner(env) === null
        ? "This deployment sets no TOOLGATE_AUDIT_SIGNING_KEY: checkpoints are not signed."
        : "No checkpoint is signed yet (one is signed every 256 entries, or when an auditor asks for it).";
    return { state: "absent", reason };
  }
  const verifiers = auditVerifiers(env);
  if (verifiers.length === 0)
    return { state: "failed", reason: "The gate publishes no verifier key to check the checkpoint with." };
  const opened = openNote(latest.note, verifiers);
  if (!opened.ok)
    return {
      state: "failed",
      reason: `The signed note does not verify under the gate's verifier keys (${opened.error}).`,
    };
  const body = parseCheckpoint(opened.value.text);
  if (!body.ok) return { state: "failed", reason: "The signed note is not a checkpoint." };
  const origin = auditOrigin(env, consumer);
  if (body.value.origin !== origin)
    return { state: "failed", reason: `The checkpoint names the log ${body.value.origin}, not ${origin}.` };
  const treeSize = chain.tree.size();
  if (body.value.size > treeSize)
    return { state: "failed", reason: `The checkpoint covers ${body.value.size} entries; the tree holds ${treeSize}.` };
  if (!sameBytes(rootHash(chain.tree, body.value.size), body.value.root)) {
    return {
      state: "failed",
      reason: `The checkpoint's root is not the root of the tree's first ${body.value.size} entries.`,
    };
  }
  return {
    state: "verified",
    size: body.value.size,
    root: encodeBase64(body.value.root),
    signedAt: latest.signedAt,
    verifiedBy: opened.value.verifiedBy,
    treeSize,
  };
}

/** The newest `items` entries of the chain, newest first, and the checkpoint's status. */
export function auditSection(chain: AuditChain, env: Env, consumer: string, items: number): ConsoleAudit {
  const size = chain.store.head()?.seq ?? 0;
  const entries = chain.store
    .after(Math.max(0, size - items), items)
    .map((entry) => ({ seq: entry.seq, kind: entry.kind, at: entry.at, entry_sha256: entry.entry_sha256 }))
    .reverse();
  return { entries, size, checkpoint: checkpointStatus(chain, env, consumer) };
}
