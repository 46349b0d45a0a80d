// The engine's hot path: the direct writers, caches and fast checks give exactly what the
// generic paths (and the reference) give. Expected values come from the reference's fixtures or
// are written out here.
import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  canonicalJsonReusing,
  checkJsonDomain,
  JsonDomainError,
  PyFloat,
  readJson,
  sha256Hex,
  type Json,
  type JsonObject,
} from "../../../src/core/json";
import { inJsonDomain } from "../../../src/core/json/domain";
import {
  approvalDigest,
  bindToolCall,
  callBindingDigest,
  callFingerprint,
  createRegistry,
  defineTool,
  dispatch,
  memoizeHash,
  principalRef,
  requestDigest,
  statusRef,
  validateResult,
  type ModelResult,
  type ToolCall,
} from "../../../src/core/tool-result";
import { createDemoEngine, getOrderTool } from "../../../src/conformance/tool-cases";
import { builtResultText, modelResultText } from "../../../src/core/tool-result/packages";
import { RecentByIdentity } from "../../../src/core/tool-result/recent";
import { isBoundedIdentifier, isNonemptyString } from "../../../src/core/tool-result/text-rules";
import { fixtureText } from "./fixture-files";
import { context, NOW, principal } from "./host-context";
import { accepted } from "../../support/accepted";

function referenceSteps(): JsonObject[] {
  const doc = readJson(fixtureText("public-cases.expected.json"), { maxBytes: 1 << 24 });
  if (!doc.ok) throw new Error(doc.error.message);
  return (doc.value as JsonObject)["steps"] as JsonObject[];
}

describe("modelResultText", () => {
  it("writes the reference's text of every model result in public-cases (its OpenAI projections carry that text)", () => {
    const steps = referenceSteps().filter((step) => step["adapter"] === "to_openai_responses");
    expect(steps.length).toBe(31);
    for (const step of steps) {
      const model = (step["package"] as JsonObject)["model_result"] as unknown as ModelResult;
      expect(modelResultText(model)).toBe((step["projection"] as JsonObject)["output"]);
    }
  });

  it("hashes to the reference's result_sha256 for all 59 steps", () => {
    const steps = referenceSteps();
    expect(steps.length).toBe(59);
    for (const step of steps) {
      const pkg = step["package"] as JsonObject;
      const binding = (pkg["protected_audit"] as JsonObject)["binding"] as JsonObject;
      expect(sha256Hex(modelResultText(pkg["model_result"] as unknown as ModelResult))).toBe(binding["result_sha256"]);
    }
  });

  it("refuses data outside the JSON domain with the whole document's error", () => {
    const model = {
      schema_version: "tool-model-result-v2",
      status: "succeeded",
      data: { note: "\ud800" },
      error: null,
      execution: { outcome: "committed", delivery: "fresh", complete: true, truncated: false },
      provenance: {
        source_label: "orders",
        producer_revision: "r",
        resource_revision: null,
        observed_at: "2026-07-19T00:00:00Z",
        trust: "untrusted_data",
      },
    } as unknown as ModelResult;
    expect(() => modelResultText(model)).toThrow(new JsonDomainError("$.data.note is not a valid UTF-8 string"));
  });
});

describe("the digests' direct writers", () => {
  const engine = createDemoEngine();
  const read = engine.registry.get("get_order");
  const write = engine.registry.get("create_refund_draft");
  if (read === undefined || write === undefined) throw new Error("demo registry");

  it("reproduce the reference's bindings of public-cases' first step", () => {
    const pkg = referenceSteps()[0]?.["package"] as JsonObject;
    const binding = (pkg["protected_audit"] as JsonObject)["binding"] as JsonObject;
    const call = bindToolCall({ name: "get_order", arguments: { order_ref: "ORDER-7" } }, context("call-1"));
    expect(requestDigest(principal, call, read)).toBe(binding["request_sha256"]);
    const downstream = (pkg["protected_audit"] as JsonObject)["downstream"] as Json;
    const request = binding["request_sha256"] as string;
    const result = binding["result_sha256"] as string;
    expect(
      callBindingDigest(
        principal,
        { ...call, operation_id: (pkg["protected_audit"] as JsonObject)["operation_id"] as string },
        read,
        request,
        result,
        downstream,
      ),
    ).toBe(binding["call_binding_sha256"]);
    expect(principalRef(principal)).toBe((pkg["protected_audit"] as JsonObject)["principal_ref"]);
  });

  it("hash exactly the generic canonical text, escapes and astral keys included", () => {
    const texts: string[] = [];
    const capture = (text: string): string => {
      texts.push(text);
      return "0".repeat(64);
    };
    const call: ToolCall = bindToolCall(
      {
        name: "create_refund_draft",
        arguments: { "😀": 'é"\\\n', "\uffff": [1, new PyFloat(2), 0.5, null, true], order_ref: "O" },
      },
      { ...context('call-"1"', "k\u2028"), response_id: "r\u0001" },
    );
    requestDigest(principal, call, write, capture);
    callFingerprint(call, "a".repeat(64), "dispatch", capture);
    approvalDigest(call, write, "a".repeat(64), "human-reviewer-1", capture);
    callBindingDigest(
      principal,
      call,
      undefined,
      "a".repeat(64),
      "b".repeat(64),
      { receipt_id: "x", request_id: null, status_ref: "s" },
      capture,
    );
    callBindingDigest(principal, call, write, "a".repeat(64), "b".repeat(64), { extra: 1 }, capture);
    statusRef(["t", "s", "n", "k\u0000"], "a".repeat(64), capture);
    expect(texts).toEqual([
      '{"arguments":{"order_ref":"O","\uffff":[1,2.0,0.5,null,true],"😀":"é\\"\\\\\\n"},"effect_revision":"create-refund-draft-v1","input_schema_revision":"refund-draft-input-v1","output_schema_revision":"refund-draft-output-v2","subject_id":"user-1","tenant_id":"tenant-a","tool":"create_refund_draft"}',
      `{"adapter_revision":"openai-responses-v1","api_family":"responses","call_id":"call-\\"1\\"","idempotency_key":"k\u2028","operation_id":"op-1","provider":"openai","purpose":"dispatch","request_sha256":"${"a".repeat(64)}","response_id":"r\\u0001"}`,
      `{"adapter_revision":"openai-responses-v1","api_family":"responses","approval_revision":"refund-draft-policy-v1","approver_id":"human-reviewer-1","call_id":"call-\\"1\\"","effect_revision":"create-refund-draft-v1","idempotency_key":"k\u2028","input_schema_revision":"refund-draft-input-v1","operation_id":"op-1","output_schema_revision":"refund-draft-output-v2","provider":"openai","request_sha256":"${"a".repeat(64)}","response_id":"r\\u0001"}`,
      `{"adapter_revision":"openai-responses-v1","api_family":"responses","call_id":"call-\\"1\\"","downstream":{"receipt_id":"x","request_id":null,"status_ref":"s"},"idempotency_key":"k\u2028","operation_id":"op-1","provider":"openai","request_sha256":"${"a".repeat(64)}","response_id":"r\\u0001","result_sha256":"${"b".repeat(64)}","subject_id":"user-1","tenant_id":"tenant-a","tool_contract":{"effect_revision":"unregistered","handler_revision":"unregistered","input_schema_revision":"unregistered","name":"create_refund_draft","output_schema_revision":"unregistered","policy_revision":"unregistered","producer_revision":"unregistered"}}`,
      `{"adapter_revision":"openai-responses-v1","api_family":"responses","call_id":"call-\\"1\\"","downstream":{"extra":1},"idempotency_key":"k\u2028","operation_id":"op-1","provider":"openai","request_sha256":"${"a".repeat(64)}","response_id":"r\\u0001","result_sha256":"${"b".repeat(64)}","subject_id":"user-1","tenant_id":"tenant-a","tool_contract":{"effect_revision":"create-refund-draft-v1","handler_revision":"refund-draft-handler-v2","input_schema_revision":"refund-draft-input-v1","name":"create_refund_draft","output_schema_revision":"refund-draft-output-v2","policy_revision":"refund-draft-policy-v1","producer_revision":"refunds-mock-v2"}}`,
      `{"request_sha256":"${"a".repeat(64)}","scope":["t","s","n","k\\u0000"]}`,
    ]);
  });

  it("refuse a member outside the JSON domain with the whole document's error", () => {
    const call = bindToolCall({ name: "get_order", arguments: { order_ref: "\udc00" } }, context("c"));
    expect(() => requestDigest(principal, call, read)).toThrow(
      new JsonDomainError("$.arguments.order_ref is not a valid UTF-8 string"),
    );
    expect(() => callFingerprint({ ...call, call_id: "\ud800" }, "x", "dispatch")).toThrow(
      new JsonDomainError("$.call_id is not a valid UTF-8 string"),
    );
    expect(() => principalRef({ ...principal, subject_id: "x".repeat(65_537) })).toThrow(
      new JsonDomainError("$.subject_id stringis too long"),
    );
  });
});

describe("a principal's reference is hashed once per hash function", () => {
  it("hashes 5 documents for a principal's first read and 4 for the next", () => {
    let calls = 0;
    const counting = (text: string): string => {
      calls += 1;
      return sha256Hex(text);
    };
    const engine = createDemoEngine({ hash: counting });
    const spec = engine.registry.get("get_order");
    for (const [id, expected] of [
      ["call-1", 5],
      ["call-2", 4],
      ["call-3", 4],
    ] as const) {
      calls = 0;
      const call = bindToolCall({ name: "get_order", arguments: { order_ref: "ORDER-7" } }, context(id));
      const hash = memoizeHash(counting);
      const pkg = accepted(dispatch(engine, { principal, call, now: NOW, hash }));
      expect(validateResult(principal, call, spec, pkg, hash)).toEqual([]);
      expect(calls).toBe(expected);
    }
  });
});

describe("re-validation after dispatch", () => {
  it("accepts the package for value-equal copies of the principal and the call", () => {
    const engine = createDemoEngine();
    const call = bindToolCall({ name: "get_order", arguments: { order_ref: "ORDER-7" } }, context("call-1"));
    const pkg = accepted(dispatch(engine, { principal, call, now: NOW }));
    expect(validateResult({ ...principal }, { ...call }, engine.registry.get("get_order"), pkg)).toEqual([]);
  });

  it("sees arguments a handler changed after the request was bound, as the reference does", () => {
    const mutating = defineTool({
      ...getOrderTool,
      execution: {
        kind: "in_process",
        handler(args) {
          (args as JsonObject)["order_ref"] = "ORDER-8";
          return {
            data: { order_ref: "ORDER-8", status: "paid" },
            producer_revision: "orders-mock-v2",
            resource_revision: "r",
            observed_at: "2026-07-19T00:00:00Z",
          };
        },
      },
    });
    const engine = createDemoEngine({ registry: createRegistry([mutating]) });
    const call = bindToolCall({ name: "get_order", arguments: { order_ref: "ORDER-7" } }, context("call-1"));
    const hash = memoizeHash(sha256Hex);
    const pkg = accepted(dispatch(engine, { principal, call, now: NOW, hash }));
    expect(validateResult(principal, call, mutating, pkg, hash)).toEqual([
      "request_sha256 is inconsistent with the current principal/arguments/contract",
      "call_binding_sha256 is inconsistent with the current provider turn/result",
    ]);
  });
});

describe("canonicalJsonReusing", () => {
  it("writes an object it is told the text of as that text, and everything else as canonical JSON", () => {
    const inner = { b: 1, a: [true, null] };
    const doc = { z: inner, y: "é\u202e", x: [inner] };
    expect(canonicalJsonReusing(doc, (o) => (o === inner ? '{"KNOWN":1}' : undefined))).toBe(
      '{"x":[{"KNOWN":1}],"y":"é\u202e","z":{"KNOWN":1}}',
    );
    expect(canonicalJsonReusing(doc, () => undefined)).toBe(
      '{"x":[{"a":[true,null],"b":1}],"y":"é\u202e","z":{"a":[true,null],"b":1}}',
    );
  });

  it("writes an answer holding a dispatched model result byte for byte as canonicalJson does, reusing that result's text", () => {
    const engine = createDemoEngine();
    const call = bindToolCall({ name: "get_order", arguments: { order_ref: "ORDER-7" } }, context("call-1"));
    const pkg = accepted(dispatch(engine, { principal, call, now: NOW }));
    const answer = { provider_output: { call_id: "call-1" }, model_result: pkg.model_result, audit: { seq: 1 } };
    const reused: object[] = [];
    const text = canonicalJsonReusing(answer, (o) => {
      const known = builtResultText(o);
      if (known !== undefined) reused.push(o);
      return known;
    });
    expect(text).toBe(canonicalJson(answer));
    expect(reused).toEqual([pkg.model_result]);
    // A copy of the result is not the package's: it is written out.
    expect(builtResultText({ ...pkg.model_result })).toBeUndefined();
  });
});

describe("RecentByIdentity", () => {
  it("finds keys by identity, newest value first, and forgets the oldest beyond its size", () => {
    const recent = new RecentByIdentity<object, string>(2);
    const a = {};
    const b = {};
    const c = {};
    recent.set(a, "a1");
    recent.set(a, "a2");
    expect(recent.get(a)).toBe("a2");
    expect(recent.get({})).toBe(undefined);
    recent.set(b, "b");
    recent.set(c, "c");
    expect([recent.get(a), recent.get(b), recent.get(c)]).toEqual([undefined, "b", "c"]);
    expect(() => new RecentByIdentity(0)).toThrow(RangeError);
  });
});

describe("fast checks answer as the full ones", () => {
  it("inJsonDomain is true exactly where checkJsonDomain finds nothing", () => {
    let deep: Json = 1;
    for (let i = 0; i < 32; i++) deep = [deep];
    const cases: Array<[unknown, boolean]> = [
      [null, true],
      [{ a: [1, 2.5, "x", true, null, new PyFloat(3)] }, true],
      [deep, true],
      [[deep], false],
      [{ k: deep }, false],
      [Number.NaN, false],
      [2 ** 53, false],
      [9_007_199_254_740_991n, true],
      [-9_007_199_254_740_992n, false],
      ["\ud83d\ude00", true],
      ["\ud83d", false],
      [{ "\udc00": 1 }, false],
      ["x".repeat(65_536), true],
      ["x".repeat(65_537), false],
      [new Array(1_025).fill(0), false],
      [Object.fromEntries(Array.from({ length: 1_025 }, (_, i) => [`k${i}`, i])), false],
      [undefined, false],
      [new Date(0), false],
      [Object.create(null), true],
    ];
    for (const [value, inside] of cases) {
      expect(inJsonDomain(value)).toBe(inside);
      expect(checkJsonDomain(value) === null).toBe(inside);
    }
    expect(checkJsonDomain([deep])).toBe("$[0]" + "[0]".repeat(32) + " exceeds the maximum JSON depth 32");
  });

  it("isNonemptyString and isBoundedIdentifier follow Python's strip and code-point length", () => {
    const nonempty: Array<[unknown, boolean]> = [
      ["a", true],
      [" a ", true],
      ["", false],
      [" \t\n\u00a0\u3000", false],
      ["\u001c", false],
      ["\ufeff", true],
      ["\u0085x", true],
      [1, false],
    ];
    for (const [value, expected] of nonempty) expect(isNonemptyString(value)).toBe(expected);
    expect(isBoundedIdentifier("x".repeat(255))).toBe(true);
    expect(isBoundedIdentifier("x".repeat(256))).toBe(false);
    expect(isBoundedIdentifier("😀".repeat(255))).toBe(true);
    expect(isBoundedIdentifier("😀".repeat(256))).toBe(false);
  });

  it("sha256Hex reuses one hash instance without carrying state between digests", () => {
    const vectors: Array<[string, string]> = [
      ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
      ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
      [
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
      ],
      // 270 UTF-8 bytes: several blocks, two-byte characters.
      ["é".repeat(100) + "x".repeat(70), "428889419745bd7c046a4df4e00f5fbf76ab0bcafb2ffb4d3b92b9af90c90c4d"],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [text, hex] of vectors) expect(sha256Hex(text)).toBe(hex);
    }
  });
});
