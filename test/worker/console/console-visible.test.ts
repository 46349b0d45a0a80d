/**
 * What the approver reads is what is approved: arguments holding bidi controls, invisible or
 * look-alike characters are shown escaped (`⟨U+202E⟩`) and marked, under a warning, in the
 * argument list and in the canonical JSON; the digest the decision binds is unchanged (the
 * approver API still lists the arguments as stored). Expected markup is written by hand.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, context, credential, gate, pinClock, send, wipe } from "../../kit";

const C = "console-visible";
const BASE = `/v1/consumers/${C}`;
const T0 = 1_784_419_200;
const MEMO = "IBAN DE89 3704 \u202E0044 0532\u202C 0130 00";
const BIDI = '<mark class="hidden-char hidden-bidi" title="bidirectional control: reorders the text around it">';
const LOOKALIKE = '<mark class="hidden-char hidden-confusable" title="look-alike of a Latin letter, digit or sign">';
const COMBINING =
  '<mark class="hidden-char hidden-combining" title="combining mark: with the character before it, passes for another letter (stored decomposed or stacked)">';
const STORED_ORDER_NOTE =
  ' <small class="stored-order-note">(contains right-to-left text, shown in stored order)</small>';
/** A tool whose declared argument names pass for others: U+0440 U+0430 U+0443 reads "pay", "Ko" U+0308 "ln" reads "Köln". */
const NAMES_TOOL = {
  description: "Pays.",
  risk: "write",
  input: {
    type: "object",
    properties: {
      "\u0440\u0430\u0443": { type: "string", maxLength: 40 },
      "Ko\u0308ln": { type: "string", maxLength: 40 },
    },
    required: [],
    additionalProperties: false,
  },
  output: {
    schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false },
  },
  target: { kind: "http", url: "https://ledger.test/pay" },
};

const NOTE_TOOL = {
  description: "Posts a note.",
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

let calls = 0;
async function openApproval(agent: string, subject: string, title: string): Promise<string> {
  calls += 1;
  const args = { title, detail: { lines: [1], urgent: false } };
  const res = await send("POST", `${BASE}/tool-calls`, agent, {
    principal: { subject_id: subject, roles: [] },
    proposal: { name: "post_note", arguments: args },
    context: context(`call-${calls}`, { key: `key-${calls}` }),
  });
  const body = (await res.json()) as { approval_id?: string };
  if (body.approval_id === undefined) throw new Error("no approval opened");
  return body.approval_id;
}

async function signedInPage(approver: string, path: string): Promise<string> {
  const res = await gate("/console/session", {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://gate" },
    body: new URLSearchParams({ consumer: C, credential: approver }).toString(),
  });
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
  return (await gate(path, { headers: { cookie } })).text();
}

function articleOf(page: string, id: string): string {
  return page.slice(page.indexOf(`<article class="approval" id="approval-${id}"`)).split("</article>")[0] as string;
}

beforeEach(async () => {
  await wipe(C);
  expect((await send("PUT", BASE, ADMIN_TOKEN, { tools: [], approver_subjects: ["rev-1"] })).status).toBe(200);
  expect((await send("PUT", `${BASE}/tools/post_note`, ADMIN_TOKEN, NOTE_TOOL)).status).toBe(200);
  expect((await send("PUT", `${BASE}/tools/pay_names`, ADMIN_TOKEN, NAMES_TOOL)).status).toBe(200);
  expect(
    (await send("PUT", BASE, ADMIN_TOKEN, { tools: ["post_note", "pay_names"], approver_subjects: ["rev-1"] })).status,
  ).toBe(200);
  await pinClock(C, T0);
});

describe("the console shows hidden characters of an approval visibly", () => {
  it("escapes and marks the IBAN memo's overrides in the argument list and the canonical JSON, under a warning; the digest binds the memo as stored", async () => {
    const agent = (await credential(C, "agent")).secret;
    const approver = await credential(C, "approver", "rev-1");
    const id = await openApproval(agent, "user-1", MEMO);
    const page = await signedInPage(approver.secret, "/console/approvals");
    const article = articleOf(page, id);
    expect(/<dd class="text">(.*?)<\/dd>/.exec(article)?.[1]).toBe(
      `IBAN DE89 3704 ${BIDI}⟨U+202E⟩</mark>0044 0532${BIDI}⟨U+202C⟩</mark> 0130 00`,
    );
    expect(
      /<summary>Arguments as canonical JSON<\/summary><pre class="json"><code>(.*?)<\/code>/.exec(article)?.[1],
    ).toBe(
      `{&quot;detail&quot;:{&quot;lines&quot;:[1],&quot;urgent&quot;:false},&quot;title&quot;:&quot;IBAN DE89 3704 ${BIDI}⟨U+202E⟩</mark>0044 0532${BIDI}⟨U+202C⟩</mark> 0130 00&quot;}`,
    );
    expect(/<div class="hidden-warning"[^>]*>(.*?)<\/div>/.exec(article)?.[0]).toBe(
      `<div class="hidden-warning" id="hidden-${id}" role="note"><p><strong>Warning: these arguments hold 2 characters you could not see as they are</strong> (2 bidirectional controls). Each is shown highlighted as its code point, <code>⟨U+…⟩</code>. Your decision binds the arguments as they are stored, these characters included.</p></div>`,
    );
    expect(
      [
        ...article.matchAll(
          /<button type="submit" name="decision" value="(approve|deny)" class="\1" aria-describedby="([^"]+)">/g,
        ),
      ].map((m) => m[2]),
    ).toEqual([`hidden-${id}`, `hidden-${id}`]);
    // No raw bidi control reaches the page.
    expect(/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/.test(page)).toBe(false);
    // The approver API lists the memo as stored, and the form posts that view's digest.
    const view = (
      (await (await send("GET", `${BASE}/approvals`, approver.secret)).json()) as {
        approvals: Array<{ arguments: { title: string }; approval_digest: string }>;
      }
    ).approvals[0];
    expect(view?.arguments.title).toBe(MEMO);
    expect(/name="approval_digest" value="([0-9a-f]{64})"/.exec(article)?.[1]).toBe(view?.approval_digest);
  });

  it("marks a value of Cyrillic letters that reads as a Latin word, and escapes line feeds beyond a blank line, both under the warning", async () => {
    const agent = (await credential(C, "agent")).secret;
    const approver = await credential(C, "approver", "rev-1");
    const pay = await openApproval(agent, "user-1", "\u0420\u0410\u0423");
    const pushed = await openApproval(agent, "user-1", `June support${"\n".repeat(5)}IBAN XX00 EVIL`);
    const page = await signedInPage(approver.secret, "/console/approvals");
    const payArticle = articleOf(page, pay);
    expect(/<dd class="text">(.*?)<\/dd>/.exec(payArticle)?.[1]).toBe(
      `${LOOKALIKE}⟨U+0420⟩</mark>${LOOKALIKE}⟨U+0410⟩</mark>${LOOKALIKE}⟨U+0423⟩</mark>`,
    );
    expect(/<strong>(Warning: [^<]*)<\/strong> \(([^)]*)\)/.exec(payArticle)?.slice(1)).toEqual([
      "Warning: these arguments hold 3 characters you could not see as they are",
      "3 look-alike characters",
    ]);
    const pushedArticle = articleOf(page, pushed);
    const CONTROL = /<mark class="hidden-char hidden-control" title="[^"]*">⟨U\+000A⟩<\/mark>/g;
    const shownMemo = /<dd class="text">([\s\S]*?)<\/dd>/.exec(pushedArticle)?.[1] ?? "";
    expect([
      shownMemo.startsWith("June support\n\n"),
      [...shownMemo.matchAll(CONTROL)].length,
      shownMemo.replace(CONTROL, "·"),
    ]).toEqual([true, 3, "June support\n\n···IBAN XX00 EVIL"]);
  });

  it("marks a look-alike letter in the requesting subject, and shows no warning for arguments without hidden characters", async () => {
    const agent = (await credential(C, "agent")).secret;
    const approver = await credential(C, "approver", "rev-1");
    const id = await openApproval(agent, "us\u0435r-1", "Quarterly report");
    const page = await signedInPage(approver.secret, `/console/approvals/${id}`);
    expect(/<dt>Requested by<\/dt><dd><code>(.*?)<\/code><\/dd>/.exec(page)?.[1]).toBe(
      `us${LOOKALIKE}⟨U+0435⟩</mark>r-1`,
    );
    expect(page.includes('class="hidden-warning"')).toBe(false);
    expect(/<dd class="text">(.*?)<\/dd>/.exec(page)?.[1]).toBe("Quarterly report");
  });

  it("lays out a memo with a Hebrew letter in stored order (isolate-override) with a note, in the argument list and the canonical JSON", async () => {
    const agent = (await credential(C, "agent")).secret;
    const approver = await credential(C, "approver", "rev-1");
    // U+05D0 HEBREW LETTER ALEF: rendered plainly, "\u05D0 0044 0532" reads "0532 0044 \u05D0".
    const id = await openApproval(agent, "user-1", "\u05D0 0044 0532");
    const article = articleOf(await signedInPage(approver.secret, `/console/approvals/${id}`), id);
    expect(/<dd class="text">(.*?)<\/dd>/.exec(article)?.[1]).toBe(
      `<span class="stored-order" dir="ltr">\u05D0 0044 0532</span>${STORED_ORDER_NOTE}`,
    );
    expect(
      /<summary>Arguments as canonical JSON<\/summary><pre class="json"><code>(.*?)<\/code>/.exec(article)?.[1],
    ).toBe(
      `<span class="stored-order" dir="ltr">{&quot;detail&quot;:{&quot;lines&quot;:[1],&quot;urgent&quot;:false},&quot;title&quot;:&quot;\u05D0 0044 0532&quot;}</span>${STORED_ORDER_NOTE}`,
    );
    // The subject holds no right-to-left letter: it is shown as it was, unwrapped.
    expect(/<dt>Requested by<\/dt><dd><code>(.*?)<\/code><\/dd>/.exec(article)?.[1]).toBe("user-1");
  });

  it("lays out a subject with an Arabic letter in stored order", async () => {
    const agent = (await credential(C, "agent")).secret;
    const approver = await credential(C, "approver", "rev-1");
    // U+0627 ARABIC LETTER ALEF, U+0644 ARABIC LETTER LAM.
    const id = await openApproval(agent, "\u0627\u0644-12-34", "Quarterly report");
    const article = articleOf(await signedInPage(approver.secret, `/console/approvals/${id}`), id);
    expect(/<dt>Requested by<\/dt><dd><code>(.*?)<\/code><\/dd>/.exec(article)?.[1]).toBe(
      `<span class="stored-order" dir="ltr">\u0627\u0644-12-34</span>${STORED_ORDER_NOTE}`,
    );
  });

  it("marks look-alike and decomposed argument names in the list, the canonical JSON and the warning", async () => {
    const agent = (await credential(C, "agent")).secret;
    const approver = await credential(C, "approver", "rev-1");
    calls += 1;
    const args = { "\u0440\u0430\u0443": "10", "Ko\u0308ln": "ok" };
    const res = await send("POST", `${BASE}/tool-calls`, agent, {
      principal: { subject_id: "user-1", roles: [] },
      proposal: { name: "pay_names", arguments: args },
      context: context(`call-${calls}`, { key: `key-${calls}` }),
    });
    const id = ((await res.json()) as { approval_id: string }).approval_id;
    const article = articleOf(await signedInPage(approver.secret, `/console/approvals/${id}`), id);
    // Canonical order sorts by UTF-16 code units: "Ko\u0308ln" before the Cyrillic name.
    expect([...article.matchAll(/<dt><code>(.*?)<\/code><\/dt>/g)].map((m) => m[1])).toEqual([
      `Ko${COMBINING}⟨U+0308⟩</mark>ln`,
      `${LOOKALIKE}⟨U+0440⟩</mark>${LOOKALIKE}⟨U+0430⟩</mark>${LOOKALIKE}⟨U+0443⟩</mark>`,
    ]);
    expect(
      /<summary>Arguments as canonical JSON<\/summary><pre class="json"><code>(.*?)<\/code>/.exec(article)?.[1],
    ).toBe(
      `{&quot;Ko${COMBINING}⟨U+0308⟩</mark>ln&quot;:&quot;ok&quot;,&quot;${LOOKALIKE}⟨U+0440⟩</mark>${LOOKALIKE}⟨U+0430⟩</mark>${LOOKALIKE}⟨U+0443⟩</mark>&quot;:&quot;10&quot;}`,
    );
    expect(/<div class="hidden-warning"[^>]*><p><strong>(.*?)<\/strong> \((.*?)\)/.exec(article)?.slice(1)).toEqual([
      "Warning: these arguments hold 4 characters you could not see as they are",
      "1 combining mark, 3 look-alike characters",
    ]);
  });
});
