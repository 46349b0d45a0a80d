/**
 * `toolgate admin approvals standing grant|list|revoke` (an approver credential in
 * `TOOLGATE_APPROVER_TOKEN`): standing approvals (docs/approvals.md, "Standing approvals").
 * @module
 */
import { canonicalJson, type Json, type JsonObject } from "../core/json";
import { err, ok } from "../core/result";
import type { AdminGroup } from "./admin";
import { intOf, jsonLine, objectOf, textOf, textOrNull, usageExit, type Step } from "./admin-http";
import { clip, fields, table, when } from "./admin-table";

const STANDING_ID = /^sta_[0-9a-f]{32}$/;
const NAME_WIDTH = 10;

/** A positive whole number of an option (`--seconds`, `--calls`). */
function count(value: string | undefined, name: string): Step<number> {
  if (value === undefined) return err(usageExit(`--${name} is required`));
  if (!/^[1-9][0-9]{0,8}$/.test(value)) return err(usageExit(`--${name} takes a positive whole number, not ${value}`));
  return ok(Number(value));
}

/** A standing approval's lines: what it covers, its bounds and where it stands. */
function described(view: JsonObject | undefined): string {
  const revokedAt = intOf(view, "revoked_at");
  return fields(
    [
      ["id", textOf(view, "standing_approval_id")],
      ["state", textOf(view, "state")],
      ["covers", `${textOf(view, "subject_id")} calling ${textOf(view, "tool")}`],
      ["constraint", textOrNull(view, "constraint") ?? "none (any arguments)"],
      ["calls", `${String(intOf(view, "used_calls"))} of ${String(intOf(view, "max_calls"))} used`],
      ["granted", `by ${textOf(view, "approver_id")} at ${when(intOf(view, "granted_at"), "-")}`],
      ["until", when(intOf(view, "expires_at"))],
      ...(revokedAt === null
        ? []
        : [["revoked", `by ${textOrNull(view, "revoked_by") ?? "-"} at ${when(revokedAt)}`] as const]),
    ],
    NAME_WIDTH,
  );
}

/** The answer of a grant or revocation: the gate's JSON, or its lines. */
function shown(json: boolean, text: string, value: Json): string {
  return json ? `${text}\n` : described(objectOf(value));
}

/** The two-word verbs `standing grant|list|revoke` of `toolgate admin approvals`. */
export const standingVerbs: AdminGroup = {
  "standing grant": {
    usage: "standing grant TOOL SUBJECT --seconds N --calls N [--constraint CEL]",
    role: "approver",
    consumer: true,
    positionals: 2,
    values: ["seconds", "calls", "constraint"],
    async run(ctx) {
      const [tool = "", subject = ""] = ctx.args;
      const seconds = count(ctx.option("seconds"), "seconds");
      if (!seconds.ok) return seconds;
      const calls = count(ctx.option("calls"), "calls");
      if (!calls.ok) return calls;
      const constraint = ctx.option("constraint");
      const body = canonicalJson({
        tool,
        subject_id: subject,
        seconds: seconds.value,
        max_calls: calls.value,
        ...(constraint === undefined ? {} : { constraint }),
      });
      const answer = await ctx.client.json(ctx.at("/standing-approvals"), { role: "approver", method: "POST", body });
      return answer.ok ? ok(shown(ctx.json, answer.value.text, answer.value.value)) : answer;
    },
  },
  "standing list": {
    usage: "standing list",
    role: "approver",
    consumer: true,
    positionals: 0,
    async run(ctx) {
      const answer = await ctx.client.json(ctx.at("/standing-approvals"), { role: "approver" });
      if (!answer.ok) return answer;
      const items = objectOf(answer.value.value)?.standing_approvals;
      const list = Array.isArray(items) ? items : [];
      if (ctx.json) return ok(jsonLine(list));
      const rows = list.map((item) => {
        const v = objectOf(item);
        return [
          textOf(v, "standing_approval_id"),
          textOf(v, "state"),
          textOf(v, "tool"),
          textOf(v, "subject_id"),
          `${String(intOf(v, "used_calls"))}/${String(intOf(v, "max_calls"))}`,
          when(intOf(v, "expires_at")),
          clip(textOrNull(v, "constraint") ?? "-"),
        ];
      });
      return ok(table(["ID", "STATE", "TOOL", "SUBJECT", "CALLS", "UNTIL", "CONSTRAINT"], rows));
    },
  },
  "standing revoke": {
    usage: "standing revoke ID",
    role: "approver",
    consumer: true,
    positionals: 1,
    async run(ctx) {
      const id = ctx.args[0] ?? "";
      if (!STANDING_ID.test(id)) return err(usageExit(`not a standing approval id (sta_ and 32 hex digits): ${id}`));
      const answer = await ctx.client.json(ctx.at(`/standing-approvals/${id}`), { role: "approver", method: "DELETE" });
      return answer.ok ? ok(shown(ctx.json, answer.value.text, answer.value.value)) : answer;
    },
  },
};
