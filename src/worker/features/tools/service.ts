import { canonicalJson, type JsonObject } from "../../../core/json";
import { ToolDefinition, type ShadowRules, type ToolTarget } from "../../../contracts/tool-definition";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import type { ObjectKernel } from "../../kernel/kernel";
import type { SecretVault } from "../secrets/vault";
import { storedJson } from "../../kernel/sql";
import { buildTool, checkRuleTypes, type BuiltTool } from "./build";
import { ToolStore, type StoredTool, type StoredToolVersion } from "./store";

/** Tools a consumer may define. */
export const MAX_DATA_TOOLS = 256;
/** Versions shown in a tool's history. */
export const HISTORY_VERSIONS = 50;

/** What data tools use of the kernel: their table, the audit chain and the target rule. */
type DataToolsKernel = Pick<ObjectKernel, "sql" | "audit" | "targets">;

/** A target as stored (its defaults applied). */
function targetJson(target: ToolTarget): JsonObject {
  if (target.kind === "mcp") {
    const json: JsonObject = {
      kind: target.kind,
      url: target.url,
      tool: target.tool,
      max_response_bytes: target.max_response_bytes,
    };
    if (target.auth !== undefined) json["auth"] = { secret: target.auth.secret, prefix: target.auth.prefix };
    return json;
  }
  return {
    kind: target.kind,
    url: target.url,
    method: target.method,
    headers: { ...target.headers },
    secret_headers: Object.fromEntries(
      Object.entries(target.secret_headers).map(([header, ref]) => [
        header,
        { secret: ref.secret, prefix: ref.prefix },
      ]),
    ),
    max_response_bytes: target.max_response_bytes,
    ...(target.status_url === undefined ? {} : { status_url: target.status_url }),
    ...(target.fence_url === undefined ? {} : { fence_url: target.fence_url }),
  };
}

/** The shadow rules as stored (only the rules given). */
function shadowJson(shadow: ShadowRules): JsonObject {
  return {
    ...(shadow.authorize === undefined ? {} : { authorize: shadow.authorize }),
    ...(shadow.approval === undefined ? {} : { approval: shadow.approval }),
  };
}

/** The stored text of a definition (its defaults applied), canonical JSON. */
function definitionText(definition: ToolDefinition): string {
  const json: JsonObject = {
    description: definition.description,
    risk: definition.risk,
    timeout_ms: definition.timeout_ms,
    input: definition.input as JsonObject,
    output: {
      schema: definition.output.schema as JsonObject,
      bound_to_arguments: { ...definition.output.bound_to_arguments },
      max_bytes: definition.output.max_bytes,
      max_depth: definition.output.max_depth,
    },
    authorize: definition.authorize,
    target: targetJson(definition.target),
    ...(definition.approval === undefined ? {} : { approval: definition.approval }),
    ...(definition.approval_valid_seconds === undefined
      ? {}
      : { approval_valid_seconds: definition.approval_valid_seconds }),
    ...(definition.confirmed_by === undefined ? {} : { confirmed_by: definition.confirmed_by }),
    ...(definition.shadow === undefined ? {} : { shadow: shadowJson(definition.shadow) }),
  };
  return canonicalJson(json);
}

function versionView(stored: StoredToolVersion): JsonObject {
  return {
    name: stored.name,
    version: stored.version,
    definition: storedJson(stored.definition, "tool definition"),
    revisions: storedJson(stored.revisions, "tool revisions"),
    defined_at: stored.definedAt,
  };
}

/** A defined tool's state: `deleted` once withdrawn, else `enabled` or `disabled` as the consumer's `tools` says. */
function stateOf(tool: StoredTool, enabled: readonly string[]): "enabled" | "disabled" | "deleted" {
  if (tool.disabledAt !== null) return "deleted";
  return enabled.includes(tool.name) ? "enabled" : "disabled";
}

/**
 * The consumer's tools as data: every version kept, one current, compiled once per version
 * into the engine's tool (schema subset, CEL rules, revisions, HTTP target). Definitions are
 * checked whole at definition time; a stored one that no longer builds is a bug.
 */
export class DataTools {
  readonly #table: ToolStore;
  readonly #kernel: DataToolsKernel;
  readonly #vault: SecretVault;
  /** Names taken by the gate's own tools (built-in, HTTP catalog, embedded code tools). */
  readonly #reserved: () => readonly string[];
  #built: BuiltTool[] | undefined;

  constructor(kernel: DataToolsKernel, vault: SecretVault, reserved: () => readonly string[]) {
    this.#kernel = kernel;
    this.#vault = vault;
    this.#reserved = reserved;
    this.#table = new ToolStore(kernel.sql);
  }

  /** Checks and compiles a definition without storing it. */
  check(name: string, definition: ToolDefinition): Outcome<BuiltTool> {
    if (this.#reserved().includes(name))
      return fail({
        ...problem("INVALID_TOOL_DEFINITION", `"${name}" is a tool of the gate's own catalog.`),
        path: "",
      });
    const built = buildTool(name, definition, this.#kernel.targets);
    if (!built.ok)
      return fail({ ...problem("INVALID_TOOL_DEFINITION", built.error.message), path: built.error.pointer });
    const typed = checkRuleTypes(definition);
    if (typed !== null) return fail({ ...problem("INVALID_TOOL_DEFINITION", typed.message), path: typed.pointer });
    const target = definition.target;
    const secrets =
      target.kind === "http"
        ? Object.entries(target.secret_headers).map(
            ([header, ref]) => [`/target/secret_headers/${header}/secret`, ref.secret] as const,
          )
        : target.auth === undefined
          ? []
          : [["/target/auth/secret", target.auth.secret] as const];
    for (const [path, secret] of secrets) {
      if (!this.#vault.has(secret))
        return fail({
          ...problem("INVALID_TOOL_DEFINITION", `No secret named "${secret}" (PUT …/secrets/${secret} first).`),
          path,
        });
    }
    return ok(built.value);
  }

  /**
   * Defines (or redefines) a tool, inside the caller's transaction: a new version when the
   * definition changed, the same one (enabled again) when it did not. Audited.
   */
  define(name: string, definition: ToolDefinition, now: number): Outcome<{ view: string; created: boolean }> {
    const built = this.check(name, definition);
    if (!built.ok) return built;
    const text = definitionText(definition);
    const current = this.#table.tool(name);
    if (current === undefined && this.#table.count() >= MAX_DATA_TOOLS)
      return fail(problem("QUOTA_EXCEEDED", `A consumer defines at most ${MAX_DATA_TOOLS} tools.`));
    const latest = current === undefined ? undefined : this.#table.version(name, current.currentVersion);
    if (latest !== undefined && latest.definition === text) {
      this.#table.enable(name);
    } else {
      const version = (current?.currentVersion ?? 0) + 1;
      this.#table.append(name, version, text, canonicalJson({ ...built.value.revisions }), now);
      this.#kernel.audit.append("tool.defined", now, { name, version, revisions: { ...built.value.revisions } });
    }
    this.#built = undefined;
    const stored = this.#table.tool(name);
    const version = stored === undefined ? undefined : this.#table.version(name, stored.currentVersion);
    if (version === undefined) throw new Error("tool version missing right after it was stored");
    return ok({ view: canonicalJson(versionView(version)), created: current === undefined });
  }

  /** The current version, the state for a consumer enabling `enabled`, and the history of a tool (newest first). */
  view(name: string, enabled: readonly string[]): Outcome<string> {
    const tool = this.#table.tool(name);
    if (tool === undefined) return fail(problem("NOT_FOUND", "No such tool."));
    const history = this.#table.history(name, HISTORY_VERSIONS).map(versionView);
    return ok(canonicalJson({ name, current_version: tool.currentVersion, state: stateOf(tool, enabled), history }));
  }

  /** A tool's current definition and version (enabled or not), as stored. */
  current(name: string): { definition: ToolDefinition; version: number; enabled: boolean } | undefined {
    const tool = this.#table.tool(name);
    const stored = tool === undefined ? undefined : this.#table.version(name, tool.currentVersion);
    if (tool === undefined || stored === undefined) return undefined;
    return {
      definition: ToolDefinition.parse(storedJson(stored.definition, "tool definition")),
      version: tool.currentVersion,
      enabled: tool.disabledAt === null,
    };
  }

  /** Every defined tool: name, current version, state for a consumer enabling `enabled`. */
  list(enabled: readonly string[]): JsonObject[] {
    return this.#table
      .tools()
      .map((tool) => ({ name: tool.name, current_version: tool.currentVersion, state: stateOf(tool, enabled) }));
  }

  /**
   * Deletes a tool: its definition is withdrawn (history kept; defining it again restores it).
   * Audited as `tool.disabled`, the entry's kind since the log began.
   */
  disable(name: string, now: number): Outcome<null> {
    const tool = this.#table.tool(name);
    if (tool === undefined || tool.disabledAt !== null) return fail(problem("NOT_FOUND", "No such tool."));
    this.#table.disable(name, now);
    this.#kernel.audit.append("tool.disabled", now, { name, version: tool.currentVersion });
    this.#built = undefined;
    return ok(null);
  }

  /**
   * The enabled tools, compiled (cached until a definition changes). A stored definition that
   * the Worker's current target policy refuses (a loopback target once `npm start` no longer
   * allows it) is left out: its calls answer UNKNOWN_TOOL until it is defined again.
   */
  built(): readonly BuiltTool[] {
    this.#built ??= this.#table.current().flatMap((stored) => {
      const definition = ToolDefinition.parse(storedJson(stored.definition, "tool definition"));
      const built = buildTool(stored.name, definition, this.#kernel.targets);
      return built.ok ? [built.value] : [];
    });
    return this.#built;
  }

  /** Forgets the compiled tools (after a rolled-back transaction). */
  reset(): void {
    this.#built = undefined;
  }
}
