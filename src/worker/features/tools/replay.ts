/**
 * Replay (docs/approvals.md, "Policies in shadow"): a candidate definition's enforced rules run
 * against the tool's calls still held in the audit chain, newest first and bounded, and compared
 * with what happened to each. A record keeps the arguments only when the consumer keeps them
 * (`audit_arguments: full`); a call without them is counted, never guessed. A record holds the
 * subject, never its roles or an end user's claims: the candidate reads them as empty.
 * @module
 */
import type { ChainEntry } from "../../../core/audit";
import type { JsonObject } from "../../../core/json";
import { REPLAY_LISTED } from "../../../contracts/tool-shadow";
import { storedJson } from "../../kernel/sql";
import { decide, type PolicyDecision, type ToolRules } from "./rules";
import { BEFORE_POLICY } from "./shadow";

/** Audit entries a replay looks back over at most, whatever the window (its work per request stays bounded). */
export const REPLAY_SCAN = 20_000;

/** Answers that come before a write's approval step (besides {@link BEFORE_POLICY}): the rules did not decide them. */
const UNDECIDED: ReadonlySet<string> = new Set([...BEFORE_POLICY, "IDEMPOTENCY_KEY_REQUIRED", "IDEMPOTENCY_CONFLICT"]);

/** What the record says the gate did: refused (NOT_FOUND), a human involved (an approval), or ran. */
function happenedOf(record: JsonObject): PolicyDecision {
  if (record["error_code"] === "NOT_FOUND") return "refused";
  if (typeof record["approval_id"] === "string" || record["error_code"] === "APPROVAL_REQUIRED")
    return "needs_approval";
  return "allowed";
}

function tally(): Record<PolicyDecision, number> {
  return { refused: 0, needs_approval: 0, allowed: 0 };
}

function objectOf(value: unknown): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

/** Replays `rules` over the tool's `entries` (newest first) of `consumer`; the answer's figures (ToolReplayView). */
export function replayCalls(
  name: string,
  consumer: string,
  rules: ToolRules,
  entries: readonly ChainEntry[],
  since: number,
): JsonObject {
  const happened = tally();
  const candidate = tally();
  const differences: JsonObject[] = [];
  let replayed = 0;
  let withoutArguments = 0;
  let beforePolicy = 0;
  let differing = 0;
  for (const entry of entries) {
    const record = objectOf(storedJson(entry.record, "audit record")) ?? {};
    const code = record["error_code"];
    if (typeof code === "string" && UNDECIDED.has(code)) {
      beforePolicy++;
      continue;
    }
    const args = objectOf(record["arguments"]);
    const subject = record["subject_id"];
    if (args === undefined || typeof subject !== "string") {
      withoutArguments++;
      continue;
    }
    replayed++;
    const was = happenedOf(record);
    const principal = { tenant_id: consumer, subject_id: subject, roles: [] };
    const would = decide(rules, { principal, args, now: entry.at, claims: {} });
    happened[was]++;
    candidate[would]++;
    if (was === would) continue;
    differing++;
    if (differences.length >= REPLAY_LISTED) continue;
    const binding = objectOf(record["binding"]);
    const context = objectOf(record["provider_context"]);
    differences.push({
      seq: entry.seq,
      at: entry.at,
      call_id: typeof context?.["call_id"] === "string" ? context["call_id"] : "",
      subject_id: subject,
      request_sha256: typeof binding?.["request_sha256"] === "string" ? binding["request_sha256"] : "",
      happened: was,
      candidate: would,
    });
  }
  return {
    name,
    since,
    calls: entries.length,
    replayed,
    without_arguments: withoutArguments,
    before_policy: beforePolicy,
    happened,
    candidate,
    differing,
    differences,
  };
}
