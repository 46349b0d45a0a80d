// A small agent host run in Deno or Bun with the package's client (`toolgate/client`) against a
// real gate: a read, then a write that needs approval, approved with ApproverClient and sent
// again. The gate's address, consumer and credentials arrive as one JSON document on stdin (no
// secret on the command line or on disk). Prints one JSON line per step; the credentials and
// the approval digest never appear in them.
import { AgentClient, ApproverClient } from "toolgate/client";

const Deno = globalThis.Deno;
const Bun = globalThis.Bun;
const runtime =
  Deno !== undefined ? { name: "deno", version: Deno.version.deno } : { name: "bun", version: Bun.version };

/** All of stdin as text. */
async function readStdin() {
  if (Deno !== undefined) return new Response(Deno.stdin.readable).text();
  return Bun.stdin.text();
}

const print = (line) => console.log(JSON.stringify(line));
/** What a step shows of a tool call's answer: the model result's essentials, or the problem. */
const shown = (step, answer) =>
  answer.ok
    ? {
        step,
        status: answer.value.model_result.status,
        data: answer.value.model_result.data,
        error: answer.value.model_result.error?.code ?? null,
        outcome: answer.value.model_result.execution.outcome,
        delivery: answer.value.model_result.execution.delivery,
        approval_id: answer.value.approval_id ?? null,
        provider_output: { type: answer.value.provider_output.type, call_id: answer.value.provider_output.call_id },
      }
    : { step, problem: answer.problem.code, status: answer.problem.status };

// A local document written by the test that started this program.
const config = JSON.parse(await readStdin());
const gate = { baseUrl: config.base, consumer: config.consumer };
const agent = new AgentClient({ ...gate, token: config.agent });
const approver = new ApproverClient({ ...gate, token: config.approver });
const context = (callId) => ({
  call_id: callId,
  operation_id: `op-${callId}`,
  provider: "openai",
  api_family: "responses",
  response_id: `resp-${runtime.name}`,
  adapter_revision: "openai-responses-v1",
});
const principal = { subject_id: "user-1", roles: [] };

print({ step: "runtime", ...runtime });

const read = await agent.toolCall({
  principal,
  proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
  context: context(`${runtime.name}-read`),
});
print(shown("read", read));

const refund = {
  principal,
  proposal: { name: "create_refund_draft", arguments: { order_ref: "ORDER-7", reason: "duplicate" } },
  context: context(`${runtime.name}-refund`),
};
const key = { idempotencyKey: `${runtime.name}-refund-key` };
const asked = await agent.toolCall(refund, key);
print(shown("write", asked));
const approvalId = asked.ok ? asked.value.approval_id : undefined;
if (approvalId === undefined) throw new Error("the write opened no approval");

const pending = await approver.listApprovals();
if (!pending.ok) throw new Error(`listApprovals: ${pending.problem.code}`);
const view = pending.value.approvals.find((a) => a.approval_id === approvalId);
if (view === undefined) throw new Error("the approval is not listed");
print({
  step: "pending",
  approval_id: view.approval_id,
  state: view.state,
  tool: view.tool,
  arguments: view.arguments,
  subject_id: view.subject_id,
  approver_id: view.approver_id,
  idempotency_key: view.idempotency_key,
});

const decided = await approver.decideApproval(approvalId, "approve", view.approval_digest);
print(
  decided.ok
    ? {
        step: "decide",
        approval_id: decided.value.approval_id,
        state: decided.value.state,
        approver_id: decided.value.approver_id,
        bound_to_request: decided.value.bound_to_request,
      }
    : { step: "decide", problem: decided.problem.code },
);

const status = await agent.approval(approvalId);
print(
  status.ok
    ? { step: "status", approval_id: status.value.approval_id, state: status.value.state }
    : { step: "status", problem: status.problem.code },
);

print(shown("resend", await agent.toolCall(refund, key)));
print(shown("replay", await agent.toolCall(refund, key)));
