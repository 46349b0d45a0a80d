/**
 * `toolgate admin <group> <verb> [options]`: manages a running gate over its HTTP API (docs/admin-cli.md).
 * Tokens come from the environment only (a flag would show in `ps`). Exit 0 done, 1 the gate
 * answered a problem (or a check failed), 2 a usage error or a missing or refused token.
 * @module
 */
import { err, ok, type Result } from "../core/result";
import { CONSUMER_NAME, GateClient, TOKEN_VARIABLES, usageExit, type Exit, type Role, type Step } from "./admin-http";
import { forPerson } from "./admin-table";
import type { CliIo } from "./io";

/** What a verb's run sees: its parsed arguments, the gate, and the consumer it acts on. */
export interface AdminContext {
  readonly io: CliIo;
  readonly client: GateClient;
  /** `--json`: print the gate's JSON (lists: one array of every page's items). */
  readonly json: boolean;
  /** The verb's positional arguments, in the order its usage names them. */
  readonly args: readonly string[];
  /** The consumer (`--consumer` or `TOOLGATE_CONSUMER`), for verbs that act on one; "" otherwise. */
  readonly consumer: string;
  /** An option's value (the last one given), or undefined. */
  option(name: string): string | undefined;
  /** Every value of a repeatable option. */
  options(name: string): readonly string[];
  flag(name: string): boolean;
  /** The path of this consumer's route: `/v1/consumers/{consumer}` + `path`. */
  at(path: string): string;
}

/**
 * One verb of a group. `run` answers the text for standard output (exit 0), or an exit status
 * when the verb printed its own report (`audit verify`).
 */
export interface AdminVerb {
  /** Its usage after the group name: `create NAME --config FILE`. */
  readonly usage: string;
  /** Whose token it sends (checked present before anything runs); null for public routes only. */
  readonly role: Role | null;
  /** Whether it acts on one consumer (`--consumer NAME` or `TOOLGATE_CONSUMER`). */
  readonly consumer: boolean;
  /** How many positional arguments it takes. */
  readonly positionals: number;
  /** Options that take a value (the last one counts), repeatable options, and flags. */
  readonly values?: readonly string[];
  readonly repeated?: readonly string[];
  readonly flags?: readonly string[];
  run(ctx: AdminContext): Promise<Step<string | number>>;
}

/** A group of verbs. */
export type AdminGroup = Readonly<Record<string, AdminVerb>>;

const GROUPS: Record<string, () => Promise<AdminGroup>> = {
  consumers: async () => (await import("./admin-consumers")).consumerVerbs,
  tools: async () => (await import("./admin-tools")).toolVerbs,
  secrets: async () => (await import("./admin-tools")).secretVerbs,
  credentials: async () => (await import("./admin-credentials")).credentialVerbs,
  approvals: async () => ({
    ...(await import("./admin-approvals")).approvalVerbs,
    ...(await import("./admin-standing")).standingVerbs,
  }),
  audit: async () => (await import("./admin-audit")).auditVerbs,
  webhooks: async () => (await import("./admin-webhooks")).webhookVerbs,
};

/** Options of every verb: the gate (`--gate` is the same as `--url`, for verbs whose own `--url` names something else) and the consumer. */
const COMMON = ["url", "gate", "consumer"];

const HEADER = `usage: toolgate admin <group> <verb> [options] [--json] [--url URL] [--consumer NAME]

  --url URL        the gate (or --gate URL); else TOOLGATE_URL, else http://127.0.0.1:8787
  --consumer NAME  the consumer; else TOOLGATE_CONSUMER
  --json           the gate's JSON (paged lists: one array of every page's items)
Tokens come from the environment only: ${TOKEN_VARIABLES.admin} (consumers, tools, secrets,
credentials, webhooks), ${TOKEN_VARIABLES.approver} (approvals), ${TOKEN_VARIABLES.auditor} (audit).
Exit 0 done; 1 the gate answered a problem or a check failed; 2 a usage error, or a missing or
refused token.
`;

/** The usage of every group, built from their verbs. */
async function fullUsage(): Promise<string> {
  const lines: string[] = [];
  for (const [name, load] of Object.entries(GROUPS)) {
    for (const verb of Object.values(await load())) lines.push(`  toolgate admin ${name} ${verb.usage}`);
  }
  return `${HEADER}\ncommands:\n${lines.join("\n")}\n`;
}

interface Parsed {
  readonly positionals: string[];
  readonly values: Map<string, string[]>;
  readonly flags: Set<string>;
}

/** `--name VALUE`, `--name=VALUE` and `--flag`; anything else not starting with `--` is positional. */
function parse(args: readonly string[], verb: AdminVerb): Result<Parsed, string> {
  const values = [...COMMON, ...(verb.values ?? []), ...(verb.repeated ?? [])];
  const flags = ["json", ...(verb.flags ?? [])];
  const parsed: Parsed = { positionals: [], values: new Map(), flags: new Set() };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith("--")) {
      parsed.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = (eq < 0 ? arg : arg.slice(0, eq)).slice(2);
    if (flags.includes(name)) {
      if (eq >= 0) return err(`--${name} takes no value`);
      parsed.flags.add(name);
      continue;
    }
    if (!values.includes(name)) return err(`unrecognized option --${name}`);
    const value = eq < 0 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === "") return err(`--${name} expects a value`);
    parsed.values.set(name, [...(parsed.values.get(name) ?? []), value]);
  }
  if (parsed.positionals.length !== verb.positionals)
    return err(verb.positionals === 0 ? `unexpected argument ${parsed.positionals[0]}` : "wrong number of arguments");
  return ok(parsed);
}

function consumerOf(io: CliIo, parsed: Parsed): Step<string> {
  const name = parsed.values.get("consumer")?.at(-1) ?? io.env?.TOOLGATE_CONSUMER;
  if (name === undefined || name === "")
    return err(usageExit("name the consumer with --consumer NAME or TOOLGATE_CONSUMER"));
  return CONSUMER_NAME.test(name) ? ok(name) : err(usageExit(`not a consumer name: ${name}`));
}

/** Runs one verb: parse, the consumer, the token's presence, then the verb. */
async function runVerb(io: CliIo, label: string, verb: AdminVerb, args: readonly string[]): Promise<number> {
  const fail = (exit: Exit): number => {
    io.stderr(forPerson(`${label}: ${exit.message}\n`));
    return exit.status;
  };
  const parsed = parse(args, verb);
  // The words of the verb's name in its label (`toolgate admin <group> <verb…>`), left out of its usage.
  const words = label.split(" ").length - 3;
  if (!parsed.ok) {
    io.stderr(
      forPerson(
        `${label}: ${parsed.error}\nusage: ${`${label} ${verb.usage.split(" ").slice(words).join(" ")}`.trimEnd()}\n`,
      ),
    );
    return 2;
  }
  const { values, flags, positionals } = parsed.value;
  const ownsUrl = verb.values?.includes("url") === true;
  const client = GateClient.of(io, values.get("gate")?.at(-1) ?? (ownsUrl ? undefined : values.get("url")?.at(-1)));
  if (!client.ok) return fail(client.error);
  const consumer = verb.consumer ? consumerOf(io, parsed.value) : ok("");
  if (!consumer.ok) return fail(consumer.error);
  if (verb.role !== null) {
    const token = client.value.token(verb.role);
    if (!token.ok) return fail(token.error);
  }
  const ctx: AdminContext = {
    io,
    client: client.value,
    json: flags.has("json"),
    args: positionals,
    consumer: consumer.value,
    option: (name) => values.get(name)?.at(-1),
    options: (name) => values.get(name) ?? [],
    flag: (name) => flags.has(name),
    at: (path) => `/v1/consumers/${encodeURIComponent(consumer.value)}${path}`,
  };
  const done = await verb.run(ctx);
  if (!done.ok) return fail(done.error);
  if (typeof done.value === "number") return done.value;
  io.stdout(ctx.json ? done.value : forPerson(done.value));
  return 0;
}

/** `toolgate admin …`: answers the exit status. */
export async function runAdmin(args: string[], io: CliIo): Promise<number> {
  const [groupName, verbName, ...rest] = args;
  if (groupName === undefined || groupName === "--help" || groupName === "-h") {
    const usage = await fullUsage();
    if (groupName === undefined) io.stderr(usage);
    else io.stdout(usage);
    return groupName === undefined ? 2 : 0;
  }
  const load = GROUPS[groupName];
  if (load === undefined) {
    io.stderr(forPerson(`toolgate admin: unknown group '${groupName}'\n${await fullUsage()}`));
    return 2;
  }
  const group = await load();
  // A two-word verb (`approvals standing grant`) is named by both words.
  const pair = verbName === undefined || rest[0] === undefined ? undefined : `${verbName} ${rest[0]}`;
  const paired = pair === undefined ? undefined : group[pair];
  const verb = paired ?? (verbName === undefined ? undefined : group[verbName]);
  if (verb === undefined) {
    const lines = Object.values(group).map((v) => `  toolgate admin ${groupName} ${v.usage}`);
    const help = verbName === "--help" || verbName === "-h";
    const usage = `usage:\n${lines.join("\n")}\n`;
    if (help) io.stdout(usage);
    else
      io.stderr(
        forPerson(
          `toolgate admin ${groupName}: ${verbName === undefined ? "a verb is required" : `unknown verb '${verbName}'`}\n${usage}`,
        ),
      );
    return help ? 0 : 2;
  }
  return paired === undefined
    ? runVerb(io, `toolgate admin ${groupName} ${verbName}`, verb, rest)
    : runVerb(io, `toolgate admin ${groupName} ${pair}`, verb, rest.slice(1));
}
