/**
 * Standing approvals from the approver console in real Chromium against the real gate (wrangler
 * dev): an agent's write waits for approval; from its page the approver chooses "Approve and
 * allow for …" with a window, a count and a constraint; the waiting call runs, the next calls
 * within the bounds run without a decision, a call outside them (another subject, arguments the
 * constraint refuses, the count used up) needs its own; then the approver revokes it from the
 * list and the next call needs a decision again.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDev } from "../blackbox/wrangler-dev";
import { launchChromium } from "./support/chromium";

const ADMIN = "standing-browser-admin-token-0123456789";
// The demo tool's orders belong to tenant-a; this server's storage is this file's own.
const CONSUMER = "tenant-a";

let dev: DevServer;
let persist: string;
let browser: Browser;
let page: Page;
let agent: string;
let approver: string;
let calls = 0;

async function api(
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${dev.base}/v1/consumers/${CONSUMER}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** One agent call of the demo write (`n` repeats call number n); answers its status, error code and approval. */
async function refund(subject: string, orderRef: string, reason: string, n?: number) {
  const number = n ?? ++calls;
  const res = await api("POST", "/tool-calls", agent, {
    principal: { subject_id: subject, roles: [] },
    proposal: { name: "create_refund_draft", arguments: { order_ref: orderRef, reason } },
    context: {
      call_id: `call-${number}`,
      operation_id: `op-${number}`,
      idempotency_key: `idem-${number}`,
      provider: "openai",
      api_family: "responses",
      response_id: "response-1",
      adapter_revision: "openai-responses-v1",
    },
  });
  const result = res.body.model_result as { status: string; error: { code: string } | null };
  return { n: number, status: result.status, code: result.error?.code ?? null, approval: res.body.approval_id ?? null };
}

beforeAll(async () => {
  persist = mkdtempSync(join(tmpdir(), "toolgate-standing-"));
  [dev, browser] = await Promise.all([startDev(persist, ADMIN), launchChromium()]);
  const config = {
    tools: ["create_refund_draft"],
    approver_subjects: ["rev-1"],
    standing_approvals: { tools: ["create_refund_draft"], max_seconds: 3600, max_calls: 10 },
  };
  expect((await api("PUT", "", ADMIN, config)).status).toBe(200);
  agent = (await api("POST", "/credentials", ADMIN, { kind: "agent" })).body.secret;
  approver = (await api("POST", "/credentials", ADMIN, { kind: "approver", subject_id: "rev-1" })).body.secret;
  page = await (await browser.newContext({ viewport: { width: 1100, height: 900 } })).newPage();
});

afterAll(async () => {
  await browser?.close();
  await dev?.kill();
  if (persist !== undefined) rmSync(persist, { recursive: true, force: true });
});

describe("standing approvals in the console", () => {
  it("grants from an approval's page, covers the next calls within bounds and not one outside, then revokes", async () => {
    await page.goto(`${dev.base}/console`);
    await page.fill("#consumer", CONSUMER);
    await page.fill("#credential", approver);
    await page.press("#credential", "Enter");
    await page.waitForURL(`${dev.base}/console/approvals`);

    const asked = await refund("user-1", "ORDER-7", "duplicate");
    expect([asked.status, asked.code]).toEqual(["failed", "APPROVAL_REQUIRED"]);
    await page.goto(`${dev.base}/console/approvals/${asked.approval as string}`);
    await page.getByRole("link", { name: "Approve and allow for …" }).click();
    await page.waitForURL(`${dev.base}/console/standing?approval=${asked.approval as string}`);
    expect(await page.locator("#allow-heading").textContent()).toBe("Approve and allow for …");
    await page.fill("#standing-seconds", "600");
    await page.fill("#standing-calls", "2");
    await page.fill("#standing-constraint", 'args.reason == "duplicate"');
    await page.click("#standing-submit");
    await page.waitForURL(/\/console\/standing\?granted=sta_[0-9a-f]{32}$/);
    const id = new URL(page.url()).searchParams.get("granted") as string;
    expect(await page.locator("#announce").textContent()).toBe(`Granted ${id}.`);
    expect(await page.locator(`#standing-${id} td`).allTextContents()).toEqual([
      id,
      "active",
      "create_refund_draft",
      "user-1",
      "0 of 2",
      expect.any(String),
      'args.reason == "duplicate"',
      "rev-1",
      "Revoke",
    ]);

    // The approval itself was approved: its call runs when repeated.
    expect((await refund("user-1", "ORDER-7", "duplicate", asked.n)).status).toBe("succeeded");
    // Within the bounds: runs without a decision.
    expect(await refund("user-1", "ORDER-7", "duplicate")).toMatchObject({ status: "succeeded", approval: null });
    // Outside them: arguments the constraint refuses; another subject (the owner of ORDER-8).
    expect((await refund("user-1", "ORDER-7", "damaged")).code).toBe("APPROVAL_REQUIRED");
    expect((await refund("user-2", "ORDER-8", "duplicate")).code).toBe("APPROVAL_REQUIRED");
    expect(await refund("user-1", "ORDER-7", "duplicate")).toMatchObject({ status: "succeeded", approval: null });
    // The count is used up.
    expect((await refund("user-1", "ORDER-7", "duplicate")).code).toBe("APPROVAL_REQUIRED");
    await page.reload();
    expect(await page.locator(`#standing-${id}`).getAttribute("data-state")).toBe("exhausted");

    // A second grant from the list page, then its revocation: the next call asks again.
    await page.goto(`${dev.base}/console/standing`);
    await page.fill("#standing-subject", "user-1");
    await page.fill("#standing-calls", "5");
    await page.click("#standing-submit");
    await page.waitForURL(/\/console\/standing\?granted=sta_[0-9a-f]{32}$/);
    const second = new URL(page.url()).searchParams.get("granted") as string;
    expect(await refund("user-1", "ORDER-7", "other")).toMatchObject({ status: "succeeded", approval: null });
    await page.getByRole("button", { name: `Revoke ${second}` }).click();
    await page.waitForURL(`${dev.base}/console/standing?revoked=${second}`);
    expect(await page.locator(`#standing-${second}`).getAttribute("data-state")).toBe("revoked");
    expect((await refund("user-1", "ORDER-7", "other")).code).toBe("APPROVAL_REQUIRED");
    const listed = await api("GET", "/standing-approvals", approver);
    expect(listed.body.standing_approvals.map((s: Record<string, unknown>) => [s.state, s.used_calls])).toEqual([
      ["revoked", 1],
      ["exhausted", 2],
    ]);
  });
});
