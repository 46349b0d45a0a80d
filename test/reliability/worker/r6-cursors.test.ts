/**
 * R6 tenant isolation of the paged lists (issue #11): a cursor one consumer was answered, shown
 * to another consumer with that consumer's own credential, never yields the first consumer's
 * items — it is refused as INVALID_CURSOR or pages the second consumer's own list — and a
 * forged cursor is a catalog 400, never a 5xx.
 * Pass: 0 foreign items, 0 5xx, every refusal a catalog problem.
 */
import { describe, expect, it } from "vitest";
import { report, seedOf } from "../support/figures";
import { wipe } from "../../kit";
import { ADMIN, callBody, contractBreach, send, tenant, type Tenant } from "./client";

const SEED = seedOf(6066);

/** The reference's orders: ORDER-7 is user-1's in tenant-a, ORDER-9 user-1's in tenant-b. */
async function fill(t: Tenant, prefix: string, order: string): Promise<void> {
  const put = await send("PUT", `/v1/consumers/${t.name}`, ADMIN, {
    tools: ["get_order", "create_refund_draft", "submit_refund", "lookup_refund"],
    approver_subjects: ["human-reviewer-1"],
    limits: { calls_per_second: 1_000_000, call_burst: 1_000_000, page_items: 2 },
  });
  if (put.status !== 200) throw new Error(`limits: ${put.text}`);
  for (let i = 0; i < 5; i++) {
    const asked = await send(
      "POST",
      `/v1/consumers/${t.name}/tool-calls`,
      t.agent,
      callBody({
        callId: `${prefix}-${i}`,
        key: `${prefix}-key-${i}`,
        args: { order_ref: order, reason: "duplicate" },
      }),
    );
    if (asked.json?.model_result?.error?.code !== "APPROVAL_REQUIRED") throw new Error(`setup: ${asked.text}`);
  }
}

describe("R6 cursors across consumers", () => {
  it("never pages one consumer's items with another consumer's cursor", async () => {
    await wipe("tenant-a", "tenant-b");
    const a = await tenant("tenant-a");
    const b = await tenant("tenant-b");
    await fill(a, "aa", "ORDER-7");
    await fill(b, "bb", "ORDER-9");
    const lists: Array<[string, (t: Tenant) => string, (t: Tenant) => string, string]> = [
      ["approvals", (t) => `/v1/consumers/${t.name}/approvals`, (t) => t.approver, "approvals"],
      ["audit", (t) => `/v1/consumers/${t.name}/audit`, (t) => t.auditor, "entries"],
      ["audit verify", (t) => `/v1/consumers/${t.name}/audit/verify`, (t) => t.auditor, ""],
      ["capability approvals", (t) => `/v1/consumers/${t.name}/capability/approvals`, (t) => t.approver, "approvals"],
    ];
    const aText: string[] = [];
    const outcomes: string[] = [];
    let foreign = 0;
    let breaches = 0;
    for (const [name, path, token] of lists) {
      const first = await send("GET", path(a), token(a));
      aText.push(first.text);
      const cursor = first.json?.next_cursor as string | null | undefined;
      const probes = [...(typeof cursor === "string" ? [cursor] : []), "AAAA", "x".repeat(300), "%00"];
      for (const probe of probes) {
        const res = await send("GET", `${path(b)}?cursor=${encodeURIComponent(probe)}`, token(b));
        if (contractBreach(res.status, res.status >= 400 ? "application/problem+json" : null, res.text) !== null)
          breaches++;
        // An A approval id or an A call id in B's answer is foreign data.
        if (
          /apr_[0-9a-f]{32}/.test(res.text) &&
          aText.some((text) => [...res.text.matchAll(/apr_[0-9a-f]{32}/g)].some((m) => text.includes(m[0])))
        )
          foreign++;
        if (res.text.includes("aa-")) foreign++;
        if (probe === cursor) outcomes.push(`${name}: ${res.status} ${res.json?.code ?? "page"}`);
      }
    }
    report({
      id: "R6",
      check: "cursors across consumers (approvals, audit, verify, capability approvals)",
      figure: `${outcomes.length} foreign cursors + forged: ${foreign} foreign items, ${breaches} contract breaches`,
      pass: foreign === 0 && breaches === 0,
      seed: SEED,
    });
    expect([foreign, breaches]).toEqual([0, 0]);
    // Approval and audit cursors name a position: on another consumer they page that consumer's
    // own list (no foreign item above). A's verify walk and capability list fit in one page.
    expect(outcomes).toEqual(["approvals: 200 page", "audit: 200 page"]);
  });
});
