/**
 * Issue #31 items 1–2 in real Chromium against the real gate (wrangler dev): an approver reads
 * the agent's rationale on an approval's page (a bidi control shown as its escape), denies with
 * a reason that reaches the waiting agent as the approver's words, and edits the arguments: the
 * agent's re-proposal with exactly the edited arguments runs, the proposed call never does.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDev } from "../blackbox/wrangler-dev";
import { launchChromium } from "./support/chromium";
import { untilDecided } from "./support/decision";

const ADMIN = "approval-voice-admin-token-0123456789";
// The demo tool's orders belong to tenant-a; this server's storage is this file's own.
const CONSUMER = "tenant-a";
const INVALID = "Approval expired or is not bound to the current request.";
const EDITED = { order_ref: "ORDER-7", reason: "damaged" };
const EDIT_NOTE =
  'The approver edited the arguments: call the tool again with exactly these arguments: {"order_ref":"ORDER-7","reason":"damaged"}';

let dev: DevServer;
let persist: string;
let browser: Browser;
let page: Page;
let agent: string;
let approver: string;

async function api(method: string, path: string, token: string, body?: unknown) {
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

/** Call number `n` of the demo write (the same n is the same call, repeated). */
async function refund(n: number, args: Record<string, string>, rationale?: string): Promise<Record<string, any>> {
  const ctx = {
    call_id: `call-${n}`,
    operation_id: `op-${n}`,
    idempotency_key: `idem-${n}`,
    provider: "openai",
    api_family: "responses",
    response_id: "response-1",
    adapter_revision: "openai-responses-v1",
  };
  const res = await api("POST", "/tool-calls", agent, {
    principal: { subject_id: "user-1", roles: [] },
    proposal: { name: "create_refund_draft", arguments: args },
    context: ctx,
    ...(rationale === undefined ? {} : { rationale }),
  });
  expect(res.status).toBe(200);
  return res.body;
}

/** The agent's host waiting for the decision (long-poll, repeated while the approval is pending: support/decision.ts). */
function waitFor(id: string): Promise<Record<string, any>> {
  return untilDecided(() => api("GET", `/approvals/${id}?wait=30`, agent).then((res) => res.body));
}

beforeAll(async () => {
  persist = mkdtempSync(join(tmpdir(), "toolgate-voice-"));
  [dev, browser] = await Promise.all([startDev(persist, ADMIN), launchChromium()]);
  const configured = await api("PUT", "", ADMIN, { tools: ["create_refund_draft"], approver_subjects: ["rev-1"] });
  expect(configured.status).toBe(200);
  agent = (await api("POST", "/credentials", ADMIN, { kind: "agent" })).body.secret;
  approver = (await api("POST", "/credentials", ADMIN, { kind: "approver", subject_id: "rev-1" })).body.secret;
  page = await (await browser.newContext({ viewport: { width: 1100, height: 900 } })).newPage();
  await page.goto(`${dev.base}/console`);
  await page.fill("#consumer", CONSUMER);
  await page.fill("#credential", approver);
  await page.press("#credential", "Enter");
  await page.waitForURL(`${dev.base}/console/approvals`);
});

afterAll(async () => {
  await browser?.close();
  await dev?.kill();
  if (persist !== undefined) rmSync(persist, { recursive: true, force: true });
});

describe("the approver's and the agent's words in Chromium", () => {
  it("shows the agent's rationale with a bidi control escaped; a denial's reason reaches the waiting agent", async () => {
    const asked = await refund(1, { order_ref: "ORDER-7", reason: "duplicate" }, "Charged twice \u202Etoday");
    const id = asked.approval_id as string;
    await page.goto(`${dev.base}/console/approvals/${id}`);
    expect(await page.locator(`#approval-${id} blockquote.agent-words`).textContent()).toBe(
      "Charged twice ⟨U+202E⟩today",
    );
    const waiting = waitFor(id);
    await page.fill(`#reason-${id}`, "Not a duplicate");
    // The keyboard: a pointer click is held back for a moment after the page moves.
    await page.locator(`#approval-${id} button.deny`).focus();
    await page.keyboard.press("Enter");
    const status = await waiting;
    expect([status.state, status.reason]).toEqual(["denied", "Not a duplicate"]);
    const denied = await refund(1, { order_ref: "ORDER-7", reason: "duplicate" });
    expect(denied.model_result.error).toEqual({
      code: "APPROVAL_INVALID",
      category: "approval",
      safe_message: `${INVALID} The approver said: "Not a duplicate"`,
      recovery: "request_approval",
      retry_after_ms: null,
    });
  });

  it("edits the arguments: the re-proposal with exactly them runs, the proposed call never does", async () => {
    const asked = await refund(2, { order_ref: "ORDER-7", reason: "duplicate" });
    const id = asked.approval_id as string;
    await page.goto(`${dev.base}/console/approvals/${id}`);
    const article = page.locator(`#approval-${id}`);
    await article.locator("details.edit summary").click();
    expect(JSON.parse(await article.locator(`#arguments-${id}`).inputValue())).toEqual({
      order_ref: "ORDER-7",
      reason: "duplicate",
    });
    const waiting = waitFor(id);
    await article.locator(`#arguments-${id}`).fill(JSON.stringify(EDITED));
    await page.fill(`#reason-${id}`, "Damaged");
    await article.locator("button.edit").focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(`${dev.base}/console/approvals?decided=edited&approval=${id}`);
    expect(await page.locator("#announce").textContent()).toBe(`Edited ${id}.`);
    const status = await waiting;
    expect([status.state, status.edited?.arguments, status.edited?.instruction]).toEqual([
      "edited",
      EDITED,
      `${EDIT_NOTE} The approver said: "Damaged"`,
    ]);

    const ran = await refund(3, EDITED);
    expect([ran.model_result.status, ran.model_result.data]).toEqual([
      "succeeded",
      { draft_id: "DRAFT-1", order_ref: "ORDER-7", reason: "damaged" },
    ]);
    const proposed = await refund(2, { order_ref: "ORDER-7", reason: "duplicate" });
    expect([
      proposed.model_result.status,
      proposed.model_result.error.code,
      proposed.model_result.error.safe_message,
    ]).toEqual(["failed", "APPROVAL_INVALID", `${INVALID} ${EDIT_NOTE} The approver said: "Damaged"`]);
  });
});
