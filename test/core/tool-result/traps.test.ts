import { describe, expect, it } from "vitest";
import { readJson, type JsonObject } from "../../../src/core/json";
import { loadToolCasesFixture, runFixture } from "../../../src/conformance/tool-cases";
import { fixtureBytes, fixtureText } from "./fixture-files";

// Each trap fixture was run through the reference; its summary is the golden value.
function codes(name: string): Record<string, string> {
  const loaded = loadToolCasesFixture(fixtureBytes(`traps/${name}.json`));
  if (!loaded.ok) throw new Error(loaded.error.message);
  const result = runFixture(loaded.fixture);
  if (!result.ok) throw new Error(result.error.message);
  const reference = readJson(fixtureText(`traps/${name}.expected.json`), { maxBytes: 1 << 24 });
  if (!reference.ok) throw new Error(reference.error.message);
  expect(result.run.summary).toEqual((reference.value as JsonObject)["summary"]);
  const out: Record<string, string> = {};
  for (const c of result.run.summary["cases"] as JsonObject[]) {
    for (const s of c["steps"] as JsonObject[])
      out[`${String(c["case_id"])}/${String(s["step_id"])}`] =
        `${String(s["actual_code"])} ${String(s["delivery"])} ${String(s["side_effect_count"])}`;
  }
  return out;
}

describe("traps where JavaScript differs from the reference", () => {
  it("strips Python's whitespace set: \\x1c-\\x1f and \\x85 yes, U+FEFF and U+200B no", () => {
    expect(codes("01-python-strip-set")).toEqual({
      "strip/fs-only": "INVALID_ARGUMENTS fresh 0",
      "strip/nel-only": "INVALID_ARGUMENTS fresh 0",
      "strip/bom-only-is-not-whitespace": "NOT_FOUND fresh 0",
      "strip/nbsp-and-ideographic-space": "INVALID_ARGUMENTS fresh 0",
      "strip/zero-width-space-is-not-whitespace": "NOT_FOUND fresh 0",
    });
  });

  it("counts string lengths in code points", () => {
    expect(codes("02-code-point-lengths")).toEqual({
      "lengths/64-astral-code-points-fit": "NOT_FOUND fresh 0",
      "lengths/65-astral-code-points-do-not": "INVALID_ARGUMENTS fresh 0",
      "lengths/64-ascii": "NOT_FOUND fresh 0",
      "lengths/reason-enum-exact": "INVALID_ARGUMENTS fresh 0",
    });
  });

  it("accepts roles sorted by code point (U+FF61 before U+1F600)", () => {
    expect(codes("03-role-code-point-order")).toEqual({
      "astral-role-sorts-after-halfwidth/admin-reads-colleague": "OK fresh 0",
      "private-use-before-astral/read": "OK fresh 0",
    });
  });

  it("keeps 1 and 1.0 apart and formats floats like Python", () => {
    expect(codes("04-int-and-float-arguments")).toEqual({
      "numbers/extra-int": "INVALID_ARGUMENTS fresh 0",
      "numbers/extra-float": "INVALID_ARGUMENTS fresh 0",
      "numbers/order-ref-int": "INVALID_ARGUMENTS fresh 0",
      "numbers/order-ref-float": "INVALID_ARGUMENTS fresh 0",
      "numbers/float-layouts": "INVALID_ARGUMENTS fresh 0",
      "numbers/bool-is-not-int": "INVALID_ARGUMENTS fresh 0",
      "numbers/unicode-key-order": "INVALID_ARGUMENTS fresh 0",
    });
  });

  it("answers IDEMPOTENCY_CONFLICT to a replay through another provider", () => {
    expect(codes("05-replay-through-another-provider")).toEqual({
      "replay/openai-commit": "OK fresh 1",
      "replay/anthropic-replay": "IDEMPOTENCY_CONFLICT fresh 1",
      "replay/google-replay": "IDEMPOTENCY_CONFLICT fresh 1",
      "replay/openai-replay": "OK local_replay 1",
    });
  });

  it("answers NOT_FOUND to a status query after commit, CALL_ID_CONFLICT before NOT_FOUND, and keeps a receipt-less write unknown", () => {
    expect(codes("06-status-query-traps")).toEqual({
      "queries/committed": "OK fresh 1",
      "queries/query-committed-is-not-found": "NOT_FOUND fresh 1",
      "queries/query-reusing-dispatch-call-id-conflicts": "CALL_ID_CONFLICT fresh 1",
      "queries/read-for-status-ref-source": "OK fresh 1",
      "queries/unknown-no-receipt": "OUTCOME_UNKNOWN fresh 2",
      "queries/query-stays-unknown": "OUTCOME_UNKNOWN fresh 2",
      "queries/retry-stays-unknown": "OUTCOME_UNKNOWN fresh 2",
      "queries/retry-with-failure-stays-unknown": "OUTCOME_UNKNOWN fresh 2",
      "queries/other-principal-call-id-conflict-before-not-found": "CALL_ID_CONFLICT fresh 2",
    });
  });

  it("ignores failures on local replay and approval modes on reads", () => {
    expect(codes("07-failures-and-approvals")).toEqual({
      "misc/commit": "OK fresh 1",
      "misc/local-replay-ignores-timeout-before-execute": "OK local_replay 1",
      "misc/local-replay-ignores-tool-error": "OK local_replay 1",
      "misc/local-replay-ignores-after-commit": "OK local_replay 1",
      "misc/read-ignores-mismatched-approval": "OK fresh 1",
      "misc/read-ignores-expired-approval": "OK fresh 1",
      "misc/timeout-after-commit": "OUTCOME_UNKNOWN fresh 2",
      "misc/reconcile": "OK receipt_reconciled 2",
      "misc/reconcile-again": "OK receipt_reconciled 2",
      "misc/replay-after-reconcile": "OK local_replay 2",
      "misc/late-clock": "OK fresh 2",
      "misc/epoch": "OK fresh 2",
      "misc/leap-day": "NOT_FOUND fresh 2",
    });
  });
});
