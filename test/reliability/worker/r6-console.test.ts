/**
 * R6 tenant isolation of the approver console, whose routes carry the consumer in the session
 * cookie rather than the path (so the route sweep of r6-isolation.test.ts, driven by the
 * OpenAPI document, does not reach them): three consumers, each with a signed-in approver
 * session and a pending approval. Pass: a session's cookie re-labelled for another consumer
 * (and a forged one) is answered exactly as no cookie; another consumer's approval id through
 * one's own session is answered exactly as a random id; no page, stream or refusal holds
 * another consumer's name, ids, credentials or session; and the cookie carries every flag.
 */
import { describe, expect, it } from "vitest";
import { CANARY_PREFIX, report } from "../support/figures";
import { callBody, gate, send, tenant, type Tenant } from "./client";

const ORIGIN = "http://gate";
const STAMP = Date.now().toString(16);

interface Signed extends Tenant {
  cookie: string;
  setCookie: string;
  pending: string;
  canary: string;
}

async function signedIn(letter: string): Promise<Signed> {
  const t = await tenant(`r6c${letter}-${STAMP}`);
  const canary = `${CANARY_PREFIX}-c${letter}-${STAMP}`;
  const r = await send(
    "POST",
    `/v1/consumers/${t.name}/tool-calls`,
    t.agent,
    callBody({
      callId: `r6c-${letter}`,
      tool: "submit_refund",
      args: { order_ref: canary, reason: "duplicate" },
      key: `r6c-key-${letter}`,
    }),
  );
  const res = await gate("/console/session", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
    body: new URLSearchParams({ consumer: t.name, credential: t.approver }).toString(),
    redirect: "manual",
  });
  const setCookie = res.headers.get("set-cookie") ?? "";
  await res.text();
  return { ...t, cookie: setCookie.split(";")[0]!, setCookie, pending: r.json.approval_id as string, canary };
}

interface Answer {
  status: number;
  location: string | null;
  text: string;
}

async function visit(path: string, cookie: string | null, method = "GET"): Promise<Answer> {
  const headers: Record<string, string> = cookie === null ? {} : { cookie };
  if (method === "POST")
    Object.assign(headers, { origin: ORIGIN, "content-type": "application/json", "x-csrf-token": "0".repeat(64) });
  const res = await gate(path, {
    method,
    headers,
    redirect: "manual",
    body: method === "POST" ? JSON.stringify({ decision: "deny", approval_digest: "0".repeat(64) }) : undefined,
  });
  const streamed = (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
  let text = "";
  if (streamed) {
    const reader = res.body!.getReader();
    const next = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), 150))]);
    if (next !== null && !next.done) text = new TextDecoder().decode(next.value);
    await reader.cancel();
  } else text = await res.text();
  return { status: res.status, location: res.headers.get("location"), text };
}

describe("R6 tenant isolation of the approver console", () => {
  it("keeps each consumer's console to its own session and approvals", async () => {
    const worlds = [await signedIn("a"), await signedIn("b"), await signedIn("c")];
    const paths = (w: Signed, id: string) =>
      [
        `/console/approvals`,
        `/console/approvals/${id}`,
        `/console/events`,
        ["POST", `/console/approvals/${id}`],
      ] as const;
    const leaks: string[] = [];
    const differ: string[] = [];
    let requests = 0;
    const scan = (label: string, a: Answer, caller: Signed) => {
      for (const w of worlds) {
        if (w === caller) continue;
        for (const s of [w.name, w.pending, w.agent, w.approver, w.cookie.slice(w.cookie.indexOf(".") + 1), w.canary])
          if (a.text.includes(s) || (a.location ?? "").includes(s))
            leaks.push(`${label}: ${w.name}'s ${s.slice(0, 12)}`);
      }
    };
    const same = (label: string, x: Answer, y: Answer, xId: string, yId: string) => {
      const norm = (a: Answer, id: string) => JSON.stringify({ ...a, text: a.text.split(id).join("<id>") });
      if (norm(x, xId) !== norm(y, yId))
        differ.push(`${label}: ${x.status} ${x.text.slice(0, 60)} ≠ ${y.status} ${y.text.slice(0, 60)}`);
    };
    for (const owner of worlds) {
      const randomId = `apr_${"7".repeat(32)}`;
      for (const other of worlds.filter((w) => w !== owner)) {
        // The owner's session id under another consumer's name, and a forged one: exactly as no cookie.
        const relabelled = `__Host-toolgate-console=${other.name}.${owner.cookie.slice(owner.cookie.indexOf(".") + 1)}`;
        const forged = `__Host-toolgate-console=${other.name}.cs1_${"ab".repeat(32)}_${"cd".repeat(16)}`;
        for (const spec of paths(owner, other.pending)) {
          const [method, path] = typeof spec === "string" ? ["GET", spec] : spec;
          const none = await visit(path, null, method);
          for (const [label, cookie] of [
            ["relabelled", relabelled],
            ["forged", forged],
          ] as const) {
            const a = await visit(path, cookie, method);
            requests += 2;
            scan(`${method} ${path} ${label}`, a, owner);
            same(`${method} ${path} ${label} vs none`, a, none, "", "");
          }
        }
        // Another consumer's approval through one's own session ≡ a random approval id.
        for (const method of ["GET", "POST"]) {
          const foreign = await visit(`/console/approvals/${other.pending}`, owner.cookie, method);
          const random = await visit(`/console/approvals/${randomId}`, owner.cookie, method);
          requests += 2;
          scan(`${method} foreign approval`, foreign, owner);
          same(`${method} foreign approval vs random`, foreign, random, other.pending, randomId);
        }
      }
      // The owner's own pages and stream: its own data only.
      for (const path of ["/console/approvals", `/console/approvals/${owner.pending}`, "/console/events"]) {
        requests++;
        scan(`own ${path}`, await visit(path, owner.cookie), owner);
      }
    }
    const flags = worlds.map((w) => w.setCookie.replace(/=[^;]*/, "=<session>"));
    const pass =
      leaks.length === 0 &&
      differ.length === 0 &&
      flags.every(
        (f) => f === "__Host-toolgate-console=<session>; Max-Age=3600; Path=/; Secure; HttpOnly; SameSite=Strict",
      );
    report({
      id: "R6",
      check:
        "approver console sessions across consumers (relabelled and forged cookies, foreign approval ids, cookie flags)",
      figure: `3 consumers, ${requests} requests: ${leaks.length} foreign data, ${differ.length} answers unlike the no-cookie or random-id answer; cookie ${flags[0]}`,
      pass,
    });
    expect(leaks).toEqual([]);
    expect(differ).toEqual([]);
    expect(new Set(flags)).toEqual(
      new Set(["__Host-toolgate-console=<session>; Max-Age=3600; Path=/; Secure; HttpOnly; SameSite=Strict"]),
    );
    // The pending approvals were opened (the check compared real ids).
    expect(worlds.every((w) => /^apr_[0-9a-f]{32}$/.test(w.pending))).toBe(true);
  });
});
