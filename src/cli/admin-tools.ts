/**
 * `toolgate admin tools put|list|show|enable|disable|delete|shadow|replay` (tools as data, docs/tools.md; shadow
 * and replay in ./admin-tool-policy.ts) and
 * `toolgate admin secrets put|list|delete` (write-only consumer secrets; a value never on the command line).
 * A tool's state is one of `enabled`, `disabled` (the consumer's `tools` lists it or not) or
 * `deleted` (a data tool's definition withdrawn), the gate's words for it.
 * @module
 */
import { canonicalJson, prettyJson, type JsonObject } from "../core/json";
import { err, ok } from "../core/result";
import type { AdminContext, AdminGroup, AdminVerb } from "./admin";
import { listVerb } from "./admin-list";
import {
  gateExit,
  intOf,
  jsonLine,
  objectOf,
  readFileStep,
  reasonOf,
  textOf,
  textsOf,
  usageExit,
  type Step,
} from "./admin-http";
import { fields, table, when } from "./admin-table";
import { replayVerb, shadowVerb } from "./admin-tool-policy";

const TOOL_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
const SECRET_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** The variable a secret's value may come from instead of standard input. */
export const SECRET_VALUE_VARIABLE = "TOOLGATE_SECRET_VALUE";

function named(args: readonly string[], pattern: RegExp, what: string): Step<string> {
  const name = args[0] ?? "";
  return pattern.test(name) ? ok(name) : err(usageExit(`not a ${what} name: ${name}`));
}

function revisionsLine(view: JsonObject | undefined): string {
  const revisions = objectOf(view?.revisions) ?? {};
  return Object.keys(revisions)
    .sort()
    .map((key) => `${key}=${textOf(revisions, key)}`)
    .join(" ");
}

/** The verbs of `toolgate admin tools`. */
export const toolVerbs: AdminGroup = {
  put: {
    usage: "put NAME --file FILE",
    role: "admin",
    consumer: true,
    positionals: 1,
    values: ["file"],
    async run(ctx) {
      const name = named(ctx.args, TOOL_NAME, "tool");
      if (!name.ok) return name;
      const file = ctx.option("file");
      if (file === undefined)
        return err(usageExit("--file FILE is required (the tool's definition as JSON, docs/tools.md)"));
      const body = readFileStep(ctx.io, file);
      if (!body.ok) return body;
      const answer = await ctx.client.json(ctx.at(`/tools/${name.value}`), {
        role: "admin",
        method: "PUT",
        body: body.value,
      });
      if (!answer.ok) return answer;
      if (ctx.json) return ok(`${answer.value.text}\n`);
      const view = objectOf(answer.value.value);
      return ok(
        fields([
          ["tool", textOf(view, "name")],
          ["version", String(intOf(view, "version") ?? "?")],
          ["defined", when(intOf(view, "defined_at"), "-")],
          ["revisions", revisionsLine(view)],
        ]),
      );
    },
  },
  list: listVerb("/tools", "defined", (view) => {
    const enabled = new Set(textsOf(view, "enabled"));
    const defined = new Map<string, JsonObject>();
    for (const item of Array.isArray(view?.defined) ? view.defined : []) {
      const tool = objectOf(item);
      if (tool !== undefined) defined.set(textOf(tool, "name"), tool);
    }
    // Built-in and code tools are listed while enabled; a data tool always, with the gate's state.
    const rows = [...new Set([...enabled, ...defined.keys()])].sort().map((name) => {
      const data = defined.get(name);
      const state = data === undefined ? "enabled" : textOf(data, "state");
      return [name, data === undefined ? "built-in" : String(intOf(data, "current_version") ?? "?"), state];
    });
    return table(["TOOL", "VERSION", "STATE"], rows);
  }),
  show: {
    usage: "show NAME",
    role: "admin",
    consumer: true,
    positionals: 1,
    async run(ctx) {
      const name = named(ctx.args, TOOL_NAME, "tool");
      if (!name.ok) return name;
      const answer = await ctx.client.json(ctx.at(`/tools/${name.value}`), { role: "admin" });
      if (!answer.ok) return answer;
      if (ctx.json) return ok(`${answer.value.text}\n`);
      const view = objectOf(answer.value.value);
      const history = (Array.isArray(view?.history) ? view.history : []).map(objectOf);
      const current = history.find((v) => intOf(v, "version") === intOf(view, "current_version"));
      const definition = objectOf(current?.definition);
      if (definition === undefined) return err(gateExit("the gate answered a tool without its current definition"));
      const head = fields([
        ["tool", textOf(view, "name")],
        ["version", String(intOf(view, "current_version") ?? "?")],
        ["state", textOf(view, "state")],
        ["risk", textOf(definition, "risk")],
        ...(definition.risk === "write"
          ? [
              [
                "confirmed by",
                definition.confirmed_by === "end_user"
                  ? "the requesting end user, in the agent's chat"
                  : "the consumer's approvers",
              ] as const,
            ]
          : []),
        ["description", textOf(definition, "description")],
        [
          "history",
          history.map((v) => `v${String(intOf(v, "version") ?? "?")} ${when(intOf(v, "defined_at"), "-")}`).join(", "),
        ],
      ]);
      return ok(`${head}definition:\n${prettyJson(definition)}\n`);
    },
  },
  enable: stateVerb("enabled"),
  disable: stateVerb("disabled"),
  delete: deleteVerb("tool", TOOL_NAME, "(a data-defined tool: its definition withdrawn, its history kept)"),
  shadow: shadowVerb,
  replay: replayVerb,
};

/** `tools enable|disable NAME`: the one tool's state, the rest of the configuration untouched. */
/** `delete NAME` of a tool or a secret: one admin DELETE of `/<what>s/<name>`. */
function deleteVerb(what: "tool" | "secret", pattern: RegExp, note: string): AdminVerb {
  return {
    usage: `delete NAME   ${note}`,
    role: "admin",
    consumer: true,
    positionals: 1,
    async run(ctx) {
      const name = named(ctx.args, pattern, what);
      if (!name.ok) return name;
      const done = await ctx.client.done(ctx.at(`/${what}s/${name.value}`), { role: "admin", method: "DELETE" });
      if (!done.ok) return done;
      return ok(ctx.json ? jsonLine({ [what]: name.value, deleted: true }) : `deleted ${what} ${name.value}\n`);
    },
  };
}

function stateVerb(state: "enabled" | "disabled"): AdminVerb {
  return {
    usage: `${state === "enabled" ? "enable" : "disable"} NAME`,
    role: "admin",
    consumer: true,
    positionals: 1,
    async run(ctx) {
      const name = named(ctx.args, TOOL_NAME, "tool");
      if (!name.ok) return name;
      const answer = await ctx.client.json(ctx.at(`/tools/${name.value}`), {
        role: "admin",
        method: "PATCH",
        body: canonicalJson({ state }),
        mediaType: "application/merge-patch+json",
      });
      if (!answer.ok) return answer;
      if (ctx.json) return ok(`${answer.value.text}\n`);
      return ok(`${textOf(objectOf(answer.value.value), "state")} tool ${name.value}\n`);
    },
  };
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The secret's value: `TOOLGATE_SECRET_VALUE`, else standard input without one trailing newline. */
function secretValue(ctx: AdminContext): Step<string> {
  const fromEnv = ctx.io.env?.[SECRET_VALUE_VARIABLE];
  let value: string;
  if (fromEnv !== undefined && fromEnv !== "") value = fromEnv;
  else {
    if (ctx.io.readStdin === undefined)
      return err(usageExit(`set ${SECRET_VALUE_VARIABLE} or pipe the value into standard input`));
    try {
      value = decoder.decode(ctx.io.readStdin()).replace(/\r?\n$/, "");
    } catch (caught) {
      return err(usageExit(`cannot read the value from standard input (${reasonOf(caught)})`));
    }
  }
  if (value === "")
    return err(usageExit(`the value is empty: set ${SECRET_VALUE_VARIABLE} or pipe the value into standard input`));
  return ok(value);
}

/** The verbs of `toolgate admin secrets`. */
export const secretVerbs: AdminGroup = {
  put: {
    usage: "put NAME   (the value from TOOLGATE_SECRET_VALUE or standard input)",
    role: "admin",
    consumer: true,
    positionals: 1,
    async run(ctx) {
      const name = named(ctx.args, SECRET_NAME, "secret");
      if (!name.ok) return name;
      const value = secretValue(ctx);
      if (!value.ok) return value;
      const done = await ctx.client.done(ctx.at(`/secrets/${name.value}`), {
        role: "admin",
        method: "PUT",
        body: canonicalJson({ value: value.value }),
      });
      if (!done.ok) return done;
      return ok(ctx.json ? jsonLine({ secret: name.value, stored: true }) : `stored secret ${name.value}\n`);
    },
  },
  list: listVerb("/secrets", "secrets", (view) =>
    table(
      ["SECRET"],
      textsOf(view, "secrets").map((s) => [s]),
    ),
  ),
  delete: deleteVerb("secret", SECRET_NAME, "(tools whose headers use it send nothing until it is put again)"),
};
