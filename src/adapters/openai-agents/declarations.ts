import type { AgentClient } from "../../client/agent";
import type { ClientResult } from "../../client/transport";

/** The strict object schema the SDK's `tool()` takes for `strict: true` parameters (its `JsonObjectSchemaStrict`). */
export interface StrictParameters {
  readonly type: "object";
  readonly properties: Record<string, Record<string, unknown>>;
  readonly required: string[];
  readonly additionalProperties: false;
  readonly [keyword: string]: unknown;
}

/** One tool as the gate declares it in its `openai` format (a Responses API function tool, strict). */
export interface GateDeclaration {
  readonly name: string;
  readonly description: string;
  readonly parameters: StrictParameters;
}

/** Pages of `GET …/tools?format=openai` read at most (the gate holds at most 256 tools per consumer). */
const MAX_PAGES = 64;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The gate's strict form (docs/tools.md, "The tool list for models"): an object schema whose
 * properties are all required and that admits no other member, which is what the SDK's
 * strict `JsonObjectSchemaStrict` describes.
 */
function isStrictParameters(value: unknown): value is StrictParameters {
  if (!isRecord(value) || value["type"] !== "object" || value["additionalProperties"] !== false) return false;
  const { properties, required } = value;
  return (
    isRecord(properties) &&
    Object.values(properties).every(isRecord) &&
    Array.isArray(required) &&
    required.every((name) => typeof name === "string")
  );
}

/** One declaration of the page, or null when it is not the `openai` format's function tool. */
function declaration(tool: Record<string, unknown>): GateDeclaration | null {
  const { type, name, description, parameters } = tool;
  if (type !== "function" || typeof name !== "string" || typeof description !== "string") return null;
  return isStrictParameters(parameters) ? { name, description, parameters } : null;
}

/**
 * Every tool the credential may call, as the gate declares it for OpenAI (all pages). A
 * declaration of another shape is a gate this adapter does not know: it throws rather than
 * give the model a tool it cannot describe.
 */
export async function gateDeclarations(agent: AgentClient): Promise<ClientResult<GateDeclaration[]>> {
  const found: GateDeclaration[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await agent.tools(cursor === undefined ? { format: "openai" } : { format: "openai", cursor });
    if (!answer.ok) return answer;
    for (const tool of answer.value.tools) {
      const read = declaration(tool);
      if (read === null) throw new Error(`the gate declared a tool that is not a strict function tool`);
      found.push(read);
    }
    if (answer.value.next_cursor === null) return { ok: true, value: found };
    cursor = answer.value.next_cursor;
  }
  throw new Error(`the gate's tool list ran past ${MAX_PAGES} pages`);
}
