/**
 * The people's and the agent's words in the console (#31): the deny form posts a reason (with
 * and without the script) that reaches the agent's model; an approval's page shows the agent's
 * rationale beside the arguments, as the agent's, its bidi controls escaped and marked.
 * Expected markup is written by hand.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, context, credential, gate, secretOf, send, setupConsumer, wipe } from "../../kit";

const C = "console-words";
const BASE = `/v1/consumers/${C}`;
const T0 = 1_784_419_200;
const ORIGIN = "http://gate";
const BIDI = '<mark class="hidden-char hidden-bidi" title="bidirectional control: reorders the text around it">';
const INVALID = "Approval expired or is not bound to the current request.";

const NOTE_TOOL = {
  description: "Posts a note.",
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

function form(path: string, fields: Record<string, string>, headers: Record<string, string>): Promise<Response> {
  return gate(path, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

async function signIn(secret: string): Promise<{ cookie: string; csrf: string }> {
  const res = await form("/console/session", { consumer: C, credential: secret }, { origin: ORIGIN });
  expect(res.status).toBe(303);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const page = await (await gate("/console/approvals", { headers: { cookie } })).text();
  return { cookie, csrf: /<meta name="csrf-token" content="([0-9a-f]{64})">/.exec(page)?.[1] ?? "" };
}

let agent: string;
let approver: string;

beforeEach(async () => {
  await wipe(C);
  await setupConsumer(C, {
    config: { approver_subjects: ["rev-1"] },
    definitions: { post_note: NOTE_TOOL },
    tools: ["post_note"],
    clock: T0,
  });
  agent = await secretOf(C, "agent");
  approver = (await credential(C, "approver", "rev-1")).secret;
});

let calls = 0;
async function callNote(title: string, rationale?: string, key = `key-${++calls}`) {
  const res = await send("POST", `${BASE}/tool-calls`, agent, {
    principal: { subject_id: "user-1", roles: [] },
    proposal: { name: "post_note", arguments: { title } },
    context: context(`call-${key}`, { key }),
    ...(rationale === undefined ? {} : { rationale }),
  });
  return res.json<{ approval_id?: string; model_result: { error: Record<string, unknown> | null } }>();
}

async function digestOf(id: string): Promise<string> {
  const res = await send("GET", `${BASE}/approvals`, approver);
  const list = await res.json<{ approvals: Array<{ approval_id: string; approval_digest: string }> }>();
  return list.approvals.find((a) => a.approval_id === id)?.approval_digest ?? "";
}

describe("the console's deny form", () => {
  it("offers a reason field, and a reason posted without the script reaches the agent's model", async () => {
    const opened = await callNote("Quarterly report", undefined, "k-form");
    const id = opened.approval_id ?? "";
    const { cookie, csrf } = await signIn(approver);
    const page = await (await gate(`/console/approvals/${id}`, { headers: { cookie } })).text();
    expect(/<p class="reason">.*?<\/p>/s.exec(page)?.[0]).toBe(
      `<p class="reason"><label for="reason-${id}">Reason (optional, at most 500 characters): with a denial or an edit, the agent's model reads it as your words.</label>\n` +
        `<input type="text" id="reason-${id}" name="reason" maxlength="500" autocomplete="off" spellcheck="true"></p>`,
    );
    const digest = await digestOf(id);
    const res = await form(
      `/console/approvals/${id}`,
      { csrf, decision: "deny", approval_digest: digest, reason: "Not this quarter" },
      { origin: ORIGIN, cookie },
    );
    expect([res.status, res.headers.get("location")]).toEqual([
      303,
      `/console/approvals?decided=denied&approval=${id}`,
    ]);
    const status = await (await send("GET", `${BASE}/approvals/${id}`, agent)).json<Record<string, unknown>>();
    expect([status["state"], status["reason"]]).toEqual(["denied", "Not this quarter"]);
    const denied = await callNote("Quarterly report", undefined, "k-form");
    expect(denied.model_result.error?.["safe_message"]).toBe(`${INVALID} The approver said: "Not this quarter"`);
  });

  it("takes an empty reason field as none, and the script's JSON reason", async () => {
    const first = (await callNote("First")).approval_id ?? "";
    const second = (await callNote("Second")).approval_id ?? "";
    const { cookie, csrf } = await signIn(approver);
    const empty = await form(
      `/console/approvals/${first}`,
      { csrf, decision: "deny", approval_digest: await digestOf(first), reason: "" },
      { origin: ORIGIN, cookie },
    );
    expect(empty.status).toBe(303);
    const none = await (await send("GET", `${BASE}/approvals/${first}`, agent)).json<Record<string, unknown>>();
    expect([none["state"], "reason" in none]).toEqual(["denied", false]);

    const res = await gate(`/console/approvals/${second}`, {
      method: "POST",
      headers: { cookie, origin: ORIGIN, "content-type": "application/json", "x-csrf-token": csrf },
      body: JSON.stringify({ decision: "deny", approval_digest: await digestOf(second), reason: "Duplicate" }),
    });
    expect(await res.json()).toEqual({
      approval_id: second,
      state: "denied",
      approver_id: "rev-1",
      decided_at: T0,
      valid_until: null,
      reason: "Duplicate",
      bound_to_request: true,
    });
  });
});

describe("the console's edit form", () => {
  it("prefills the arguments as JSON with a bidi control shown, and an edit posted without the script reaches the agent's model", async () => {
    const opened = await callNote("Q3 \u202Etroper\u202C", undefined, "k-edit");
    const id = opened.approval_id ?? "";
    const { cookie, csrf } = await signIn(approver);
    const page = await (await gate(`/console/approvals/${id}`, { headers: { cookie } })).text();
    expect(/<details class="edit">.*?<\/details>/s.exec(page)?.[0]).toBe(
      `<details class="edit"><summary>Edit the arguments</summary>\n` +
        `<p><label for="arguments-${id}">The arguments as JSON. The agent is told to call again with exactly these; its proposed call never runs.</label></p>\n` +
        `<textarea id="arguments-${id}" name="arguments" rows="8" cols="60" maxlength="16384" spellcheck="false" autocomplete="off">{\n  &quot;title&quot;: &quot;Q3 ⟨U+202E⟩troper⟨U+202C⟩&quot;\n}</textarea>\n` +
        `<button type="submit" name="decision" value="edit" class="edit" aria-describedby="hidden-${id}">Approve edited<span class="visually-hidden"> post_note (${id})</span></button>\n` +
        `</details>`,
    );
    const digest = await digestOf(id);
    // Not strict JSON (a duplicate member): refused, nothing decided.
    const duplicate = await form(
      `/console/approvals/${id}`,
      { csrf, decision: "edit", approval_digest: digest, arguments: '{"title":"a","title":"b"}', reason: "" },
      { origin: ORIGIN, cookie },
    );
    expect([duplicate.status, duplicate.headers.get("location")]).toEqual([
      303,
      `/console/approvals?problem=INVALID_JSON&approval=${id}`,
    ]);
    const res = await form(
      `/console/approvals/${id}`,
      { csrf, decision: "edit", approval_digest: digest, arguments: '{\n  "title": "Q3 report"\n}', reason: "Typo" },
      { origin: ORIGIN, cookie },
    );
    expect([res.status, res.headers.get("location")]).toEqual([
      303,
      `/console/approvals?decided=edited&approval=${id}`,
    ]);
    const status = await (await send("GET", `${BASE}/approvals/${id}`, agent)).json<Record<string, unknown>>();
    expect([status["state"], status["reason"], (status["edited"] as Record<string, unknown>)["arguments"]]).toEqual([
      "edited",
      "Typo",
      { title: "Q3 report" },
    ]);
    const edited = await callNote("Q3 \u202Etroper\u202C", undefined, "k-edit");
    expect(edited.model_result.error?.["safe_message"]).toBe(
      `${INVALID} The approver edited the arguments: call the tool again with exactly these arguments: {"title":"Q3 report"} The approver said: "Typo"`,
    );
  });
});

describe("the agent's rationale in the console", () => {
  it("is shown beside the arguments as the agent's words, a bidi control escaped and marked", async () => {
    const opened = await callNote("Quarterly report", "Asked by the CFO \u202Etoday\u202C");
    const id = opened.approval_id ?? "";
    const { cookie } = await signIn(approver);
    for (const path of [`/console/approvals/${id}`, "/console/approvals"]) {
      const page = await (await gate(path, { headers: { cookie } })).text();
      expect(/<section class="rationale".*?<\/section>/s.exec(page)?.[0]).toBe(
        `<section class="rationale" aria-labelledby="rationale-${id}"><h4 id="rationale-${id}">The agent's rationale</h4>\n` +
          `<p class="attribution">In the agent's own words, sent with the call: the gate has not checked them, and they are not part of the digest.</p>\n` +
          `<blockquote class="agent-words"><p>Asked by the CFO ${BIDI}⟨U+202E⟩</mark>today${BIDI}⟨U+202C⟩</mark></p></blockquote></section>`,
      );
    }
    const other = (await callNote("Without words")).approval_id ?? "";
    const page = await (await gate(`/console/approvals/${other}`, { headers: { cookie } })).text();
    expect(page.includes('class="rationale"')).toBe(false);
  });
});

describe("why a person decides, in the console", () => {
  const why = (page: string) => /<dt>Why a person decides<\/dt><dd>.*?<\/dd>/s.exec(page)?.[0];

  it("a write without a rule: every call of the tool asks", async () => {
    const id = (await callNote("Plain")).approval_id ?? "";
    const { cookie } = await signIn(approver);
    const page = await (await gate(`/console/approvals/${id}`, { headers: { cookie } })).text();
    expect(why(page)).toBe("<dt>Why a person decides</dt><dd>Every call of this tool asks a person.</dd>");
    const view = (await (await send("GET", `${BASE}/approvals`, approver)).json<{ approvals: any[] }>()).approvals[0];
    expect([view.approval_id, view.tool_description, "approval_rule" in view]).toEqual([id, "Posts a note.", false]);
  });

  it("a write with a rule: the rule as its author wrote it, a bidi control escaped and marked", async () => {
    const rule = 'args.title != "\u202Eok"';
    expect((await send("PUT", `${BASE}/tools/post_note`, ADMIN_TOKEN, { ...NOTE_TOOL, approval: rule })).status).toBe(
      200,
    );
    const id = (await callNote("Quarterly")).approval_id ?? "";
    const { cookie } = await signIn(approver);
    const page = await (await gate(`/console/approvals/${id}`, { headers: { cookie } })).text();
    // The approval API shows the approver the same context: the tool's description and its rule.
    const view = (await (await send("GET", `${BASE}/approvals`, approver)).json<{ approvals: any[] }>()).approvals[0];
    expect([view.approval_id, view.tool_description, view.approval_rule]).toEqual([id, "Posts a note.", rule]);
    expect(why(page)).toBe(
      "<dt>Why a person decides</dt><dd>The tool's approval rule holds for these arguments: " +
        `<code>args.title != &quot;${BIDI}⟨U+202E⟩</mark>ok&quot;</code></dd>`,
    );
  });
});
