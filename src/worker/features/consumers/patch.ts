/**
 * `PATCH /v1/consumers/{consumer}`: a JSON Merge Patch (RFC 7396) over the stored configuration,
 * as a PUT body would give it (limits as overrides, absent members absent), the result checked
 * by the PUT's contract. A refusal names the first offending member by JSON pointer (`path`).
 * @module
 */
import { mergePatch } from "../../../core/json/merge-patch";
import { ConsumerConfig, type ConsumerPatch } from "../../../contracts/consumer";
import { describeIssues } from "../../http/body";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import type { ConsumerRecord } from "./store";

/** The stored configuration as the PUT body that gives it (members at their default left out). */
export function configOf(record: ConsumerRecord): ConsumerConfig {
  return {
    tools: [...record.tools],
    approver_subjects: [...record.approverSubjects],
    ...(record.principalTokens === null ? {} : { principal_tokens: record.principalTokens }),
    ...(Object.keys(record.limits).length === 0 ? {} : { limits: { ...record.limits } }),
    ...(record.corsOrigins.length === 0 ? {} : { cors_origins: [...record.corsOrigins] }),
    ...(record.auditArguments === "digest" ? {} : { audit_arguments: record.auditArguments }),
    ...(record.standingApprovals === null ? {} : { standing_approvals: { ...record.standingApprovals } }),
  };
}

/** A JSON pointer (RFC 6901) of an issue's path. */
function pointer(path: readonly PropertyKey[]): string {
  return path.map((key) => `/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

/** The configuration `patch` makes of the stored one, or why it is not one. */
export function patched(record: ConsumerRecord, patch: ConsumerPatch): Outcome<ConsumerConfig> {
  const merged = ConsumerConfig.safeParse(mergePatch(configOf(record), patch));
  if (merged.success) return ok(merged.data);
  const first = merged.error.issues[0];
  // A member the contract does not know is named by its own pointer, not its object's.
  const extra = first?.code === "unrecognized_keys" ? first.keys.slice(0, 1) : [];
  return fail({
    ...problem("INVALID_REQUEST", `The patched configuration: ${describeIssues(merged.error)}`),
    path: pointer([...(first?.path ?? []), ...extra]),
  });
}
