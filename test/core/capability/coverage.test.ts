import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readJson } from "../../../src/core/json";
import {
  CAPABILITY_REQUEST_STATUS_VARIANTS,
  POLICY_DENIAL_VARIANTS,
  cancellationDisposition,
  observationIgnoredReason,
} from "../../../src/core/capability";

const dir = "fixtures/capability";
const expectations: unknown[] = [];
for (const name of readdirSync(dir).filter((file) => file.endsWith(".json"))) {
  const read = readJson(readFileSync(`${dir}/${name}`), { integers: "bigint", maxBytes: 1 << 28, domain: false });
  if (!read.ok) throw new Error(`${name}: ${read.error.message}`);
  for (const step of (read.value as { steps: { expect?: unknown }[] }).steps) expectations.push(step.expect);
}

// Every string and every object key that appears in an expected outcome.
const seen = new Set<string>();
const seenStatuses = new Set<string>();
function walk(value: unknown, parentKey: string | null): void {
  if (typeof value === "string") {
    seen.add(value);
    if (parentKey === "status") seenStatuses.add(value);
  } else if (Array.isArray(value)) value.forEach((item) => walk(item, parentKey));
  else if (value !== null && typeof value === "object") {
    for (const [key, member] of Object.entries(value)) {
      seen.add(key);
      if (parentKey === "status") seenStatuses.add(key);
      walk(member, key);
    }
  }
}
expectations.forEach((expectation) => walk(expectation, null));

describe("scenario coverage", () => {
  it.each(POLICY_DENIAL_VARIANTS)("covers PolicyDenial %s", (variant) => {
    expect(seen.has(variant)).toBe(true);
  });
  it.each(cancellationDisposition.options)("covers CancellationDisposition %s", (variant) => {
    expect(seen.has(variant)).toBe(true);
  });
  it.each(observationIgnoredReason.options)("covers ObservationIgnoredReason %s", (variant) => {
    expect(seen.has(variant)).toBe(true);
  });
  it.each(CAPABILITY_REQUEST_STATUS_VARIANTS)("covers CapabilityRequestStatus %s as a request status", (variant) => {
    expect(seenStatuses.has(variant)).toBe(true);
  });
  it("covers queue-full drops, sequence exhaustion and audit overflow", () => {
    for (const marker of [
      "effect-capacity-exceeded",
      "counter-exhausted",
      "effect-sequence-exhausted",
      "sequence-exhausted",
      "request-capacity-exceeded",
      "policy-capacity-exceeded",
      "provider-capacity-exceeded",
      "client-request-capacity-exceeded",
      "dropped_audit_events",
      "audit_sequence_exhausted",
    ]) {
      expect([marker, seen.has(marker)]).toEqual([marker, true]);
    }
  });
});
