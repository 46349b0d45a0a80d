/**
 * Issue #15, the approver console in real Chromium against the real gate (wrangler dev): sign
 * in; an agent's write opens an approval while its host waits on it; the approval appears live;
 * approved with the keyboard alone, the waiting call completes; another denied; an expired one;
 * a second tab deciding first; a double click on Approve decides one approval, not the next one
 * moved under the pointer; CSRF refusals and the cookie's flags; an IBAN memo whose bidi
 * overrides show escaped and marked, under a warning; a memo with a Hebrew letter keeps its digit
 * groups in stored order on screen; after a decision the focus moves to the
 * next approval (or the list's heading); axe-core finds no serious or critical violation. Screenshots of the pending list and of one approval's page go to
 * .toolgate/test-output/console/.
 *
 * An expired approval: the gate's pending window is fixed (900 s) and wrangler dev's clock
 * cannot be moved over HTTP, so the page's clock is moved instead (Playwright's clock): the
 * countdown reaches zero and the page refuses to decide. The gate's own APPROVAL_EXPIRED answer
 * to a console decision is checked in workerd with a pinned clock (test/worker/console/console.test.ts).
 */
import AxeBuilder from "@axe-core/playwright";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDev } from "../blackbox/wrangler-dev";
import { launchChromium } from "./support/chromium";
import { untilDecided } from "./support/decision";

const ADMIN = "console-browser-admin-token-0123456789";
// The demo tool's orders belong to tenant-a; this server's storage is this file's own.
const CONSUMER = "tenant-a";
const OUTPUT = resolve(__dirname, "..", "..", ".toolgate", "test-output", "console");
/** An IBAN memo whose overrides make it read `IBAN DE89 3704 00 0130 2350 4400` when rendered raw. */
const MEMO = "IBAN DE89 3704 \u202E0044 0532\u202C 0130 00";
const MEMO_SHOWN = "IBAN DE89 3704 ⟨U+202E⟩0044 0532⟨U+202C⟩ 0130 00";
/** A write with a free-text argument (its HTTP target is never called: its approvals are decided, the calls not repeated). */
const NOTE_TOOL = {
  description: "Posts a payment note.",
  risk: "write",
  input: {
    type: "object",
    properties: { title: { type: "string", maxLength: 100 } },
    required: ["title"],
    additionalProperties: false,
  },
  output: {
    schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false },
  },
  target: { kind: "http", url: "https://ledger.test/notes" },
};
const COOKIE =
  /^__Host-toolgate-console=tenant-a\.cs1_[0-9a-f]{64}_[0-9a-f]{32}; Max-Age=3600; Path=\/; Secure; HttpOnly; SameSite=Strict$/;

let dev: DevServer;
let persist: string;
let browser: Browser;
let context: BrowserContext;
let live: Page;
let agent: string;
let approver: string;
let attacker: Server | undefined;
let calls = 0;
let checkpoint: { size: number; root: string };

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
  return { status: res.status, body: res.status === 204 ? {} : ((await res.json()) as Record<string, any>) };
}

/** One agent call of the demo write; `n` repeats call number n (the same call, after its decision). */
async function refund(
  subject: string,
  orderRef: string,
  reason: string,
  n?: number,
): Promise<{ n: number; body: Record<string, any> }> {
  const number = n ?? ++calls;
  const ctx = {
    call_id: `call-${number}`,
    operation_id: `op-${number}`,
    idempotency_key: `idem-${number}`,
    provider: "openai",
    api_family: "responses",
    response_id: "response-1",
    adapter_revision: "openai-responses-v1",
  };
  const res = await api("POST", "/tool-calls", agent, {
    principal: { subject_id: subject, roles: [] },
    proposal: { name: "create_refund_draft", arguments: { order_ref: orderRef, reason } },
    context: ctx,
  });
  return { n: number, body: res.body };
}

/** An agent's call of post_note: answers the approval it opens. */
async function note(title: string): Promise<string> {
  const number = ++calls;
  const ctx = {
    call_id: `call-${number}`,
    operation_id: `op-${number}`,
    idempotency_key: `idem-${number}`,
    provider: "openai",
    api_family: "responses",
    response_id: "response-1",
    adapter_revision: "openai-responses-v1",
  };
  const res = await api("POST", "/tool-calls", agent, {
    principal: { subject_id: "user-3", roles: [] },
    proposal: { name: "post_note", arguments: { title } },
    context: ctx,
  });
  return res.body.approval_id as string;
}

/** The agent's long-poll for the decision, repeated while the approval is pending (support/decision.ts). */
function waitFor(id: string): Promise<Record<string, any>> {
  return untilDecided(() => api("GET", `/approvals/${id}?wait=30`, agent).then((res) => res.body));
}

async function axeFindings(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

async function announced(page: Page): Promise<string> {
  return (await page.locator("#announce").textContent()) ?? "";
}

/** Page script (test files have no DOM types): what has the focus. */
const FOCUSED = `(() => {
  const el = document.activeElement;
  const style = getComputedStyle(el);
  const text = (el.textContent || "").trim().split("\\n")[0];
  return el.tagName.toLowerCase() + (el.className === "" ? "" : "." + el.className) + " " + text + " [" + style.outlineStyle + " " + style.outlineWidth + "]";
})()`;

/** Page script: the words of an element's text (`\u05D0` or a digit group) ordered by where they show on screen, left to right. */
const SHOWN_ORDER = (selector: string) => `(() => {
  const el = document.querySelector(${JSON.stringify(selector)});
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const words = [];
  for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) {
    for (const m of n.data.matchAll(/\u05D0|[0-9]+/g)) {
      const range = document.createRange();
      range.setStart(n, m.index);
      range.setEnd(n, m.index + m[0].length);
      const box = range.getBoundingClientRect();
      words.push({ word: m[0], x: box.x, y: box.y });
    }
  }
  return words.sort((a, b) => a.y - b.y || a.x - b.x).map((w) => w.word);
})()`;

const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

beforeAll(async () => {
  persist = mkdtempSync(join(tmpdir(), "toolgate-console-"));
  mkdirSync(OUTPUT, { recursive: true });
  [dev, browser] = await Promise.all([startDev(persist, ADMIN), launchChromium()]);
  expect((await api("PUT", "", ADMIN, { tools: ["create_refund_draft"], approver_subjects: ["rev-1"] })).status).toBe(
    200,
  );
  expect((await api("PUT", "/tools/post_note", ADMIN, NOTE_TOOL)).status).toBe(200);
  expect(
    (await api("PUT", "", ADMIN, { tools: ["create_refund_draft", "post_note"], approver_subjects: ["rev-1"] })).status,
  ).toBe(200);
  agent = (await api("POST", "/credentials", ADMIN, { kind: "agent" })).body.secret;
  approver = (await api("POST", "/credentials", ADMIN, { kind: "approver", subject_id: "rev-1" })).body.secret;
  // An auditor asks for the signed checkpoint: the console verifies it with the gate's verifier key.
  checkpoint = (
    await api("GET", "/audit/checkpoint", (await api("POST", "/credentials", ADMIN, { kind: "auditor" })).body.secret)
  ).body as { size: number; root: string };
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((done) => (attacker === undefined ? done() : attacker.close(() => done())));
  await dev?.kill();
  if (persist !== undefined) rmSync(persist, { recursive: true, force: true });
});

describe("the approver console in Chromium", () => {
  it("signs in with an approver credential: a refused one gets the form again; the session cookie is HttpOnly, Secure, SameSite=Strict, __Host-", async () => {
    live = await context.newPage();
    await live.goto(`${dev.base}/console`);
    expect(await axeFindings(live)).toEqual([]);
    await live.fill("#consumer", CONSUMER);
    await live.fill("#credential", `${approver.slice(0, -1)}${approver.endsWith("0") ? "1" : "0"}`);
    const refused = live.waitForResponse(`${dev.base}/console/session`);
    await live.press("#credential", "Enter");
    expect((await refused).status()).toBe(401);
    expect(await live.locator("#sign-in-error").textContent()).toBe(
      "Sign-in failed: this consumer has no approver with this credential. Check both and try again.",
    );

    await live.fill("#credential", approver);
    const answer = live.waitForResponse(`${dev.base}/console/session`);
    await live.press("#credential", "Enter");
    const signedIn = await answer;
    expect([
      signedIn.status(),
      await signedIn.headerValue("location"),
      COOKIE.test((await signedIn.headerValue("set-cookie")) ?? ""),
    ]).toEqual([303, "/console/approvals", true]);
    await live.waitForURL(`${dev.base}/console/approvals`);
    const cookies = (await context.cookies()).map(({ name, domain, path, httpOnly, secure, sameSite }) => ({
      name,
      domain,
      path,
      httpOnly,
      secure,
      sameSite,
    }));
    // Chromium kept the Secure __Host- cookie on http://127.0.0.1 (a potentially trustworthy origin).
    expect(cookies).toEqual([
      {
        name: "__Host-toolgate-console",
        domain: "127.0.0.1",
        path: "/",
        httpOnly: true,
        secure: true,
        sameSite: "Strict",
      },
    ]);
    expect(await live.evaluate("document.cookie")).toBe("");
    expect(await live.locator("h1").textContent()).toBe("Approvals");
    await live.locator("#live-status", { hasText: "Live: new approvals appear here as they arrive." }).waitFor();
    expect(await live.locator("#checkpoint-status strong").textContent()).toBe("Verified");
    expect(
      /^Verified \(size (\d+), root (\S+)\):/
        .exec((await live.locator("#checkpoint-status").textContent()) ?? "")
        ?.slice(1),
    ).toEqual([String(checkpoint.size), checkpoint.root]);
  });

  it("shows an agent's pending approval live while the agent waits, approved with the keyboard alone; the waiting call completes", async () => {
    const other = await context.newPage();
    await other.goto(`${dev.base}/console/approvals`);
    await other.locator("#live-status", { hasText: "Live:" }).waitFor();
    const asked = await refund("user-1", "ORDER-7", "duplicate");
    expect(asked.body.model_result.error.code).toBe("APPROVAL_REQUIRED");
    const id = asked.body.approval_id as string;
    const waiting = waitFor(id);
    // No reload: the stream brings it.
    await live.locator(`#approval-${id}`).waitFor();
    await other.locator(`#approval-${id}`).waitFor();
    expect([
      await live.locator("#pending-count").textContent(),
      await live.locator(`#approval-${id} h3 a`).textContent(),
    ]).toEqual(["1", "create_refund_draft"]);
    expect(await live.locator("#announce").textContent()).toBe(`New approval waiting: create_refund_draft (${id}).`);
    // The digest the page sends is the one the approver API computes for this approver.
    const view = (await api("GET", "/approvals", approver)).body.approvals[0] as { approval_digest: string };
    expect(await live.locator(`#approval-${id} input[name="approval_digest"]`).getAttribute("value")).toBe(
      view.approval_digest,
    );
    await live.screenshot({ path: join(OUTPUT, "pending-list.png"), fullPage: true });
    expect(await axeFindings(live)).toEqual([]);

    const detail = await context.newPage();
    await detail.goto(`${dev.base}/console/approvals/${id}`);
    for (const summary of await detail.locator("summary").all()) await summary.click();
    await detail.locator(`#approval-${id}`).screenshot({ path: join(OUTPUT, "approval-detail.png") });
    expect(await axeFindings(detail)).toEqual([]);
    await detail.close();

    // Keyboard alone: Tab from the top reaches the skip link first, then this approval's Approve button.
    await live.bringToFront();
    const stops: string[] = [];
    for (let i = 0; i < 40; i++) {
      await live.keyboard.press("Tab");
      // The focused element, its first line of text, and its outline (the focus ring).
      const stop = await live.evaluate<string>(FOCUSED);
      stops.push(stop);
      if (stop.startsWith("button.approve")) break;
    }
    expect(stops).toEqual([
      "a.skip-link Skip to main content [solid 3px]",
      "a toolgate console [solid 3px]",
      "button Sign out [solid 3px]",
      "a Pending [solid 3px]",
      "a Decided [solid 3px]",
      "a Audit log [solid 3px]",
      // The read-only page of shadow rules' disagreements (docs/console.md).
      "a Policies in shadow [solid 3px]",
      "a create_refund_draft [solid 3px]",
      "summary Arguments as canonical JSON [solid 3px]",
      "summary Every digest input [solid 3px]",
      `button.approve Approve create_refund_draft (${id}) [solid 3px]`,
    ]);
    await live.keyboard.press("Enter");
    const decided = await waiting;
    expect([decided.state, decided.approver_id, decided.valid_until - decided.decided_at]).toEqual([
      "approved",
      "rev-1",
      60,
    ]);
    await live.locator(`#approval-${id}`).waitFor({ state: "detached" });
    // No approval is left: the focus goes to the list's heading, not to <body>.
    expect(await live.evaluate<string>(FOCUSED)).toBe("h2 Pending (0) [solid 3px]");
    // The stream's "decided" event may remove the item before the decision's own answer reaches
    // this tab: wait for that answer's announcement, then read it whole.
    await live.locator("#announce", { hasText: "Approved " }).waitFor();
    expect(await announced(live)).toBe(
      `Approved create_refund_draft (${id}); the agent may repeat the call until ${iso(decided.valid_until)}.`,
    );
    // Every open tab drops it live and lists the decision.
    await other.locator(`#approval-${id}`).waitFor({ state: "detached" });
    await other.locator(`#decided-${id}`).waitFor();
    expect(await other.locator(`#decided-${id} td.state`).textContent()).toBe("approved");
    await other.close();

    const again = await refund("user-1", "ORDER-7", "duplicate", asked.n);
    expect([again.body.model_result.status, again.body.model_result.data]).toEqual([
      "succeeded",
      { draft_id: "DRAFT-1", order_ref: "ORDER-7", reason: "duplicate" },
    ]);
  });

  it("shows the IBAN memo's bidi overrides escaped and marked in the list and the canonical JSON, under a warning; a decision moves the focus to the next approval", async () => {
    const memo = await note(MEMO);
    const plain = await note("Quarterly report");
    await live.locator(`#approval-${memo}`).waitFor();
    await live.locator(`#approval-${plain}`).waitFor();
    const article = live.locator(`#approval-${memo}`);
    await article.locator("details.canonical summary").click();
    expect(await article.locator("dl.arguments dd").allInnerTexts()).toEqual([MEMO_SHOWN]);
    expect(await article.locator("dl.arguments mark.hidden-char.hidden-bidi").allInnerTexts()).toEqual([
      "⟨U+202E⟩",
      "⟨U+202C⟩",
    ]);
    expect(await article.locator("details.canonical code").innerText()).toBe(`{"title":"${MEMO_SHOWN}"}`);
    expect(await article.locator("details.canonical mark.hidden-char.hidden-bidi").count()).toBe(2);
    expect(await article.locator(".hidden-warning").innerText()).toBe(
      "Warning: these arguments hold 2 characters you could not see as they are (2 bidirectional controls). Each is shown highlighted as its code point, ⟨U+…⟩. Your decision binds the arguments as they are stored, these characters included.",
    );
    expect(await live.locator(`#approval-${plain} .hidden-warning`).count()).toBe(0);
    // No raw bidi control anywhere in the rendered approval.
    expect(
      await live.evaluate<boolean>(
        `/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/.test(document.getElementById("approval-${memo}").innerHTML)`,
      ),
    ).toBe(false);
    await article.screenshot({ path: join(OUTPUT, "hidden-characters.png") });
    expect(await axeFindings(live)).toEqual([]);

    // Deny the memo with the keyboard: its button is disabled while it has the focus, and the focus goes on to the next approval.
    await article.locator("button.deny").focus();
    await live.keyboard.press("Enter");
    await article.waitFor({ state: "detached" });
    expect(await live.evaluate<string>(FOCUSED)).toBe("a post_note [solid 3px]");
    expect(await live.evaluate<string>("document.activeElement.closest('article').id")).toBe(`approval-${plain}`);
    await live.locator("#announce", { hasText: `Denied post_note (${memo}).` }).waitFor();
    await live.locator(`#approval-${plain} button.approve`).focus();
    await live.keyboard.press("Enter");
    await live.locator(`#approval-${plain}`).waitFor({ state: "detached" });
    expect(await live.evaluate<string>(FOCUSED)).toBe("h2 Pending (0) [solid 3px]");
    await live.locator("#announce", { hasText: `Approved post_note (${plain})` }).waitFor();
  });

  it("shows a memo with a Hebrew letter in stored order: its digit groups left to right as stored, in the list and the canonical JSON, with a note", async () => {
    // Rendered plainly in a left-to-right line, "\u05D0 0044 0532" reads "0532 0044 \u05D0".
    const id = await note("\u05D0 0044 0532");
    const article = live.locator(`#approval-${id}`);
    await article.waitFor();
    try {
      await article.locator("details.canonical summary").click();
      expect(await live.evaluate<string[]>(SHOWN_ORDER(`#approval-${id} dl.arguments dd`))).toEqual([
        "\u05D0",
        "0044",
        "0532",
      ]);
      expect(await live.evaluate<string[]>(SHOWN_ORDER(`#approval-${id} details.canonical code`))).toEqual([
        "\u05D0",
        "0044",
        "0532",
      ]);
      expect(await article.locator("dl.arguments dd").allInnerTexts()).toEqual([
        "\u05D0 0044 0532 (contains right-to-left text, shown in stored order)",
      ]);
      await article.screenshot({ path: join(OUTPUT, "right-to-left.png") });
      expect(await axeFindings(live)).toEqual([]);
    } finally {
      // Decided either way, so the later tests start with no pending approval.
      await article.locator("button.deny").click();
      await article.waitFor({ state: "detached" });
    }
  });

  it("denies another; the waiting call learns it and the repeated call is refused", async () => {
    const asked = await refund("user-1", "ORDER-7", "damaged");
    const id = asked.body.approval_id as string;
    const waiting = waitFor(id);
    await live.locator(`#approval-${id}`).waitFor();
    await live.locator(`#approval-${id} button.deny`).click();
    const decided = await waiting;
    expect([decided.state, decided.valid_until]).toEqual(["denied", null]);
    await live.locator(`#approval-${id}`).waitFor({ state: "detached" });
    await live.locator("#announce", { hasText: "Denied " }).waitFor();
    expect(await announced(live)).toBe(`Denied create_refund_draft (${id}).`);
    const again = await refund("user-1", "ORDER-7", "damaged", asked.n);
    expect(again.body.model_result.error.code).toBe("APPROVAL_INVALID");
  });

  it("a second tab decides first: the other tabs drop it live, a stale tab shows the already-decided problem and drops it", async () => {
    const asked = await refund("user-2", "ORDER-8", "duplicate");
    const id = asked.body.approval_id as string;
    await live.locator(`#approval-${id}`).waitFor();
    // A tab whose live stream carries nothing (a lagging connection): it still shows the approval.
    const stale = await context.newPage();
    await stale.route(`${dev.base}/console/events`, (route) =>
      route.fulfill({ status: 200, headers: { "content-type": "text/event-stream" }, body: ": paused\n\n" }),
    );
    await stale.goto(`${dev.base}/console/approvals`);
    await stale.locator(`#approval-${id}`).waitFor();
    const second = await context.newPage();
    await second.goto(`${dev.base}/console/approvals/${id}`);
    await second.locator(`#approval-${id} button.approve`).click();
    await second.locator(`#approval-${id}`).waitFor({ state: "detached" });
    await live.locator(`#approval-${id}`).waitFor({ state: "detached" });
    expect(await announced(live)).toBe(`Decided elsewhere: create_refund_draft (${id}). It left the pending list.`);
    expect(await stale.locator(`#approval-${id}`).count()).toBe(1);
    await stale.locator(`#approval-${id} button.approve`).click();
    await stale.locator(`#approval-${id}`).waitFor({ state: "detached" });
    expect(await announced(stale)).toBe(
      `Not decided: create_refund_draft (${id}). Approval already decided (APPROVAL_ALREADY_DECIDED): This approval has already been decided.`,
    );
    await stale.close();
    await second.close();
  });

  it("a double click decides one approval: the next one, moved under the pointer, ignores clicks until armed (800 ms)", async () => {
    // Titles of one length: the three articles are of one height, so the next Approve lands exactly under the pointer.
    const ids = [await note("Double click 1"), await note("Double click 2"), await note("Double click 3")];
    for (const id of ids) await live.locator(`#approval-${id}`).waitFor();
    // Playwright's own click waits while the buttons arm (aria-disabled): wait it out before reading the point.
    await live.locator(`#approval-${ids[2]} button.approve[aria-disabled="true"]`).waitFor({ state: "detached" });
    const first = live.locator(`#approval-${ids[0]} button.approve`);
    await first.scrollIntoViewIfNeeded();
    const box = (await first.boundingBox()) as { x: number; y: number; width: number; height: number };
    const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
    const started = Date.now();
    await live.mouse.click(x, y);
    // The first decision's answer is in (its approval left the list) before the second click, 400 ms after the first.
    await live.locator(`#approval-${ids[0]}`).waitFor({ state: "detached" });
    await live.waitForTimeout(Math.max(0, 400 - (Date.now() - started)));
    expect(
      await live.evaluate<string>(
        `(() => { const r = document.querySelector("#approval-${ids[1]} button.approve").getBoundingClientRect(); const hit = document.elementFromPoint(${x}, ${y}); return hit !== null && hit.closest("button") === document.querySelector("#approval-${ids[1]} button.approve") ? "under the pointer" : "moved to " + r.y; })()`,
      ),
    ).toBe("under the pointer");
    const arming = await live.locator(`#approval-${ids[1]} button.approve`).getAttribute("aria-disabled");
    await live.mouse.click(x, y);
    await live.waitForTimeout(1200);
    const pending = async () =>
      (await api("GET", "/approvals", approver)).body.approvals.map((a: { approval_id: string }) => a.approval_id);
    // One approval decided, the second still pending and shown; its buttons were arming when clicked.
    expect([await pending(), await live.locator(`#approval-${ids[1]}`).count(), arming]).toEqual([
      [ids[1], ids[2]],
      1,
      "true",
    ]);
    // Armed (800 ms on), a click at the same point decides the approval now shown there.
    expect(await live.locator(`#approval-${ids[1]} button.approve`).getAttribute("aria-disabled")).toBe(null);
    await live.mouse.click(x, y);
    await live.locator(`#approval-${ids[1]}`).waitFor({ state: "detached" });
    await live.locator("#announce", { hasText: `Approved post_note (${ids[1]})` }).waitFor();
    expect(await pending()).toEqual([ids[2]]);
    await live.locator(`#approval-${ids[2]} button.deny`).click();
    await live.locator(`#approval-${ids[2]}`).waitFor({ state: "detached" });
  });

  it("refuses a decision without the CSRF token or from another origin (403), nothing decided; an expired approval cannot be decided", async () => {
    const asked = await refund("user-2", "ORDER-8", "damaged");
    const id = asked.body.approval_id as string;
    await live.locator(`#approval-${id}`).waitFor();
    const digest = (await live
      .locator(`#approval-${id} input[name="approval_digest"]`)
      .getAttribute("value")) as string;
    const csrf = (await live.locator('meta[name="csrf-token"]').getAttribute("content")) as string;
    const body = JSON.stringify(JSON.stringify({ decision: "approve", approval_digest: digest }));
    const noToken = await live.evaluate<unknown[]>(
      `fetch("/console/approvals/${id}", { method: "POST", headers: { "content-type": "application/json" }, body: ${body} }).then(async (res) => [res.status, (await res.json()).code])`,
    );
    expect(noToken).toEqual([403, "CSRF_REFUSED"]);

    // Another site (localhost is not 127.0.0.1's site) posts the decision form, even with the right token.
    const fields = { csrf, decision: "approve", approval_digest: digest };
    const page = `<!doctype html><title>elsewhere</title><form method="post" action="${dev.base}/console/approvals/${id}">${Object.entries(
      fields,
    )
      .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
      .join("")}<button>go</button></form>`;
    attacker = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(page));
    await new Promise<void>((done) => attacker?.listen(0, "127.0.0.1", done));
    const elsewhere = await context.newPage();
    await elsewhere.goto(`http://localhost:${(attacker.address() as AddressInfo).port}/`);
    const refused = elsewhere.waitForResponse(`${dev.base}/console/approvals/${id}`);
    await elsewhere.click("button");
    const answer = await refused;
    expect([answer.status(), ((await answer.json()) as { code: string }).code]).toEqual([403, "CSRF_REFUSED"]);
    await elsewhere.close();
    const listed = await api("GET", "/approvals", approver);
    expect(listed.body.approvals.map((a: { approval_id: string }) => a.approval_id)).toEqual([id]);

    // The page's clock moves 15 minutes on: the countdown ends, the buttons are disabled, the page says why.
    const expired = await context.newPage();
    await expired.clock.install();
    await expired.goto(`${dev.base}/console/approvals`);
    const countdown = expired.locator(`#approval-${id} .countdown`);
    expect(await countdown.textContent()).toMatch(/^1[45] min \d\d s$/);
    await expired.clock.fastForward("15:01");
    await expired.locator(`#approval-${id}.expired`).waitFor();
    expect([
      await countdown.textContent(),
      await expired.locator(`#approval-${id} button.approve`).isDisabled(),
      await expired.locator(`#approval-${id} button.deny`).isDisabled(),
    ]).toEqual(["expired", true, true]);
    expect(await announced(expired)).toBe(
      `Expired without a decision: create_refund_draft (${id}). It can no longer be decided; the agent's call is refused.`,
    );
    expect(await axeFindings(expired)).toEqual([]);
    await expired.close();
  });

  it("signs out: the session ends, the cookie is gone, the pages send back to sign-in", async () => {
    await live.locator("header button", { hasText: "Sign out" }).click();
    await live.waitForURL(`${dev.base}/console?signed-out`);
    expect([await live.locator("main p.info").textContent(), await context.cookies()]).toEqual([
      "You are signed out.",
      [],
    ]);
    await live.goto(`${dev.base}/console/approvals`);
    expect(live.url()).toBe(`${dev.base}/console?ended`);
  });
});
