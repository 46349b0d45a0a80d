/**
 * R7 approvals: mutations of an approved call (every digest input), tampered decision digests
 * (refused, never recorded), replays, expiry at expires_at − 1 / expires_at / + 1 (the object's clock is pinned through
 * `runInDurableObject`), self-approval, and wrong credentials on the approval route.
 * Pass: 0 executions out of contract.
 */
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { report, seedOf } from "../support/figures";
import { approveCall, callBody, pinClock, send, tenant, type Tenant } from "./client";

const SEED = seedOf(7007);
const T0 = 1_900_000_000;
const MUTATIONS = 1_000;

const calls = (t: Tenant) => `/v1/consumers/${t.name}/tool-calls`;

/** A fresh execution (a local replay of an already executed call is not a second execution). */
function executed(answer: { json: any }): boolean {
  return answer.json?.model_result?.status === "succeeded" && answer.json.model_result.execution?.delivery === "fresh";
}

describe("R7 approvals", () => {
  it("executes no mutation of an approved call, and the approved call exactly once", async () => {
    const t = await tenant("tenant-a");
    await pinClock(t.name, T0);
    const approved = callBody({ callId: "call-approved", key: "key-approved" });
    await approveCall(t, approved);
    type Mutation = { field: string; value: unknown };
    const mutation = fc.oneof(
      fc.record({
        field: fc.constant("arguments.order_ref"),
        value: fc.constantFrom("ORDER-8", "ORDER-70", "order-7", "ORDER-7 "),
      }),
      fc.record({
        field: fc.constant("arguments.reason"),
        value: fc.constantFrom("damaged", "other", "duplicate ", "DUPLICATE"),
      }),
      fc.record({
        field: fc.constantFrom(
          "context.call_id",
          "context.operation_id",
          "context.response_id",
          "context.idempotency_key",
        ),
        value: fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/),
      }),
      fc.record({
        field: fc.constant("context.adapter_revision"),
        value: fc.constantFrom("openai-responses-v2", "anthropic-messages-v1"),
      }),
      fc.record({ field: fc.constant("provider"), value: fc.constantFrom("anthropic", "google") }),
      fc.record({
        field: fc.constant("principal.subject_id"),
        value: fc.constantFrom("user-2", "human-reviewer-1", "user-1x"),
      }),
      fc.record({ field: fc.constant("tool"), value: fc.constantFrom("submit_refund", "get_order") }),
      fc.record({ field: fc.constant("arguments.extra"), value: fc.constantFrom("x", 1, true) }),
    ) as fc.Arbitrary<Mutation>;
    let sent = 0;
    let accepted = 0;
    const leaks = new Map<string, number>();
    const codes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(mutation, async (m) => {
        const body = structuredClone(approved) as any;
        const [head, tail] = m.field.split(".") as [string, string | undefined];
        if (head === "arguments") body.proposal.arguments[tail as string] = m.value;
        else if (head === "context") {
          if (body.context[tail as string] === m.value) return;
          body.context[tail as string] = m.value;
        } else if (head === "principal") body.principal[tail as string] = m.value;
        else if (head === "tool") body.proposal.name = m.value;
        else if (head === "provider") {
          const profile =
            m.value === "anthropic"
              ? ["messages", "anthropic-messages-v1"]
              : ["interactions", "gemini-interactions-v1"];
          body.context.provider = m.value;
          body.context.api_family = profile[0];
          body.context.adapter_revision = profile[1];
        }
        const answer = await send("POST", calls(t), t.agent, body);
        sent++;
        const code = answer.json?.model_result?.error?.code ?? answer.json?.code ?? String(answer.status);
        codes.set(code, (codes.get(code) ?? 0) + 1);
        if (executed(answer)) {
          accepted++;
          leaks.set(`${m.field}=${JSON.stringify(m.value)} ${answer.json.model_result.execution.delivery}`, 1);
        }
      }),
      { numRuns: MUTATIONS, seed: SEED },
    );
    const fresh = await send("POST", calls(t), t.agent, approved);
    const replays: number[] = [];
    for (let i = 0; i < 100; i++) {
      const again = await send("POST", calls(t), t.agent, approved);
      replays.push(
        again.json?.model_result?.execution?.delivery === "local_replay" &&
          again.json.model_result.data.draft_id === "DRAFT-1"
          ? 1
          : 0,
      );
    }
    const replayed = replays.reduce((a, b) => a + b, 0);
    const freshOk = executed(fresh) && fresh.json.model_result.data.draft_id === "DRAFT-1";
    report({
      id: "R7",
      check: "mutations of an approved call (every digest input) + 100 replays",
      figure: `${accepted}/${sent} mutations executed; approved call ran once (${freshOk ? "DRAFT-1" : "no"}); ${replayed}/100 replays local_replay${leaks.size > 0 ? `; e.g. ${[...leaks.keys()].slice(0, 4).join(" | ")}` : ""}`,
      pass: accepted === 0 && freshOk && replayed === 100 && sent >= MUTATIONS * 0.95,
      seed: SEED,
    });
    expect([...leaks.keys()].slice(0, 20)).toEqual([]);
    expect(accepted).toBe(0);
    expect(fresh.json.model_result.data.draft_id).toBe("DRAFT-1");
    expect(replayed).toBe(100);
  });

  it("refuses tampered digests, expired approvals and requests, self-approval and wrong credentials", async () => {
    const t = await tenant("tenant-b", ["human-reviewer-1", "user-1"]);
    await pinClock(t.name, T0);
    const selfApprover = (
      await send("POST", `/v1/consumers/${t.name}/credentials`, "test-admin-token-0123456789", {
        kind: "approver",
        subject_id: "user-1",
      })
    ).json.secret as string;
    const outOfContract: string[] = [];
    let checks = 0;
    let n = 0;
    const ask = async () => {
      n++;
      const body = callBody({
        callId: `edge-${n}`,
        key: `edge-key-${n}`,
        args: { order_ref: "ORDER-9", reason: "duplicate" },
      });
      const asked = await send("POST", calls(t), t.agent, body);
      const list = await send("GET", `/v1/consumers/${t.name}/approvals?state=pending`, t.approver);
      const shown = (list.json.approvals as any[]).find((a) => a.approval_id === asked.json.approval_id);
      return { body, id: asked.json.approval_id as string, digest: shown.approval_digest as string };
    };
    // Tampered digests: case, truncation, one nibble, zeros, another approval's digest.
    const other = await ask();
    const tampers: Array<(d: string) => string> = [
      (d) => d.toUpperCase(),
      (d) => d.slice(0, 63),
      (d) => `${d.slice(0, 63)}${d[63] === "0" ? "1" : "0"}`,
      () => "0".repeat(64),
      () => other.digest,
      (d) => `${d}0`,
    ];
    for (const tamper of tampers) {
      for (let i = 0; i < 10; i++) {
        const a = await ask();
        const decided = await send("POST", `/v1/consumers/${t.name}/approvals/${a.id}`, t.approver, {
          decision: "approve",
          approval_digest: tamper(a.digest),
        });
        const run = await send("POST", calls(t), t.agent, a.body);
        checks += 2;
        if (executed(run)) outOfContract.push(`tampered digest executed (decision ${decided.status})`);
        // A tampered digest is never recorded: the approval stays pending (400 or 409 APPROVAL_DIGEST_MISMATCH).
        if (decided.status !== 400 && decided.json?.code !== "APPROVAL_DIGEST_MISMATCH")
          outOfContract.push(`tampered digest recorded (decision ${decided.status})`);
        // Deny it with the digest shown, so the subject's pending approvals stay under its quota.
        await send("POST", `/v1/consumers/${t.name}/approvals/${a.id}`, t.approver, {
          decision: "deny",
          approval_digest: a.digest,
        });
      }
    }
    // Approval validity: valid iff now < valid_until (= decided_at + 60).
    for (const [offset, shouldRun] of [
      [-1, true],
      [0, false],
      [1, false],
    ] as const) {
      const a = await ask();
      const decided = await send("POST", `/v1/consumers/${t.name}/approvals/${a.id}`, t.approver, {
        decision: "approve",
        approval_digest: a.digest,
      });
      const validUntil = decided.json.valid_until as number;
      await pinClock(t.name, validUntil + offset);
      const run = await send("POST", calls(t), t.agent, a.body);
      await pinClock(t.name, T0);
      checks++;
      if (executed(run) !== shouldRun)
        outOfContract.push(`approval at valid_until${offset >= 0 ? "+" : ""}${offset}: executed=${executed(run)}`);
    }
    // Pending request: decidable iff now < expires_at.
    for (const [offset, decidable] of [
      [-1, true],
      [0, false],
      [1, false],
    ] as const) {
      const a = await ask();
      const list = await send("GET", `/v1/consumers/${t.name}/approvals?state=pending`, t.approver);
      const expiresAt = (list.json.approvals as any[]).find((x) => x.approval_id === a.id).expires_at as number;
      await pinClock(t.name, expiresAt + offset);
      const decided = await send("POST", `/v1/consumers/${t.name}/approvals/${a.id}`, t.approver, {
        decision: "approve",
        approval_digest: a.digest,
      });
      await pinClock(t.name, T0);
      checks++;
      const ok = decidable
        ? decided.status === 200
        : decided.status === 409 && decided.json.code === "APPROVAL_EXPIRED";
      if (!ok)
        outOfContract.push(
          `pending at expires_at${offset >= 0 ? "+" : ""}${offset}: ${decided.status} ${decided.json?.code}`,
        );
    }
    // Self-approval, agent/auditor credential on the approval route, consumed approval replayed on a new key.
    const self = await ask();
    const bySelf = await send("POST", `/v1/consumers/${t.name}/approvals/${self.id}`, selfApprover, {
      decision: "approve",
      approval_digest: self.digest,
    });
    checks++;
    if (bySelf.json?.code !== "SELF_APPROVAL_FORBIDDEN")
      outOfContract.push(`self approval: ${bySelf.status} ${bySelf.json?.code}`);
    for (const [who, token, code] of [
      ["agent", t.agent, "FORBIDDEN"],
      ["auditor", t.auditor, "FORBIDDEN"],
      ["provider", t.provider, "FORBIDDEN"],
    ] as const) {
      const r = await send("POST", `/v1/consumers/${t.name}/approvals/${self.id}`, token, {
        decision: "approve",
        approval_digest: self.digest,
      });
      const l = await send("GET", `/v1/consumers/${t.name}/approvals?state=pending`, token);
      checks += 2;
      if (r.status !== 403 || r.json?.code !== code || l.status !== 403)
        outOfContract.push(`${who} on approvals: ${r.status}/${l.status}`);
    }
    const selfRun = await send("POST", calls(t), t.agent, self.body);
    checks++;
    if (executed(selfRun)) outOfContract.push("self-approved call executed");
    const used = await ask();
    await send("POST", `/v1/consumers/${t.name}/approvals/${used.id}`, t.approver, {
      decision: "approve",
      approval_digest: used.digest,
    });
    const first = await send("POST", calls(t), t.agent, used.body);
    let reused = 0;
    for (let i = 0; i < 100; i++) {
      const again = structuredClone(used.body) as any;
      again.context.idempotency_key = `reuse-${i}`;
      const r = await send("POST", calls(t), t.agent, again);
      checks++;
      if (executed(r)) reused++;
    }
    if (!executed(first)) outOfContract.push("a valid approval did not execute");
    if (reused > 0) outOfContract.push(`consumed approval reused on a new key ${reused}×`);
    report({
      id: "R7",
      check: "tampered digests, expiry ±1, self-approval, wrong credentials, reuse",
      figure: `${outOfContract.length} out of contract in ${checks} checks`,
      pass: outOfContract.length === 0,
      seed: SEED,
    });
    expect(outOfContract).toEqual([]);
  });

  it("keeps the clock hook off the RPC surface", async () => {
    const { env } = await import("cloudflare:workers");
    const stub = env.CONSUMER.get(env.CONSUMER.idFromName("tenant-a")) as any;
    let reachable = true;
    try {
      await stub.clock;
    } catch {
      reachable = false;
    }
    report({
      id: "R7",
      check: "clock hook reachable over RPC (only runInDurableObject may pin it)",
      figure: reachable ? "reachable" : "not reachable",
      pass: !reachable,
    });
    expect(reachable).toBe(false);
  });
});
