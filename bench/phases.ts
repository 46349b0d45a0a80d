// Per-phase timing of the engine for `npm run bench`, each phase measured the same way on the
// reference's side (bench/reference_timer.py, command "phases"), so the ratio of every phase is
// printed beside the whole step's and a regression shows where it happened.
//
// Each phase is one step's worth of that work, run over every step of the bench case:
//   host context   one host-context check (validateHostContext / validate_host_context)
//   arguments      the argument check (validateArguments / Dispatcher._validate_arguments)
//   authorization  the resource check; for writes also the business rule and the approval check
//   dispatch       the whole dispatch (bind, check, run the handler, check its output, build the package)
//   packages       building a succeeded package from its record and re-validating it (validate_result)
//   digests        canonical text + SHA-256 of every document the step hashes, as each side hashes them
//   SHA-256        hashing those texts alone (noble, node:crypto; the reference's hashlib)
// The first five run with SHA-256 replaced by a constant (the canonical texts are still written),
// so hashing is counted once, under "digests". Rows overlap (dispatch contains the first three and
// builds the package), so shares do not add up to 100 %.
import { createHash } from "node:crypto";
import { canonicalJson, sha256Hex } from "../src/core/json";
import { idempotencyScope, recordFromHandler } from "../src/core/tool-result/dispatcher-state";
import {
  approvalDigest,
  bindToolCall,
  callBindingDigest,
  callFingerprint,
  dispatch,
  hasValidApproval,
  InMemoryToolResultStore,
  memoizeHash,
  principalRef,
  requestDigest,
  statusRef,
  successPackage,
  validateArguments,
  validateHostContext,
  validateResult,
  type Approval,
  type HandlerResult,
  type HashFn,
  type IdempotencyRecord,
  type Principal,
  type ResultPackage,
  type ToolCall,
  type ToolSpec,
} from "../src/core/tool-result";
import {
  AUTHORIZED_APPROVER_IDS,
  createDemoEngine,
  DEFAULT_APPROVER_ID,
  makeApproval,
  type ToolCasesFixture,
} from "../src/conformance/tool-cases";
import type { Result } from "../src/core/result";

/** The phases, in print order; the names are also the reference timer's. */
export const PHASES = [
  "host context",
  "arguments",
  "authorization",
  "dispatch",
  "packages",
  "digests",
  "SHA-256",
] as const;
export type Phase = (typeof PHASES)[number];

const STUB_HEX = "0".repeat(64);
/** SHA-256 replaced by a constant: every binding then agrees with itself, and nothing is hashed. */
const stubHash: HashFn = () => STUB_HEX;
const nativeHash: HashFn = (text) => createHash("sha256").update(text, "utf8").digest("hex");

interface Item {
  readonly principal: Principal;
  readonly call: ToolCall;
  readonly spec: ToolSpec;
  readonly now: number;
  readonly failure: ToolCasesFixture["cases"][number]["steps"][number]["failure"];
  readonly write: boolean;
  /** Approvals made with the constant hash (for the phases that run with it). */
  readonly stubApprovals: Approval[];
  /** The succeeded record the package phase builds from, with constant digests. */
  readonly stubRecord: IdempotencyRecord;
  /** The package the real pipeline built for this step, and the texts it hashed. */
  readonly pkg: ResultPackage;
  readonly texts: string[];
}

/** The phase loops of one bench case (a fixture with one case of dispatch steps). */
export interface PhaseSet {
  readonly steps: number;
  /** Runs `phase` over every step until `seconds` have passed; answers µs per step. */
  time(phase: Phase, seconds: number, native?: boolean): number;
}

function prepare(fixture: ToolCasesFixture): Item[] {
  const fixtureCase = fixture.cases[0];
  if (fixture.cases.length !== 1 || fixtureCase === undefined) throw new Error("phases take a fixture with one case");
  const principal = fixtureCase.principal;
  const engine = createDemoEngine();
  const stubStore = new InMemoryToolResultStore();
  return fixtureCase.steps.map((step) => {
    if (step.action !== "dispatch") throw new Error("phases take dispatch steps only");
    const call = bindToolCall(step.proposal, step.execution_context);
    const spec = engine.registry.get(call.name);
    if (spec === undefined || spec.execution.kind !== "in_process") throw new Error("phases take the demo tools only");
    // The real pipeline once, recording the texts it hashes.
    const texts: string[] = [];
    const hash = memoizeHash((text) => {
      texts.push(text);
      return sha256Hex(text);
    });
    const approvals = accepted(makeApproval(principal, call, spec, step.approval, step.now, hash));
    const pkg = accepted(dispatch(engine, { principal, call, approvals, now: step.now, failure: step.failure, hash }));
    if (validateResult(principal, call, spec, pkg, hash).length > 0 || pkg.model_result.status !== "succeeded") {
      throw new Error("phases take steps that succeed");
    }
    const write = spec.risk === "write";
    const raw = spec.execution.handler(call.arguments, { store: stubStore }) as HandlerResult;
    const stubRef = write ? `status_${STUB_HEX.slice(0, 32)}` : null;
    return {
      principal,
      call,
      spec,
      now: step.now,
      failure: step.failure,
      write,
      stubApprovals: accepted(makeApproval(principal, call, spec, step.approval, step.now, stubHash)),
      stubRecord: recordFromHandler(spec, call, raw, STUB_HEX, stubRef),
      pkg,
      texts,
    };
  });
}

/**
 * The digests one step computes, each once, the way the engine computes them (templates, the
 * model result's text written once); checked against the texts the real pipeline hashed.
 */
function stepDigests(item: Item, hash: HashFn): string[] {
  const { principal, call, spec, pkg } = item;
  const request = requestDigest(principal, call, spec, hash);
  const out = [request, callFingerprint(call, request, "dispatch", hash)];
  if (item.write) {
    out.push(approvalDigest(call, spec, request, DEFAULT_APPROVER_ID, hash));
    out.push(statusRef(idempotencyScope(principal, call), request, hash));
  }
  const result = hash(canonicalJson(pkg.model_result));
  out.push(result, principalRef(principal, hash));
  out.push(callBindingDigest(principal, call, spec, request, result, pkg.protected_audit.downstream, hash));
  return out;
}

function checkDigests(items: readonly Item[]): void {
  for (const item of items) {
    // principal_ref carries a prefix, the status reference is a prefix of its digest.
    const mine = stepDigests(item, sha256Hex).map((hex) => hex.replace(/^(sha256:|status_)/, ""));
    const theirs = item.texts.map(sha256Hex);
    const missing = theirs.filter((hex) => !mine.some((d) => hex.startsWith(d)));
    // Every text the pipeline hashed is among the phase's digests (a digest cached across calls may be absent).
    if (missing.length > 0)
      throw new Error("the digests phase no longer matches the engine's digests: update bench/phases.ts");
  }
}

/** Prepares the phase loops of a one-case fixture (correctness checked before anything is timed). */
export function preparePhases(fixture: ToolCasesFixture): PhaseSet {
  const items = prepare(fixture);
  checkDigests(items);
  const registry = createDemoEngine().registry;
  const runs: Record<Phase, (native: boolean) => void> = {
    "host context": () => {
      for (const it of items) validateHostContext(it.principal, it.call, it.now);
    },
    arguments: () => {
      for (const it of items) if (!validateArguments(it.spec, it.call.arguments)) throw new Error("arguments refused");
    },
    authorization: () => {
      const store = new InMemoryToolResultStore();
      for (const it of items) {
        const ctx = { store, now: it.now };
        if (!it.spec.authorize(it.principal, it.call.arguments, ctx)) throw new Error("not authorized");
        if (!it.write) continue;
        if (it.spec.businessRule !== undefined && !it.spec.businessRule(it.principal, it.call.arguments, ctx))
          throw new Error("business rule");
        if (
          !hasValidApproval(
            it.stubApprovals,
            it.principal,
            it.call,
            it.spec,
            STUB_HEX,
            it.now,
            AUTHORIZED_APPROVER_IDS,
            stubHash,
          )
        ) {
          throw new Error("approval refused");
        }
      }
    },
    dispatch: () => {
      const engine = createDemoEngine({ registry, hash: stubHash });
      for (const it of items) {
        const pkg = accepted(
          dispatch(engine, {
            principal: it.principal,
            call: it.call,
            approvals: it.stubApprovals,
            now: it.now,
            failure: it.failure,
          }),
        );
        if (pkg.model_result.status !== "succeeded") throw new Error("dispatch failed");
      }
    },
    packages: () => {
      for (const it of items) {
        const hash = memoizeHash(stubHash);
        const pkg = successPackage(it.principal, it.call, it.spec, it.stubRecord, "fresh", hash);
        if (validateResult(it.principal, it.call, it.spec, pkg, hash).length > 0) throw new Error("package refused");
      }
    },
    digests: (native) => {
      for (const it of items) stepDigests(it, native ? nativeHash : sha256Hex);
    },
    "SHA-256": (native) => {
      const hash = native ? nativeHash : sha256Hex;
      for (const it of items) for (const text of it.texts) hash(text);
    },
  };
  for (const phase of PHASES) for (let i = 0; i < 5; i++) runs[phase](false);
  return {
    steps: items.length,
    time(phase, seconds, native = false) {
      const run = runs[phase];
      let passes = 0;
      const start = performance.now();
      let elapsed = 0;
      while (elapsed < seconds * 1000) {
        run(native);
        passes++;
        elapsed = performance.now() - start;
      }
      return (elapsed * 1000) / (passes * items.length);
    },
  };
}

/** The engine's value; these inputs are well formed, so a refusal is a bug of the bench. */
function accepted<T, E>(result: Result<T, E>): T {
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.error)}`);
  return result.value;
}
