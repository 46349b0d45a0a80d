/**
 * `toolgate admin approvals list|show|decide` (an approver credential in `TOOLGATE_APPROVER_TOKEN`).
 * `show` and `decide` recompute both digests of the pending view from the fields it shows
 * (docs/approvals.md, "Recomputing the digest"); `decide` submits only when they match, and an
 * approval only when `--digest` names the digest the approver reviewed (`list` and `show` print
 * it), so a decision never binds arguments the approver was not shown.
 * @module
 */
import { canonicalJson, PyFloat, readJson, sha256Hex, type Json, type JsonObject } from "../core/json";
import { visibleText } from "../core/text";
import { err, ok } from "../core/result";
import { APPROVAL_DIGEST_FIELDS, REQUEST_DIGEST_FIELDS } from "../core/tool-result/digests";
import type { AdminContext, AdminGroup } from "./admin";
import { gateExit, intOf, jsonLine, objectOf, textOf, textOrNull, usageExit, type Step } from "./admin-http";
import { clip, compact, fields, table, when } from "./admin-table";

const APPROVAL_ID = /^apr_[0-9a-f]{32}$/;
/** The digest an approval names with `--digest`: at least its first 12 hex digits (what `list` prints). */
const DIGEST_PREFIX = /^[0-9a-f]{12,64}$/;
const LISTED_DIGEST_DIGITS = 12;
/** The widest name of a decision's lines (`arguments`), so the preview and the decision align. */
const NAME_WIDTH = 9;

/** The inputs of `approval_digest` and of `request_sha256` (which binds the arguments shown), in the view. */
const APPROVAL_FIELDS = APPROVAL_DIGEST_FIELDS;
const REQUEST_FIELDS = REQUEST_DIGEST_FIELDS;

/** `--arguments` of an edit, read with the strict reader (a JSON object); given with `edit` and only then. */
function editedArguments(decision: string, text: string | undefined): Step<JsonObject | null> {
  if (decision !== "edit")
    return text === undefined ? ok(null) : err(usageExit("--arguments goes with edit, and only with it"));
  if (text === undefined) return err(usageExit("edit takes --arguments: the corrected arguments as a JSON object"));
  const read = readJson(text);
  if (!read.ok) return err(usageExit(`--arguments is not strict JSON: ${read.error.message}`));
  const value = read.value;
  if (typeof value !== "object" || value === null || Array.isArray(value) || value instanceof PyFloat)
    return err(usageExit("--arguments is a JSON object"));
  return ok(value);
}

function pick(view: JsonObject, keys: readonly string[]): Step<JsonObject> {
  const picked: JsonObject = {};
  for (const key of keys) {
    const value = view[key];
    if (value === undefined) return err(gateExit(`the pending view has no ${key}: refusing to decide`));
    picked[key] = value;
  }
  return ok(picked);
}

/** Both digests recomputed from the view's own fields; an exit unless both equal the view's. */
export function checkDigests(view: JsonObject): Step<string> {
  const request = pick(view, REQUEST_FIELDS);
  if (!request.ok) return request;
  const approval = pick(view, APPROVAL_FIELDS);
  if (!approval.ok) return approval;
  if (sha256Hex(canonicalJson(request.value)) !== view.request_sha256) {
    return err(
      gateExit("request_sha256 does not match the tenant, subject, tool and arguments shown: nothing was submitted"),
    );
  }
  const digest = sha256Hex(canonicalJson(approval.value));
  if (digest !== view.approval_digest)
    return err(gateExit("approval_digest does not match the fields shown: nothing was submitted"));
  return ok(digest);
}

/** The lines that say what a decision binds: the call, its arguments, the digest. */
function preview(view: JsonObject, digest: string): Array<readonly [string, string]> {
  return [
    ["approval", textOf(view, "approval_id")],
    ["tool", textOf(view, "tool")],
    ["subject", textOf(view, "subject_id")],
    ["arguments", compact(view.arguments)],
    [
      "call",
      `${textOf(view, "provider")} ${textOf(view, "call_id")} (operation ${textOf(view, "operation_id")}, key ${textOrNull(view, "idempotency_key") ?? "none"})`,
    ],
    // The agent's words, when it gave some: its claim, outside both digests.
    ...(typeof view.rationale === "string" ? [["rationale", `the agent says: "${view.rationale}"`] as const] : []),
    // The end user confirms in the agent's chat: an approver may deny, never approve or edit.
    ...(view.confirmed_by === "end_user"
      ? [["confirmed by", "the requesting end user, in the agent's chat (an approver may only deny)"] as const]
      : []),
    ["expires", when(intOf(view, "expires_at"))],
    ["digest", `${digest} (recomputed from the fields shown)`],
  ];
}

function pendingPages(ctx: AdminContext): Promise<Step<Json[]>> {
  return ctx.client.pages(ctx.at("/approvals?state=pending"), "approvals", "approver");
}

/** A pending approval and its recomputed digest: an exit unless it is pending and its digests hold. */
async function reviewed(ctx: AdminContext, id: string): Promise<Step<{ view: JsonObject; digest: string }>> {
  if (!APPROVAL_ID.test(id)) return err(usageExit(`not an approval id (apr_ and 32 hex digits): ${id}`));
  const items = await pendingPages(ctx);
  if (!items.ok) return items;
  const view = items.value.map(objectOf).find((v) => v?.approval_id === id);
  if (view === undefined)
    return err(gateExit(`no pending approval ${id} (decided, expired, withdrawn or never opened)`));
  const digest = checkDigests(view);
  return digest.ok ? ok({ view, digest: digest.value }) : digest;
}

/** The verbs of `toolgate admin approvals`. */
export const approvalVerbs: AdminGroup = {
  list: {
    usage: "list",
    role: "approver",
    consumer: true,
    positionals: 0,
    async run(ctx) {
      const items = await pendingPages(ctx);
      if (!items.ok) return items;
      if (ctx.json) return ok(jsonLine(items.value));
      const rows = items.value.map((item) => {
        const v = objectOf(item);
        const digest = textOf(v, "approval_digest").slice(0, LISTED_DIGEST_DIGITS);
        return [
          textOf(v, "approval_id"),
          textOf(v, "tool"),
          textOf(v, "subject_id"),
          when(intOf(v, "requested_at"), "-"),
          when(intOf(v, "expires_at")),
          digest,
          clip(compact(v?.arguments)),
        ];
      });
      return ok(table(["ID", "TOOL", "SUBJECT", "REQUESTED", "EXPIRES", "DIGEST", "ARGUMENTS"], rows));
    },
  },
  show: {
    usage: "show ID",
    role: "approver",
    consumer: true,
    positionals: 1,
    async run(ctx) {
      const found = await reviewed(ctx, ctx.args[0] ?? "");
      if (!found.ok) return found;
      return ok(
        ctx.json ? jsonLine(found.value.view) : fields(preview(found.value.view, found.value.digest), NAME_WIDTH),
      );
    },
  },
  decide: {
    usage:
      "decide ID approve --digest HEX [--reason TEXT] | decide ID edit --digest HEX --arguments JSON [--reason TEXT] | decide ID deny [--reason TEXT]",
    role: "approver",
    consumer: true,
    positionals: 2,
    values: ["digest", "reason", "arguments"],
    async run(ctx) {
      const [id = "", decision = ""] = ctx.args;
      if (decision !== "approve" && decision !== "deny" && decision !== "edit")
        return err(usageExit(`the decision is approve, edit or deny, not ${decision}`));
      const named = ctx.option("digest");
      if (decision !== "deny" && named === undefined) {
        return err(
          usageExit(
            `${decision} names the digest you reviewed: \`toolgate admin approvals show ${id}\` prints the approval in full, then add --digest and its first ${LISTED_DIGEST_DIGITS} or more hex digits`,
          ),
        );
      }
      const edited = editedArguments(decision, ctx.option("arguments"));
      if (!edited.ok) return edited;
      if (named !== undefined && !DIGEST_PREFIX.test(named))
        return err(
          usageExit(
            `--digest takes ${LISTED_DIGEST_DIGITS} to 64 lower-case hex digits of the approval digest, not ${named}`,
          ),
        );
      const found = await reviewed(ctx, id);
      if (!found.ok) return found;
      const { view, digest } = found.value;
      if (named !== undefined && !digest.startsWith(named)) {
        return err(
          gateExit(`approval ${id} has digest ${digest}, not the ${named}… you reviewed: nothing was submitted`),
        );
      }
      // What is decided is shown before it is sent; with --json on standard error, the gate's answer alone on standard output.
      const shown = fields(preview(view, digest), NAME_WIDTH);
      if (ctx.json) ctx.io.stderr(shown);
      else ctx.io.stdout(shown);
      // The edited arguments as they are sent, hidden characters shown as escapes.
      if (edited.value !== null)
        ctx.io.stderr(fields([["edited", visibleText(canonicalJson(edited.value))]], NAME_WIDTH));
      // A denial's or an edit's reason reaches the agent's model as the approver's words (docs/approvals.md).
      const reason = ctx.option("reason");
      const body = canonicalJson({
        decision,
        approval_digest: digest,
        ...(edited.value === null ? {} : { arguments: edited.value }),
        ...(reason === undefined ? {} : { reason }),
      });
      const answer = await ctx.client.json(ctx.at(`/approvals/${id}`), { role: "approver", method: "POST", body });
      if (!answer.ok) return answer;
      if (ctx.json) return ok(`${answer.value.text}\n`);
      const d = objectOf(answer.value.value);
      const valid = intOf(d, "valid_until");
      const line = `${textOf(d, "state")} by ${textOf(d, "approver_id")} at ${when(intOf(d, "decided_at"), "-")}${valid === null ? "" : `, valid until ${when(valid)}`}`;
      const said = textOrNull(d, "reason");
      return ok(
        fields(
          said === null
            ? [["decision", line]]
            : [
                ["decision", line],
                ["reason", `"${said}"`],
              ],
          NAME_WIDTH,
        ),
      );
    },
  },
};
