/**
 * The sign-in and consent page of an MCP client's authorization: plain HTML, no script, no
 * external asset. Everything that came from the client (its name, requested scopes) is escaped
 * and shown as a person must see it: bidi controls, invisible and look-alike characters as
 * marked escapes (`⟨U+202E⟩`, core `text`), text with right-to-left letters laid out in its
 * stored order with a note, the client's name isolated (`<bdi>`), and where
 * access goes (the redirect URI's origin) on a line of its own, never inside text the client
 * wrote, so no client text can reorder it.
 * @module
 */
import { HIDDEN_KIND_TITLES, holdsRightToLeft, visibleParts, visibleText } from "../../../core/text";
import { escapeHtml } from "../console/html";

/** What the user chose on the page (kept when it is shown again with an error). */
export interface ConsentChoice {
  /** Ticked tool names. */
  readonly tools: readonly string[];
  /** Further tool names typed by the user, as typed. */
  readonly more: string;
  /** Every tool the sign-in credential may call. */
  readonly all: boolean;
}

/** The facts the page shows. */
export interface ConsentView {
  readonly consumer: string;
  /** The client's self-asserted name (dynamic registration: unverified). */
  readonly clientName: string;
  /** Where the authorization code goes (the client's registered redirect URI). */
  readonly redirectUri: string;
  readonly redirectIsLoopback: boolean;
  /** The scopes (tool names) the client asked for. */
  readonly requested: readonly string[];
  /** The consent transaction's handle (the library binds it to this browser with a cookie). */
  readonly handle: string;
  readonly choice: ConsentChoice;
  /** Why the last submission was refused, or `null`. */
  readonly error: string | null;
}

/** The page's security headers: nothing loads or runs, and nobody frames it. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};

/**
 * Client text escaped for element content, each hidden or look-alike code point a marked escape.
 * Text holding a strong right-to-left letter is laid out left to right in stored order
 * (`span.stored-order`: `unicode-bidi: isolate-override`), a note after it.
 */
export function shownHtml(text: string): string {
  const out = visibleParts(text)
    .map((part) =>
      part.hidden === null
        ? escapeHtml(part.text)
        : `<mark class="hidden-char hidden-${part.hidden}" title="${escapeHtml(HIDDEN_KIND_TITLES[part.hidden])}">${part.text}</mark>`,
    )
    .join("");
  return holdsRightToLeft(text)
    ? `<span class="stored-order" dir="ltr">${out}</span> <small class="stored-order-note">(contains right-to-left text, shown in stored order)</small>`
    : out;
}

/** Where access goes as shown: the redirect URI's origin, or the whole URI when it has none (a native app's `com.example.app:/callback`). */
export function redirectTarget(redirectUri: string): string {
  let origin = "null";
  try {
    origin = new URL(redirectUri).origin;
  } catch {
    // the library validated the URI; an unparsable one is shown whole
  }
  return origin === "null" ? redirectUri : origin;
}

/** The choice the page starts with: the client's requested tools, or every tool when it asked for none. */
export function initialChoice(requested: readonly string[]): ConsentChoice {
  return { tools: requested, more: "", all: requested.length === 0 };
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}label{display:block;margin:.4rem 0}input[type=password],input[type=text]{width:100%;padding:.4rem;font:inherit;box-sizing:border-box}
fieldset{margin:1rem 0;border:1px solid #888}.error{border:2px solid #b00020;padding:.5rem;color:#b00020}.warn{font-weight:bold}.target{font-size:1.1rem;margin:.25rem 0 1rem}
mark.hidden-char{background:#fde68a;color:#5c2c00;border:1px solid #92400e;font-family:monospace}
.stored-order{unicode-bidi:isolate-override;direction:ltr}.stored-order-note{font-style:italic;color:#5c2c00}
.hint{font-size:.9rem;color:#444}button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}`;

function checkbox(name: string, value: string, checked: boolean, id: string, label: string): string {
  return `<label for="${id}"><input type="checkbox" id="${id}" name="${name}" value="${escapeHtml(value)}"${checked ? " checked" : ""}> ${label}</label>`;
}

/** Renders the page. */
export function consentPage(view: ConsentView): string {
  const client = `<bdi class="client">${shownHtml(view.clientName)}</bdi>`;
  const consumer = escapeHtml(view.consumer);
  const error = view.error === null ? "" : `<p class="error" id="error" role="alert">${shownHtml(view.error)}</p>`;
  const described = view.error === null ? "credential-hint" : "credential-hint error";
  const loopback = view.redirectIsLoopback
    ? `<p class="warn">Access goes to an app on this computer. Continue only if you just started signing in from it.</p>`
    : "";
  const requested = view.requested
    .map((tool, i) =>
      checkbox("tool", tool, view.choice.tools.includes(tool), `tool-${i}`, `<code>${shownHtml(tool)}</code>`),
    )
    .join("\n");
  const asked =
    view.requested.length === 0
      ? `<p>The app asked for no particular tool.</p>`
      : `<p>The app asked for these tools:</p>\n${requested}`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sign in to toolgate: ${escapeHtml(visibleText(view.clientName))}</title><style>${STYLE}</style></head>
<body><main>
<h1>Allow ${client} to call tools of <code>${consumer}</code>?</h1>
<p>The app calls itself <strong>${client}</strong>; that name is not verified.</p>
<p>After you allow it, access is sent to:</p>
<p class="target" id="redirect-target"><strong><code dir="ltr">${shownHtml(redirectTarget(view.redirectUri))}</code></strong></p>
${loopback}${error}
<form method="post" action="/oauth/authorize">
<input type="hidden" name="handle" value="${escapeHtml(view.handle)}">
<label for="credential">Sign-in credential</label>
<input type="password" id="credential" name="credential" required autocomplete="off" spellcheck="false" aria-describedby="${described}">
<p class="hint" id="credential-hint">Paste the agent credential an administrator of <code>${consumer}</code> gave you (it starts with <code>tg_agent_</code> and is bound to you as a subject). toolgate keeps it from the app: the app gets a credential of its own, for you, limited to the tools you choose below and expiring no later than yours. An administrator can revoke it at any time.</p>
<fieldset><legend>Tools the app may call for you</legend>
${asked}
${checkbox("all_tools", "1", view.choice.all, "all-tools", "Every tool my sign-in credential may call")}
<label for="more-tools">Other tools (names separated by spaces)</label>
<input type="text" id="more-tools" name="more_tools" value="${escapeHtml(view.choice.more)}" autocomplete="off" spellcheck="false">
</fieldset>
<p><button type="submit" name="decision" value="approve">Allow</button><button type="submit" name="decision" value="deny" formnovalidate>Deny</button></p>
</form>
</main></body></html>
`;
}
