/**
 * `toolgate admin consumers create|show|list`: a consumer's configuration
 * (`PUT`/`GET /v1/consumers/{consumer}`) and the directory of consumers (`GET /v1/consumers`).
 * @module
 */
import type { JsonObject } from "../core/json";
import { err, ok } from "../core/result";
import type { AdminGroup } from "./admin";
import {
  CONSUMER_NAME,
  gateExit,
  intOf,
  jsonLine,
  objectOf,
  readFileStep,
  textOf,
  textsOf,
  usageExit,
  type Step,
} from "./admin-http";
import { fields, names, table, when } from "./admin-table";

function nameArg(args: readonly string[]): Step<string> {
  const name = args[0] ?? "";
  return CONSUMER_NAME.test(name) ? ok(name) : err(usageExit(`not a consumer name: ${name}`));
}

/** The lines of a consumer's configuration (the view of PUT and of GET). */
function consumerLines(view: JsonObject, stored?: "created" | "updated"): string {
  const issuer = objectOf(view.principal_tokens);
  const limits = objectOf(view.limits) ?? {};
  return fields([
    ["consumer", textOf(view, "consumer")],
    ...(stored === undefined ? [] : [["stored", stored] as const]),
    ["tools", names(textsOf(view, "tools"))],
    ["approvers", names(textsOf(view, "approver_subjects"))],
    [
      "tokens",
      issuer === undefined ? "none" : `issuer ${textOf(issuer, "issuer")}, audience ${textOf(issuer, "audience")}`,
    ],
    [
      "limits",
      Object.keys(limits)
        .sort()
        .map((key) => `${key}=${String(intOf(limits, key) ?? "?")}`)
        .join(" "),
    ],
    // Only when the consumer set one (absent: the default, 600 s).
    ...(typeof view.approval_valid_seconds === "number"
      ? [["approvals", `valid ${String(view.approval_valid_seconds)} s after a decision`] as const]
      : []),
  ]);
}

/** The verbs of `toolgate admin consumers`. */
export const consumerVerbs: AdminGroup = {
  create: {
    usage: "create NAME --config FILE",
    role: "admin",
    consumer: false,
    positionals: 1,
    values: ["config"],
    async run(ctx) {
      const name = nameArg(ctx.args);
      if (!name.ok) return name;
      const file = ctx.option("config");
      if (file === undefined)
        return err(
          usageExit(
            "--config FILE is required (a JSON file: tools, approver_subjects, principal_tokens, limits, approval_valid_seconds)",
          ),
        );
      const body = readFileStep(ctx.io, file);
      if (!body.ok) return body;
      const answer = await ctx.client.json(`/v1/consumers/${name.value}`, {
        role: "admin",
        method: "PUT",
        body: body.value,
      });
      if (!answer.ok) return answer;
      const view = objectOf(answer.value.value);
      if (view === undefined) return err(gateExit("the gate answered a consumer that is not an object"));
      return ok(
        ctx.json ? `${answer.value.text}\n` : consumerLines(view, view.created === true ? "created" : "updated"),
      );
    },
  },
  show: {
    usage: "show NAME",
    role: "admin",
    consumer: false,
    positionals: 1,
    async run(ctx) {
      const name = nameArg(ctx.args);
      if (!name.ok) return name;
      const answer = await ctx.client.json(`/v1/consumers/${name.value}`, { role: "admin" });
      if (!answer.ok) return answer;
      const view = objectOf(answer.value.value);
      if (view === undefined) return err(gateExit("the gate answered a consumer that is not an object"));
      return ok(ctx.json ? `${answer.value.text}\n` : consumerLines(view));
    },
  },
  list: {
    usage: "list",
    role: "admin",
    consumer: false,
    positionals: 0,
    async run(ctx) {
      const items = await ctx.client.pages("/v1/consumers", "consumers", "admin");
      if (!items.ok) return items;
      if (ctx.json) return ok(jsonLine(items.value));
      const rows = items.value.map((item) => {
        const entry = objectOf(item);
        return [textOf(entry, "consumer"), when(intOf(entry, "created_at"), "-")];
      });
      return ok(table(["CONSUMER", "CREATED"], rows));
    },
  },
};
