/**
 * `toolgate admin webhooks create|list|delete|deliveries|redeliver`: a consumer's webhook
 * endpoints and their delivery log (docs/webhooks.md). The signing secret of a new endpoint is
 * printed once, labelled.
 * @module
 */
import { canonicalJson } from "../core/json";
import { err, ok } from "../core/result";
import type { AdminGroup } from "./admin";
import { listVerb } from "./admin-list";
import { intOf, jsonLine, objectOf, textOf, textOrNull, textsOf, usageExit } from "./admin-http";
import { fields, names, table, when } from "./admin-table";

const ENDPOINT_ID = /^ep_[0-9a-f]{32}$/;
const DELIVERY_ID = /^dlv_[0-9a-f]{32}$/;

/** The verbs of `toolgate admin webhooks`. */
export const webhookVerbs: AdminGroup = {
  create: {
    usage:
      "create --url URL [--events TYPE,TYPE...] [--include-arguments] [--description TEXT]   (the gate: --gate URL or TOOLGATE_URL)",
    role: "admin",
    consumer: true,
    positionals: 0,
    values: ["url", "events", "description"],
    flags: ["include-arguments"],
    async run(ctx) {
      const url = ctx.option("url");
      if (url === undefined) return err(usageExit("--url URL (where deliveries are sent) is required"));
      const events = ctx.option("events");
      const request = {
        url,
        ...(events === undefined ? {} : { events: events.split(",").filter((e) => e !== "") }),
        include_arguments: ctx.flag("include-arguments"),
        ...(ctx.option("description") === undefined ? {} : { description: ctx.option("description") }),
      };
      const answer = await ctx.client.json(ctx.at("/webhooks"), {
        role: "admin",
        method: "POST",
        body: canonicalJson(request),
      });
      if (!answer.ok) return answer;
      if (ctx.json) return ok(`${answer.value.text}\n`);
      const view = objectOf(answer.value.value);
      const lines = fields([
        ["endpoint", textOf(view, "endpoint_id")],
        ["url", textOf(view, "url")],
        ["events", names(textsOf(view, "events"))],
        ["arguments", view?.include_arguments === true ? "included" : "not included"],
        ["secret", textOf(view, "secret")],
      ]);
      return ok(
        `${lines}The signing secret is shown this once: store it now (receivers verify each delivery with it).\n`,
      );
    },
  },
  list: listVerb("/webhooks", "endpoints", (view) => {
    const items = Array.isArray(view?.endpoints) ? view.endpoints : [];
    const rows = items.map((item) => {
      const e = objectOf(item);
      return [
        textOf(e, "endpoint_id"),
        textOf(e, "url"),
        textsOf(e, "events").join(","),
        e?.include_arguments === true ? "yes" : "no",
        when(intOf(e, "created_at"), "-"),
      ];
    });
    return table(["ID", "URL", "EVENTS", "ARGUMENTS", "CREATED"], rows);
  }),
  delete: {
    usage: "delete ID",
    role: "admin",
    consumer: true,
    positionals: 1,
    async run(ctx) {
      const id = ctx.args[0] ?? "";
      if (!ENDPOINT_ID.test(id)) return err(usageExit(`not an endpoint id (ep_ and 32 hex digits): ${id}`));
      const done = await ctx.client.done(ctx.at(`/webhooks/${id}`), { role: "admin", method: "DELETE" });
      if (!done.ok) return done;
      return ok(ctx.json ? jsonLine({ endpoint_id: id, deleted: true }) : `deleted webhook endpoint ${id}\n`);
    },
  },
  deliveries: {
    usage: "deliveries [--endpoint ID]",
    role: "admin",
    consumer: true,
    positionals: 0,
    values: ["endpoint"],
    async run(ctx) {
      const endpoint = ctx.option("endpoint");
      if (endpoint !== undefined && !ENDPOINT_ID.test(endpoint))
        return err(usageExit(`not an endpoint id (ep_ and 32 hex digits): ${endpoint}`));
      const items = await ctx.client.pages(
        ctx.at(`/webhooks/deliveries${endpoint === undefined ? "" : `?endpoint_id=${endpoint}`}`),
        "deliveries",
        "admin",
      );
      if (!items.ok) return items;
      if (ctx.json) return ok(jsonLine(items.value));
      const rows = items.value.map((item) => {
        const d = objectOf(item);
        const attempts = Array.isArray(d?.attempts) ? d.attempts.map(objectOf) : [];
        const last = attempts[attempts.length - 1];
        // The last attempt: the receiver's status, or why there was none (timeout, network, secret_unavailable).
        const error = last === undefined ? null : textOrNull(last, "error");
        const status =
          last === undefined
            ? "-"
            : error === null || error === "http_status"
              ? String(intOf(last, "status_code") ?? "-")
              : error;
        return [
          textOf(d, "delivery_id"),
          textOf(d, "endpoint_id"),
          textOf(d, "event_type"),
          textOf(d, "state"),
          String(attempts.length),
          status,
          when(intOf(d, "created_at"), "-"),
        ];
      });
      return ok(table(["ID", "ENDPOINT", "EVENT", "STATE", "ATTEMPTS", "LAST", "CREATED"], rows));
    },
  },
  redeliver: {
    usage: "redeliver DELIVERY_ID",
    role: "admin",
    consumer: true,
    positionals: 1,
    async run(ctx) {
      const id = ctx.args[0] ?? "";
      if (!DELIVERY_ID.test(id)) return err(usageExit(`not a delivery id (dlv_ and 32 hex digits): ${id}`));
      const answer = await ctx.client.json(ctx.at(`/webhooks/deliveries/${id}/redeliver`), {
        role: "admin",
        method: "POST",
      });
      if (!answer.ok) return answer;
      if (ctx.json) return ok(`${answer.value.text}\n`);
      const d = objectOf(answer.value.value);
      return ok(
        `queued delivery ${textOf(d, "delivery_id")} to ${textOf(d, "endpoint_id")}: message ${textOf(d, "message_id")} again (a redelivery of ${id})\n`,
      );
    },
  },
};
