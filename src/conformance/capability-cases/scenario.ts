/**
 * `capability-cases-v1` scenarios: a list of operations with the exact expected outcome
 * of each, run against a fresh (or given) engine state. See docs/capability-cases.md.
 * @module
 */
import * as z from "../../core/zod";
import { readJson, type Json } from "../../core/json";
import { initialState, type CapabilityEngineState } from "../../core/capability/state";
import { capabilityEngineState } from "../../core/capability/state-codec";
import { applyInPlace, capabilityOperation, operationName } from "../../core/capability/operation";
import { capabilityEffectEnvelope } from "../../core/capability/wire-invocation";
import { u64, variant } from "../../core/capability/wire-scalars";
import { writeWireJson } from "../../core/capability/wire-json";
import { toWireOutcome } from "../../core/capability/wire-outcome";

/** Counters `set-counters` may set that are top-level fields of the engine state, by the same name. */
const stateCounters = z.deferred(() =>
  z.object({
    revision: u64,
    current_tick: u64,
    next_request_sequence: u64,
    next_operation_id: u64,
    next_effect_sequence: u64,
    next_completion_sequence: u64,
    next_audit_sequence: u64,
    last_authority_sequence: u64,
    dropped_audit_events: u64,
    revision_overflow_count: u64,
    dropped_completions: u64,
  }),
);

/** Test-harness steps that reach states the public operations cannot reach quickly. */
const harnessOperation = z.deferred(() =>
  z.union([
    variant(
      "inject-effects",
      z.object({ count: z.number().check(z.int(), z.gte(0), z.lte(1_000_000)), effect: capabilityEffectEnvelope }),
    ),
    // `last_provider_sequence` lives in the provider runtime, not at the top of the state.
    variant("set-counters", z.partial(z.extend(stateCounters, { last_provider_sequence: u64 }))),
  ]),
);

const step = z.deferred(() =>
  z.object({
    op: z.unknown(),
    expect_invalid: z.optional(z.boolean()),
    expect: z.optional(z.unknown()),
    repeat: z.optional(z.number().check(z.int(), z.gte(1), z.lte(1_000_000))),
    note: z.optional(z.string()),
  }),
);

/** Contract of a scenario file. */
export const capabilityScenario = z.deferred(() =>
  z.object({
    format: z.literal("capability-cases-v1"),
    name: z.string().check(z.minLength(1)),
    description: z.optional(z.string()),
    initial_state: z.optional(capabilityEngineState),
    steps: z.array(step),
  }),
);
export type CapabilityScenario = z.output<typeof capabilityScenario>;

const anyOperation = z.deferred(() => z.union([capabilityOperation, harnessOperation]));
type AnyOperation = z.output<typeof anyOperation>;

/** A scenario that could not be read, with where it went wrong. */
export interface ScenarioError {
  code: "invalid-json" | "invalid-scenario";
  message: string;
}

/** Reads and validates a scenario file. */
export function parseScenario(
  input: Uint8Array | string,
): { ok: true; scenario: CapabilityScenario } | { ok: false; error: ScenarioError } {
  const read = readJson(input, { integers: "bigint", maxBytes: 256 * 1024 * 1024, maxDepth: 64, domain: false });
  if (!read.ok) {
    const where = read.error.offset === undefined ? "" : ` at byte ${read.error.offset}`;
    return { ok: false, error: { code: "invalid-json", message: `${read.error.code}${where}: ${read.error.message}` } };
  }
  const parsed = capabilityScenario.safeParse(read.value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `at ${issue.path.length === 0 ? "<root>" : issue.path.join(".")}: ${issue.message}`);
    return { ok: false, error: { code: "invalid-scenario", message: issues.join("\n") } };
  }
  for (const [index, entry] of parsed.data.steps.entries()) {
    if (entry.expect_invalid === true) continue;
    const op = anyOperation.safeParse(entry.op);
    if (!op.success) {
      const issue = op.error.issues[0];
      const path = ["steps", index, "op", ...(issue?.path ?? [])].join(".");
      return {
        ok: false,
        error: { code: "invalid-scenario", message: `at ${path}: ${issue?.message ?? "invalid operation"}` },
      };
    }
  }
  return { ok: true, scenario: parsed.data };
}

/** One step's result in the report. */
export interface StepReport {
  index: number;
  op: string;
  repeat: number;
  /** The outcome of the last repetition, in the wire encoding. */
  actual: unknown;
  /** null when the step had no expectation. */
  matched: boolean | null;
  /** Repetition (0-based) that first mismatched, when one did. */
  first_mismatch?: number;
  note?: string;
}

/** The document `toolgate capability` prints. */
export interface ScenarioReport {
  format: "capability-cases-v1-report";
  name: string;
  passed: boolean;
  steps: number;
  mismatches: number;
  results: StepReport[];
}

// Integers compare by value whether they were read as number or bigint.
function normalize(value: unknown): unknown {
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  if (Array.isArray(value)) return value.map(normalize);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = normalize((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** True when `actual` (engine data) equals `expected` (read JSON) as JSON values. */
export function sameJson(actual: unknown, expected: unknown): boolean {
  return writeWireJson(normalize(roundTrip(actual))) === writeWireJson(normalize(expected));
}

// Engine data → JSON data (drops undefined, keeps bigints) so both sides look alike.
function roundTrip(value: unknown): Json {
  const read = readJson(writeWireJson(value), {
    integers: "bigint",
    maxBytes: 1024 * 1024 * 1024,
    maxDepth: 256,
    domain: false,
  });
  if (!read.ok) throw new Error(`engine produced unreadable JSON: ${read.error.message}`);
  return read.value;
}

function applyHarness(state: CapabilityEngineState, operation: z.output<typeof harnessOperation>): unknown {
  if ("inject-effects" in operation) {
    const { count, effect } = operation["inject-effects"];
    for (let i = 0; i < count; i++) state.effects.push(structuredClone(effect));
    return { Ok: null };
  }
  const counters = operation["set-counters"];
  // Typed by the schema, so each name indexes a bigint field of the state without a cast.
  for (const name of z.keyof(stateCounters).options) {
    const value = counters[name];
    if (value !== undefined) state[name] = value;
  }
  if (counters.last_provider_sequence !== undefined)
    state.provider_runtime.last_sequence = counters.last_provider_sequence;
  return { Ok: null };
}

function operationLabel(operation: AnyOperation): string {
  return isHarness(operation) ? (Object.keys(operation)[0] as string) : operationName(operation);
}

function opLabel(operation: unknown): string {
  if (typeof operation === "string") return operation;
  if (operation !== null && typeof operation === "object") return Object.keys(operation)[0] ?? "?";
  return "?";
}

function isHarness(operation: unknown): operation is z.output<typeof harnessOperation> {
  return (
    typeof operation === "object" &&
    operation !== null &&
    ("inject-effects" in operation || "set-counters" in operation)
  );
}

/** Runs a scenario from its initial state and compares every outcome. */
export function runScenario(scenario: CapabilityScenario): { report: ScenarioReport; state: CapabilityEngineState } {
  const state: CapabilityEngineState =
    scenario.initial_state === undefined
      ? initialState()
      : structuredClone<CapabilityEngineState>(scenario.initial_state);
  const results: StepReport[] = [];
  let mismatches = 0;
  scenario.steps.forEach((entry, index) => {
    const repeat = entry.repeat ?? 1;
    let actual: unknown = null;
    let firstMismatch: number | undefined;
    const parsedOp = anyOperation.safeParse(entry.op);
    for (let i = 0; i < repeat; i++) {
      if (entry.expect_invalid === true) {
        // The operation must be refused by the contract (as serde refuses it while decoding).
        actual = parsedOp.success
          ? { valid: operationLabel(parsedOp.data) }
          : { invalid: parsedOp.error.issues[0]?.message ?? "invalid" };
        if (parsedOp.success && firstMismatch === undefined) firstMismatch = i;
        continue;
      }
      const op = (parsedOp as { data: AnyOperation }).data;
      actual = isHarness(op) ? applyHarness(state, op) : toWireOutcome(applyInPlace(state, op));
      if (entry.expect !== undefined && firstMismatch === undefined && !sameJson(actual, entry.expect))
        firstMismatch = i;
    }
    const checked = entry.expect !== undefined || entry.expect_invalid === true;
    const matched = checked ? firstMismatch === undefined : null;
    if (matched === false) mismatches++;
    const report: StepReport = { index, op: opLabel(entry.op), repeat, actual, matched };
    if (firstMismatch !== undefined) report.first_mismatch = firstMismatch;
    if (entry.note !== undefined) report.note = entry.note;
    results.push(report);
  });
  return {
    report: {
      format: "capability-cases-v1-report",
      name: scenario.name,
      passed: mismatches === 0,
      steps: results.length,
      mismatches,
      results,
    },
    state,
  };
}
