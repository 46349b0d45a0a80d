/**
 * The console's standing approvals page (docs/console.md): "Approve and allow for …" when it
 * comes from a pending approval (else a grant form), and the list with a Revoke button on each
 * active one. Server-rendered forms that post without the script; every value escaped.
 * @module
 */
import { PROBLEM_TITLES, type ProblemCode } from "../../../contracts/problem";
import { html, shown, timeElement, type SafeHtml } from "../console/html";
import { banner, layout } from "../console/pages";
import type { StandingConsolePage } from "./console-call";

/** What a form post comes back to: `?granted=`, `?revoked=` or `?problem=`. */
export type StandingNotice =
  | { readonly kind: "granted" | "revoked"; readonly standingId: string }
  | { readonly kind: "problem"; readonly code: ProblemCode };

function noticeText(notice: StandingNotice | null): SafeHtml | string {
  if (notice === null) return "";
  if (notice.kind === "problem")
    return html`<p class="error">Nothing was changed: ${PROBLEM_TITLES[notice.code]} (<code>${notice.code}</code>).</p>`;
  return html`<p>${notice.kind === "granted" ? "Granted" : "Revoked"} <code>${notice.standingId}</code>.</p>`;
}

/** The bounds' fields: how long, how many calls, the constraint. */
function boundsFields(page: StandingConsolePage): SafeHtml {
  const setting = page.setting;
  const seconds = setting === null ? 1 : Math.min(3600, setting.max_seconds);
  const calls = setting === null ? 1 : Math.min(10, setting.max_calls);
  return html`<label for="standing-seconds">For how many seconds (at most ${setting?.max_seconds ?? 0})</label>
<input id="standing-seconds" name="seconds" type="number" required min="1" max="${setting?.max_seconds ?? 1}" value="${seconds}">
<label for="standing-calls">For how many calls (at most ${setting?.max_calls ?? 0})</label>
<input id="standing-calls" name="max_calls" type="number" required min="1" max="${setting?.max_calls ?? 1}" value="${calls}">
<label for="standing-constraint">Only when the arguments satisfy (CEL, optional; e.g. <code>args.amount &lt;= 100</code>)</label>
<input id="standing-constraint" name="constraint" type="text" maxlength="2048" spellcheck="false">`;
}

function grantForm(page: StandingConsolePage): SafeHtml {
  const setting = page.setting;
  if (setting === null) return html`<p id="standing-none">This consumer allows no standing approval.</p>`;
  const csrf = html`<input type="hidden" name="csrf" value="${page.identity.csrf}">`;
  const offer = page.offer;
  if (offer !== null) {
    const allowed = setting.tools.includes(offer.tool);
    return html`<section id="approve-and-allow" aria-labelledby="allow-heading">
<h2 id="allow-heading">Approve and allow for …</h2>
<p>Approve <code>${offer.approvalId}</code> (<strong>${shown(offer.tool)}</strong> for subject <strong>${shown(offer.subjectId)}</strong>), and let this subject's next calls of this tool run without asking, within these bounds.</p>
${
  allowed
    ? html`<form method="post" action="/console/standing" class="standing-grant">${csrf}
<input type="hidden" name="approval_id" value="${offer.approvalId}">
<input type="hidden" name="approval_digest" value="${offer.digest}">
<input type="hidden" name="tool" value="${offer.tool}">
<input type="hidden" name="subject_id" value="${offer.subjectId}">
${boundsFields(page)}
<button type="submit" id="standing-submit">Approve and allow</button>
</form>`
    : html`<p>This consumer allows no standing approval of this tool.</p>`
}
</section>`;
  }
  return html`<section id="grant" aria-labelledby="grant-heading">
<h2 id="grant-heading">Grant a standing approval</h2>
<form method="post" action="/console/standing" class="standing-grant">${csrf}
<label for="standing-tool">Tool</label>
<select id="standing-tool" name="tool">${setting.tools.map((tool) => html`<option value="${tool}">${shown(tool)}</option>`)}</select>
<label for="standing-subject">Subject</label>
<input id="standing-subject" name="subject_id" type="text" required maxlength="1024" spellcheck="false">
${boundsFields(page)}
<button type="submit" id="standing-submit">Grant</button>
</form>
</section>`;
}

function row(page: StandingConsolePage, view: StandingConsolePage["standing"][number]): SafeHtml {
  const revoke =
    view.state === "active"
      ? html`<form method="post" action="/console/standing/${view.standing_approval_id}/revoke"><input type="hidden" name="csrf" value="${page.identity.csrf}"><button type="submit" aria-label="Revoke ${view.standing_approval_id}">Revoke</button></form>`
      : "";
  return html`<tr id="standing-${view.standing_approval_id}" data-state="${view.state}"><td><code>${view.standing_approval_id}</code></td><td>${view.state}</td><td>${shown(view.tool)}</td><td>${shown(view.subject_id)}</td><td>${view.used_calls} of ${view.max_calls}</td><td>${timeElement(view.expires_at)}</td><td>${view.constraint === null ? "any arguments" : html`<code>${shown(view.constraint)}</code>`}</td><td>${shown(view.approver_id)}</td><td>${revoke}</td></tr>`;
}

/** The page. */
export function standingPage(page: StandingConsolePage, notice: StandingNotice | null): string {
  const list = page.standing;
  return layout(
    "Standing approvals",
    html`${banner(page.identity)}
<main id="main" tabindex="-1">
<h1>Standing approvals</h1>
<p><a href="/console/approvals">All approvals</a></p>
<div id="announce" class="announce" role="status" aria-live="polite" aria-atomic="true">${noticeText(notice)}</div>
<p>A standing approval lets one subject's calls of one tool run without a decision for each, until its time or its calls run out or it is revoked; each call it covers is in the audit log with its id.</p>
${grantForm(page)}
<section id="standing-list" aria-labelledby="standing-heading">
<h2 id="standing-heading">Standing approvals (newest first)</h2>
${
  list.length === 0
    ? html`<p id="standing-empty">No standing approval has been granted.</p>`
    : html`<table class="decided"><thead><tr><th scope="col">ID</th><th scope="col">State</th><th scope="col">Tool</th><th scope="col">Subject</th><th scope="col">Calls used</th><th scope="col">Until</th><th scope="col">Constraint</th><th scope="col">Granted by</th><th scope="col"><span class="visually-hidden">Revoke</span></th></tr></thead><tbody>${list.map((view) => row(page, view))}</tbody></table>`
}
</section>
</main>`,
    page.identity,
  );
}
