/**
 * The approver console's style sheet, served as `/console/styles.css` (the CSP admits no inline
 * style). Plain and legible: high contrast, a visible focus ring on everything focusable, a
 * skip link that appears on focus.
 * @module
 */

/** `/console/styles.css`. */
export const CONSOLE_STYLES = `
:root { color-scheme: light; --ink: #1a1a1a; --muted: #4a4a4a; --line: #c8c8c8; --focus: #1d4ed8; --paper: #ffffff; --soft: #f4f4f2; }
* { box-sizing: border-box; }
html { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--paper); }
body { margin: 0 auto; max-width: 72rem; padding: 0 1rem 3rem; }
a { color: #0645ad; }
a:visited { color: #5a3696; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
main:focus { outline: none; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
code.hash { word-break: break-all; }
pre.json { background: var(--soft); border: 1px solid var(--line); padding: 0.5rem 0.75rem; overflow-x: auto; margin: 0; white-space: pre-wrap; word-break: break-word; }
.skip-link { position: absolute; left: 1rem; top: -4rem; background: var(--ink); color: #ffffff; padding: 0.5rem 1rem; z-index: 10; }
.skip-link:focus { top: 0.5rem; color: #ffffff; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
header.top { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: center; border-bottom: 1px solid var(--line); padding: 0.75rem 0; }
header.top .brand { font-weight: 700; margin: 0; }
header.top .who { margin: 0; flex: 1 1 20rem; color: var(--muted); }
header.top form { margin: 0; }
ul.sections { list-style: none; display: flex; gap: 1rem; padding: 0; }
button { font: inherit; padding: 0.4rem 1rem; border-radius: 4px; border: 1px solid #5a5a5a; background: var(--soft); color: var(--ink); cursor: pointer; }
button:disabled { cursor: not-allowed; background: #e2e2e2; color: #4a4a4a; border-color: #8a8a8a; }
button.approve:enabled { background: #0b6e2e; border-color: #0b6e2e; color: #ffffff; }
button.deny:enabled { background: #a4161a; border-color: #a4161a; color: #ffffff; }
form.sign-in { display: grid; gap: 0.4rem; max-width: 28rem; }
form.sign-in input { font: inherit; padding: 0.4rem; border: 1px solid #5a5a5a; border-radius: 4px; }
form.sign-in button { justify-self: start; margin-top: 0.6rem; }
.error { color: #8a1014; font-weight: 600; }
.announce:empty { display: none; }
.announce { border-left: 4px solid var(--focus); background: #eef2fb; padding: 0.25rem 0.75rem; margin: 1rem 0; }
.live-status { color: var(--muted); }
article.approval { border: 1px solid var(--line); border-radius: 6px; padding: 0.5rem 1rem 1rem; margin: 1rem 0; }
article.approval.expired { background: var(--soft); }
article.approval h3 { margin: 0.5rem 0; }
.risk { font-size: 0.8rem; font-weight: 600; border-radius: 3px; padding: 0.1rem 0.4rem; vertical-align: middle; }
.risk-write { background: #fde2e1; color: #7a1013; }
.risk-read { background: #e3effd; color: #0b3a75; }
dl.facts, dl.arguments { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 0.5rem 0; }
dl dt { font-weight: 600; }
dl dd { margin: 0; }
dd.text { white-space: pre-wrap; word-break: break-word; }
details { margin: 0.5rem 0; }
summary { cursor: pointer; }
table { border-collapse: collapse; width: 100%; margin: 0.5rem 0; }
caption { text-align: left; color: var(--muted); padding: 0.25rem 0; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid var(--line); padding: 0.3rem 0.5rem; }
td code { word-break: break-all; }
form.decision { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: center; margin-top: 0.75rem; }
form.decision .digest { flex-basis: 100%; margin: 0; color: var(--muted); }
.countdown { font-variant-numeric: tabular-nums; font-weight: 600; }
.checkpoint.verified strong { color: #0b6e2e; }
.checkpoint.failed strong { color: #8a1014; }
`;
