// The bench fixture: two cases in the mini shape of the reference's fixtures. "reads": get_order
// ORDER-7 for tenant-a/user-1 with distinct call and operation ids; "writes": create_refund_draft
// with distinct idempotency keys and a valid bound approval. Shared by the benchmark and its
// profiling loop (bench/profile.ts).

const NOW = 1784419200;

function step(i: number, fields: Record<string, unknown>): Record<string, unknown> {
  return { step_id: `step-${i}`, action: "dispatch", status_ref_from: null, now: NOW + i, failure: "none", ...fields };
}

/** The fixture document: `reads` read steps and `writes` write steps, every one expected to pass. */
export function benchFixture(reads: number, writes: number): Record<string, unknown> {
  const readSteps = [];
  for (let i = 1; i <= reads; i++) {
    readSteps.push(
      step(i, {
        proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
        execution_context: {
          provider: "openai",
          api_family: "responses",
          adapter_revision: "openai-responses-v1",
          response_id: "resp-1",
          call_id: `call-${i}`,
          operation_id: `op-${i}`,
          idempotency_key: null,
        },
        approval: "none",
        expected: {
          code: "OK",
          status: "succeeded",
          outcome: "committed",
          recovery: "none",
          delivery: "fresh",
          data: { order_ref: "ORDER-7", status: "paid" },
          side_effect_count: 0,
        },
      }),
    );
  }
  const writeSteps = [];
  for (let i = 1; i <= writes; i++) {
    writeSteps.push(
      step(i, {
        proposal: { name: "create_refund_draft", arguments: { order_ref: "ORDER-7", reason: "duplicate" } },
        execution_context: {
          provider: "openai",
          api_family: "responses",
          adapter_revision: "openai-responses-v1",
          response_id: "resp-1",
          call_id: `call-${i}`,
          operation_id: `op-${i}`,
          idempotency_key: `refund-${i}`,
        },
        approval: "valid",
        expected: {
          code: "OK",
          status: "succeeded",
          outcome: "committed",
          recovery: "none",
          delivery: "fresh",
          data: { draft_id: `DRAFT-${i}`, order_ref: "ORDER-7", reason: "duplicate" },
          side_effect_count: i,
        },
      }),
    );
  }
  return {
    schema_version: "tool-cases-v2",
    contract: { model_result: "tool-model-result-v2", protected_audit: "tool-audit-v2" },
    cases: [
      { id: "reads", principal: { tenant_id: "tenant-a", subject_id: "user-1", roles: [] }, steps: readSteps },
      { id: "writes", principal: { tenant_id: "tenant-a", subject_id: "user-1", roles: [] }, steps: writeSteps },
    ],
  };
}
