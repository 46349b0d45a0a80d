/**
 * MCP's side of a tool call (`tools/list`, `tools/call`): a validated package projected as a
 * `CallToolResult`, a tool's annotations from its risk, and the `outputSchema` that describes
 * exactly what `structuredContent` carries (the model result), so an MCP client that validates
 * one against the other accepts every successful answer.
 *
 * | field               | value                                                                |
 * | ------------------- | -------------------------------------------------------------------- |
 * | `structuredContent` | the Tool Result v2 `model_result`                                    |
 * | `content`           | one text block: the model result as canonical JSON (code and recovery included) |
 * | `isError`           | `true` unless the status is `succeeded`                              |
 * @module
 */
import { sha256Hex, type JsonObject } from "../json";
import { canonicalOfResult } from "../tool-result/packages";
import {
  MCP_PROFILE,
  MODEL_RESULT_SCHEMA_VERSION,
  VALID_DELIVERIES,
  VALID_OUTCOMES,
  VALID_RECOVERIES,
  VALID_STATUSES,
  VALID_TRUST,
} from "../tool-result/constants";
import type { HashFn, Principal, ResultPackage, ToolCall } from "../tool-result/types";
import type { ToolSpec } from "../tool-result/tool-spec";
import { validateResult } from "../tool-result/validate-result";

/** A projection's answer: the MCP payload, or why the package may not be sent. */
type McpProjection =
  | { readonly ok: true; readonly value: JsonObject }
  | { readonly ok: false; readonly error: { readonly code: "RESULT_CONTRACT_VIOLATION"; readonly message: string } };

/** MCP `tools/call`: a `CallToolResult` whose `structuredContent` is the model result. */
export function toMcpToolResult(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
  pkg: ResultPackage,
  hash: HashFn = sha256Hex,
): McpProjection {
  if (call.provider !== MCP_PROFILE.provider || call.api_family !== MCP_PROFILE.api_family) {
    return { ok: false, error: { code: "RESULT_CONTRACT_VIOLATION", message: "call is not an MCP tools context" } };
  }
  const errors = validateResult(principal, call, spec, pkg, hash);
  if (errors.length > 0)
    return {
      ok: false,
      error: {
        code: "RESULT_CONTRACT_VIOLATION",
        message: "result-contract validation failed:\n- " + errors.join("\n- "),
      },
    };
  const model = pkg.model_result;
  return {
    ok: true,
    value: {
      content: [{ type: "text", text: canonicalOfResult(model) }],
      structuredContent: model,
      isError: model.status !== "succeeded",
    },
  };
}

/** MCP tool annotations from a tool's risk: a read is read-only and idempotent; a write may destroy. */
export function mcpAnnotations(risk: "read" | "write"): JsonObject {
  return risk === "read"
    ? { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true }
    : { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
}

const text = { type: "string" };
const nullableText = { type: ["string", "null"] };

/**
 * The JSON Schema (2020-12) of a tool's `structuredContent`: the model result, with `data`
 * described by the tool's own output schema when it has one (any object otherwise).
 */
export function mcpOutputSchema(dataSchema: JsonObject | undefined): JsonObject {
  const data = dataSchema ?? { type: "object" };
  return {
    type: "object",
    additionalProperties: false,
    required: ["schema_version", "status", "data", "error", "execution", "provenance"],
    properties: {
      schema_version: { const: MODEL_RESULT_SCHEMA_VERSION },
      status: { enum: [...VALID_STATUSES] },
      data: { anyOf: [data, { type: "null" }] },
      error: {
        anyOf: [
          {
            type: "object",
            additionalProperties: false,
            required: ["code", "category", "safe_message", "recovery", "retry_after_ms"],
            properties: {
              code: text,
              category: text,
              safe_message: text,
              recovery: { enum: [...VALID_RECOVERIES] },
              retry_after_ms: { type: ["integer", "null"], minimum: 0 },
            },
          },
          { type: "null" },
        ],
      },
      execution: {
        type: "object",
        additionalProperties: false,
        required: ["outcome", "delivery", "complete", "truncated"],
        properties: {
          outcome: { enum: [...VALID_OUTCOMES] },
          delivery: { enum: [...VALID_DELIVERIES] },
          complete: { const: true },
          truncated: { const: false },
        },
      },
      provenance: {
        type: "object",
        additionalProperties: false,
        required: ["source_label", "producer_revision", "resource_revision", "observed_at", "trust"],
        properties: {
          source_label: text,
          producer_revision: text,
          resource_revision: nullableText,
          observed_at: text,
          trust: { enum: [...VALID_TRUST] },
        },
      },
    },
  };
}
