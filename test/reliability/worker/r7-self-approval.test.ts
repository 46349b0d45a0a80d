/**
 * R7 self-approval through every credential kind, on both planes: whichever way the requesting
 * subject was established (a subject-bound credential, a host credential naming it, an end
 * user's verified JWT), an approver credential of that same subject cannot decide the request,
 * nothing runs, and the request stays pending for another approver.
 * Pass: 0 self-approvals recorded, 0 executions.
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { createConsumer, credential, send, wipe } from "../../kit";
import {
  grantKey,
  PROVIDER,
  requestBody,
  setupCapabilityConsumer,
  T0 as CAP_T0,
} from "../../worker/capability-support";
import { report, seedOf } from "../support/figures";
import { callBody, pinClock } from "./client";

const SEED = seedOf(7077);
const T0 = 1_900_000_000;
const ISSUER = "https://login.example.test/";
const TOOLS = ["get_order", "create_refund_draft", "submit_refund", "lookup_refund"];

describe("R7 self-approval through every credential kind", () => {
  it("the tool-call plane: subject-bound, host and token-verified requesters cannot approve their own calls", async () => {
    // The reference orders (ORDER-7 of user-1) live in tenant-a.
    const name = "tenant-a";
    await wipe(name);
    const keys = await generateKeyPair("ES256");
    const jwk = { ...(await exportJWK(keys.publicKey)), kid: "r7" };
    const put = await send("PUT", `/v1/consumers/${name}`, "test-admin-token-0123456789", {
      tools: TOOLS,
      approver_subjects: ["user-1", "reviewer-2"],
      principal_tokens: { issuer: ISSUER, audience: "r7", jwks: { keys: [jwk] } },
    });
    expect(put.status).toBe(200);
    await pinClock(name, T0);
    const jwt = await new SignJWT({ sub: "user-1" })
      .setProtectedHeader({ alg: "ES256", kid: "r7" })
      .setIssuer(ISSUER)
      .setAudience("r7")
      .setExpirationTime(T0 + 600)
      .sign(keys.privateKey);
    const self = (await credential(name, "approver", "user-1")).secret;
    const other = (await credential(name, "approver", "reviewer-2")).secret;
    const requesters: Array<[string, string, Record<string, unknown>]> = [
      ["subject-bound", (await credential(name, "agent", "user-1")).secret, {}],
      ["host", (await credential(name, "agent")).secret, {}],
      [
        "token-verified",
        (await credential(name, "agent", undefined, { principal: "token" })).secret,
        { principal_token: jwt },
      ],
    ];
    const outcomes: string[] = [];
    let executions = 0;
    for (const [kind, agent, extra] of requesters) {
      const base = callBody({ callId: `call-${kind}`, key: `key-${kind}`, subject: "user-1" }) as Record<
        string,
        unknown
      >;
      const body = kind === "host" ? base : (({ principal: _p, ...rest }) => ({ ...rest, ...extra }))(base);
      const asked = await send("POST", `/v1/consumers/${name}/tool-calls`, agent, body);
      const approvalId = ((await asked.json()) as { approval_id: string }).approval_id;
      const list = (await (await send("GET", `/v1/consumers/${name}/approvals`, self)).json()) as {
        approvals: Array<{ approval_id: string; approval_digest: string; subject_id: string }>;
      };
      const shown = list.approvals.find((a) => a.approval_id === approvalId);
      const decided = await send("POST", `/v1/consumers/${name}/approvals/${approvalId}`, self, {
        decision: "approve",
        approval_digest: shown?.approval_digest ?? "",
      });
      const again = (await (await send("POST", `/v1/consumers/${name}/tool-calls`, agent, body)).json()) as {
        model_result: { status: string; error: { code: string } | null };
      };
      if (again.model_result.status === "succeeded") executions++;
      outcomes.push(
        `${kind}: ${shown?.subject_id} ${decided.status} ${((await decided.json()) as { code: string }).code} ${again.model_result.error?.code}`,
      );
      // Another approver still can: the request stayed pending.
      const otherList = (await (await send("GET", `/v1/consumers/${name}/approvals`, other)).json()) as {
        approvals: Array<{ approval_id: string; approval_digest: string }>;
      };
      const digest = otherList.approvals.find((a) => a.approval_id === approvalId)?.approval_digest;
      const byOther = await send("POST", `/v1/consumers/${name}/approvals/${approvalId}`, other, {
        decision: "approve",
        approval_digest: digest,
      });
      expect([kind, byOther.status]).toEqual([kind, 200]);
    }
    expect(outcomes).toEqual([
      "subject-bound: user-1 403 SELF_APPROVAL_FORBIDDEN APPROVAL_REQUIRED",
      "host: user-1 403 SELF_APPROVAL_FORBIDDEN APPROVAL_REQUIRED",
      "token-verified: user-1 403 SELF_APPROVAL_FORBIDDEN APPROVAL_REQUIRED",
    ]);
    report({
      id: "R7",
      check: "self-approval, tool-call plane (subject-bound, host, token-verified)",
      figure: `3/3 refused, ${executions} executions`,
      pass: executions === 0,
      seed: SEED,
    });
    expect(executions).toBe(0);
  });

  it("the capability plane: subject-bound and host requesters cannot resolve their own requests; token-verified ones cannot request", async () => {
    const name = "r7-self-capability";
    await wipe(name);
    const c = await setupCapabilityConsumer(name);
    await createConsumer(name, [], ["approver-1", "agent-1"]);
    const self = (await credential(name, "approver", "agent-1")).secret;
    const host = (await credential(name, "agent")).secret;
    const token = (await credential(name, "agent", undefined, { principal: "token" })).secret;
    const base = `/v1/consumers/${name}/capability`;
    expect(
      (
        await send("POST", `${base}/authority`, c.approver, {
          command: {
            "set-grant": { grant: { key: { ...grantKey(name), actor_id: "agent-1" }, mode: "require-approval" } },
          },
        })
      ).status,
    ).toBe(200);
    expect((await send("POST", `${base}/providers/${PROVIDER}/attach`, c.provider)).status).toBe(200);
    const outcomes: string[] = [];
    let resolved = 0;
    const requesters: Array<[string, string, number]> = [
      ["subject-bound", c.agent, 1],
      ["host", host, 2],
    ];
    for (const [kind, agent, localId] of requesters) {
      const asked = await send("POST", `${base}/requests`, agent, {
        ...requestBody(localId, CAP_T0 + 60_000),
        actor_id: "agent-1",
      });
      const accepted = ((await asked.json()) as { accepted_sequence: number }).accepted_sequence;
      const resolution = {
        request_key: { consumer_id: name, actor_id: "agent-1", local_id: localId },
        accepted_sequence: accepted,
        instance_id: 7,
        generation: 1,
        decision: "approve-once",
      };
      const decided = await send("POST", `${base}/authority`, self, {
        command: { "resolve-approval": { resolution } },
      });
      if (decided.status === 200) resolved++;
      outcomes.push(`${kind}: ${asked.status} ${decided.status} ${((await decided.json()) as { code: string }).code}`);
    }
    const byToken = await send("POST", `${base}/requests`, token, {
      ...requestBody(3, CAP_T0 + 60_000),
      actor_id: "agent-1",
    });
    outcomes.push(`token-verified: ${byToken.status} ${((await byToken.json()) as { code: string }).code}`);
    const pending = ((await (await send("GET", `${base}/approvals`, c.approver)).json()) as { approvals: unknown[] })
      .approvals.length;
    expect([...outcomes, `pending ${pending}`]).toEqual([
      "subject-bound: 200 403 SELF_APPROVAL_FORBIDDEN",
      "host: 200 403 SELF_APPROVAL_FORBIDDEN",
      "token-verified: 403 PRINCIPAL_MISMATCH",
      "pending 2",
    ]);
    report({
      id: "R7",
      check: "self-approval, capability plane (subject-bound, host, token-verified)",
      figure: `3/3 refused, ${resolved} self-resolutions`,
      pass: resolved === 0,
      seed: SEED,
    });
    expect(resolved).toBe(0);
  });
});
