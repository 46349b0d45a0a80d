/// <reference types="vite/client" />
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  capabilityEffectEnvelope,
  capabilityOperation,
  encodeState,
  toWireOutcome,
  u64,
  type CapabilityEngineState,
} from "../../../src/core/capability";
import {
  parseScenario,
  runScenario,
  sameJson,
  type CapabilityScenario,
} from "../../../src/conformance/capability-cases";

// The same capability-cases-v1 files the CLI runs, each operation applied by the consumer
// object's capability host (one SQLite transaction per operation, raw mode: no clock).
const files = import.meta.glob("../../../fixtures/capability/*.json", {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;
const scenarios = Object.entries(files)
  .map(([path, text]) => {
    const parsed = parseScenario(text);
    if (!parsed.ok) throw new Error(`${path}: ${parsed.error.message}`);
    return [path.split("/").pop() as string, parsed.scenario] as const;
  })
  .sort((a, b) => (a[0] < b[0] ? -1 : 1));

// Test-only hooks of the scenario format, applied to the persisted state like any operation.
function harness(state: CapabilityEngineState, op: Record<string, unknown>): unknown {
  if ("inject-effects" in op) {
    const body = op["inject-effects"] as { count: number; effect: unknown };
    const effect = capabilityEffectEnvelope.parse(body.effect);
    for (let i = 0; i < body.count; i++) state.effects.push(structuredClone(effect));
    return { Ok: null };
  }
  for (const [name, value] of Object.entries(op["set-counters"] as Record<string, unknown>)) {
    const parsed = u64.parse(value);
    if (name === "last_provider_sequence") state.provider_runtime.last_sequence = parsed;
    else (state as unknown as Record<string, bigint>)[name] = parsed;
  }
  return { Ok: null };
}

function isHarness(op: unknown): op is Record<string, unknown> {
  return typeof op === "object" && op !== null && ("inject-effects" in op || "set-counters" in op);
}

async function runThroughObject(
  name: string,
  scenario: CapabilityScenario,
): Promise<{ mismatches: string[]; restored: string }> {
  const id = env.CONSUMER.idFromName(`capability-scenario-${name}`);
  const stub = env.CONSUMER.get(id);
  const mismatches: string[] = [];
  if (scenario.initial_state !== undefined) {
    const initial = scenario.initial_state as CapabilityEngineState;
    await runInDurableObject(stub, (object) => object.capability.replaceRaw(initial));
  }
  // One call into the object per scenario; inside it, every operation is its own transaction.
  const outcomes = await runInDurableObject(stub, async (object, state) => {
    const answers = scenario.steps.map((step) => {
      const parsed = capabilityOperation.safeParse(step.op);
      if (step.expect_invalid === true) return parsed.success ? ["accepted"] : [];
      const op = parsed.success ? parsed.data : null;
      const actual: unknown[] = [];
      for (let i = 0; i < (step.repeat ?? 1); i++) {
        const hook = step.op;
        if (isHarness(hook)) actual.push(object.capability.mutateRaw((state) => harness(state, hook)));
        else actual.push(op === null ? { invalid: true } : toWireOutcome(object.capability.operateRaw(op)));
      }
      return actual;
    });
    // The restart below must restore the state, not tick it: a deadline the steps armed (raw mode
    // has no clock) would otherwise fire on the object with the wall clock before the state is read.
    await state.storage.deleteAlarm();
    return answers;
  });
  for (const [index, step] of scenario.steps.entries()) {
    const actual = outcomes[index] ?? [];
    if (
      step.expect_invalid === true
        ? actual.length !== 0
        : step.expect !== undefined && actual.some((outcome) => !sameJson(outcome, step.expect))
    ) {
      mismatches.push(`${index}`);
    }
  }
  await abortAllDurableObjects();
  const restored = await runInDurableObject(env.CONSUMER.get(id), (object) => encodeState(object.capability.peek()));
  return { mismatches, restored };
}

describe("capability-cases-v1 scenarios through the consumer object (none skipped: test hooks inject-effects and set-counters go through a test-only path)", () => {
  it("finds the 49 scenario files", () => {
    expect(scenarios.length).toBe(49);
  });

  it.each(scenarios)(
    "%s: every outcome matches and a restart restores the exact engine state",
    { timeout: 120_000 },
    async (name, scenario) => {
      const { mismatches, restored } = await runThroughObject(name, scenario);
      expect(mismatches).toEqual([]);
      expect(restored).toBe(encodeState(runScenario(scenario).state));
    },
  );
});
