/**
 * The checks `createGate({ tools })` runs on a Worker's code tools, and the typed `defineTool`
 * of "toolgate/worker" (both pure: they run in Node).
 */
import { describe, expect, it } from "vitest";
import { InMemoryToolResultStore } from "../../src/core/tool-result/store";
import type { ToolSpec } from "../../src/core/tool-result/tool-spec";
import { checkCodeTools, knownToolNames } from "../../src/worker/targets/code/tools";
import { defineTool } from "../../src/worker/targets/code/typed-tool";

const PRINCIPAL = { tenant_id: "words", subject_id: "user-1", roles: [] };
const CTX = { store: new InMemoryToolResultStore() };

/** A read tool counting words; `name` and `execution` vary per test. */
function tool(name: string, seen: unknown[] = []): ToolSpec {
  return defineTool({
    name,
    inputSchemaRevision: "in-v1",
    policyRevision: "policy-v1",
    risk: "read",
    arguments: { text: { type: "str", minLength: 1, maxLength: 20 }, mode: { type: "str", enum: ["words", "lines"] } },
    outputSchemaRevision: "out-v1",
    output: { count: { type: "int" } },
    maxOutputBytes: 64,
    maxOutputDepth: 1,
    effectRevision: "effect-v1",
    handlerRevision: "handler-v1",
    producerLabel: "counter",
    producerRevision: "counter-v1",
    timeoutMs: 100,
    authorize: (principal, args) => {
      seen.push(["authorize", principal.subject_id, args.text, args.mode]);
      return args.text !== "secret";
    },
    execution: {
      kind: "in_process",
      handler: ({ text, mode }) => ({
        data: { count: mode === "lines" ? text.split("\n").length : text.split(" ").length },
        producer_revision: "counter-v1",
        resource_revision: null,
        observed_at: "2026-01-02T03:04:05Z",
      }),
    },
  });
}

describe("checkCodeTools (createGate)", () => {
  it("answers the tools as a frozen list", () => {
    const tools = [tool("word_count"), tool("line_count")];
    const checked = checkCodeTools(tools);
    expect(checked).toEqual(tools);
    expect(Object.isFrozen(checked)).toBe(true);
  });

  it("throws on a built-in tool's name, a repeated name, a malformed name, and an external tool", () => {
    expect(() => checkCodeTools([tool("get_order")])).toThrow(
      "createGate: tool get_order clashes with a built-in tool of the gate",
    );
    expect(() => checkCodeTools([tool("submit_refund")])).toThrow(
      "createGate: tool submit_refund clashes with a built-in tool of the gate",
    );
    expect(() => checkCodeTools([tool("word_count"), tool("word_count")])).toThrow(
      "createGate: tool word_count is given twice",
    );
    expect(() => checkCodeTools([tool("word count")])).toThrow(
      'createGate: tool name "word count" is not /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/',
    );
    expect(() => checkCodeTools([tool("1st")])).toThrow('createGate: tool name "1st" is not');
    expect(() => checkCodeTools([tool("x".repeat(65))])).toThrow("is not");
    expect(() => checkCodeTools([{ ...tool("remote"), execution: { kind: "external" } }])).toThrow(
      'createGate: tool remote must run in process (execution.kind "in_process")',
    );
  });

  it("accepts a 64-character name; refuses a leading underscore, as every tool name of the gate does", () => {
    expect(checkCodeTools([tool("x".repeat(64))]).map((t) => t.name)).toEqual(["x".repeat(64)]);
    expect(() => checkCodeTools([tool("_private")])).toThrow('createGate: tool name "_private" is not');
  });

  it("knownToolNames: the built-in catalog, then the code tools", () => {
    expect(knownToolNames([tool("word_count")])).toEqual([
      "get_order",
      "create_refund_draft",
      "submit_refund",
      "lookup_refund",
      "word_count",
    ]);
  });
});

describe("defineTool of toolgate/worker", () => {
  it("hands the checked arguments to authorize and the handler, and answers the handler's result", () => {
    const seen: unknown[] = [];
    const spec = tool("word_count", seen);
    expect(spec.authorize(PRINCIPAL, { text: "a b c", mode: "words" }, CTX)).toBe(true);
    expect(spec.authorize(PRINCIPAL, { text: "secret", mode: "lines" }, CTX)).toBe(false);
    expect(seen).toEqual([
      ["authorize", "user-1", "a b c", "words"],
      ["authorize", "user-1", "secret", "lines"],
    ]);
    if (spec.execution.kind !== "in_process") throw new Error("an in-process tool");
    expect(spec.execution.handler({ text: "one\ntwo", mode: "lines" }, CTX)).toEqual({
      data: { count: 2 },
      producer_revision: "counter-v1",
      resource_revision: null,
      observed_at: "2026-01-02T03:04:05Z",
    });
  });

  it("keeps the rules and revisions as given, adds no business rule, and freezes the spec", () => {
    const spec = tool("word_count");
    expect([spec.name, spec.risk, spec.arguments, spec.output, spec.inputSchemaRevision, spec.timeoutMs]).toEqual([
      "word_count",
      "read",
      { text: { type: "str", minLength: 1, maxLength: 20 }, mode: { type: "str", enum: ["words", "lines"] } },
      { count: { type: "int" } },
      "in-v1",
      100,
    ]);
    expect(Object.hasOwn(spec, "businessRule")).toBe(false);
    expect([Object.isFrozen(spec), Object.isFrozen(spec.arguments)]).toEqual([true, true]);
  });
});
