/**
 * The console's parts that show approvals and the audit log: one pending approval (the tool,
 * its description and risk, the subject, the arguments as a readable list and as canonical
 * JSON, every digest input, the time left, Approve and Deny), a settled approval's row, and the
 * audit section with the checkpoint's verification status. What the approver reads is shown
 * with bidi controls, invisible and look-alike characters escaped and marked (./html `shown`),
 * and a warning above arguments that hold any; the digest still binds the arguments as stored.
 * @module
 */
import { canonicalJson, prettyJson, PyFloat, readJson, type Json } from "../../../core/json";
import { APPROVAL_DIGEST_FIELDS, REQUEST_DIGEST_FIELDS } from "../../../core/tool-result/digests";
import type { CheckpointStatus, ConsoleApproval, ConsoleAudit, ConsoleSettled } from "./view";
import { hiddenArguments } from "./hidden-warning";
import { controlText, html, shown, timeElement, timeLeft, type SafeHtml } from "./html";

/** The fields of the request digest and of the approval digest (docs/approvals.md). */
const REQUEST_INPUTS = new Set<string>(REQUEST_DIGEST_FIELDS);
const APPROVAL_INPUTS = new Set<string>(APPROVAL_DIGEST_FIELDS);

function argumentsOf(text: string): Record<string, Json> {
  const read = readJson(text);
  if (
    !read.ok ||
    typeof read.value !== "object" ||
    read.value === null ||
    Array.isArray(read.value) ||
    read.value instanceof PyFloat
  ) {
    throw new Error("an approval's arguments are not a JSON object");
  }
  return read.value;
}

/** One argument's value: text as it is, other scalars as JSON, nested values as indented JSON. */
function argumentValue(value: Json): SafeHtml {
  // Read beside Latin argument names: a word of look-alikes alone (`РАУ`) is marked too.
  if (typeof value === "string")
    return html`<dd class="text">${shown(value, { layout: true, latinContext: true })}</dd>`;
  if (typeof value === "object" && value !== null && !(value instanceof PyFloat))
    return html`<dd><pre class="json"><code>${shown(prettyJson(value), { layout: true })}</code></pre></dd>`;
  return html`<dd><code>${canonicalJson(value)}</code></dd>`;
}

function inputsOf(field: string): string {
  const of = [
    REQUEST_INPUTS.has(field) ? "request_sha256" : "",
    APPROVAL_INPUTS.has(field) ? "approval_digest" : "",
  ].filter((d) => d !== "");
  return of.length === 0 ? "—" : of.join(", ");
}

function digestRows(item: ConsoleApproval): SafeHtml[] {
  const rows: SafeHtml[] = [];
  for (const [field, value] of Object.entries(item.view)) {
    rows.push(
      html`<tr><th scope="row"><code>${field}</code></th><td><code>${shown(value === null ? "null" : String(value))}</code></td><td>${inputsOf(field)}</td></tr>`,
    );
    if (field === "tool")
      rows.push(
        html`<tr><th scope="row"><code>arguments</code></th><td>the canonical JSON above</td><td>${inputsOf("arguments")}</td></tr>`,
      );
  }
  return rows;
}

/** The agent's words with the call, shown as its claim (never checked by the gate, never hashed). */
function rationaleOf(id: string, rationale: string): SafeHtml {
  return html`<section class="rationale" aria-labelledby="rationale-${id}"><h4 id="rationale-${id}">The agent's rationale</h4>
<p class="attribution">In the agent's own words, sent with the call: the gate has not checked them, and they are not part of the digest.</p>
<blockquote class="agent-words"><p>${shown(rationale)}</p></blockquote></section>`;
}

/**
 * The edit part of a decision form: the arguments as JSON, prefilled with hidden characters
 * shown as their escapes (left so, they are sent as written), and the button that approves the
 * edited arguments instead (the original call never runs; docs/approvals.md, "Edit").
 */
function editPart(id: string, args: Record<string, Json>, label: string, described: SafeHtml | string): SafeHtml {
  return html`<details class="edit"><summary>Edit the arguments</summary>
<p><label for="arguments-${id}">The arguments as JSON. The agent is told to call again with exactly these; its proposed call never runs.</label></p>
<textarea id="arguments-${id}" name="arguments" rows="8" cols="60" maxlength="16384" spellcheck="false" autocomplete="off">${controlText(prettyJson(args), { layout: true })}</textarea>
<button type="submit" name="decision" value="edit" class="edit"${described}>Approve edited<span class="visually-hidden"> ${label}</span></button>
</details>`;
}

/** The rule that asked for a person, as the approver reads it. */
function whyAsked(rule: ConsoleApproval["approvalRule"]): SafeHtml | string {
  if (rule === "every") return "Every call of this tool asks a person.";
  if (rule === "code") return "The tool's own code asked for a person for these arguments.";
  return html`The tool's approval rule holds for these arguments: <code>${shown(rule.cel)}</code>`;
}

/** One pending approval as an `<article>` (heading level 3), its decision form posting the digest shown. */
export function approvalArticle(item: ConsoleApproval, csrf: string, now: number): SafeHtml {
  const view = item.view;
  const id = view.approval_id;
  const args = argumentsOf(item.argumentsJson);
  const names = Object.keys(args);
  const label = `${view.tool} (${id})`;
  const warning = hiddenArguments(args, `hidden-${id}`);
  const described = warning === null ? "" : html` aria-describedby="hidden-${id}"`;
  const rationale = view.rationale === undefined ? "" : rationaleOf(id, view.rationale);
  // The requesting end user confirms in the agent's chat: an approver may only deny (END_USER_CONFIRMS).
  const endUser = view.confirmed_by === "end_user";
  return html`<article class="approval" id="approval-${id}" data-approval-id="${id}" data-expires-at="${view.expires_at}" aria-labelledby="title-${id}">
<h3 id="title-${id}"><a href="/console/approvals/${id}">${shown(view.tool)}</a> <span class="risk risk-${item.risk}">risk: ${item.risk}</span></h3>
<p class="description">${shown(item.description ?? "This tool has no description.")}</p>
<dl class="facts">
<dt>Requested by</dt><dd><code>${shown(view.subject_id)}</code></dd>
<dt>Requested at</dt><dd>${timeElement(view.requested_at)}</dd>
<dt>Time left</dt><dd><span class="countdown" data-expires-at="${view.expires_at}">${timeLeft(view.expires_at, now)}</span> (until ${timeElement(view.expires_at)})</dd>
<dt>Approval</dt><dd><code>${id}</code></dd>
<dt>Why a person decides</dt><dd>${whyAsked(item.approvalRule)}</dd>
${endUser ? html`<dt>Who confirms</dt><dd class="end-user">The end user who asked, <code>${shown(view.subject_id)}</code>, confirms this call in the agent's chat. You may deny it; you cannot approve or edit it.</dd>` : ""}
</dl>
<h4>Arguments</h4>
${warning ?? ""}
${names.length === 0 ? html`<p>No arguments.</p>` : html`<dl class="arguments">${names.map((name) => html`<dt><code>${shown(name, { latinContext: true })}</code></dt>${argumentValue(args[name] as Json)}`)}</dl>`}
${rationale}
<details class="canonical"><summary>Arguments as canonical JSON</summary><pre class="json"><code>${shown(item.argumentsJson)}</code></pre></details>
<details class="inputs"><summary>Every digest input</summary>
<table><caption>The fields this approver's <code>approval_digest</code> is computed over (and <code>request_sha256</code>'s); docs/approvals.md shows how to recompute both.</caption>
<thead><tr><th scope="col">field</th><th scope="col">value</th><th scope="col">input of</th></tr></thead>
<tbody>${digestRows(item)}</tbody></table></details>
<form class="decision" method="post" action="/console/approvals/${id}">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="approval_digest" value="${view.approval_digest}">
<p class="digest">Your decision is bound to <code>approval_digest</code> <code class="hash">${view.approval_digest}</code>.</p>
${endUser ? "" : html`<button type="submit" name="decision" value="approve" class="approve"${described}>Approve<span class="visually-hidden"> ${label}</span></button>`}
<p class="reason"><label for="reason-${id}">Reason (optional, at most 500 characters): with a denial${endUser ? "" : " or an edit"}, the agent's model reads it as your words.</label>
<input type="text" id="reason-${id}" name="reason" maxlength="500" autocomplete="off" spellcheck="true"></p>
<button type="submit" name="decision" value="deny" class="deny"${described}>Deny<span class="visually-hidden"> ${label}</span></button>
${endUser ? "" : editPart(id, args, label, described)}
</form>
</article>`;
}

/** A settled approval's table row (the script builds the same for one decided live). */
export function settledRow(item: ConsoleSettled): SafeHtml {
  return html`<tr id="decided-${item.approval_id}"><td><code>${item.approval_id}</code></td><td>${shown(item.tool)}</td><td><code>${shown(item.subject_id)}</code></td><td class="state state-${item.state}">${item.state}</td><td>${shown(item.approver_id ?? "—")}</td><td>${item.decided_at === null ? "—" : timeElement(item.decided_at)}</td><td>${item.valid_until === null ? "—" : timeElement(item.valid_until)}</td></tr>`;
}

/** The header row of the decided table (the script's rows follow its columns). */
export const SETTLED_HEAD = html`<thead><tr><th scope="col">approval</th><th scope="col">tool</th><th scope="col">subject</th><th scope="col">state</th><th scope="col">approver</th><th scope="col">decided at</th><th scope="col">call valid until</th></tr></thead>`;

function checkpointText(status: CheckpointStatus): SafeHtml {
  switch (status.state) {
    case "verified":
      return html`<p class="checkpoint verified" id="checkpoint-status"><strong>Verified</strong> (size ${status.size}, root <code class="hash">${status.root}</code>): the latest signed checkpoint, signed at ${timeElement(status.signedAt)}, verifies under the gate's verifier key ${status.verifiedBy.join(", ")}, and its root is the root of the tree's first ${status.size} entries (the log now holds ${status.treeSize}).</p>`;
    case "absent":
      return html`<p class="checkpoint absent" id="checkpoint-status"><strong>No checkpoint</strong>: ${status.reason}</p>`;
    case "failed":
      return html`<p class="checkpoint failed" id="checkpoint-status"><strong>Not verified</strong>: ${status.reason}</p>`;
  }
}

/** The audit section's content: the checkpoint's status, then the newest entries. */
export function auditPart(audit: ConsoleAudit): SafeHtml {
  const rows = audit.entries.map(
    (e) =>
      html`<tr><td>${e.seq}</td><td>${timeElement(e.at)}</td><td><code>${e.kind}</code></td><td><code class="hash">${e.entry_sha256}</code></td></tr>`,
  );
  return html`${checkpointText(audit.checkpoint)}
<p>The log holds ${audit.size} ${audit.size === 1 ? "entry" : "entries"}; the newest ${audit.entries.length} are listed, newest first.</p>
${
  rows.length === 0
    ? html`<p>No entry yet.</p>`
    : html`<table class="audit"><caption>Latest audit entries</caption><thead><tr><th scope="col">seq</th><th scope="col">at</th><th scope="col">kind</th><th scope="col">entry_sha256</th></tr></thead><tbody>${rows}</tbody></table>`
}`;
}
