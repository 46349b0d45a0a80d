/**
 * The console's read-only page of policies in shadow (docs/approvals.md, "Policies in shadow"):
 * for each data tool with shadow rules, how many calls its shadow agreed with and the newest
 * disagreements (what each side decided, the subject and the call; never an argument value).
 * Every value escaped (./html).
 * @module
 */
import type { ShadowSummary } from "../tools/shadow";
import { html, shown, timeElement, type SafeHtml } from "./html";
import { banner, layout } from "./pages";
import type { ConsoleIdentity } from "./view";

const WORDS = { refused: "refused", needs_approval: "a human decides", allowed: "runs" } as const;

function toolSection(tool: ShadowSummary): SafeHtml {
  const id = `shadow-${tool.name}`;
  const rows = tool.disagreements.map(
    (d) =>
      html`<tr><td>${timeElement(d.at)}</td><td>${d.kind}</td><td>${WORDS[d.enforced]}</td><td>${WORDS[d.shadow]}</td><td>${shown(d.subject_id)}</td><td><code>${shown(d.call_id)}</code></td></tr>`,
  );
  const list =
    rows.length === 0
      ? html`<p>No disagreement kept.</p>`
      : html`<table class="decided"><caption>The newest disagreements first (at most 20)</caption><thead><tr><th scope="col">When</th><th scope="col">About</th><th scope="col">Enforced</th><th scope="col">Shadow</th><th scope="col">Subject</th><th scope="col">Call</th></tr></thead><tbody>${rows}</tbody></table>`;
  return html`<section aria-labelledby="${id}"><h2 id="${id}"><code>${shown(tool.name)}</code></h2>
<p>Shadow <code>${tool.revision}</code>: ${tool.evaluated} calls evaluated, ${tool.agreed} agreed, ${tool.disagreed.authorize} disagreed on whether to allow, ${tool.disagreed.approval} on whether a human decides.</p>
${list}</section>`;
}

/** The page: every tool with shadow rules, or a line saying there is none. */
export function shadowPage(identity: ConsoleIdentity, tools: readonly ShadowSummary[]): string {
  return layout(
    "Policies in shadow",
    html`${banner(identity)}
<main id="main" tabindex="-1">
<h1>Policies in shadow</h1>
<p><a href="/console/approvals">All approvals</a></p>
<p>Shadow rules are evaluated on every call beside the enforced ones and never decide.</p>
${tools.length === 0 ? html`<p>No tool has shadow rules.</p>` : tools.map(toolSection)}
</main>`,
    identity,
  );
}
