import { describe, expect, it } from "vitest";
import { readJson } from "../../../src/core/json";
import {
  CapabilityEngine,
  U64_MAX,
  apply,
  capabilityOperation,
  decodeState,
  encodeState,
  hasForbiddenCapabilityNamespace,
  initialState,
  renderRedacted,
  toWireOutcome,
  validateIdentifier,
  validateResult,
  writeWireJson,
  type CapabilityOperation,
} from "../../../src/core/capability";

function op(text: string): CapabilityOperation {
  const read = readJson(text, { integers: "bigint", domain: false });
  if (!read.ok) throw new Error(read.error.message);
  return capabilityOperation.parse(read.value);
}

const register = op(
  '{"register-provider":{"descriptor":{"id":"gate.browser","owner":"gate","capabilities":[{"id":"browser.page.snapshot","class":"browser","description":"Read"}]}}}',
);
const generation = op('{"set-generation":{"instance_id":11,"generation":1}}');
const grantAllow = op(
  '{"authority":{"sequence":1,"command":{"set-grant":{"grant":{"key":{"consumer_id":"c","actor_id":"a","instance_id":11,"generation":1,"provider_id":"gate.browser","capability_id":"browser.page.snapshot","resource_scope_id":"s"},"mode":"allow"}}}}}',
);
const requestOp = op(
  '{"request":{"consumer_id":"c","actor_id":"a","request":{"local_id":1,"instance_id":11,"generation":1,"provider_id":"gate.browser","capability_id":"browser.page.snapshot","resource_scope_id":"s","approval_summary":"x","deadline_tick":18446744073709551615,"payload":[115,101,99,114,101,116]}}}',
);

describe("apply", () => {
  it("is pure: the input state is left unchanged", () => {
    const start = initialState();
    const { state, outcome } = apply(start, register);
    expect(toWireOutcome(outcome)).toEqual({ Ok: null });
    expect(start.providers).toEqual([]);
    expect(state.revision).toBe(1n);
  });

  it("leaves the state untouched on an expected failure", () => {
    const engine = new CapabilityEngine();
    engine.apply(register);
    const before = engine.encode();
    expect(toWireOutcome(engine.apply(register))).toEqual({
      Err: { "duplicate-provider": { provider_id: "gate.browser" } },
    });
    expect(engine.encode()).toBe(before);
  });
});

describe("state encoding", () => {
  it("round-trips u64 values at the maximum exactly", () => {
    const engine = new CapabilityEngine();
    for (const operation of [register, generation, grantAllow, requestOp]) engine.apply(operation);
    const encoded = engine.encode();
    expect(encoded.includes('"deadline_tick":18446744073709551615')).toBe(true);
    const decoded = decodeState(encoded);
    expect(decoded.ok && encodeState(decoded.state)).toBe(encoded);
    expect(decoded.ok && decoded.state.requests[0]?.snapshot.deadline_tick).toBe(U64_MAX);
  });

  it("refuses a malformed state", () => {
    expect(decodeState('{"revision":1}')).toMatchObject({ ok: false, error: { code: "invalid-state" } });
    expect(decodeState("{")).toMatchObject({ ok: false, error: { code: "invalid-json" } });
  });
});

describe("contracts", () => {
  it("refuses integers out of u64 range, floats and negative values", () => {
    for (const tick of ["18446744073709551616", "1.0", "-1", "1.5"]) {
      const read = readJson(`{"advance-time":{"tick":${tick}}}`, { integers: "bigint" });
      expect(read.ok && capabilityOperation.safeParse(read.value).success).toBe(false);
    }
  });

  it("checks identifiers in UTF-8 bytes with Rust whitespace rules", () => {
    expect(validateIdentifier("tool actor id", "\u0085", 256)).toEqual({ required: { field: "tool actor id" } });
    expect(validateIdentifier("tool actor id", "\ufeff", 256)).toEqual({
      "invalid-identifier": { field: "tool actor id" },
    });
    expect(validateIdentifier("tool actor id", "a".repeat(257), 256)).toEqual({
      "too-large": { field: "tool actor id", max: 256, actual: 257 },
    });
  });

  it("bounds inline results at 262,144 bytes before the length check", () => {
    const inline = (n: number, declared: bigint) => ({
      metadata: { byte_len: declared, media_type: null, truncated: false, redacted_summary: null },
      delivery: { inline: { bytes: new Array<number>(n).fill(0) } },
    });
    expect(validateResult(inline(262144, 262144n))).toBe(null);
    expect(validateResult(inline(262145, 1n))).toEqual({
      "too-large": { field: "inline tool result", max: 262144, actual: 262145 },
    });
    expect(validateResult(inline(3, 2n))).toEqual({ "result-length-mismatch": { declared: 2n, actual: 3 } });
  });

  it("detects the fs namespace only as a segment or f+s across separators", () => {
    expect(["browser.fs", "browser.f..s", "x/f:s", "a.f-s"].map(hasForbiddenCapabilityNamespace)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(
      ["browser.ffs", "browser.f.x.s", "browser.fsx", "browser.offset"].map(hasForbiddenCapabilityNamespace),
    ).toEqual([false, false, false, false]);
  });
});

describe("redaction", () => {
  it("never shows payloads, inline bytes or references", () => {
    const engine = new CapabilityEngine();
    for (const operation of [register, generation, grantAllow, requestOp]) engine.apply(operation);
    const effects = toWireOutcome(engine.apply("drain-effects"));
    expect(writeWireJson(effects).includes("[115,101,99,114,101,116]")).toBe(true);
    const rendered = renderRedacted(effects);
    expect(rendered.includes("115,101")).toBe(false);
    expect(rendered.includes('"payload_bytes":6')).toBe(true);
    expect(renderRedacted({ "opaque-reference": { reference: "secret-ref" } })).toBe(
      '{"opaque-reference":{"reference_bytes":10}}',
    );
    expect(renderRedacted({ inline: { bytes: [1, 2] } })).toBe('{"inline":{"byte_len":2}}');
  });
});
