/**
 * Trust holes of the capability plane (issue #11): u64 authority sequences, the per-actor
 * completion drain, authentication before the body, self-approval, paged approvals.
 */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { approvalsCall } from "../../../src/worker/features/capability/authority";
import { CompletionMailbox } from "../../../src/worker/features/capability/mailbox";
import { ADMIN_TOKEN, createConsumer, credential, gate, send, wipe } from "../../kit";
import {
  grantKey,
  pinMillis,
  PROVIDER,
  requestBody,
  requestKey,
  setupCapabilityConsumer,
  T0,
  type CapabilityConsumer,
} from "../capability-support";

const base = (consumer: string) => `/v1/consumers/${consumer}/capability`;
const stub = (consumer: string) => env.CONSUMER.get(env.CONSUMER.idFromName(consumer));

/** A request with a raw JSON text body (u64 values beyond 2^53 survive). */
function raw(
  method: string,
  path: string,
  token: string | null,
  body: string,
  type = "application/json",
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": type };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return gate(path, { method, headers, body });
}

async function json(res: Response): Promise<{ status: number; body: unknown }> {
  return { status: res.status, body: await res.json() };
}

/** Sets a grant for an actor through the authority lane (approver-1). */
async function grantFor(c: CapabilityConsumer, actor: string, mode: "allow" | "require-approval"): Promise<void> {
  const res = await send("POST", `${base(c.consumer)}/authority`, c.approver, {
    command: { "set-grant": { grant: { key: { ...grantKey(c.consumer), actor_id: actor }, mode } } },
  });
  expect(res.status).toBe(200);
}

/** The agent's request `localId` as actor `actor`. */
function requestAs(actor: string, localId: number) {
  return { ...requestBody(localId, T0 + 60_000), actor_id: actor };
}

/** The resolution of request (`actor`, `localId`) accepted under `accepted`. */
function resolution(
  consumer: string,
  actor: string,
  localId: number,
  accepted: number,
  decision: "approve-once" | "deny",
) {
  return {
    request_key: { consumer_id: consumer, actor_id: actor, local_id: localId },
    accepted_sequence: accepted,
    instance_id: 7,
    generation: 1,
    decision,
  };
}

async function attach(c: CapabilityConsumer): Promise<void> {
  expect((await send("POST", `${base(c.consumer)}/providers/${PROVIDER}/attach`, c.provider)).status).toBe(200);
}

const SET_GRANT = (consumer: string) =>
  JSON.stringify({ command: { "set-grant": { grant: { key: grantKey(consumer), mode: "allow" } } } });
const withSequence = (consumer: string, sequence: string) => `{"sequence":${sequence},${SET_GRANT(consumer).slice(1)}`;

describe("capability trust holes", () => {
  it("hole: an authority sequence whose successor leaves u64 is refused, nothing persisted, and every route still answers after a restart", async () => {
    await wipe("cap-trust-u64");
    const c = await setupCapabilityConsumer("cap-trust-u64");
    const authority = `${base(c.consumer)}/authority`;

    const max = await raw("POST", authority, c.approver, withSequence(c.consumer, "18446744073709551615"));
    expect([max.status, await max.text()]).toEqual([
      422,
      '{"type":"https://toolgate.dev/problems/capability-invalid","title":"Capability engine refused invalid input","status":422,"code":"CAPABILITY_INVALID","detail":"sequence-out-of-range","error":{"sequence-out-of-range":{"field":"authority sequence","max":18446744073709551614,"actual":18446744073709551615}}}',
    ]);
    const last = await raw("POST", authority, c.approver, withSequence(c.consumer, "18446744073709551614"));
    expect([last.status, await last.text()]).toEqual([200, '{"sequence":18446744073709551614,"outcome":"grant-set"}']);
    // The default next sequence would be 2^64 − 1, whose successor is not a u64.
    const next = await json(
      await send("POST", authority, c.approver, { command: { "revoke-grant": { key: grantKey(c.consumer) } } }),
    );
    expect([next.status, (next.body as { detail: string }).detail]).toEqual([422, "sequence-out-of-range"]);

    // Defence in depth: an operation holding 2^64 never reaches the journal (the step throws and rolls back).
    const thrown = await runInDurableObject(stub(c.consumer), (object) => {
      try {
        object.capability.operateRaw({
          authority: {
            sequence: 2n ** 64n,
            command: { "close-client": { consumer_id: c.consumer, actor_id: "agent-1" } },
          },
        });
        return "applied";
      } catch (error) {
        return String(error);
      }
    });
    expect(thrown).toBe("Error: an engine operation holds 18446744073709551616, outside u64");

    const before = await (await send("GET", `${base(c.consumer)}/snapshot`, c.auditor)).text();
    await abortAllDurableObjects();
    await pinMillis(c.consumer, T0);
    const snapshot = await send("GET", `${base(c.consumer)}/snapshot`, c.auditor);
    expect([snapshot.status, await snapshot.text()]).toEqual([200, before]);
    const approvals = await send("GET", `${base(c.consumer)}/approvals`, c.approver);
    expect([approvals.status, await approvals.text()]).toEqual([
      200,
      `{"approvals":[],"next_cursor":null,"last_authority_sequence":18446744073709551614,"tick":${T0}}`,
    ]);
    await attach(c);
    const decided = await json(await send("POST", `${base(c.consumer)}/requests`, c.agent, requestAs("agent-1", 1)));
    expect(decided).toEqual({
      status: 200,
      body: { request_key: requestKey(c.consumer, 1), accepted_sequence: 1, decision: "allow", tick: T0 },
    });
    expect((await send("POST", `${base(c.consumer)}/completions/drain`, c.agent)).status).toBe(200);
    expect((await send("GET", `${base(c.consumer)}/requests/agent-1/1`, c.agent)).status).toBe(200);
    expect(
      (await send("POST", authority, c.approver, { command: { "revoke-grant": { key: grantKey(c.consumer) } } }))
        .status,
    ).toBe(422);
  });

  it("hole: drain-completions hands an actor only its own completions; another actor's stay until that actor drains", async () => {
    await wipe("cap-trust-drain");
    const c = await setupCapabilityConsumer("cap-trust-drain");
    const other = (await credential(c.consumer, "agent", "agent-2")).secret;
    const host = (await credential(c.consumer, "agent")).secret;
    const drain = `${base(c.consumer)}/completions/drain`;
    await grantFor(c, "agent-1", "require-approval");
    await grantFor(c, "agent-2", "require-approval");
    await attach(c);
    expect((await send("POST", `${base(c.consumer)}/requests`, c.agent, requestAs("agent-1", 1))).status).toBe(200);
    expect((await send("POST", `${base(c.consumer)}/requests`, other, requestAs("agent-2", 1))).status).toBe(200);
    for (const [actor, accepted] of [
      ["agent-1", 1],
      ["agent-2", 2],
    ] as const) {
      const denied = await send("POST", `${base(c.consumer)}/authority`, c.approver, {
        command: { "resolve-approval": { resolution: resolution(c.consumer, actor, 1, accepted, "deny") } },
      });
      expect(denied.status).toBe(200);
    }
    const completion = (actor: string, sequence: number) => ({
      sequence,
      accepted_sequence: sequence,
      operation_id: null,
      request_key: { consumer_id: c.consumer, actor_id: actor, local_id: 1 },
      instance_id: 7,
      generation: 1,
      provider_id: PROVIDER,
      outcome: "approval-denied",
    });
    const batch = (completions: unknown[]) => ({
      completions,
      dropped_since_last_drain: 0,
      total_dropped: 0,
      next_sequence: 3,
      sequence_exhausted: false,
    });

    expect(await json(await send("POST", drain, c.agent))).toEqual({
      status: 200,
      body: batch([completion("agent-1", 1)]),
    });
    const foreign = await json(await send("POST", `${drain}?actor_id=agent-2`, c.agent));
    expect([foreign.status, (foreign.body as { code: string }).code]).toEqual([403, "FORBIDDEN"]);
    const unnamed = await json(await send("POST", drain, host));
    expect([unnamed.status, (unnamed.body as { code: string }).code]).toEqual([400, "INVALID_REQUEST"]);
    expect(await json(await send("POST", `${drain}?actor_id=agent-1`, host))).toEqual({ status: 200, body: batch([]) });
    expect(await json(await send("POST", drain, other))).toEqual({
      status: 200,
      body: batch([completion("agent-2", 2)]),
    });
    expect(await json(await send("POST", `${drain}?actor_id=agent-2`, other))).toEqual({
      status: 200,
      body: batch([]),
    });
  });

  it("a full mailbox drops the newest completion and counts it for its actor only", async () => {
    await wipe("cap-trust-mailbox");
    await createConsumer("cap-trust-mailbox", [], []);
    const counts = await runInDurableObject(stub("cap-trust-mailbox"), (_object, state) => {
      const mailbox = new CompletionMailbox(state.storage.sql);
      const kept = [
        mailbox.deliver("a", "x", 1n, '{"n":1}', 1),
        mailbox.deliver("a", "x", 2n, '{"n":2}', 1),
        mailbox.deliver("b", "x", 3n, '{"n":3}', 1),
      ];
      return { kept, a: mailbox.take("a", null), again: mailbox.take("a", null), b: mailbox.take("b", null) };
    });
    expect(counts).toEqual({
      kept: [true, false, true],
      a: { envelopes: ['{"n":1}'], drops: { sinceDrain: 1, total: 1 } },
      again: { envelopes: [], drops: { sinceDrain: 0, total: 1 } },
      b: { envelopes: ['{"n":3}'], drops: { sinceDrain: 0, total: 0 } },
    });
  });

  it("hole: a capability route answers 401 to a request without a valid credential, whatever its path or body", async () => {
    await wipe("cap-trust-auth");
    const c = await setupCapabilityConsumer("cap-trust-auth");
    const b = base(c.consumer);
    const routes: [string, string][] = [
      ["POST", `${b}/providers`],
      ["PUT", `${b}/instances/7`],
      ["PUT", `${b}/instances/not-a-u64`],
      ["DELETE", `${b}/instances/not-a-u64`],
      ["POST", `${b}/authority`],
      ["GET", `${b}/approvals?cursor=forged`],
      ["POST", `${b}/requests`],
      ["GET", `${b}/requests/agent-1/not-a-u64`],
      ["POST", `${b}/completions/drain?actor_id=%00`],
      ["POST", `${b}/providers/${PROVIDER}/attach`],
      ["GET", `${b}/providers/${PROVIDER}/effects?binding_id=x`],
      ["POST", `${b}/providers/${PROVIDER}/observations`],
      ["POST", `${b}/providers/${PROVIDER}/detach`],
      ["POST", `${b}/providers/NOT%20A%20PROVIDER/detach`],
    ];
    const answers: string[] = [];
    for (const [method, path] of routes) {
      for (const token of [null, "not-a-credential"]) {
        const res =
          method === "GET" || method === "DELETE"
            ? await send(method, path, token)
            : await raw(method, path, token, "{garbage", "text/plain");
        answers.push(
          `${method} ${path} ${token === null ? "none" : "bad"} → ${res.status} ${((await res.json()) as { code: string }).code}`,
        );
      }
    }
    expect(answers).toEqual(
      routes.flatMap(([method, path]) => [
        `${method} ${path} none → 401 UNAUTHENTICATED`,
        `${method} ${path} bad → 401 UNAUTHENTICATED`,
      ]),
    );
    // With a credential the body is read and validated as before.
    const garbage = await raw("POST", `${b}/authority`, c.approver, "{garbage");
    expect([garbage.status, ((await garbage.json()) as { code: string }).code]).toEqual([400, "INVALID_JSON"]);
  });

  it("hole: an approver whose subject is the request's actor cannot resolve it (nor grant itself), and nothing is applied", async () => {
    await wipe("cap-trust-self");
    const c = await setupCapabilityConsumer("cap-trust-self");
    const self = (await credential(c.consumer, "approver", "agent-1")).secret;
    // agent-1 is an approver of the consumer too.
    await createConsumer(c.consumer, [], ["approver-1", "agent-1"]);
    await grantFor(c, "agent-1", "require-approval");
    await attach(c);
    expect((await send("POST", `${base(c.consumer)}/requests`, c.agent, requestAs("agent-1", 1))).status).toBe(200);
    const authority = `${base(c.consumer)}/authority`;
    const refusals: unknown[] = [];
    for (const decision of ["approve-once", "deny"] as const) {
      refusals.push(
        await json(
          await send("POST", authority, self, {
            command: { "resolve-approval": { resolution: resolution(c.consumer, "agent-1", 1, 1, decision) } },
          }),
        ),
      );
    }
    refusals.push(
      await json(
        await send("POST", authority, self, {
          command: { "set-grant": { grant: { key: grantKey(c.consumer), mode: "allow" } } },
        }),
      ),
    );
    const refused = {
      status: 403,
      body: {
        type: "https://toolgate.dev/problems/self-approval-forbidden",
        title: "The requesting subject may not approve its own call",
        status: 403,
        code: "SELF_APPROVAL_FORBIDDEN",
        detail: "An approver may not resolve its own capability request or grant itself a capability.",
      },
    };
    expect(refusals).toEqual([refused, refused, refused]);
    const listed = (await json(await send("GET", `${base(c.consumer)}/approvals`, c.approver))).body as {
      approvals: { key: unknown }[];
      last_authority_sequence: number;
    };
    expect([listed.approvals.map((a) => a.key), listed.last_authority_sequence]).toEqual([
      [requestKey(c.consumer, 1)],
      1,
    ]);
    const byOther = await json(
      await send("POST", authority, c.approver, {
        command: { "resolve-approval": { resolution: resolution(c.consumer, "agent-1", 1, 1, "approve-once") } },
      }),
    );
    expect(byOther).toEqual({ status: 200, body: { sequence: 2, outcome: "approval-resolved" } });
  });

  it("hole: approvals come in pages of limits.page_items with an opaque cursor that reaches every item, and a forged cursor is refused", async () => {
    await wipe("cap-trust-pages");
    const c = await setupCapabilityConsumer("cap-trust-pages");
    await grantFor(c, "agent-1", "require-approval");
    await attach(c);
    for (let id = 1; id <= 5; id++)
      expect((await send("POST", `${base(c.consumer)}/requests`, c.agent, requestAs("agent-1", id))).status).toBe(200);

    type Page = { approvals: { key: { local_id: number } }[]; next_cursor: string | null };
    const page = (cursor: string | null) =>
      runInDurableObject(stub(c.consumer), (object) => {
        const answer = approvalsCall(object.capability, c.consumer, { kind: "admin" }, [], cursor, { page_items: 2 });
        if (!answer.ok) throw new Error(answer.error.code);
        return JSON.parse(answer.value) as Page;
      });
    const ids = (p: Page) => p.approvals.map((a) => a.key.local_id);
    const first = await page(null);
    const second = await page(first.next_cursor);
    // A request made while paging sorts after every cursor: it is never hidden.
    expect((await send("POST", `${base(c.consumer)}/requests`, c.agent, requestAs("agent-1", 6))).status).toBe(200);
    const third = await page(second.next_cursor);
    expect([ids(first), ids(second), ids(third), third.next_cursor]).toEqual([[1, 2], [3, 4], [5, 6], null]);
    expect(first.next_cursor).toMatch(/^2\.[0-9a-f]{32}$/);

    // Over HTTP with the default page size (100): the rest after the first page, then no cursor.
    const rest = (
      await json(await send("GET", `${base(c.consumer)}/approvals?cursor=${first.next_cursor ?? ""}`, c.approver))
    ).body as Page;
    expect([ids(rest), rest.next_cursor]).toEqual([[3, 4, 5, 6], null]);
    const cursor = first.next_cursor ?? "";
    const forged = [
      `3${cursor.slice(1)}`,
      `${cursor.slice(0, -1)}${cursor.endsWith("0") ? "1" : "0"}`,
      "2",
      "",
      `${"9".repeat(200)}`,
    ];
    const answers = [];
    for (const bad of forged)
      answers.push((await json(await send("GET", `${base(c.consumer)}/approvals?cursor=${bad}`, c.approver))).body);
    const invalid = (detail: string) => ({
      type: "https://toolgate.dev/problems/invalid-cursor",
      title: "Cursor is not valid",
      status: 400,
      code: "INVALID_CURSOR",
      detail,
    });
    const unissued = invalid("The cursor is malformed or was not issued by this gate; start again without one.");
    expect(answers).toEqual([unissued, unissued, unissued, unissued, invalid("The cursor is malformed.")]);
  });
});
