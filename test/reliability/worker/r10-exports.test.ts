/**
 * R10 in the gate's own answers and exports: canary credentials (every kind, one revoked,
 * forged look-alikes presented as bearer tokens) are used through a workload of calls,
 * approvals, replays, wrong-kind and tampered authentication; then every export a consumer
 * offers (all audit pages, audit verify, approval lists, the capability snapshot, the runtime
 * facade targets, the OpenAPI document) and every answer but the one `201` that shows a new
 * credential are scanned. Pass: no secret and nothing shaped like a credential anywhere.
 */
import { describe, expect, it } from "vitest";
import { CANARY_PREFIX, CREDENTIAL_PATTERN, report } from "../support/figures";
import { ADMIN, approveCall, callBody, send, tenant } from "./client";

/** ORDER-9 belongs to tenant-b (demo catalog); R2 wipes tenant-b before it runs. */
const CONSUMER = "tenant-b";
const ORDER = { order_ref: "ORDER-9" };

/** A well-formed but unknown credential of `kind` (the canary characters make it findable). */
function forged(kind: string, n: number): string {
  const random = `${CANARY_PREFIX}${String(n).padStart(4, "0")}`.padEnd(40, "Q");
  return `tg_${kind}_${random}_AAAAAA`;
}

describe("R10 secrets in answers and exports", () => {
  it("never shows a credential again after its 201, in any answer or export", async () => {
    const t = await tenant(CONSUMER);
    const extra = await send("POST", `/v1/consumers/${CONSUMER}/credentials`, ADMIN, { kind: "agent" });
    const revoked = extra.json.secret as string;
    const revokedId = extra.json.credential_id as string;
    const minted = [t.agent, t.approver, t.auditor, t.provider, t.runtime, revoked];
    const forgeries = ["agent", "approver", "auditor", "provider", "runtime"].map((k, i) => forged(k, i));
    const secrets = [...minted, ...forgeries, ADMIN];
    const answers: Array<{ what: string; text: string }> = [];
    const keep = async (what: string, p: Promise<{ status: number; text: string }>) => {
      const r = await p;
      answers.push({ what: `${what} (${r.status})`, text: r.text });
      return r;
    };

    // A workload that touches every place a credential could be recorded.
    await keep("revoke", send("DELETE", `/v1/consumers/${CONSUMER}/credentials/${revokedId}`, ADMIN));
    await keep(
      "read",
      send(
        "POST",
        `/v1/consumers/${CONSUMER}/tool-calls`,
        t.agent,
        callBody({ callId: "r10-read", tool: "get_order", args: ORDER, key: null }),
      ),
    );
    const write = callBody({ callId: "r10-write", key: "r10-key-1", args: { ...ORDER, reason: "duplicate" } });
    await approveCall(t, write);
    await keep("write", send("POST", `/v1/consumers/${CONSUMER}/tool-calls`, t.agent, write));
    await keep("replay", send("POST", `/v1/consumers/${CONSUMER}/tool-calls`, t.agent, write));
    await keep(
      "revoked credential",
      send(
        "POST",
        `/v1/consumers/${CONSUMER}/tool-calls`,
        revoked,
        callBody({ callId: "r10-revoked", tool: "get_order", args: ORDER, key: null }),
      ),
    );
    for (const token of [...forgeries, `${t.agent}x`, t.agent.replace(/.$/, "Z"), t.approver.toUpperCase()]) {
      await keep(
        "forged credential",
        send(
          "POST",
          `/v1/consumers/${CONSUMER}/tool-calls`,
          token,
          callBody({ callId: "r10-forged", tool: "get_order", args: ORDER, key: null }),
        ),
      );
      await keep("forged credential on audit", send("GET", `/v1/consumers/${CONSUMER}/audit`, token));
    }
    for (const token of minted.slice(0, 5)) {
      await keep("wrong kind on approvals", send("GET", `/v1/consumers/${CONSUMER}/approvals`, token));
      await keep(
        "wrong kind on credentials",
        send("POST", `/v1/consumers/${CONSUMER}/credentials`, token, { kind: "agent" }),
      );
    }

    // Every export.
    const exports: Array<{ what: string; text: string }> = [];
    let after = 0;
    for (let page = 0; page < 1_000; page++) {
      const r = await send("GET", `/v1/consumers/${CONSUMER}/audit?after=${after}&limit=500`, t.auditor);
      exports.push({ what: `audit page after ${after}`, text: r.text });
      const entries = r.json.entries as Array<{ seq: number }>;
      if (entries.length === 0 || r.json.next_after === null || r.json.next_after === undefined) break;
      after = r.json.next_after as number;
    }
    exports.push({
      what: "audit verify",
      text: (await send("GET", `/v1/consumers/${CONSUMER}/audit/verify`, t.auditor)).text,
    });
    exports.push({
      what: "approvals",
      text: (await send("GET", `/v1/consumers/${CONSUMER}/approvals`, t.approver)).text,
    });
    exports.push({
      what: "pending approvals",
      text: (await send("GET", `/v1/consumers/${CONSUMER}/approvals?state=pending`, t.approver)).text,
    });
    exports.push({
      what: "capability snapshot",
      text: (await send("GET", `/v1/consumers/${CONSUMER}/capability/snapshot`, t.auditor)).text,
    });
    exports.push({
      what: "facade targets",
      text: (await send("GET", `/v1/consumers/${CONSUMER}/runtime/facade-targets`, ADMIN)).text,
    });
    exports.push({ what: "openapi", text: (await send("GET", "/v1/openapi.json", null)).text });

    const scanned = [...answers, ...exports];
    const hits = scanned.flatMap(({ what, text }) => {
      const found: string[] = [];
      for (const secret of secrets)
        if (text.includes(secret))
          found.push(`${what}: a ${secret.startsWith("tg_") ? secret.split("_")[1] : "admin"} secret`);
      if ((text.match(CREDENTIAL_PATTERN) ?? []).length > 0) found.push(`${what}: credential-shaped text`);
      return found;
    });
    const auditPages = exports.filter((e) => e.what.startsWith("audit page")).length;
    report({
      id: "R10",
      check: "secrets in the gate's answers and exports (audit pages, approvals, snapshot, facade targets, OpenAPI)",
      figure: `${secrets.length} secrets (${minted.length} minted incl. 1 revoked, ${forgeries.length} forged, admin) × ${answers.length} answers + ${exports.length} exports (${auditPages} audit pages): ${hits.length} hits`,
      pass: hits.length === 0,
    });
    expect(hits).toEqual([]);
    expect(exports.every((e) => e.text.length > 0)).toBe(true);
  });
});
