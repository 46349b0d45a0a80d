import { describe, expect, it } from "vitest";
import { PyFloat, sha256Hex, type JsonObject } from "../../../src/core/json";
import {
  bindToolCall,
  dispatch,
  memoizeHash,
  requestDigest,
  validateResult,
  validateResultSet,
  type ResultPackage,
  type ToolCall,
} from "../../../src/core/tool-result";
import { createDemoEngine, makeApproval } from "../../../src/conformance/tool-cases";
import { context, NOW, principal } from "./host-context";
import { accepted } from "../../support/accepted";

const readCall = (callId = "call-1"): ToolCall =>
  bindToolCall({ name: "get_order", arguments: { order_ref: "ORDER-7" } }, context(callId));

function counting(): { hash: (text: string) => string; count: () => number } {
  let calls = 0;
  return {
    hash: (text) => {
      calls += 1;
      return sha256Hex(text);
    },
    count: () => calls,
  };
}

describe("digest discipline", () => {
  it("hashes 5 documents for a read call, including its re-validation", () => {
    const counter = counting();
    const hash = memoizeHash(counter.hash);
    const call = readCall();
    const pkg = accepted(dispatch(createDemoEngine(), { principal, call, now: NOW, hash }));
    expect(validateResult(principal, call, createDemoEngine().registry.get("get_order"), pkg, hash)).toEqual([]);
    expect(counter.count()).toBe(5);
  });

  it("hashes 7 documents for an approved write, including approval and re-validation", () => {
    const counter = counting();
    const hash = memoizeHash(counter.hash);
    const engine = createDemoEngine();
    const call = bindToolCall(
      { name: "create_refund_draft", arguments: { order_ref: "ORDER-7", reason: "duplicate" } },
      context("call-2", "k1"),
    );
    const spec = engine.registry.get(call.name);
    const approvals = accepted(makeApproval(principal, call, spec, "valid", NOW, hash));
    const pkg = accepted(dispatch(engine, { principal, call, approvals, now: NOW, hash }));
    expect(pkg.model_result["status"]).toBe("succeeded");
    expect(validateResult(principal, call, spec, pkg, hash)).toEqual([]);
    expect(counter.count()).toBe(7);
  });

  it("counts 5 even when the engine's own hash is the counting one and no memo is shared", () => {
    const counter = counting();
    accepted(dispatch(createDemoEngine({ hash: counter.hash }), { principal, call: readCall(), now: NOW }));
    expect(counter.count()).toBe(5);
  });
});

describe("request_sha256 keeps int and float apart (values from the reference, trap fixture 04)", () => {
  const withExtra = (n: number | PyFloat): ToolCall =>
    bindToolCall({ name: "get_order", arguments: { order_ref: "ORDER-7", n } }, context("c"));
  it("1 and 1.0 reach different digests even though both are rejected", () => {
    const engine = createDemoEngine();
    const spec = engine.registry.get("get_order");
    expect(requestDigest(principal, withExtra(1), spec)).toBe(
      "b950dc34319eb11ed09c6bba33578eab2ed85987ad1470ba41f7c36dd6e60970",
    );
    expect(requestDigest(principal, withExtra(new PyFloat(1)), spec)).toBe(
      "8d50a1f633547ab51ecaa215db71ffa9afb8e403211a70b1b2b72d9ea57750ee",
    );
    const pkg = accepted(dispatch(engine, { principal, call: withExtra(new PyFloat(1)), now: NOW }));
    expect((pkg.model_result["error"] as JsonObject)["code"]).toBe("INVALID_ARGUMENTS");
    expect((pkg.protected_audit["binding"] as JsonObject)["request_sha256"]).toBe(
      "8d50a1f633547ab51ecaa215db71ffa9afb8e403211a70b1b2b72d9ea57750ee",
    );
  });
});

describe("validateResult recomputes every binding", () => {
  const engine = createDemoEngine();
  const call = readCall();
  const spec = engine.registry.get("get_order");
  const pkg = accepted(dispatch(engine, { principal, call, now: NOW }));
  const clone = (p: ResultPackage): ResultPackage => structuredClone(p);

  it("accepts the package it was built for", () => {
    expect(validateResult(principal, call, spec, pkg)).toEqual([]);
  });

  it("refuses a model result changed after binding", () => {
    const tampered = clone(pkg);
    (tampered.model_result["data"] as JsonObject)["status"] = "refunded";
    // The call binding covers the result digest, so it breaks too.
    expect(validateResult(principal, call, spec, tampered)).toEqual([
      "result_sha256 is inconsistent with the model-visible result",
      "call_binding_sha256 is inconsistent with the current provider turn/result",
    ]);
  });

  it("refuses a package replayed for another call or principal", () => {
    expect(validateResult(principal, { ...call, call_id: "call-9" }, spec, pkg)).toEqual([
      "provider_context is not bound to the current provider response/call",
      "call_binding_sha256 is inconsistent with the current provider turn/result",
    ]);
    expect(validateResult({ ...principal, subject_id: "user-2" }, call, spec, pkg)).toEqual([
      "protected_audit.principal_ref is not bound to the current principal",
      "request_sha256 is inconsistent with the current principal/arguments/contract",
      "call_binding_sha256 is inconsistent with the current provider turn/result",
    ]);
  });

  it("refuses sensitive or control keys in data, and unknown fields", () => {
    const leaky = clone(pkg);
    leaky.model_result["data"] = { order_ref: "ORDER-7", status: "paid", "Set-Cookie": "x" };
    expect(validateResult(principal, call, spec, leaky)).toContain(
      "output fields do not match: missing=[], extra=['Set-Cookie']",
    );
    const extra = clone(pkg) as unknown as JsonObject;
    extra["debug"] = true;
    expect(validateResult(principal, call, spec, extra)).toEqual([
      "package fields do not match: missing=[], extra=['debug']",
    ]);
  });

  it("validates a multi-call result set: missing, unknown, duplicate and swapped", () => {
    const other = readCall("call-2");
    const otherPkg = accepted(dispatch(engine, { principal, call: other, now: NOW }));
    const specs = engine.registry;
    expect(validateResultSet(principal, [call, other], specs, [pkg, otherPkg])).toEqual([]);
    expect(validateResultSet(principal, [call, other], specs, [pkg])).toEqual(["missing result: ('resp-1', 'call-2')"]);
    expect(validateResultSet(principal, [call], specs, [pkg, otherPkg])).toEqual([
      "unknown result appears: ('resp-1', 'call-2')",
    ]);
    expect(validateResultSet(principal, [call], specs, [pkg, pkg])).toEqual([
      "duplicate result identity: ('resp-1', 'call-1')",
    ]);
    expect(validateResultSet(principal, [call], specs, [null])).toEqual([
      "packages[0] is missing provider correlation fields",
      "missing result: ('resp-1', 'call-1')",
    ]);
    const swapped = clone(otherPkg);
    (swapped.protected_audit["provider_context"] as JsonObject)["call_id"] = "call-1";
    expect(validateResultSet(principal, [call], specs, [swapped])).toEqual([
      "call_binding_sha256 is inconsistent with the current provider turn/result",
    ]);
  });
});
