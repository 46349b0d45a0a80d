// The reliability suite's figures: what each check prints (one marked JSON line), the scan of the
// whole run's output for leaked credentials and canaries (R10), and the closing table.

/** Each check's figure line starts with this (test/reliability/support/figures.ts prints it). */
export const MARKER = "@@toolgate-figure ";
const CREDENTIAL = /tg_(?:agent|approver|provider|runtime|auditor)_[0-9A-Za-z]{40}_[0-9A-Za-z]{6}/g;
const CANARY = /zzcanary/g;
/** Every check the suite must report (a missing one fails). */
export const EXPECTED: readonly string[] = [
  "R1",
  "R1b",
  "R1c",
  "R2",
  "R3",
  "R4",
  "R5",
  "R6",
  "R7",
  "R8",
  "R10",
  "R11",
  "R13a",
  "R13b",
  "R13c",
  "R13d",
];

/** One row of the table. */
export interface Figure {
  id: string;
  check: string;
  figure: string;
  pass: boolean;
  seed?: unknown;
}

/** The figure lines in a run's output (a truncated line is left out: the check then counts as missing). */
export function figuresIn(out: string): Figure[] {
  const figures: Figure[] = [];
  for (const line of out.split("\n")) {
    const at = line.indexOf(MARKER);
    if (at >= 0) {
      try {
        // A line the suite's own checks printed, not untrusted input.
        figures.push(JSON.parse(line.slice(at + MARKER.length)) as Figure);
      } catch {
        // a truncated line: the check then counts as missing
      }
    }
  }
  return figures;
}

/** R10 over every captured text (`logs`: the wrangler dev logs among them): no full credential, no argument canary. */
export function secretsFigure(scanned: readonly string[], logs: number): Figure {
  const bytes = scanned.reduce((n, text) => n + text.length, 0);
  const credentialHits = scanned.reduce((n, text) => n + (text.match(CREDENTIAL) ?? []).length, 0);
  const canaryHits = scanned.reduce((n, text) => n + (text.match(CANARY) ?? []).length, 0);
  return {
    id: "R10",
    check: "secrets in every captured output (vitest, workerd console, wrangler dev logs)",
    figure: `${credentialHits} credential hits, ${canaryHits} canary hits in ${bytes} bytes (${logs} wrangler logs)`,
    pass: credentialHits === 0 && canaryHits === 0,
  };
}

/** The figures in {@link EXPECTED}'s order; any other id last, in the order it came. */
export function ordered(figures: readonly Figure[]): Figure[] {
  const order = (id: string): number => {
    const i = EXPECTED.indexOf(id);
    return i === -1 ? EXPECTED.length : i;
  };
  return [...figures].sort((a, b) => order(a.id) - order(b.id));
}

/** The closing text: the title, the table, and the pass and fail counts. */
export function reliabilityTable(figures: readonly Figure[], seconds: string): string {
  const rows = figures.map((f) => [
    f.id,
    f.check,
    f.figure + (f.pass || f.seed === undefined ? "" : ` (seed ${String(f.seed)})`),
    f.pass ? "pass" : "FAIL",
  ]);
  const head = ["id", "check", "figure", "result"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  const failed = figures.filter((f) => !f.pass).length;
  let text = `\ntoolgate reliability suite — ${seconds} s\n\n`;
  text += `${line(head)}\n|${widths.map((w) => "-".repeat(w + 2)).join("|")}|\n`;
  for (const r of rows) text += `${line(r)}\n`;
  text += `\n${figures.length - failed} pass, ${failed} fail (figures in .toolgate/reliability.json)\n`;
  return text;
}
