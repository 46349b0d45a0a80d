/**
 * R10 in what the gate shows the people around it: the approver console's pages, its live
 * stream and its decisions, and the webhook deliveries (bodies and headers as the receiver got
 * them, verified with the standardwebhooks library) and their log. A workload opens and decides
 * approvals through both. Pass: no credential, admin token, webhook secret or console session
 * id anywhere but the one answer that issued it, and nothing shaped like a credential.
 */
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CANARY_PREFIX, CREDENTIAL_PATTERN, report } from "../support/figures";
import { ADMIN, callBody, gate, send, tenant, opening } from "./client";

const CONSUMER = `r10-people-${Date.now().toString(16)}`;
const ORIGIN = "http://gate";

describe("R10 secrets in the console and the webhooks", () => {
  it("shows no secret on any console page, stream or decision, nor in any webhook delivery or its log", async () => {
    const t = await tenant(CONSUMER);
    const answers: Array<{ what: string; text: string }> = [];
    const keep = (what: string, text: string) => answers.push({ what, text });

    // A webhook endpoint that asks for arguments; its secret is answered once (not scanned).
    const hook = await send("POST", `/v1/consumers/${CONSUMER}/webhooks`, ADMIN, {
      url: "https://hooks.test/r10-people",
      include_arguments: true,
    });
    expect(hook.status).toBe(201);
    const whsec = hook.json.secret as string;
    await fetch("https://hooks.test/_control", {
      method: "POST",
      body: JSON.stringify({ secret: { path: "/r10-people", secret: whsec } }),
    });

    // The console: sign in (the Set-Cookie is the one answer that shows the session id).
    const signIn = await gate("/console/session", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
      body: new URLSearchParams({ consumer: CONSUMER, credential: t.approver }).toString(),
      redirect: "manual",
    });
    const setCookie = signIn.headers.get("set-cookie") ?? "";
    expect(signIn.status).toBe(303);
    const cookie = setCookie.split(";")[0]!;
    const sessionId = cookie.slice(cookie.indexOf(".") + 1);
    keep("sign-in answer body", await signIn.text());
    const page = async (path: string) => {
      const res = await gate(path, { headers: { cookie } });
      return (res.headers.get("content-type") ?? "").startsWith("text/event-stream") ? opening(res) : res.text();
    };

    // Two writes wait; one is approved in the console, the other denied through the API.
    const ids: string[] = [];
    for (const n of [1, 2]) {
      const r = await send(
        "POST",
        `/v1/consumers/${CONSUMER}/tool-calls`,
        t.agent,
        callBody({
          callId: `r10p-${n}`,
          tool: "submit_refund",
          args: { order_ref: `${CANARY_PREFIX}-r10p-${n}`, reason: "duplicate" },
          key: `r10p-key-${n}`,
        }),
      );
      keep(`write ${n}`, r.text);
      ids.push(r.json.approval_id as string);
    }
    const listed = await page("/console/approvals");
    keep("console approvals page", listed);
    keep("console approval page", await page(`/console/approvals/${ids[0]}`));
    keep("console events opening", await page("/console/events"));
    const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(listed)?.[1] ?? "";
    const views = await send("GET", `/v1/consumers/${CONSUMER}/approvals?state=pending`, t.approver);
    const digest = (id: string) =>
      (views.json.approvals as Array<{ approval_id: string; approval_digest: string }>).find(
        (v) => v.approval_id === id,
      )!.approval_digest;
    const decided = await gate(`/console/approvals/${ids[0]}`, {
      method: "POST",
      headers: { cookie, origin: ORIGIN, "x-csrf-token": csrf, "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve", approval_digest: digest(ids[0]!) }),
    });
    keep("console decision", await decided.text());
    keep(
      "api decision",
      (
        await send("POST", `/v1/consumers/${CONSUMER}/approvals/${ids[1]}`, t.approver, {
          decision: "deny",
          approval_digest: digest(ids[1]!),
        })
      ).text,
    );
    keep("agent wait", (await send("GET", `/v1/consumers/${CONSUMER}/approvals/${ids[0]}?wait=5`, t.agent)).text);
    keep("console approvals page after", await page("/console/approvals"));

    // Deliver (the alarm), then read what the receiver got and the delivery log.
    const stub = env.CONSUMER.get(env.CONSUMER.idFromName(CONSUMER));
    let received: Array<{ path: string; headers: Record<string, string>; body: string; verified: boolean }> = [];
    for (let round = 0; round < 50 && received.filter((r) => r.path === "/r10-people").length < 4; round++) {
      await runDurableObjectAlarm(stub);
      received = ((await (await fetch("https://hooks.test/_state")).json()) as { received: typeof received }).received;
      await new Promise((r) => setTimeout(r, 100));
    }
    const mine = received.filter((r) => r.path === "/r10-people");
    for (const r of mine) keep(`delivery ${r.headers["webhook-id"]}`, `${JSON.stringify(r.headers)}\n${r.body}`);
    keep("delivery log", (await send("GET", `/v1/consumers/${CONSUMER}/webhooks/deliveries`, ADMIN)).text);
    keep("webhook list", (await send("GET", `/v1/consumers/${CONSUMER}/webhooks`, ADMIN)).text);

    const secrets = [
      t.agent,
      t.approver,
      t.auditor,
      t.provider,
      t.runtime,
      ADMIN,
      whsec,
      whsec.slice("whsec_".length),
      sessionId,
    ];
    const hits = answers.flatMap(({ what, text }) => {
      const found = secrets
        .filter((s) => text.includes(s))
        .map(
          (s) =>
            `${what}: ${s === sessionId ? "the session id" : s.startsWith("whsec_") || s === whsec.slice(6) ? "the webhook secret" : s === ADMIN ? "the admin token" : "a credential"}`,
        );
      if ((text.match(CREDENTIAL_PATTERN) ?? []).length > 0) found.push(`${what}: credential-shaped text`);
      return found;
    });
    report({
      id: "R10",
      check: "secrets in the console's pages, stream and decisions and in webhook deliveries and their log",
      figure: `${secrets.length} secrets × ${answers.length} answers (${mine.length} deliveries, all verified: ${mine.every((r) => r.verified)}): ${hits.length} hits`,
      pass: hits.length === 0 && mine.length >= 4 && mine.every((r) => r.verified),
    });
    expect(hits).toEqual([]);
    expect([mine.length >= 4, mine.every((r) => r.verified)]).toEqual([true, true]);
    expect(setCookie).toBe(
      `__Host-toolgate-console=${CONSUMER}.${sessionId}; Max-Age=3600; Path=/; Secure; HttpOnly; SameSite=Strict`,
    );
  });
});
