import { describe, expect, it } from "vitest";
import { readJson, type Json, type JsonObject } from "../../../src/core/json";
import {
  beginDispatch,
  bindToolCall,
  completeDispatch,
  queryStatus,
  recoverInFlight,
  requestDigest,
  settleNotExecuted,
  type HandlerOutcome,
  type ResultPackage,
  type ToolCall,
  type ToolResultEngine,
} from "../../../src/core/tool-result";
import {
  createDemoEngine,
  loadToolCasesFixture,
  makeApproval,
  type FixtureCase,
  type ToolCasesFixture,
} from "../../../src/conformance/tool-cases";
import { fixtureBytes, fixtureText } from "./fixture-files";
import { accepted } from "../../support/accepted";

function load(name: string): ToolCasesFixture {
  const loaded = loadToolCasesFixture(fixtureBytes(name));
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.fixture;
}

function referencePackages(name: string): Json[] {
  const doc = readJson(fixtureText(name), { maxBytes: 1 << 24 });
  if (!doc.ok) throw new Error(doc.error.message);
  return ((doc.value as JsonObject)["steps"] as JsonObject[]).map((step) => step["package"] as Json);
}

// Drives one fixture case through the two-step API, awaiting each handler between the steps.
async function runCaseTwoStep(engine: ToolResultEngine, fixtureCase: FixtureCase): Promise<ResultPackage[]> {
  const packages = new Map<string, ResultPackage>();
  const out: ResultPackage[] = [];
  for (const step of fixtureCase.steps) {
    const principal = fixtureCase.principal;
    const call = bindToolCall(step.proposal, step.execution_context);
    const spec = engine.registry.get(call.name);
    let pkg: ResultPackage;
    if (step.action === "query_status") {
      const source = packages.get(step.status_ref_from ?? "");
      const statusRef = (source?.protected_audit["downstream"] as JsonObject)["status_ref"] as string;
      pkg = accepted(
        queryStatus(engine, {
          principal,
          call,
          status_ref: statusRef,
          expected_request_sha256: requestDigest(principal, call, spec),
          now: step.now,
        }),
      );
    } else {
      const approvals = accepted(makeApproval(principal, call, spec, step.approval, step.now));
      const begun = accepted(
        beginDispatch(engine, { principal, call, approvals, now: step.now, failure: step.failure }),
      );
      if (begun.kind === "in_progress" || begun.kind === "quota_exceeded") throw new Error(`unexpected ${begun.kind}`);
      if (begun.kind === "final" || begun.kind === "needs_approval") pkg = begun.package;
      else {
        // A JSON round trip proves the ticket is plain data, as a Durable Object would store it.
        const ticket = JSON.parse(JSON.stringify(begun.ticket)) as typeof begun.ticket;
        const execution = engine.registry.get(ticket.tool)?.execution;
        const handler = execution?.kind === "in_process" ? execution.handler : undefined;
        let outcome: HandlerOutcome;
        try {
          outcome = await Promise.resolve(handler?.(call.arguments, { store: engine.store }) ?? "threw");
        } catch {
          outcome = "threw";
        }
        pkg = completeDispatch(engine, ticket, outcome);
      }
    }
    packages.set(step.step_id, pkg);
    out.push(pkg);
  }
  return out;
}

describe("two-step dispatch", () => {
  it.each([
    "public-cases",
    "traps/05-replay-through-another-provider",
    "traps/06-status-query-traps",
    "traps/07-failures-and-approvals",
  ])("produces the reference's packages for every step of %s", async (name) => {
    const fixture = load(`${name}.json`);
    const actual: Json[] = [];
    for (const fixtureCase of fixture.cases) {
      const packages = await runCaseTwoStep(createDemoEngine(), fixtureCase);
      actual.push(...packages.map((pkg) => ({ model_result: pkg.model_result, protected_audit: pkg.protected_audit })));
    }
    expect(actual).toEqual(referencePackages(`${name}.expected.json`));
  });
});

const principal = { tenant_id: "tenant-a", subject_id: "user-1", roles: [] as string[] };
const NOW = 1784419200;
function refundCall(callId: string, reason: string, key = "k2"): ToolCall {
  return bindToolCall(
    { name: "create_refund_draft", arguments: { order_ref: "ORDER-7", reason } },
    {
      provider: "openai",
      api_family: "responses",
      adapter_revision: "openai-responses-v1",
      response_id: "resp-1",
      call_id: callId,
      operation_id: `op-${callId}`,
      idempotency_key: key,
    },
  );
}

function statusRefOf(pkg: Json | undefined): Json | undefined {
  return (
    ((pkg as JsonObject)["protected_audit"] as JsonObject)["downstream"] &&
    (((pkg as JsonObject)["protected_audit"] as JsonObject)["downstream"] as JsonObject)["status_ref"]
  );
}

describe("write-ahead execution", () => {
  // The trap fixture's step "unknown-no-receipt" is this very call left unknown by the reference.
  const reference = referencePackages("traps/06-status-query-traps.expected.json");
  const unknownNoReceipt = reference[4];
  const queryStaysUnknown = reference[5];

  function beginWrite(engine: ToolResultEngine, call: ToolCall) {
    const approvals = accepted(makeApproval(principal, call, engine.registry.get(call.name), "valid", NOW));
    return accepted(beginDispatch(engine, { principal, call, approvals, now: NOW }));
  }

  it("marks a write in flight: the same request is in progress, another request conflicts", () => {
    const engine = createDemoEngine();
    const first = beginWrite(engine, refundCall("c2", "damaged"));
    expect(first.kind).toBe("execute");
    expect(beginWrite(engine, refundCall("c3", "damaged"))).toEqual({ kind: "in_progress" });
    const other = beginWrite(engine, refundCall("c4", "other"));
    expect(other.kind).toBe("final");
    const model = other.kind === "final" ? other.package.model_result : null;
    expect(model?.["error"]).toEqual({
      code: "IDEMPOTENCY_CONFLICT",
      category: "conflict",
      safe_message: "The same idempotency key maps to a different request or contract revision.",
      recovery: "human_review",
      retry_after_ms: null,
    });
    expect(engine.store.entries("in_flight").length).toBe(1);
  });

  it("clears the mark on completion, and a later identical request replays locally without executing", () => {
    const engine = createDemoEngine();
    const begun = beginWrite(engine, refundCall("c2", "damaged"));
    if (begun.kind !== "execute") throw new Error("expected execute");
    const execution = engine.registry.get("create_refund_draft")?.execution;
    const handler = execution?.kind === "in_process" ? execution.handler : undefined;
    const result = handler?.({ order_ref: "ORDER-7", reason: "damaged" }, { store: engine.store });
    const pkg = completeDispatch(engine, begun.ticket, result as HandlerOutcome);
    expect(pkg.model_result["status"]).toBe("succeeded");
    expect(engine.store.entries("in_flight")).toEqual([]);
    const again = beginWrite(engine, refundCall("c3", "damaged"));
    expect(
      again.kind === "final" ? (again.package.model_result["execution"] as JsonObject)["delivery"] : again.kind,
    ).toBe("local_replay");
    expect(engine.store.counter("side_effect_count")).toBe(1);
  });

  it("the reference's status reference for this write is a real one", () => {
    expect(statusRefOf(unknownNoReceipt)).toBe(statusRefOf(queryStaysUnknown));
    expect(String(statusRefOf(unknownNoReceipt)).length).toBe(39);
  });

  it("recovers a leftover in-flight write as the reference's unknown outcome, never executing it again", () => {
    const engine = createDemoEngine();
    expect(beginWrite(engine, refundCall("c2", "damaged")).kind).toBe("execute");
    const recovered = recoverInFlight(engine, NOW);
    expect(recovered.map((item) => item.package)).toEqual([unknownNoReceipt]);
    expect(recovered[0]?.status_ref).toBe(statusRefOf(unknownNoReceipt));
    expect(engine.store.entries("in_flight")).toEqual([]);
    // A retry is held as unknown; a status query finds no receipt and stays unknown.
    const retry = beginWrite(engine, refundCall("c3", "damaged"));
    expect(retry.kind === "final" ? (retry.package.model_result["error"] as JsonObject)["code"] : retry.kind).toBe(
      "OUTCOME_UNKNOWN",
    );
    const query = accepted(
      queryStatus(engine, {
        principal,
        call: refundCall("q2", "damaged"),
        status_ref: recovered[0]?.status_ref ?? "",
        expected_request_sha256: requestDigest(
          principal,
          refundCall("q2", "damaged"),
          engine.registry.get("create_refund_draft"),
        ),
        now: NOW,
      }),
    );
    expect({ model_result: query.model_result, protected_audit: query.protected_audit }).toEqual(queryStaysUnknown);
    expect(engine.store.counter("side_effect_count")).toBe(0);
  });

  it("settles an unknown write as never executed only for its own status reference and without a receipt", () => {
    const engine = createDemoEngine();
    expect(beginWrite(engine, refundCall("c2", "damaged")).kind).toBe("execute");
    const [recovered] = recoverInFlight(engine, NOW);
    const statusRef = recovered?.status_ref ?? "";
    const scope = recovered?.scope ?? [];
    expect(settleNotExecuted(engine, scope, `status_${"0".repeat(32)}`)).toBe(false);
    expect(settleNotExecuted(engine, ["tenant-a", "user-1", "create_refund_draft", "other-key"], statusRef)).toBe(
      false,
    );
    expect(settleNotExecuted(engine, scope, statusRef)).toBe(true);
    const code = (pkg: ResultPackage) => [
      (pkg.model_result["error"] as JsonObject)["code"],
      (pkg.model_result["execution"] as JsonObject)["outcome"],
      pkg.model_result["status"],
    ];
    const query = accepted(
      queryStatus(engine, {
        principal,
        call: refundCall("q2", "damaged"),
        status_ref: statusRef,
        expected_request_sha256: requestDigest(
          principal,
          refundCall("q2", "damaged"),
          engine.registry.get("create_refund_draft"),
        ),
        now: NOW,
      }),
    );
    expect(code(query)).toEqual(["TOOL_ERROR", "not_started", "failed"]);
    const retry = beginWrite(engine, refundCall("c3", "damaged"));
    expect(retry.kind === "final" ? code(retry.package) : retry.kind).toEqual(["TOOL_ERROR", "not_started", "failed"]);
    // A different request under the spent key still conflicts; nothing ever ran.
    const other = beginWrite(engine, refundCall("c4", "other"));
    expect(other.kind === "final" ? (other.package.model_result["error"] as JsonObject)["code"] : other.kind).toBe(
      "IDEMPOTENCY_CONFLICT",
    );
    expect(engine.store.counter("side_effect_count")).toBe(0);
  });

  it("turns a thrown write handler into OUTCOME_UNKNOWN with a status reference, and a thrown read into TOOL_ERROR", () => {
    const engine = createDemoEngine();
    const begun = beginWrite(engine, refundCall("c2", "damaged"));
    if (begun.kind !== "execute") throw new Error("expected execute");
    expect(completeDispatch(engine, begun.ticket, "threw")).toEqual(unknownNoReceipt);
    const read = bindToolCall(
      { name: "get_order", arguments: { order_ref: "ORDER-7" } },
      { ...refundCall("r1", "damaged"), idempotency_key: null },
    );
    const readBegun = accepted(beginDispatch(engine, { principal, call: read, now: NOW }));
    if (readBegun.kind !== "execute") throw new Error("expected execute");
    expect((completeDispatch(engine, readBegun.ticket, "threw").model_result["error"] as JsonObject)["code"]).toBe(
      "TOOL_ERROR",
    );
  });

  it("reports a handler result that breaks the output contract as OUTPUT_CONTRACT_VIOLATION (unknown for writes)", () => {
    const engine = createDemoEngine();
    const begun = beginWrite(engine, refundCall("c2", "damaged"));
    if (begun.kind !== "execute") throw new Error("expected execute");
    const leaky = {
      data: { draft_id: "DRAFT-1", order_ref: "ORDER-7", reason: "damaged", api_key: "sk-1" },
      producer_revision: "refunds-mock-v2",
      resource_revision: "draft-1-r1",
      observed_at: "2026-07-19T00:00:00Z",
    };
    const pkg = completeDispatch(engine, begun.ticket, leaky);
    expect(pkg.model_result["status"]).toBe("unknown");
    expect((pkg.model_result["error"] as JsonObject)["code"]).toBe("OUTPUT_CONTRACT_VIOLATION");
    expect(statusRefOf(pkg as unknown as Json)).toBe(statusRefOf(unknownNoReceipt));
  });
});
