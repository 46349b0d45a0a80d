import { mcpTool } from "@anthropic-ai/sdk/helpers/beta/mcp";
import { Validator } from "@cfworker/json-schema";
import { mcpToTool } from "@google/genai";
import { toStrictJsonSchema } from "openai/lib/transform";
import { describe, expect, it } from "vitest";
import {
  DECLARATION_FORMATS,
  declareTools,
  fromOpenAiStrictArguments,
  isDeclarationFormat,
  type ToolDeclarationInput,
} from "../../../src/core/adapters";
import { PyFloat, type Json, type JsonObject } from "../../../src/core/json";

// Nested objects, an array of objects, optional fields at every level, enums, a const, every
// bounded keyword of the subset, and an optional property whose own schema already admits null.
function refundInput(): JsonObject {
  return {
    type: "object",
    properties: {
      order_ref: {
        type: "string",
        description: "The order to refund",
        minLength: 1,
        maxLength: 64,
        pattern: "^ORDER-[0-9]+$",
      },
      amount: { type: "number", exclusiveMinimum: 0, maximum: 10000 },
      kind: { type: "string", const: "refund" },
      currency: { type: "string", enum: ["EUR", "USD"] },
      reason: { type: "string", maxLength: 200, description: "Shown to the customer." },
      lines: {
        type: "array",
        minItems: 1,
        maxItems: 10,
        items: {
          type: "object",
          properties: {
            sku: { type: "string", minLength: 3 },
            quantity: { type: "integer", minimum: 1 },
            note: { type: "string" },
          },
          required: ["sku", "quantity"],
          additionalProperties: false,
        },
      },
      shipping: {
        type: "object",
        title: "Shipping",
        properties: {
          address: {
            type: "object",
            properties: { line1: { type: "string" }, country: { type: "string", enum: ["FR", "DE"] } },
            required: ["line1", "country"],
            additionalProperties: false,
          },
          express: { type: "boolean" },
        },
        required: ["address"],
        additionalProperties: false,
      },
      cursor: { type: "null" },
    },
    required: ["order_ref", "amount", "kind", "lines"],
    additionalProperties: false,
  };
}

const refund = (): ToolDeclarationInput => ({
  name: "create_refund",
  description: "Refunds an order.",
  input: refundInput(),
});
const ping: ToolDeclarationInput = {
  name: "ping",
  description: "",
  input: { type: "object", properties: {}, additionalProperties: false },
};

// Written by hand from OpenAI's strict-mode rules (all properties required, optional ones
// nullable, additionalProperties false, minLength/maxLength moved into the description).
const STRICT_REFUND: JsonObject = {
  type: "object",
  properties: {
    order_ref: {
      type: "string",
      pattern: "^ORDER-[0-9]+$",
      description: "The order to refund. Between 1 and 64 characters long.",
    },
    amount: { type: "number", exclusiveMinimum: 0, maximum: 10000 },
    kind: { type: "string", enum: ["refund"] },
    currency: { type: ["string", "null"], enum: ["EUR", "USD", null] },
    reason: { type: ["string", "null"], description: "Shown to the customer. At most 200 characters long." },
    lines: {
      type: "array",
      minItems: 1,
      maxItems: 10,
      items: {
        type: "object",
        properties: {
          sku: { type: "string", description: "At least 3 characters long." },
          quantity: { type: "integer", minimum: 1 },
          note: { type: ["string", "null"] },
        },
        required: ["sku", "quantity", "note"],
        additionalProperties: false,
      },
    },
    shipping: {
      type: ["object", "null"],
      title: "Shipping",
      properties: {
        address: {
          type: "object",
          properties: { line1: { type: "string" }, country: { type: "string", enum: ["FR", "DE"] } },
          required: ["line1", "country"],
          additionalProperties: false,
        },
        express: { type: ["boolean", "null"] },
      },
      required: ["address", "express"],
      additionalProperties: false,
    },
    cursor: { type: "null" },
  },
  required: ["order_ref", "amount", "kind", "currency", "reason", "lines", "shipping", "cursor"],
  additionalProperties: false,
};

function valid(schema: JsonObject, document: Json): boolean {
  return new Validator(schema as Record<string, unknown>, "2020-12", false).validate(document).valid;
}

describe("declareTools: openai", () => {
  it("declares a strict Responses function tool", () => {
    expect(declareTools([refund(), ping], "openai")).toEqual([
      {
        type: "function",
        name: "create_refund",
        description: "Refunds an order.",
        parameters: STRICT_REFUND,
        strict: true,
      },
      {
        type: "function",
        name: "ping",
        description: "",
        parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
        strict: true,
      },
    ]);
  });

  it("is a fixed point of the OpenAI SDK's own strict-schema normalizer", () => {
    const [declared] = declareTools([refund()], "openai");
    const parameters = declared?.parameters ?? {};
    expect(toStrictJsonSchema(structuredClone(parameters))).toEqual(parameters);
  });

  it("makes every property required at every depth, optional ones nullable", () => {
    const strict = declareTools([refund()], "openai")[0]?.parameters ?? {};
    const input = refundInput();
    // An argument set that leaves every optional member out suits the tool's schema only.
    const sparse = { order_ref: "ORDER-7", amount: 5, kind: "refund", lines: [{ sku: "abc", quantity: 1 }] };
    expect([valid(input, sparse), valid(strict, sparse)]).toEqual([true, false]);
    // In the strict form each optional member is present, as null.
    const nulls = {
      ...sparse,
      currency: null,
      reason: null,
      lines: [{ sku: "abc", quantity: 1, note: null }],
      shipping: null,
      cursor: null,
    };
    expect([valid(input, nulls), valid(strict, nulls)]).toEqual([false, true]);
    // Nested optional members too; the nested required ones stay non-null.
    const full = {
      ...nulls,
      currency: "EUR",
      shipping: { address: { line1: "1 rue Pi", country: "FR" }, express: null },
    };
    expect(valid(strict, full)).toBe(true);
    expect(valid(strict, { ...full, shipping: { address: null, express: true } })).toBe(false);
    expect(valid(strict, { ...full, amount: null })).toBe(false);
    expect(valid(strict, { ...full, extra: 1 })).toBe(false);
  });

  it("reads strict arguments back into the tool's own form", () => {
    const strictArgs: JsonObject = {
      order_ref: "ORDER-7",
      amount: 5,
      kind: "refund",
      currency: null,
      reason: "late",
      lines: [
        { sku: "abc", quantity: 1, note: null },
        { sku: "def", quantity: 2, note: "gift" },
      ],
      shipping: { address: { line1: "1 rue Pi", country: "FR" }, express: null },
      cursor: null,
    };
    const restored = fromOpenAiStrictArguments(refundInput(), strictArgs);
    expect(restored).toEqual({
      order_ref: "ORDER-7",
      amount: 5,
      kind: "refund",
      reason: "late",
      lines: [
        { sku: "abc", quantity: 1 },
        { sku: "def", quantity: 2, note: "gift" },
      ],
      shipping: { address: { line1: "1 rue Pi", country: "FR" } },
      cursor: null, // its own schema is {type: "null"}: a value, not an absence
    });
    expect(valid(refundInput(), restored)).toBe(true);
    // A null for a required member, and an undeclared member, are left for the gate to refuse.
    expect(fromOpenAiStrictArguments(refundInput(), { amount: null, extra: null })).toEqual({
      amount: null,
      extra: null,
    });
    expect(strictArgs.currency).toBe(null); // the input is not modified
  });
});

describe("declareTools: anthropic, gemini, json-schema", () => {
  it("anthropic: a Messages tool with the schema as written", () => {
    expect(declareTools([refund(), ping], "anthropic")).toEqual([
      { name: "create_refund", description: "Refunds an order.", input_schema: refundInput() },
      { name: "ping", description: "", input_schema: { type: "object", properties: {}, additionalProperties: false } },
    ]);
  });

  it("anthropic: the same tool as the Anthropic SDK's own MCP-tool conversion", () => {
    const tool = refund();
    const sdk = mcpTool(
      { name: tool.name, description: tool.description, inputSchema: { ...refundInput(), type: "object" } },
      { callTool: () => Promise.reject(new Error("not called")) },
    );
    // The runnable tool is a union of client tool shapes; the MCP one is the custom tool.
    if (!("input_schema" in sdk) || !("description" in sdk)) throw new Error("the SDK's MCP tool has no input_schema");
    expect(declareTools([tool], "anthropic")).toEqual([
      { name: sdk.name, description: sdk.description, input_schema: sdk.input_schema },
    ]);
  });

  it("gemini: a FunctionDeclaration with parametersJsonSchema", () => {
    expect(declareTools([refund(), ping], "gemini")).toEqual([
      { name: "create_refund", description: "Refunds an order.", parametersJsonSchema: refundInput() },
      {
        name: "ping",
        description: "",
        parametersJsonSchema: { type: "object", properties: {}, additionalProperties: false },
      },
    ]);
  });

  it("gemini: the same declarations as the Gemini SDK's own mcpToTool", async () => {
    const tools = [refund(), ping];
    const client = {
      listTools: () =>
        Promise.resolve({
          tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.input })),
        }),
      callTool: () => Promise.reject(new Error("not called")),
    };
    // A stand-in for an MCP SDK client: mcpToTool only lists its tools here.
    const sdk = await mcpToTool(client as unknown as Parameters<typeof mcpToTool>[0]).tool();
    expect(declareTools(tools, "gemini")).toEqual(sdk.functionDeclarations);
  });

  it("json-schema: name, description and the schema as written", () => {
    expect(declareTools([ping, refund()], "json-schema")).toEqual([
      { name: "ping", description: "", input_schema: { type: "object", properties: {}, additionalProperties: false } },
      { name: "create_refund", description: "Refunds an order.", input_schema: refundInput() },
    ]);
  });
});

describe("declareTools: every format", () => {
  it("names the four formats and recognizes only them", () => {
    expect(DECLARATION_FORMATS).toEqual(["openai", "anthropic", "gemini", "json-schema"]);
    expect(["openai", "gemini", "OpenAI", "mcp", ""].map(isDeclarationFormat)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });

  it("answers an empty list for no tools", () => {
    expect(DECLARATION_FORMATS.map((format) => declareTools([], format))).toEqual([[], [], [], []]);
  });

  it("copies the schema: mutating a declaration leaves the definition alone", () => {
    const tool = refund();
    for (const format of DECLARATION_FORMATS) {
      const [declared] = declareTools([tool], format);
      const schema = (declared?.parameters ?? declared?.input_schema ?? declared?.parametersJsonSchema) as JsonObject;
      (schema.properties as JsonObject).order_ref = null;
      (schema.required as Json[]).push("x");
    }
    expect(tool.input).toEqual(refundInput());
  });

  it("keeps a property named __proto__ as an ordinary member, and 1.0 apart from 1", () => {
    const input: JsonObject = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"integer"}},"additionalProperties":false}',
    );
    ((input.properties as JsonObject)["__proto__"] as JsonObject).minimum = new PyFloat(1);
    for (const format of DECLARATION_FORMATS) {
      const [declared] = declareTools([{ name: "t", description: "d", input }], format);
      const schema = (declared?.parameters ?? declared?.input_schema ?? declared?.parametersJsonSchema) as JsonObject;
      const properties = schema.properties as JsonObject;
      expect(Object.keys(properties)).toEqual(["__proto__"]);
      expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
      const member = Object.getOwnPropertyDescriptor(properties, "__proto__")?.value as JsonObject;
      expect(member.minimum).toEqual(new PyFloat(1));
      expect(member.minimum).toBeInstanceOf(PyFloat);
    }
  });

  it("throws on an input schema that is not an object schema (definitions are validated first)", () => {
    for (const format of DECLARATION_FORMATS) {
      expect(() => declareTools([{ name: "t", description: "d", input: { type: "string" } }], format)).toThrow(
        new TypeError("a tool's input schema must be an object schema"),
      );
    }
  });
});
