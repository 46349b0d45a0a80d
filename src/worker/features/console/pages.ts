/**
 * The approver console's pages, rendered on the server with every value escaped (./html): the
 * sign-in form, the approvals page (pending, decided, audit) and one approval's page. They work
 * before (and without) the script: lists render, forms post; the script (./script) adds live
 * updates, countdowns and decisions without a reload.
 * @module
 */
import { PROBLEM_TITLES, type ProblemCode } from "../../../contracts/problem";
import type { ConsoleApproval, ConsoleIdentity, ConsolePage, ConsoleSettled } from "./view";
import { approvalArticle, auditPart, settledRow, SETTLED_HEAD } from "./approval-html";
import { html, shown, timeElement, type SafeHtml } from "./html";

/** What a form post without script comes back to (`?decided=` or `?problem=` with `&approval=`). */
export type ConsoleNotice =
  | { readonly kind: "decided"; readonly approvalId: string; readonly state: "approved" | "denied" | "edited" }
  | { readonly kind: "problem"; readonly approvalId: string | null; readonly code: ProblemCode };

/** A console page: its head (styles, script, the session's CSRF token) and body (exported for the other pages' files). */
export function layout(title: string, body: SafeHtml, identity: ConsoleIdentity | null): string {
  return `<!doctype html>\n${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · toolgate console</title>
<link rel="stylesheet" href="/console/styles.css">
${identity === null ? "" : html`<meta name="csrf-token" content="${identity.csrf}">`}
<script src="/console/script.js" defer></script>
</head>
<body${identity === null ? "" : html` data-now="${identity.now}"`}>
<a class="skip-link" href="#main">Skip to main content</a>
${body}
</body>
</html>
`.toString()}`;
}

/** The page's banner: the consumer, the approver, the session's end and sign-out. */
export function banner(identity: ConsoleIdentity | null): SafeHtml {
  const who =
    identity === null
      ? ""
      : html`<p class="who">Consumer <strong>${shown(identity.consumer)}</strong>, approver <strong>${shown(identity.approverId)}</strong>. The session ends by ${timeElement(identity.sessionExpiresAt)}, or after 15 minutes without a page or a decision.</p>
<form method="post" action="/console/sign-out" class="sign-out"><input type="hidden" name="csrf" value="${identity.csrf}"><button type="submit">Sign out</button></form>`;
  return html`<header class="top">
<p class="brand"><a href="/console/approvals">toolgate console</a></p>
${who}
</header>`;
}

/** The sign-in page; `error` (a refused sign-in answers it with 401) or `info` (signed out, session ended) is shown above the form. */
export function signInPage(error: string | null, consumer: string, info: string | null): string {
  const message =
    error === null
      ? info === null
        ? ""
        : html`<p class="info" role="status">${info}</p>`
      : html`<p class="error" role="alert" id="sign-in-error">${error}</p>`;
  return layout(
    "Sign in",
    html`${banner(null)}
<main id="main" tabindex="-1">
<h1>Sign in to approve</h1>
<p>Sign in with an approver credential of the consumer (<code>tg_approver_…</code>). It is exchanged for a session of at most one hour; the credential itself is not kept in the browser.</p>
${message}
<form method="post" action="/console/session" class="sign-in"${error === null ? "" : html` aria-describedby="sign-in-error"`}>
<label for="consumer">Consumer</label>
<input id="consumer" name="consumer" type="text" required maxlength="64" autocomplete="username" spellcheck="false" value="${consumer}">
<label for="credential">Approver credential</label>
<input id="credential" name="credential" type="password" required maxlength="512" autocomplete="current-password">
<button type="submit">Sign in</button>
</form>
</main>`,
    null,
  );
}

function noticeText(notice: ConsoleNotice | null): SafeHtml | string {
  if (notice === null) return "";
  if (notice.kind === "decided")
    return html`<p>${{ approved: "Approved", denied: "Denied", edited: "Edited" }[notice.state]} <code>${notice.approvalId}</code>.</p>`;
  const which = notice.approvalId === null ? "" : html` <code>${notice.approvalId}</code>`;
  return html`<p class="error">Not decided${which}: ${PROBLEM_TITLES[notice.code]} (<code>${notice.code}</code>).</p>`;
}

const ANNOUNCE = (notice: ConsoleNotice | null) =>
  html`<div id="announce" class="announce" role="status" aria-live="polite" aria-atomic="true">${noticeText(notice)}</div>`;

function decidedTable(decided: readonly ConsoleSettled[]): SafeHtml {
  return html`<p id="decided-empty"${decided.length === 0 ? "" : html` hidden`}>No approval has been decided yet.</p>
<table id="decided-table" class="decided"${decided.length === 0 ? html` hidden` : ""}><caption>The newest decisions first (at most 20)</caption>${SETTLED_HEAD}<tbody id="decided-rows">${decided.map(settledRow)}</tbody></table>`;
}

/** The approvals page: pending (live with the script), decided, and the audit log. */
export function approvalsPage(page: ConsolePage, notice: ConsoleNotice | null): string {
  const count = page.pending.length;
  return layout(
    "Approvals",
    html`${banner(page)}
<main id="main" tabindex="-1">
<h1>Approvals</h1>
<nav aria-label="Sections"><ul class="sections"><li><a href="#pending">Pending</a></li><li><a href="#decided">Decided</a></li><li><a href="#audit">Audit log</a></li><li><a href="/console/shadow">Policies in shadow</a></li></ul></nav>
${ANNOUNCE(notice)}
<section id="pending" aria-labelledby="pending-heading">
<h2 id="pending-heading">Pending (<span id="pending-count">${count}</span>)</h2>
<p id="live-status" class="live-status">Shown as of ${timeElement(page.now)}; reload for new approvals.</p>
<p id="pending-empty"${count === 0 ? "" : html` hidden`}>No approval is waiting for a decision.</p>
${page.morePending ? html`<p>More approvals are waiting than one page shows: decide these, then reload.</p>` : ""}
<div id="pending-list">${page.pending.map((item) => approvalArticle(item, page.csrf, page.now))}</div>
</section>
<section id="decided" aria-labelledby="decided-heading">
<h2 id="decided-heading">Decided</h2>
${decidedTable(page.decided)}
</section>
<section id="audit" aria-labelledby="audit-heading">
<h2 id="audit-heading">Audit log</h2>
${auditPart(page.audit)}
</section>
</main>`,
    page,
  );
}

/** One approval's page: the pending approval (decidable here), or what became of it. */
export function approvalPage(
  identity: ConsoleIdentity,
  approvalId: string,
  pending: ConsoleApproval | null,
  settled: ConsoleSettled | null,
): string {
  const part =
    pending !== null
      ? html`<section aria-labelledby="state-heading"><h2 id="state-heading">Waiting for a decision</h2>${approvalArticle(pending, identity.csrf, identity.now)}
<p class="standing-link"><a href="/console/standing?approval=${approvalId}">Approve and allow for …</a> (a standing approval of this tool for this subject: time, count, constraint)</p></section>`
      : html`<section aria-labelledby="state-heading"><h2 id="state-heading">No longer pending</h2>
<p class="settled">This approval is <strong>${settled?.state ?? "gone"}</strong>${settled?.approver_id == null ? "" : html` (by ${shown(settled.approver_id)})`}.</p>
${settled === null ? "" : html`<table class="decided">${SETTLED_HEAD}<tbody>${settledRow(settled)}</tbody></table>`}</section>`;
  return layout(
    `Approval ${approvalId}`,
    html`${banner(identity)}
<main id="main" tabindex="-1">
<h1>Approval <code>${approvalId}</code></h1>
<p><a href="/console/approvals">All approvals</a></p>
${ANNOUNCE(null)}
${part}
</main>`,
    identity,
  );
}
