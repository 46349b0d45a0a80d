/**
 * `toolgate admin tools shadow NAME` (a tool's shadow rules: counts and kept disagreements) and
 * `toolgate admin tools replay NAME --definition FILE [--limit N]` (a candidate's rules against
 * the calls the gate still holds), docs/approvals.md, "Policies in shadow".
 * @module
 */
import { canonicalJson, readJson, type Json, type JsonObject } from "../core/json";
import { err, ok } from "../core/result";
import type { AdminVerb } from "./admin";
import { gateExit, intOf, objectOf, readFileStep, textOf, usageExit, type Step } from "./admin-http";
import { cell, fields, table, when } from "./admin-table";

const TOOL_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
/** The most calls the gate replays in one request (contracts/tool-shadow.ts). */
const REPLAY_MAX = 500;
/** The calls it replays when the command names no limit. */
const REPLAY_DEFAULT = 200;

function toolName(args: readonly string[]): Step<string> {
  const name = args[0] ?? "";
  return TOOL_NAME.test(name) ? ok(name) : err(usageExit(`not a tool name: ${name}`));
}

function rows(value: Json | undefined): JsonObject[] {
  return (Array.isArray(value) ? value : []).flatMap((item) => {
    const object = objectOf(item);
    return object === undefined ? [] : [object];
  });
}

function tallyLine(tally: JsonObject | undefined): string {
  return ["refused", "needs_approval", "allowed"].map((k) => `${k} ${String(intOf(tally, k) ?? 0)}`).join(", ");
}

/** The shadow view for a person: the rules, the counts, then the kept disagreements. */
function shadowText(view: JsonObject | undefined): string {
  const shadow = objectOf(view?.shadow);
  const counts = objectOf(view?.counts);
  const disagreed = objectOf(counts?.disagreed);
  const rules =
    shadow === undefined
      ? "none"
      : Object.entries(shadow)
          .map(([k, v]) => `${k}: ${cell(v)}`)
          .join("; ");
  const head = fields([
    ["tool", textOf(view, "name")],
    ["shadow", rules],
    ["revision", cell(view?.revision)],
    ["evaluated", String(intOf(counts, "evaluated") ?? 0)],
    ["agreed", String(intOf(counts, "agreed") ?? 0)],
    [
      "disagreed",
      `authorize ${String(intOf(disagreed, "authorize") ?? 0)}, approval ${String(intOf(disagreed, "approval") ?? 0)}`,
    ],
  ]);
  const kept = rows(view?.disagreements);
  if (kept.length === 0) return `${head}no disagreement kept\n`;
  return `${head}${table(
    ["AT", "KIND", "ENFORCED", "SHADOW", "SUBJECT", "CALL"],
    kept.map((d) => [
      when(intOf(d, "at"), "-"),
      textOf(d, "kind"),
      textOf(d, "enforced"),
      textOf(d, "shadow"),
      textOf(d, "subject_id"),
      textOf(d, "call_id"),
    ]),
  )}`;
}

/** The replay's figures for a person: counts, then the differing calls. */
function replayText(view: JsonObject | undefined): string {
  const n = (key: string) => String(intOf(view, key) ?? 0);
  const head = fields([
    ["tool", textOf(view, "name")],
    ["since", when(intOf(view, "since"), "-")],
    ["calls", n("calls")],
    ["replayed", n("replayed")],
    ["not replayed", `${n("without_arguments")} without arguments (audit_arguments: digest)`],
    ["before policy", n("before_policy")],
    ["happened", tallyLine(objectOf(view?.happened))],
    ["candidate", tallyLine(objectOf(view?.candidate))],
    ["differing", n("differing")],
  ]);
  const differences = rows(view?.differences);
  if (differences.length === 0) return head;
  return `${head}${table(
    ["SEQ", "AT", "HAPPENED", "CANDIDATE", "SUBJECT", "CALL"],
    differences.map((d) => [
      String(intOf(d, "seq") ?? "?"),
      when(intOf(d, "at"), "-"),
      textOf(d, "happened"),
      textOf(d, "candidate"),
      textOf(d, "subject_id"),
      textOf(d, "call_id"),
    ]),
  )}`;
}

/** `tools shadow NAME`. */
export const shadowVerb: AdminVerb = {
  usage: "shadow NAME   (the shadow rules' counts and kept disagreements)",
  role: "admin",
  consumer: true,
  positionals: 1,
  async run(ctx) {
    const name = toolName(ctx.args);
    if (!name.ok) return name;
    const answer = await ctx.client.json(ctx.at(`/tools/${name.value}/shadow`), { role: "admin" });
    if (!answer.ok) return answer;
    return ok(ctx.json ? `${answer.value.text}\n` : shadowText(objectOf(answer.value.value)));
  },
};

/** `tools replay NAME --definition FILE [--limit N]`. */
export const replayVerb: AdminVerb = {
  usage: `replay NAME --definition FILE [--limit N]   (N ≤ ${REPLAY_MAX}, newest calls first)`,
  role: "admin",
  consumer: true,
  positionals: 1,
  values: ["definition", "limit"],
  async run(ctx) {
    const name = toolName(ctx.args);
    if (!name.ok) return name;
    const file = ctx.option("definition");
    if (file === undefined) return err(usageExit("--definition FILE is required (the candidate definition as JSON)"));
    const limitText = ctx.option("limit");
    const limit = limitText === undefined ? undefined : Number(limitText);
    if (limit !== undefined && !(/^[1-9][0-9]*$/.test(limitText ?? "") && limit <= REPLAY_MAX))
      return err(usageExit(`--limit is a whole number from 1 to ${REPLAY_MAX}`));
    const bytes = readFileStep(ctx.io, file);
    if (!bytes.ok) return bytes;
    const definition = readJson(bytes.value);
    if (!definition.ok) return err(usageExit(`${file} is not JSON: ${definition.error.message}`));
    const body = canonicalJson({ definition: definition.value, ...(limit === undefined ? {} : { limit }) });
    ctx.io.stderr(
      `replaying ${name.value} against its newest ${String(limit ?? REPLAY_DEFAULT)} calls held by the gate…\n`,
    );
    const answer = await ctx.client.json(ctx.at(`/tools/${name.value}/replay`), {
      role: "admin",
      method: "POST",
      body,
    });
    if (!answer.ok) return answer;
    const view = objectOf(answer.value.value);
    if (view === undefined) return err(gateExit("the gate answered a replay that is not an object"));
    ctx.io.stderr(`replayed ${String(intOf(view, "replayed") ?? 0)} of ${String(intOf(view, "calls") ?? 0)} calls\n`);
    return ok(ctx.json ? `${answer.value.text}\n` : replayText(view));
  },
};
