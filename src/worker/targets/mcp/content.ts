/**
 * What an MCP target's answer becomes: `data = { content: [blocks], structuredContent? }`, the
 * blocks reduced to the members MCP defines for them (text, image, audio, resource links,
 * embedded resources) so they fit one closed schema of the tools-as-data subset; `_meta` and
 * members MCP does not define are dropped.
 * @module
 */
import { PyFloat, type Json, type JsonObject } from "../../../core/json";

/** Most content blocks one answer may carry. */
export const MAX_CONTENT_BLOCKS = 128;

const STRING: JsonObject = { type: "string" };

/** The schema of one content block, in the tools-as-data subset (every member optional but `type`). */
export const CONTENT_BLOCK_SCHEMA: JsonObject = {
  type: "object",
  properties: {
    type: { type: "string", enum: ["text", "image", "audio", "resource_link", "resource"] },
    text: STRING,
    data: STRING,
    mimeType: STRING,
    uri: STRING,
    name: STRING,
    title: STRING,
    description: STRING,
    size: { type: "number", minimum: 0 },
    annotations: {
      type: "object",
      properties: {
        audience: { type: "array", items: { type: "string", enum: ["user", "assistant"] }, maxItems: 2 },
        priority: { type: "number", minimum: 0, maximum: 1 },
        lastModified: STRING,
      },
    },
    resource: {
      type: "object",
      properties: { uri: STRING, mimeType: STRING, text: STRING, blob: STRING },
      required: ["uri"],
    },
  },
  required: ["type"],
};

/**
 * The output schema of an MCP target's tool: its content blocks, and, when the tool declares an
 * `outputSchema`, its structured content under that schema (then required, as MCP requires it).
 */
export function mcpToolOutputSchema(outputSchema: JsonObject | undefined): JsonObject {
  const content: JsonObject = { type: "array", items: CONTENT_BLOCK_SCHEMA, maxItems: MAX_CONTENT_BLOCKS };
  if (outputSchema === undefined) return { type: "object", properties: { content }, required: ["content"] };
  return {
    type: "object",
    properties: { content, structuredContent: outputSchema },
    required: ["content", "structuredContent"],
  };
}

const BLOCK_MEMBERS = ["type", "text", "data", "mimeType", "uri", "name", "title", "description", "size"];
const ANNOTATION_MEMBERS = ["audience", "priority", "lastModified"];
const RESOURCE_MEMBERS = ["uri", "mimeType", "text", "blob"];

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof PyFloat);
}

function pick(value: JsonObject, members: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const member of members) {
    const v = Object.hasOwn(value, member) ? value[member] : undefined;
    if (v !== undefined) out[member] = v;
  }
  return out;
}

/** The blocks as the output schema reads them; a value that is not a block stays as it is (and fails the schema). */
export function contentBlocks(blocks: readonly Json[]): Json[] {
  return blocks.map((block) => {
    if (!isObject(block)) return block;
    const out = pick(block, BLOCK_MEMBERS);
    const annotations = block["annotations"];
    if (annotations !== undefined)
      out["annotations"] = isObject(annotations) ? pick(annotations, ANNOTATION_MEMBERS) : annotations;
    const resource = block["resource"];
    if (resource !== undefined) out["resource"] = isObject(resource) ? pick(resource, RESOURCE_MEMBERS) : resource;
    return out;
  });
}

/** Whether a tool's output schema carries `structuredContent` (so the answer's is kept). */
export function declaresStructuredContent(outputSchema: JsonObject | undefined): boolean {
  const properties = outputSchema?.["properties"];
  return isObject(properties) && Object.hasOwn(properties, "structuredContent");
}
