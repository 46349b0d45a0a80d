/**
 * A capability tool call's Tool Result v2 package: the tool's contract (a registry entry of its
 * own, built from the capability, so the package validates and every provider profile projects
 * it like any tool's), the data of a succeeded result, and the catalog error of every other end.
 *
 * What the model sees of a result: its content (JSON as `json` and a text block, text as a text
 * block, an image as an MCP image block), its media type, length and whether it was cut, and the
 * provider's redacted summary. Never a binding, operation, instance or generation, never an
 * opaque result reference: those are the provider's and the gate's own.
 * @module
 */
import { encodeBase64 } from "../../../core/audit/base64";
import type { CapabilityResult } from "../../../core/capability";
import { readJson, sha256Hex, type Json, type JsonObject } from "../../../core/json";
import { MODEL_RESULT_SCHEMA_VERSION } from "../../../core/tool-result/constants";
import { requestDigest } from "../../../core/tool-result/digests";
import type { ErrorCode } from "../../../core/tool-result/error-catalog";
import { checkHandlerOutput } from "../../../core/tool-result/output-contract";
import { buildPackage, errorPackage } from "../../../core/tool-result/packages";
import { defineTool, type ToolSpec } from "../../../core/tool-result/tool-spec";
import type { ModelResult, Principal, ResultPackage, ToolCall } from "../../../core/tool-result/types";
import { formatUtcSecond } from "../../../core/tool-result/utc-time";

/** The source label and producer revision of every capability result. */
export const CAPABILITY_PRODUCER = "toolgate-capability";
export const CAPABILITY_TOOL_REVISION = "capability-tool-v1";

/** The most a capability result's data may take as canonical JSON (a 256 KiB inline result, base64 or escaped). */
const MAX_DATA_BYTES = 1_048_576;

/** The arguments a capability tool takes: which of the granted scopes and providers, and the input sent as the payload. */
export interface CapabilityToolArguments {
  readonly resource_scope_id?: string;
  readonly provider_id?: string;
  readonly input: JsonObject;
}

const ARGUMENT_NAMES = new Set(["resource_scope_id", "provider_id", "input"]);

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The arguments of a call, or `null` when they are not a capability tool's. */
export function capabilityArguments(args: JsonObject): CapabilityToolArguments | null {
  for (const key of Object.keys(args)) if (!ARGUMENT_NAMES.has(key)) return null;
  const scope = args["resource_scope_id"];
  const provider = args["provider_id"];
  const input = args["input"] ?? {};
  if (scope !== undefined && typeof scope !== "string") return null;
  if (provider !== undefined && typeof provider !== "string") return null;
  if (!isObject(input)) return null;
  return {
    ...(scope === undefined ? {} : { resource_scope_id: scope }),
    ...(provider === undefined ? {} : { provider_id: provider }),
    input,
  };
}

/** The input schema of a capability tool: its granted scopes and providers to choose from. */
export function capabilityInputSchema(scopes: readonly string[], providers: readonly string[]): JsonObject {
  return {
    type: "object",
    additionalProperties: false,
    properties: {
      resource_scope_id: {
        type: "string",
        enum: [...scopes],
        description: "Which resource (needed only when there is more than one).",
      },
      provider_id: {
        type: "string",
        enum: [...providers],
        description: "Which provider answers (needed only when more than one offers it).",
      },
      input: { type: "object", description: "The capability's input, sent to the provider as JSON (default {})." },
    },
  };
}

/** The schema of a capability result's data. */
export const CAPABILITY_DATA_SCHEMA: JsonObject = {
  type: "object",
  required: ["capability_id", "media_type", "byte_len", "truncated", "content"],
  properties: {
    capability_id: { type: "string" },
    media_type: { type: ["string", "null"] },
    byte_len: { type: "integer", minimum: 0 },
    truncated: { type: "boolean" },
    summary: { type: "string" },
    json: {},
    content: { type: "array", items: { type: "object" } },
  },
};

function isCapabilityData(value: Json): boolean {
  if (!isObject(value)) return false;
  return (
    typeof value["capability_id"] === "string" &&
    (value["media_type"] === null || typeof value["media_type"] === "string") &&
    typeof value["byte_len"] === "number" &&
    typeof value["truncated"] === "boolean" &&
    Array.isArray(value["content"])
  );
}

/** The registry entry of one capability tool (never in the consumer's registry: its own, per call and per list). */
export function capabilityToolSpec(name: string, capabilityId: string, description: string): ToolSpec {
  return defineTool({
    name,
    inputSchemaRevision: CAPABILITY_TOOL_REVISION,
    policyRevision: "capability-grants-v1",
    risk: "read",
    arguments: {},
    outputSchemaRevision: CAPABILITY_TOOL_REVISION,
    output: {},
    maxOutputBytes: MAX_DATA_BYTES,
    maxOutputDepth: 32,
    effectRevision: `capability:${capabilityId}`,
    handlerRevision: CAPABILITY_TOOL_REVISION,
    producerLabel: CAPABILITY_PRODUCER,
    producerRevision: CAPABILITY_TOOL_REVISION,
    timeoutMs: 30_000,
    authorize: () => true,
    execution: { kind: "external" },
    description,
    inputSchema: { document: capabilityInputSchema([], []), validate: (v) => isObject(v) },
    outputSchema: { document: CAPABILITY_DATA_SCHEMA, validate: isCapabilityData },
  });
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function isJsonType(media: string): boolean {
  return media === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(media);
}

/** The result's model data candidates: with its JSON read (when it is JSON), then without it. */
function dataOf(capabilityId: string, result: CapabilityResult): JsonObject[] {
  const meta = result.metadata;
  const media = meta.media_type === null ? null : (meta.media_type.split(";")[0]?.trim().toLowerCase() ?? null);
  const base: JsonObject = {
    capability_id: capabilityId,
    media_type: meta.media_type,
    byte_len: Number(meta.byte_len),
    truncated: meta.truncated,
    ...(meta.redacted_summary === null ? {} : { summary: meta.redacted_summary }),
  };
  // An opaque reference is the provider's handle: the model gets that there was a result, not the handle.
  if (!("inline" in result.delivery)) return [{ ...base, content: [] }];
  const bytes = new Uint8Array(result.delivery.inline.bytes);
  if (media !== null && media.startsWith("image/"))
    return [{ ...base, content: [{ type: "image", data: encodeBase64(bytes), mimeType: media }] }];
  let text: string | null = null;
  try {
    text = decoder.decode(bytes);
  } catch {
    text = null;
  }
  if (text === null || media === null || !(media.startsWith("text/") || isJsonType(media)))
    return [{ ...base, base64: encodeBase64(bytes), content: [] }];
  const content = [{ type: "text", text }];
  if (!isJsonType(media)) return [{ ...base, content }];
  const read = readJson(text, { maxBytes: MAX_DATA_BYTES });
  return read.ok
    ? [
        { ...base, json: read.value, content },
        { ...base, content },
      ]
    : [{ ...base, content }];
}

/** A succeeded package for a result, or `null` when no form of its data passes the tool's output contract. */
export function resultPackage(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec,
  result: CapabilityResult,
  capabilityId: string,
  nowSeconds: number,
): ResultPackage | null {
  const observedAt = formatUtcSecond(nowSeconds);
  for (const data of dataOf(capabilityId, result)) {
    const raw = { data, producer_revision: spec.producerRevision, resource_revision: null, observed_at: observedAt };
    const checked = checkHandlerOutput(spec, call, raw);
    if (checked.errors.length > 0) continue;
    const model: ModelResult = {
      schema_version: MODEL_RESULT_SCHEMA_VERSION,
      status: "succeeded",
      data,
      error: null,
      execution: { outcome: "committed", delivery: "fresh", complete: true, truncated: false },
      provenance: {
        source_label: spec.producerLabel,
        producer_revision: spec.producerRevision,
        resource_revision: null,
        observed_at: observedAt,
        trust: "untrusted_data",
      },
    };
    const request = requestDigest(principal, call, spec, sha256Hex);
    const downstream = { request_id: null, receipt_id: null, status_ref: null };
    return buildPackage(principal, call, spec, model, request, downstream, sha256Hex, checked.dataText);
  }
  return null;
}

/** A failed package with one catalog code (the catalog fixes what the model reads). */
export function failurePackage(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
  code: ErrorCode,
  nowSeconds: number,
): ResultPackage {
  const request = requestDigest(principal, call, spec, sha256Hex);
  return errorPackage(principal, call, spec, code, request, nowSeconds, sha256Hex);
}
