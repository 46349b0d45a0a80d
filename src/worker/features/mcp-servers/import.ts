/**
 * An MCP server's `tools/list` → tool definitions: each listed tool becomes a definition whose
 * target is that tool on that server, its input the tool's `inputSchema` and its output the
 * content blocks plus the tool's `outputSchema`, both checked against the tools-as-data subset;
 * a tool outside it is refused with the subset's pointer and reason.
 * @module
 */
import { type Json, type JsonObject } from "../../../core/json";
import { compileSchema } from "../../../core/tool-schema";
import { ToolDefinition, ToolName } from "../../../contracts/tool-definition";
import { mcpToolOutputSchema } from "../../targets/mcp/content";

/** The registration parts an import needs. */
export interface ImportSource {
  readonly name: string;
  readonly url: string;
  readonly prefix: string;
  readonly auth: { readonly secret: string; readonly prefix: string } | null;
  readonly timeoutMs: number;
  /** The stored relay bits (store.ts `RELAY_*`; absent: none). */
  readonly relay?: number;
}

/** One listed tool, ready to define. */
export interface PlannedTool {
  readonly name: string;
  readonly downstream: string;
  readonly definition: ToolDefinition;
}

/** A listed tool the gate does not import, and why. */
export interface RefusedTool {
  readonly downstream: string;
  readonly reason: string;
}

/** The largest `data` of an imported tool (canonical JSON bytes). */
export const IMPORTED_OUTPUT_BYTES = 262_144;

const MAX_DESCRIPTION = 1_024;
const STRUCTURED = "/properties/structuredContent";

function isObject(value: Json | undefined): value is JsonObject {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

/** Keywords that only annotate: removing them never changes which values a schema accepts. */
const ANNOTATIONS = new Set(["$schema", "$comment", "default", "examples", "deprecated", "readOnly", "writeOnly"]);

function put(target: JsonObject, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A schema without its annotation-only keywords (`$schema` names a dialect: the subset reads
 * draft-07 and 2020-12 alike; `default` and the like leave validation as it is), in every
 * schema the subset walks (`properties` members, `items`).
 */
function withoutAnnotations(schema: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    const value = schema[key];
    if (key === "items" && isObject(value)) put(out, key, withoutAnnotations(value));
    else if (key === "properties" && isObject(value)) {
      const properties: JsonObject = {};
      for (const name of Object.keys(value)) {
        const member = value[name];
        put(properties, name, isObject(member) ? withoutAnnotations(member) : (member as Json));
      }
      put(out, key, properties);
    } else put(out, key, value as Json);
  }
  return out;
}

function text(value: Json | undefined): string {
  return typeof value === "string" ? value.trim() : "";
}

/** The model's description: the tool's description, else its title, else where it comes from; at most 1,024 code points. */
function descriptionOf(tool: JsonObject, downstream: string, server: string): string {
  const annotations = isObject(tool["annotations"]) ? tool["annotations"] : {};
  const found =
    [text(tool["description"]), text(tool["title"]), text(annotations["title"])].find((t) => t !== "") ??
    `${downstream} (MCP server ${server})`;
  return Array.from(found).slice(0, MAX_DESCRIPTION).join("");
}

type Checked = { ok: true; input: JsonObject; output: JsonObject } | { ok: false; reason: string };

function checkSchemas(tool: JsonObject): Checked {
  const rawInput = tool["inputSchema"];
  if (!isObject(rawInput)) return { ok: false, reason: "/inputSchema: not a JSON object" };
  const input = withoutAnnotations(rawInput);
  const compiled = compileSchema(input);
  if (!compiled.ok) return { ok: false, reason: `/inputSchema${compiled.error.pointer}: ${compiled.error.message}` };
  if (input["type"] !== "object") return { ok: false, reason: "/inputSchema/type: a tool's input is an object schema" };
  const rawOutput = tool["outputSchema"];
  if (rawOutput !== undefined && !isObject(rawOutput)) return { ok: false, reason: "/outputSchema: not a JSON object" };
  const structured = rawOutput === undefined ? undefined : withoutAnnotations(rawOutput);
  if (structured !== undefined && structured["type"] !== "object")
    return { ok: false, reason: "/outputSchema/type: structured content is an object schema" };
  const output = mcpToolOutputSchema(structured);
  const checked = compileSchema(output);
  if (!checked.ok) {
    const pointer = checked.error.pointer.startsWith(STRUCTURED)
      ? `/outputSchema${checked.error.pointer.slice(STRUCTURED.length)}`
      : `/outputSchema${checked.error.pointer}`;
    return { ok: false, reason: `${pointer}: ${checked.error.message}` };
  }
  return { ok: true, input, output };
}

/**
 * The definitions of a listing: every tool that fits (its name the prefix plus the downstream
 * name), the others refused with their reason. `read` only for `annotations.readOnlyHint: true`.
 */
export function planImport(
  source: ImportSource,
  listed: readonly JsonObject[],
): { planned: PlannedTool[]; refused: RefusedTool[] } {
  const planned: PlannedTool[] = [];
  const refused: RefusedTool[] = [];
  const seen = new Set<string>();
  for (const tool of listed) {
    const raw = tool["name"];
    const downstream = typeof raw === "string" ? raw.slice(0, 128) : "";
    const refuse = (reason: string) => refused.push({ downstream, reason });
    if (typeof raw !== "string" || raw === "" || raw.length > 128) {
      refuse("a tool's name is a string of 1 to 128 characters");
      continue;
    }
    if (seen.has(downstream)) {
      refuse("the server lists this name twice");
      continue;
    }
    seen.add(downstream);
    const name = source.prefix + downstream;
    if (!ToolName.safeParse(name).success) {
      refuse(`"${name}" is not a tool name the gate accepts (^[a-zA-Z][a-zA-Z0-9_-]{0,63}$)`);
      continue;
    }
    const execution = isObject(tool["execution"]) ? tool["execution"] : {};
    if (execution["taskSupport"] === "required") {
      refuse("the tool runs only as an MCP task (execution.taskSupport: required); the gate calls tools directly");
      continue;
    }
    const schemas = checkSchemas(tool);
    if (!schemas.ok) {
      refuse(schemas.reason);
      continue;
    }
    const annotations = isObject(tool["annotations"]) ? tool["annotations"] : {};
    const definition = ToolDefinition.safeParse({
      description: descriptionOf(tool, downstream, source.name),
      risk: annotations["readOnlyHint"] === true ? "read" : "write",
      timeout_ms: source.timeoutMs,
      input: schemas.input,
      output: { schema: schemas.output, max_bytes: IMPORTED_OUTPUT_BYTES, max_depth: 16 },
      target: {
        kind: "mcp",
        url: source.url,
        tool: downstream,
        ...(source.auth === null ? {} : { auth: { ...source.auth } }),
      },
    });
    if (!definition.success) {
      refuse(definition.error.issues[0]?.message ?? "not a tool definition");
      continue;
    }
    planned.push({ name, downstream, definition: definition.data });
  }
  return { planned, refused };
}

/**
 * What a re-import stores over an existing definition of the same server's tool: the server's
 * description, schemas and risk (`write` if either says so), the admin's rules, timeout and
 * bounds kept — so a re-import never loosens an `authorize` or `approval` written since.
 */
export function mergeImported(current: ToolDefinition, fresh: ToolDefinition): ToolDefinition {
  const risk = current.risk === "write" || fresh.risk === "write" ? "write" : "read";
  return {
    ...current,
    description: fresh.description,
    risk,
    input: fresh.input,
    output: { ...current.output, schema: fresh.output.schema },
  };
}

/** Whether a stored definition is this server's tool `downstream` (an import may write over it). */
export function isImportOf(current: ToolDefinition, url: string, downstream: string): boolean {
  return current.target.kind === "mcp" && current.target.url === url && current.target.tool === downstream;
}
