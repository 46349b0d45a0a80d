import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Json, JsonObject } from "../../../src/core/json";
import { decodeEnvelope, encodeEnvelope } from "../../../src/core/wire";
import { FIXTURE_NAMES, fixtureText, fixtureValue, toText } from "./fixtures";

const CODES = new Set([
  "invalid_json",
  "unknown_field",
  "unsupported_version",
  "missing_identifier",
  "invalid_binding",
]);
const counts: Record<string, number> = {};

/** Decodes and checks the contract: a result, never a throw; an accepted envelope re-encodes stably. */
function check(input: string | Uint8Array): void {
  const result = decodeEnvelope(input);
  const key = result.ok ? "accepted" : result.error.code;
  counts[key] = (counts[key] ?? 0) + 1;
  if (result.ok) {
    const text = encodeEnvelope(result.envelope);
    const again = decodeEnvelope(text);
    expect(again.ok && encodeEnvelope(again.envelope)).toBe(text);
  } else {
    expect(CODES.has(result.error.code)).toBe(true);
    expect(result.error.path === null || result.error.code === "unknown_field").toBe(true);
  }
}

type Container = JsonObject | Json[];
function containers(value: Json): Container[] {
  const out: Container[] = [];
  const walk = (node: Json): void => {
    if (Array.isArray(node)) {
      out.push(node);
      node.forEach(walk);
    } else if (typeof node === "object" && node !== null && Object.getPrototypeOf(node) === Object.prototype) {
      out.push(node as JsonObject);
      Object.values(node as JsonObject).forEach(walk);
    }
  };
  walk(value);
  return out;
}

const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string(),
  fc.constantFrom(
    "",
    " ",
    "\u0085",
    "cs1:cp:dXNlci0x",
    "queued",
    "enqueue",
    "started",
    "rejected",
    "chat",
    "none",
    "high",
  ),
  fc.constantFrom(0, 1, 2, 65_535, 65_536, 20_000, -1, 2 ** 53, 4_294_967_296),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
);
const anyJson: fc.Arbitrary<unknown> = fc.oneof(scalar, fc.jsonValue({ maxDepth: 3 }));

const mutation = fc.record({
  op: fc.constantFrom("delete", "rename", "replace", "swap", "retype", "nest", "inject", "reorder"),
  target: fc.nat(),
  other: fc.nat(),
  key: fc.oneof(
    fc.string({ maxLength: 6 }),
    fc.constantFrom("type", "family", "payload", "thinking", "__proto__", "0", "status", "phase"),
  ),
  value: anyJson,
  depth: fc.integer({ min: 1, max: 200 }),
});

interface Mutation {
  op: string;
  target: number;
  other: number;
  key: string;
  value: unknown;
  depth: number;
}

function apply(value: Json, m: Mutation): void {
  const all = containers(value);
  const target = all[m.target % all.length] as Container;
  const keys = Array.isArray(target) ? target.map((_, i) => String(i)) : Object.keys(target);
  const record = target as Record<string, unknown>;
  const key = keys.length === 0 ? undefined : (keys[m.other % keys.length] as string);
  switch (m.op) {
    case "delete":
      if (key !== undefined) {
        if (Array.isArray(target)) target.splice(Number(key), 1);
        else delete record[key];
      }
      break;
    case "rename":
      if (key !== undefined && !Array.isArray(target)) {
        const item = record[key];
        delete record[key];
        Object.defineProperty(record, m.key, { value: item, enumerable: true, writable: true, configurable: true });
      }
      break;
    case "replace":
      if (key !== undefined) record[key] = m.value;
      break;
    case "swap": {
      const peer = all[m.other % all.length] as Container;
      const peerKeys = Object.keys(peer);
      const peerKey = peerKeys[m.target % Math.max(1, peerKeys.length)];
      if (key !== undefined && peerKey !== undefined) {
        const held = record[key];
        record[key] = (peer as Record<string, unknown>)[peerKey];
        (peer as Record<string, unknown>)[peerKey] = held;
      }
      break;
    }
    case "retype":
      if (key !== undefined) {
        const item = record[key];
        record[key] =
          typeof item === "string"
            ? item.length
            : typeof item === "number"
              ? String(item)
              : Array.isArray(item)
                ? { 0: item[0] ?? null }
                : item === null
                  ? false
                  : [item];
      }
      break;
    case "nest":
      if (key !== undefined) {
        let nested: unknown = record[key];
        for (let i = 0; i < m.depth; i++) nested = i % 2 === 0 ? [nested] : { n: nested };
        record[key] = nested;
      }
      break;
    case "inject":
      if (!Array.isArray(target))
        Object.defineProperty(record, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
      break;
    case "reorder":
      if (!Array.isArray(target)) {
        for (const k of [...keys].reverse()) {
          const item = record[k];
          delete record[k];
          record[k] = item;
        }
      }
      break;
  }
}

describe("fuzzing mutated fixtures", () => {
  it("structural mutations are accepted or refused with one of the five codes, never thrown", () => {
    let runs = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...FIXTURE_NAMES),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        (name, mutations) => {
          const value = fixtureValue(name);
          for (const m of mutations) apply(value, m);
          check(toText(value));
          runs++;
        },
      ),
      { numRuns: 10_000, seed: 20_260_430 },
    );
    console.log(`envelope fuzz: ${runs} structural mutations`, JSON.stringify(counts));
    expect(runs).toBe(10_000);
  }, 120_000);

  it("byte flips, insertions and truncations never throw", () => {
    let runs = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...FIXTURE_NAMES),
        fc.array(
          fc.record({
            at: fc.nat(),
            byte: fc.integer({ min: 0, max: 255 }),
            kind: fc.constantFrom("flip", "insert", "truncate"),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        (name, edits) => {
          let bytes = new TextEncoder().encode(fixtureText(name));
          for (const edit of edits) {
            const at = edit.at % (bytes.length + 1);
            if (edit.kind === "truncate") bytes = bytes.slice(0, at);
            else if (edit.kind === "insert")
              bytes = new Uint8Array([...bytes.slice(0, at), edit.byte, ...bytes.slice(at)]);
            else if (at < bytes.length) bytes[at] = edit.byte;
          }
          check(bytes);
          runs++;
        },
      ),
      { numRuns: 3_000, seed: 4_861 },
    );
    console.log(`envelope fuzz: ${runs} byte-level mutations`, JSON.stringify(counts));
    expect(runs).toBe(3_000);
  }, 120_000);
});
