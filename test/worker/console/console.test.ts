/**
 * Issue #15, the approver console's routes in workerd: the headers every answer carries, the
 * session's lifecycle (sign-in, idle and absolute end, revocation, sign-out), CSRF refusals
 * (nothing decided), decisions with the digest shown, the page's content (escaped), the
 * checkpoint's verification status, and the live stream.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, context, credential, gate, pinClock, secretOf, send, setupConsumer, wipe } from "../../kit";

const C = "console-a";
const OTHER = "console-b";
const BASE = `/v1/consumers/${C}`;
const T0 = 1_784_419_200;
const ORIGIN = "http://gate";
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const SECURITY = {
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};
const COOKIE =
  /^__Host-toolgate-console=console-a\.cs1_[0-9a-f]{64}_[0-9a-f]{32}; Max-Age=3600; Path=\/; Secure; HttpOnly; SameSite=Strict$/;
const CLEARED = "__Host-toolgate-console=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Strict";
const SIGN_IN_FAILED = "Sign-in failed: this consumer has no approver with this credential. Check both and try again.";

/** A data tool whose description and arguments hold markup: the page must show them as text. */
const NOTE_TOOL = {
  description: 'Posts a <em>note</em> & "tags" it.',
  risk: "write",
  input: {
    type: "object",
    properties: {
      title: { type: "string", maxLength: 100 },
      detail: {
        type: "object",
        properties: { lines: { type: "array", items: { type: "integer" }, maxItems: 8 }, urgent: { type: "boolean" } },
        required: ["lines", "urgent"],
        additionalProperties: false,
      },
    },
    required: ["title", "detail"],
    additionalProperties: false,
  },
  output: {
    schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false },
  },
  target: { kind: "http", url: "https://ledger.test/notes" },
};

function securityOf(res: Response): Record<string, string | null> {
  return Object.fromEntries(Object.keys(SECURITY).map((name) => [name, res.headers.get(name)]));
}

function form(
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = { origin: ORIGIN },
): Promise<Response> {
  return gate(path, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

async function signIn(secret: string, consumer = C): Promise<{ cookie: string; csrf: string }> {
  const res = await form("/console/session", { consumer, credential: secret });
  expect([res.status, res.headers.get("location"), COOKIE.test(res.headers.get("set-cookie") ?? "")]).toEqual([
    303,
    "/console/approvals",
    true,
  ]);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
  const page = await browse("/console/approvals", cookie);
  return { cookie, csrf: /<meta name="csrf-token" content="([0-9a-f]{64})">/.exec(await page.text())?.[1] ?? "" };
}

function browse(path: string, cookie: string, headers: Record<string, string> = {}): Promise<Response> {
  return gate(path, { redirect: "manual", headers: { cookie, ...headers } });
}

function decide(id: string, cookie: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return gate(`/console/approvals/${id}`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

async function setup(): Promise<{ agent: string; approver: { id: string; secret: string }; auditor: string }> {
  await setupConsumer(C, {
    config: { approver_subjects: ["rev-1"] },
    definitions: { post_note: NOTE_TOOL },
    tools: ["post_note"],
    clock: T0,
  });
  return {
    agent: await secretOf(C, "agent"),
    approver: await credential(C, "approver", "rev-1"),
    auditor: await secretOf(C, "auditor"),
  };
}

let calls = 0;
async function openApproval(
  agent: string,
  args: Record<string, unknown> = { title: "Quarterly report", detail: { lines: [1], urgent: false } },
): Promise<string> {
  calls += 1;
  const res = await send("POST", `${BASE}/tool-calls`, agent, {
    principal: { subject_id: "user-1", roles: [] },
    proposal: { name: "post_note", arguments: args },
    context: context(`call-${calls}`, { key: `key-${calls}` }),
  });
  const body = (await res.json()) as { approval_id?: string };
  if (body.approval_id === undefined) throw new Error("no approval opened");
  return body.approval_id;
}

/** The approver API's own view (an independent route): the digest this approver must send. */
async function listed(
  approver: string,
): Promise<Array<Record<string, unknown> & { approval_id: string; approval_digest: string }>> {
  const res = await send("GET", `${BASE}/approvals`, approver);
  return (
    (await res.json()) as {
      approvals: Array<Record<string, unknown> & { approval_id: string; approval_digest: string }>;
    }
  ).approvals;
}

async function problemOf(res: Response): Promise<[number, string]> {
  return [res.status, ((await res.json()) as { code: string }).code];
}

beforeEach(async () => {
  await wipe(C, OTHER);
});

describe("console headers", () => {
  it("every answer carries the CSP, nosniff, no-referrer and no-store: pages, assets, refusals, redirects, unknown paths", async () => {
    const answers = [
      await gate("/console"),
      await gate("/console/script.js"),
      await gate("/console/styles.css"),
      await gate("/console/approvals", { redirect: "manual" }),
      await gate("/console/events"),
      await gate("/console/nowhere"),
      await form("/console/session", { consumer: C, credential: "x" }, { origin: "https://evil.example" }),
    ];
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 303, 401, 404, 403]);
    for (const res of answers) expect(securityOf(res)).toEqual(SECURITY);
    expect(answers.slice(0, 3).map((res) => res.headers.get("content-type"))).toEqual([
      "text/html; charset=utf-8",
      "text/javascript; charset=utf-8",
      "text/css; charset=utf-8",
    ]);
    const page = await (await gate("/console")).text();
    // No inline script or style: the page names its two assets only.
    expect([page.match(/<script[^>]*>/g), page.includes("<style"), page.includes(" style=")]).toEqual([
      ['<script src="/console/script.js" defer>'],
      false,
      false,
    ]);
  });
});

describe("console sign-in", () => {
  it("exchanges an approver credential for a __Host- cookie session and redirects to the approvals page", async () => {
    const { approver } = await setup();
    const { cookie, csrf } = await signIn(approver.secret);
    const page = await browse("/console/approvals", cookie);
    const text = await page.text();
    expect([
      page.status,
      csrf.length,
      /<p class="who">Consumer <strong>console-a<\/strong>, approver <strong>rev-1<\/strong>\./.test(text),
    ]).toEqual([200, 64, true]);
    const sessions = await runInDurableObject(env.CONSUMER.get(env.CONSUMER.idFromName(C)), (_i, state) =>
      state.storage.sql
        .exec(
          "SELECT session_sha256, credential_id, approver_id, created_at, last_seen_at, expires_at FROM console_sessions",
        )
        .toArray(),
    );
    const sid = cookie.slice(cookie.lastIndexOf(".") + 1);
    const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(sid)))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    // Only the id's SHA-256 is stored, never the id.
    expect(sessions).toEqual([
      {
        session_sha256: digest,
        credential_id: approver.id,
        approver_id: "rev-1",
        created_at: T0,
        last_seen_at: T0,
        expires_at: T0 + 3600,
      },
    ]);
  });

  it("refuses a bad credential with the form again (401), the same whether or not the consumer exists", async () => {
    const { agent, approver } = await setup();
    const outsider = await credential(C, "approver", "not-an-approver");
    const forms = [
      await form("/console/session", {
        consumer: C,
        credential: `${approver.secret.slice(0, -1)}${approver.secret.endsWith("0") ? "1" : "0"}`,
      }),
      await form("/console/session", { consumer: C, credential: agent }),
      await form("/console/session", { consumer: C, credential: outsider.secret }),
      await form("/console/session", { consumer: OTHER, credential: approver.secret }),
      await form("/console/session", {
        consumer: "no-such-consumer",
        credential: "tg_approver_0123456789012345678901234567890123456789_0123456789abcdef0123456789abcdef",
      }),
    ];
    const texts = await Promise.all(forms.map((res) => res.text()));
    expect(forms.map((res) => [res.status, res.headers.get("set-cookie")])).toEqual(Array(5).fill([401, null]));
    for (const text of texts)
      expect(/<p class="error" role="alert" id="sign-in-error">(.*?)<\/p>/.exec(text)?.[1]).toBe(SIGN_IN_FAILED);
    // The pages differ only in the consumer name put back into the form.
    expect(texts[3]?.replace('value="console-b"', 'value="console-a"')).toBe(texts[0]);
    expect(texts[4]?.replace('value="no-such-consumer"', 'value="console-a"')).toBe(texts[0]);
  });

  it("refuses a sign-in from another origin (403) and a body that is not a form (415)", async () => {
    const { approver } = await setup();
    expect(
      await problemOf(
        await form(
          "/console/session",
          { consumer: C, credential: approver.secret },
          { origin: "https://evil.example" },
        ),
      ),
    ).toEqual([403, "CSRF_REFUSED"]);
    expect(await problemOf(await form("/console/session", { consumer: C, credential: approver.secret }, {}))).toEqual([
      403,
      "CSRF_REFUSED",
    ]);
    const json = await gate("/console/session", {
      method: "POST",
      headers: { origin: ORIGIN, "content-type": "application/json" },
      body: JSON.stringify({ consumer: C, credential: approver.secret }),
    });
    expect(await problemOf(json)).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
  });
});

describe("console session lifecycle", () => {
  it("ends after 15 idle minutes, and after one hour however active", async () => {
    const { approver } = await setup();
    const idle = await signIn(approver.secret);
    await pinClock(C, T0 + 899);
    expect((await browse("/console/approvals", idle.cookie)).status).toBe(200);
    await pinClock(C, T0 + 899 + 900);
    const ended = await browse("/console/approvals", idle.cookie);
    expect([ended.status, ended.headers.get("location"), ended.headers.get("set-cookie")]).toEqual([
      303,
      "/console?ended",
      CLEARED,
    ]);
    const active = await signIn(approver.secret);
    const start = T0 + 899 + 900;
    for (let t = start + 600; t < start + 3600; t += 600) {
      await pinClock(C, t);
      expect((await browse("/console/approvals", active.cookie)).status).toBe(200);
    }
    await pinClock(C, start + 3600);
    expect((await browse("/console/approvals", active.cookie)).status).toBe(303);
    expect(await problemOf(await browse("/console/approvals", active.cookie, { "x-console-live": "1" }))).toEqual([
      401,
      "UNAUTHENTICATED",
    ]);
  });

  it("ends when the credential is revoked or its subject is no longer an approver", async () => {
    const { approver } = await setup();
    const first = await signIn(approver.secret);
    expect((await send("DELETE", `${BASE}/credentials/${approver.id}`, ADMIN_TOKEN)).status).toBe(204);
    expect((await browse("/console/approvals", first.cookie)).status).toBe(303);
    const again = await credential(C, "approver", "rev-1");
    const second = await signIn(again.secret);
    expect((await send("PUT", BASE, ADMIN_TOKEN, { tools: ["post_note"], approver_subjects: ["rev-2"] })).status).toBe(
      200,
    );
    expect((await browse("/console/approvals", second.cookie)).status).toBe(303);
  });

  it("signs out (CSRF-checked): the session is deleted and the cookie cleared", async () => {
    const { approver } = await setup();
    const { cookie, csrf } = await signIn(approver.secret);
    expect(
      await problemOf(await form("/console/sign-out", { csrf: "0".repeat(64) }, { origin: ORIGIN, cookie })),
    ).toEqual([403, "CSRF_REFUSED"]);
    expect(
      await problemOf(await form("/console/sign-out", { csrf }, { origin: "https://evil.example", cookie })),
    ).toEqual([403, "CSRF_REFUSED"]);
    expect((await browse("/console/approvals", cookie)).status).toBe(200);
    const out = await form("/console/sign-out", { csrf }, { origin: ORIGIN, cookie });
    expect([out.status, out.headers.get("location"), out.headers.get("set-cookie")]).toEqual([
      303,
      "/console?signed-out",
      CLEARED,
    ]);
    expect((await browse("/console/approvals", cookie)).status).toBe(303);
  });

  it("refuses a cookie it did not tag, or one tagged for another consumer, without a session lookup", async () => {
    const { approver } = await setup();
    const { cookie } = await signIn(approver.secret);
    const forged = `${cookie.slice(0, -4)}0000`;
    const moved = cookie.replace("console-a.", "console-b.");
    expect([
      (await browse("/console/approvals", forged)).status,
      (await browse("/console/approvals", moved)).status,
    ]).toEqual([303, 303]);
  });
});

describe("console decisions", () => {
  it("refuses a decision without the CSRF token, with a wrong one, or from another origin (403); nothing is decided", async () => {
    const { agent, approver } = await setup();
    const id = await openApproval(agent);
    const { cookie, csrf } = await signIn(approver.secret);
    const digest = (await listed(approver.secret))[0]?.approval_digest as string;
    const body = { decision: "approve", approval_digest: digest };
    const refusals = [
      await decide(id, cookie, body, { origin: ORIGIN }),
      await decide(id, cookie, body, { origin: ORIGIN, "x-csrf-token": "f".repeat(64) }),
      await decide(id, cookie, body, { origin: "https://evil.example", "x-csrf-token": csrf }),
      await decide(id, cookie, body, { origin: "null", "x-csrf-token": csrf }),
      await decide(id, cookie, body, { "x-csrf-token": csrf }),
      await decide(id, cookie, body, { "sec-fetch-site": "cross-site", "x-csrf-token": csrf }),
      await decide(id, cookie, body, { origin: "null", "sec-fetch-site": "cross-site", "x-csrf-token": csrf }),
      await decide(id, cookie, body, {
        origin: "https://evil.example",
        "sec-fetch-site": "same-origin",
        "x-csrf-token": csrf,
      }),
      await form(
        `/console/approvals/${id}`,
        { csrf: "f".repeat(64), decision: "approve", approval_digest: digest },
        { origin: ORIGIN, cookie },
      ),
    ];
    expect(await Promise.all(refusals.map(problemOf))).toEqual(Array(9).fill([403, "CSRF_REFUSED"]));
    expect((await listed(approver.secret)).map((view) => view.approval_id)).toEqual([id]);
    // A browser's own post under Referrer-Policy: no-referrer: Origin null, Sec-Fetch-Site same-origin.
    const ok = await decide(id, cookie, body, {
      origin: "null",
      "sec-fetch-site": "same-origin",
      "x-csrf-token": csrf,
    });
    expect([ok.status, await ok.json()]).toEqual([
      200,
      {
        approval_id: id,
        state: "approved",
        approver_id: "rev-1",
        decided_at: T0,
        // post_note sets no window: the consumer's default, 600 s.
        valid_until: T0 + 600,
        bound_to_request: true,
      },
    ]);
  });

  it("answers the decision's problems: already decided, digest mismatch, expired", async () => {
    const { agent, approver } = await setup();
    const [first, second, third] = [await openApproval(agent), await openApproval(agent), await openApproval(agent)];
    const { cookie, csrf } = await signIn(approver.secret);
    const digests = new Map((await listed(approver.secret)).map((view) => [view.approval_id, view.approval_digest]));
    const headers = { origin: ORIGIN, "x-csrf-token": csrf };
    expect(
      (await decide(first, cookie, { decision: "deny", approval_digest: digests.get(first) }, headers)).status,
    ).toBe(200);
    expect(
      await problemOf(
        await decide(first, cookie, { decision: "approve", approval_digest: digests.get(first) }, headers),
      ),
    ).toEqual([409, "APPROVAL_ALREADY_DECIDED"]);
    expect(
      await problemOf(
        await decide(second, cookie, { decision: "approve", approval_digest: digests.get(first) }, headers),
      ),
    ).toEqual([409, "APPROVAL_DIGEST_MISMATCH"]);
    await pinClock(C, T0 + 600);
    expect((await browse("/console/approvals", cookie)).status).toBe(200);
    await pinClock(C, T0 + 900);
    expect(
      await problemOf(
        await decide(third, cookie, { decision: "approve", approval_digest: digests.get(third) }, headers),
      ),
    ).toEqual([409, "APPROVAL_EXPIRED"]);
  });

  it("takes a decision posted as a form without the script, and says so on the page it redirects to", async () => {
    const { agent, approver } = await setup();
    const id = await openApproval(agent);
    const { cookie, csrf } = await signIn(approver.secret);
    const digest = (await listed(approver.secret))[0]?.approval_digest as string;
    const res = await form(
      `/console/approvals/${id}`,
      { csrf, decision: "deny", approval_digest: digest },
      { origin: ORIGIN, cookie },
    );
    expect([res.status, res.headers.get("location")]).toEqual([
      303,
      `/console/approvals?decided=denied&approval=${id}`,
    ]);
    const again = await form(
      `/console/approvals/${id}`,
      { csrf, decision: "deny", approval_digest: digest },
      { origin: ORIGIN, cookie },
    );
    expect(again.headers.get("location")).toBe(`/console/approvals?problem=APPROVAL_ALREADY_DECIDED&approval=${id}`);
    const page = await (
      await browse(`/console/approvals?problem=APPROVAL_ALREADY_DECIDED&approval=${id}`, cookie)
    ).text();
    expect(/<div id="announce"[^>]*>(.*?)<\/div>/.exec(page)?.[1]).toBe(
      `<p class="error">Not decided <code>${id}</code>: Approval already decided (<code>APPROVAL_ALREADY_DECIDED</code>).</p>`,
    );
    const row = /<tr id="decided-[^"]+">(.*?)<\/tr>/.exec(page)?.[1];
    expect(row).toBe(
      `<td><code>${id}</code></td><td>post_note</td><td><code>user-1</code></td><td class="state state-denied">denied</td><td>rev-1</td><td><time datetime="2026-07-19T00:00:00Z">2026-07-19 00:00:00 UTC</time></td><td>—</td>`,
    );
  });
});

describe("console page content", () => {
  it("shows each pending approval with its tool, description, risk, subject, arguments (escaped), every digest input and the time left", async () => {
    const { agent, approver } = await setup();
    const id = await openApproval(agent, {
      title: "<script>alert(1)</script>",
      detail: { lines: [1, 2], urgent: true },
    });
    const { cookie } = await signIn(approver.secret);
    await pinClock(C, T0 + 65);
    const page = await (await browse("/console/approvals", cookie)).text();
    const view = (await listed(approver.secret))[0] as Record<string, unknown>;
    expect(page.includes("<script>alert")).toBe(false);
    expect(/<p class="description">(.*?)<\/p>/.exec(page)?.[1]).toBe(
      "Posts a &lt;em&gt;note&lt;/em&gt; &amp; &quot;tags&quot; it.",
    );
    expect(/<h3 id="title-[^"]+">(.*?)<\/h3>/.exec(page)?.[1]).toBe(
      `<a href="/console/approvals/${id}">post_note</a> <span class="risk risk-write">risk: write</span>`,
    );
    expect(/<dl class="arguments">(.*?)<\/dl>/s.exec(page)?.[1]).toBe(
      '<dt><code>detail</code></dt><dd><pre class="json"><code>{\n  &quot;lines&quot;: [\n    1,\n    2\n  ],\n  &quot;urgent&quot;: true\n}</code></pre></dd><dt><code>title</code></dt><dd class="text">&lt;script&gt;alert(1)&lt;/script&gt;</dd>',
    );
    expect(/<summary>Arguments as canonical JSON<\/summary><pre class="json"><code>(.*?)<\/code>/.exec(page)?.[1]).toBe(
      "{&quot;detail&quot;:{&quot;lines&quot;:[1,2],&quot;urgent&quot;:true},&quot;title&quot;:&quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;}",
    );
    expect(/<span class="countdown" data-expires-at="(\d+)">(.*?)<\/span>/.exec(page)?.slice(1)).toEqual([
      String(T0 + 900),
      "13 min 55 s",
    ]);
    const rows = [
      ...page.matchAll(
        /<tr><th scope="row"><code>([a-z_0-9]+)<\/code><\/th><td><code>([^<]*)<\/code><\/td><td>([^<]*)<\/td><\/tr>/g,
      ),
    ].map((m) => [m[1], m[2], m[3]]);
    const shown = Object.fromEntries(rows.map(([field, value]) => [field, value]));
    const expected = Object.fromEntries(
      Object.entries(view)
        // The arguments, the description and the rule have places of their own on the page.
        .filter(([field]) => !["arguments", "tool_description", "approval_rule"].includes(field))
        .map(([field, value]) => [field, value === null ? "null" : String(value)]),
    );
    expect(shown).toEqual(expected);
    expect(view.tool_description).toBe('Posts a <em>note</em> & "tags" it.');
    expect(rows.find(([field]) => field === "approver_id")?.[2]).toBe("approval_digest");
    expect(rows.find(([field]) => field === "subject_id")?.[2]).toBe("request_sha256");
    expect(/name="approval_digest" value="([0-9a-f]{64})"/.exec(page)?.[1]).toBe(view.approval_digest);
  });

  it("shows the latest checkpoint's status: absent, verified against the tree, or a note that does not verify", async () => {
    const { agent, approver, auditor } = await setup();
    await openApproval(agent);
    const { cookie } = await signIn(approver.secret);
    const status = async () =>
      /<p class="checkpoint [a-z]+" id="checkpoint-status">(.*?)<\/p>/.exec(
        await (await browse("/console/approvals", cookie)).text(),
      )?.[1];
    expect(await status()).toBe(
      "<strong>No checkpoint</strong>: No checkpoint is signed yet (one is signed every 256 entries, or when an auditor asks for it).",
    );
    const checkpoint = (await (await send("GET", `${BASE}/audit/checkpoint`, auditor)).json()) as {
      size: number;
      root: string;
    };
    const keys = (await (await gate("/v1/audit/verifier-keys")).json()) as { keys: string[] };
    const keyId = (keys.keys[0] as string).split("+").slice(0, 2).join("+");
    expect(await status()).toBe(
      `<strong>Verified</strong> (size ${checkpoint.size}, root <code class="hash">${checkpoint.root}</code>): the latest signed checkpoint, signed at <time datetime="2026-07-19T00:00:00Z">2026-07-19 00:00:00 UTC</time>, verifies under the gate's verifier key ${keyId}, and its root is the root of the tree's first ${checkpoint.size} entries (the log now holds ${checkpoint.size}).`,
    );
    await runInDurableObject(env.CONSUMER.get(env.CONSUMER.idFromName(C)), (_i, state) => {
      state.storage.sql.exec(
        "UPDATE audit_checkpoints SET note = replace(note, ?, ?)",
        `\n${checkpoint.size}\n`,
        `\n${checkpoint.size - 1}\n`,
      );
    });
    expect(await status()).toBe(
      "<strong>Not verified</strong>: The signed note does not verify under the gate&#39;s verifier keys (note_signature_invalid).",
    );
  });

  it("lists the newest audit entries first", async () => {
    const { agent, approver } = await setup();
    await openApproval(agent);
    const { cookie } = await signIn(approver.secret);
    const page = await (await browse("/console/approvals", cookie)).text();
    const res = await send("GET", `${BASE}/audit`, (await credential(C, "auditor")).secret);
    const entries = ((await res.json()) as { entries: Array<{ seq: number; kind: string; entry_sha256: string }> })
      .entries;
    const shown = [
      ...page.matchAll(
        /<tr><td>(\d+)<\/td><td><time[^>]*>[^<]*<\/time><\/td><td><code>([a-z_.]+)<\/code><\/td><td><code class="hash">([0-9a-f]{64})<\/code><\/td><\/tr>/g,
      ),
    ].map((m) => [Number(m[1]), m[2], m[3]]);
    // The page was rendered before the auditor's credential was issued: its entry is not there.
    expect(shown).toEqual(
      entries
        .slice(0, -1)
        .reverse()
        .map((e) => [e.seq, e.kind, e.entry_sha256]),
    );
  });
});

describe("console live stream", () => {
  it("sends the pending ids first, then each approval requested and decided (no arguments), for a live session only", async () => {
    const { agent, approver } = await setup();
    const first = await openApproval(agent);
    const { cookie, csrf } = await signIn(approver.secret);
    const res = await browse("/console/events", cookie);
    expect([res.status, res.headers.get("content-type"), securityOf(res)]).toEqual([
      200,
      "text/event-stream; charset=utf-8",
      SECURITY,
    ]);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    const until = async (needle: string) => {
      while (!text.includes(needle)) {
        const chunk = await reader.read();
        if (chunk.done) throw new Error(`stream ended before ${needle}: ${text}`);
        text += decoder.decode(chunk.value, { stream: true });
      }
    };
    await until("approval_ids");
    expect(text).toBe(`retry: 2000\n\nevent: console.pending\nid: ${T0}\ndata: {"approval_ids":["${first}"]}\n\n`);
    const second = await openApproval(agent);
    const view = (await listed(approver.secret)).find((v) => v.approval_id === second) as Record<string, unknown>;
    await until(`id: ${second}\n`);
    const requested = {
      approval_id: second,
      approver_id: null,
      call_id: view.call_id,
      decided_at: null,
      expires_at: T0 + 900,
      operation_id: view.operation_id,
      request_sha256: view.request_sha256,
      requested_at: T0,
      state: "pending",
      subject_id: "user-1",
      tool: "post_note",
      valid_until: null,
    };
    expect(text.slice(text.indexOf("event: approval.requested"))).toBe(
      `event: approval.requested\nid: ${second}\ndata: ${JSON.stringify(requested)}\n\n`,
    );
    text = "";
    expect(
      (
        await decide(
          second,
          cookie,
          { decision: "approve", approval_digest: view.approval_digest },
          { origin: ORIGIN, "x-csrf-token": csrf },
        )
      ).status,
    ).toBe(200);
    await until("\n\n");
    expect(text).toBe(
      `event: approval.decided\nid: ${second}\ndata: ${JSON.stringify({ ...requested, approver_id: "rev-1", decided_at: T0, state: "approved", valid_until: T0 + 600 })}\n\n`,
    );
    await reader.cancel();
    expect(await problemOf(await browse("/console/events", "__Host-toolgate-console=console-a.nothing"))).toEqual([
      401,
      "UNAUTHENTICATED",
    ]);
  });
});
