/**
 * Runs a validated `tool-cases-v2` fixture the way the reference's `run_fixture` does: each
 * case on a fresh dispatcher, each step dispatched or queried, re-validated and compared with
 * its expectation. Optionally keeps every package and projection for a full dump.
 * @module
 */
import { PyFloat, sha256Hex, type Json, type JsonObject } from "../../core/json";
import { adapterFor } from "../../core/adapters/provider-results";
import { memoizeHash, requestDigest } from "../../core/tool-result/digests";
import { dispatch } from "../../core/tool-result/dispatcher";
import { createEngine } from "../../core/tool-result/engine";
import { bindToolCall, type ToolResultRefusal } from "../../core/tool-result/host-context";
import type { Result } from "../../core/result";
import { queryStatus } from "../../core/tool-result/query-status";
import type { ToolRegistry } from "../../core/tool-result/tool-spec";
import type { HashFn, Principal, ResultPackage } from "../../core/tool-result/types";
import { validateResult } from "../../core/tool-result/validate-result";
import { AUTHORIZED_APPROVER_IDS } from "./constants";
import { createDemoRegistry, sideEffectCount } from "./demo-registry";
import type { FixtureStep, ToolCasesFixture } from "./fixture-contract";
import { makeApproval } from "./make-approval";

/** Everything the reference produces for one step, as the dump document lists it. */
export interface StepRecord {
  readonly [key: string]: Json;
  readonly case_id: string;
  readonly step_id: string;
  readonly adapter: string | null;
  readonly package: JsonObject;
  readonly projection: Json;
  readonly projection_error: string | null;
}

/** A completed run: the CLI summary, its exit status, and (if asked) every step's record. */
export interface FixtureRun {
  readonly summary: JsonObject;
  readonly exitCode: 0 | 1;
  readonly steps: StepRecord[];
}

/** Result of {@link runFixture}: a fixture can still be refused at run time (the reference's late ValueErrors). */
export type RunFixtureResult =
  | { readonly ok: true; readonly run: FixtureRun }
  | { readonly ok: false; readonly error: { readonly code: "FIXTURE_RUNTIME"; readonly message: string } };

/** Options of {@link runFixture}. */
export interface RunFixtureOptions {
  /** Keep packages and provider projections for a dump (off for speed). */
  readonly records?: boolean;
  readonly hash?: HashFn;
  readonly registry?: ToolRegistry;
}

/** Aborts the whole run, which then answers FIXTURE_RUNTIME with this message (the reference's usage error). */
class FixtureRuntimeError extends Error {}

/** The engine's value, or the run aborted with the engine's refusal. */
function accepted<T>(result: Result<T, ToolResultRefusal>): T {
  if (!result.ok) throw new FixtureRuntimeError(result.error.message);
  return result.value;
}

/** The number a JSON value compares as under Python `==`, or undefined for a non-number. */
const num = (v: Json | undefined): number | undefined =>
  typeof v === "number"
    ? v
    : typeof v === "boolean"
      ? Number(v)
      : v instanceof PyFloat
        ? v.value
        : typeof v === "bigint"
          ? Number(v)
          : undefined;

/** Python `==` on JSON values: `1 == 1.0 == True`, dicts by keys, lists in order. */
export function pyJsonEquals(a: Json | undefined, b: Json | undefined): boolean {
  const x = num(a);
  const y = num(b);
  if (x !== undefined || y !== undefined) return x !== undefined && y !== undefined && x === y;
  if (a === null || b === null || typeof a === "string" || typeof b === "string") return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => pyJsonEquals(item, b[i]))
    );
  }
  if (typeof a !== "object" || typeof b !== "object" || a instanceof PyFloat || b instanceof PyFloat) return a === b;
  const left = a;
  const right = b;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && pyJsonEquals(left[key], right[key]))
  );
}

function runStep(
  step: FixtureStep,
  principal: Principal,
  engine: ReturnType<typeof createEngine>,
  packagesByStep: Map<string, ResultPackage>,
  hash: HashFn,
): { pkg: ResultPackage; call: ReturnType<typeof bindToolCall> } {
  const call = bindToolCall(step.proposal, step.execution_context);
  const spec = engine.registry.get(call.name);
  const approvals = accepted(makeApproval(principal, call, spec, step.approval, step.now, hash));
  if (step.action === "dispatch") {
    return {
      call,
      pkg: accepted(dispatch(engine, { principal, call, approvals, now: step.now, failure: step.failure, hash })),
    };
  }
  const source = packagesByStep.get(step.status_ref_from ?? "");
  const downstream: unknown = source?.protected_audit["downstream"];
  const statusRef =
    downstream !== null && typeof downstream === "object" && !Array.isArray(downstream)
      ? (downstream as JsonObject)["status_ref"]
      : null;
  if (typeof statusRef !== "string")
    throw new FixtureRuntimeError("the step referenced by query_status has no status_ref");
  if (spec === undefined) throw new FixtureRuntimeError("query_status cannot reference an unknown tool");
  const expected = requestDigest(principal, call, spec, hash);
  return {
    call,
    pkg: accepted(
      queryStatus(engine, {
        principal,
        call,
        status_ref: statusRef,
        expected_request_sha256: expected,
        now: step.now,
        hash,
      }),
    ),
  };
}

/** Runs every case in isolation and answers the reference CLI's summary (and records, if asked). */
export function runFixture(fixture: ToolCasesFixture, options: RunFixtureOptions = {}): RunFixtureResult {
  const registry = options.registry ?? createDemoRegistry();
  const baseHash = options.hash ?? sha256Hex;
  const caseResults: JsonObject[] = [];
  const records: StepRecord[] = [];
  let allPassed = true;
  let stepCount = 0;
  try {
    for (const fixtureCase of fixture.cases) {
      const engine = createEngine({ registry, approvers: AUTHORIZED_APPROVER_IDS, hash: baseHash });
      const principal: Principal = fixtureCase.principal;
      const packagesByStep = new Map<string, ResultPackage>();
      const stepResults: JsonObject[] = [];
      for (const step of fixtureCase.steps) {
        // One memo per step: each binding is hashed once even though it is re-validated.
        const hash = memoizeHash(baseHash);
        const { pkg, call } = runStep(step, principal, engine, packagesByStep, hash);
        packagesByStep.set(step.step_id, pkg);
        const spec = engine.registry.get(call.name);
        const validationErrors = validateResult(principal, call, spec, pkg, hash);
        const model = pkg.model_result;
        const error = model["error"] as JsonObject | null;
        const execution = model["execution"] as JsonObject;
        const actualCode = model["status"] === "succeeded" ? "OK" : (error?.["code"] ?? null);
        const actualRecovery = error === null ? "none" : (error["recovery"] ?? null);
        const effects = sideEffectCount(engine);
        const expected = step.expected;
        const passed =
          validationErrors.length === 0 &&
          actualCode === expected.code &&
          model["status"] === expected.status &&
          execution["outcome"] === expected.outcome &&
          actualRecovery === expected.recovery &&
          execution["delivery"] === expected.delivery &&
          pyJsonEquals(model["data"], expected.data) &&
          effects === expected.side_effect_count;
        allPassed &&= passed;
        stepResults.push({
          step_id: step.step_id,
          actual_code: actualCode,
          status: model["status"],
          outcome: execution["outcome"] ?? null,
          recovery: actualRecovery,
          delivery: execution["delivery"] ?? null,
          side_effect_count: effects,
          validation_errors: validationErrors,
          passed,
        });
        if (options.records === true)
          records.push(projectStep(fixtureCase.id, step.step_id, principal, call, spec, pkg, hash));
      }
      stepCount += stepResults.length;
      caseResults.push({
        case_id: fixtureCase.id,
        passed: stepResults.every((item) => item["passed"] === true),
        steps: stepResults,
      });
    }
  } catch (error) {
    if (error instanceof FixtureRuntimeError) {
      return { ok: false, error: { code: "FIXTURE_RUNTIME", message: error.message } };
    }
    throw error;
  }
  const summary: JsonObject = {
    schema_version: fixture.schema_version,
    case_count: caseResults.length,
    step_count: stepCount,
    passed: allPassed,
    cases: caseResults,
  };
  return { ok: true, run: { summary, exitCode: allPassed ? 0 : 1, steps: records } };
}

function projectStep(
  caseId: string,
  stepId: string,
  principal: Principal,
  call: ReturnType<typeof bindToolCall>,
  spec: ReturnType<ToolRegistry["get"]>,
  pkg: ResultPackage,
  hash: HashFn,
): StepRecord {
  const base = {
    case_id: caseId,
    step_id: stepId,
    package: { model_result: pkg.model_result, protected_audit: pkg.protected_audit },
  };
  const entry = adapterFor(call.provider, call.api_family);
  if (entry === undefined) {
    return {
      ...base,
      adapter: null,
      projection: null,
      projection_error: "no adapter is registered for this provider profile",
    };
  }
  const projected = entry.adapter(principal, call, spec, pkg, hash);
  return projected.ok
    ? { ...base, adapter: entry.name, projection: projected.value, projection_error: null }
    : { ...base, adapter: entry.name, projection: null, projection_error: projected.error.message };
}
