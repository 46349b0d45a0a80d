/**
 * The `list` verb the collection groups share, apart from `admin.ts` so the groups it loads
 * lazily import nothing of it at run time (no import cycle).
 * @module
 */
import { canonicalJson, type JsonObject } from "../core/json";
import { ok } from "../core/result";
import type { AdminVerb } from "./admin";
import { objectOf } from "./admin-http";

/**
 * `list` of a consumer's collection (`path` under the consumer, the admin's token), every page
 * of it: the first page with `key` holding the items of all pages (`--json`: as JSON), else the
 * table `render` makes of that.
 */
export function listVerb(path: string, key: string, render: (answer: JsonObject | undefined) => string): AdminVerb {
  return {
    usage: "list",
    role: "admin",
    consumer: true,
    positionals: 0,
    async run(ctx) {
      const first = await ctx.client.json(ctx.at(path), { role: "admin" });
      if (!first.ok) return first;
      const page = objectOf(first.value.value);
      const rest =
        typeof page?.next_cursor === "string"
          ? await ctx.client.pages(`${ctx.at(path)}?cursor=${encodeURIComponent(page.next_cursor)}`, key, "admin")
          : ok([]);
      if (!rest.ok) return rest;
      const items = Array.isArray(page?.[key]) ? page[key] : [];
      const all: JsonObject = { ...page, [key]: [...items, ...rest.value], next_cursor: null };
      return ok(ctx.json ? `${canonicalJson(all)}\n` : render(all));
    },
  };
}
