/**
 * The curl lines `npm start` prints work when pasted as they are: each approval's id and digest
 * come from the pending list into shell variables (no placeholder to edit, which answered 400),
 * and the long-poll comes after the decision, so a pasted block never holds the shell for its
 * 60 s. The approval lines run here in bash, with `curl` replaced by a function that answers the
 * pending list and prints the arguments of any other request.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { approveLines, setUpDemo } from "../../tools/lib/demo-setup";

/** The text `npm start` prints, with scripted admin answers. */
async function printed(): Promise<string> {
  let n = 0;
  const call = async (_base: string, _method: string, path: string) =>
    path.endsWith("/credentials")
      ? { secret: `credential-${++n}`, credential_id: `cred_${String(n).padStart(16, "0")}` }
      : {};
  const state = mkdtempSync(join(tmpdir(), "toolgate-demo-commands-"));
  return setUpDemo({
    base: "http://127.0.0.1:1",
    admin: "admin",
    demoBase: "http://127.0.0.1:2",
    token: "t",
    devVarsPath: "/x/.dev.vars",
    issuedPath: join(state, "issued.json"),
    call,
  }).finally(() => rmSync(state, { recursive: true, force: true }));
}

/** Runs shell lines in bash with a `curl` that answers `pending` to a pending list and prints any other request's arguments. */
function runInShell(vars: Record<string, string>, lines: readonly string[], pending: unknown): string[] {
  const script = [
    `curl() { case "$*" in *state=pending*) printf '%s' '${JSON.stringify(pending)}' ;; *) printf '%s\\n' "$@" ;; esac; }`,
    ...Object.entries(vars).map(([name, value]) => `${name}='${value}'`),
    ...lines,
  ].join("\n");
  const run = spawnSync("bash", ["-c", script], { encoding: "utf8" });
  expect(run.stderr).toBe("");
  return run.stdout.split("\n").filter((line) => line !== "");
}

const runOf = (text: string): string => /"call_id":"lookup-([0-9a-f]{6})"/.exec(text)?.[1] ?? "none";

describe("npm start's printed curl lines", () => {
  it("approve tenant-a's refund with the id and digest picked from the pending list, as the demo block does", async () => {
    const text = await printed();
    const run = runOf(text);
    const lines = text.split("\n");
    const at = lines.indexOf("export REF_AUDITOR=credential-6");
    expect(lines.slice(at + 6, at + 13).map((line) => line.replaceAll(run, "RUN"))).toEqual([
      "# approver: what is pending, then approve the refund with its approval_id and approval_digest (node picks them out)",
      `curl -s -w '\\n' "$REF/approvals?state=pending" -H "authorization: Bearer $REF_APPROVER"`,
      'PENDING=$(curl -s "$REF/approvals?state=pending" -H "authorization: Bearer $REF_APPROVER")',
      `REF_ID=$(printf '%s' "$PENDING" | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).approvals.find((a) => a.call_id === "refund-RUN").approval_id')`,
      `REF_DIGEST=$(printf '%s' "$PENDING" | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).approvals.find((a) => a.call_id === "refund-RUN").approval_digest')`,
      `curl -s -w '\\n' $REF/approvals/$REF_ID -H "authorization: Bearer $REF_APPROVER" -H 'content-type: application/json' -d "{\\"decision\\":\\"approve\\",\\"approval_digest\\":\\"$REF_DIGEST\\"}"`,
      "# agent: the same call again now runs, once; auditor: the audit chain",
    ]);
    expect(text.includes("APPROVAL_ID")).toBe(false);
    expect(lines.filter((line) => line.includes('"DIGEST"'))).toEqual([]);
  });

  it("sends, when pasted into bash, the decision with the pending approval's id and digest", () => {
    const pending = {
      approvals: [
        { call_id: "refund-other", approval_id: "apr_other", approval_digest: "sha256:other" },
        { call_id: "refund-abc123", approval_id: "apr_0001", approval_digest: "sha256:0123abcd" },
      ],
    };
    const vars = { REF: "http://127.0.0.1:1/v1/consumers/tenant-a", REF_APPROVER: "tg_approver_x" };
    expect(runInShell(vars, approveLines("REF", "REF_APPROVER", "refund-abc123", "REF_"), pending)).toEqual([
      "-s",
      "-w",
      "\\n",
      "http://127.0.0.1:1/v1/consumers/tenant-a/approvals/apr_0001",
      "-H",
      "authorization: Bearer tg_approver_x",
      "-H",
      "content-type: application/json",
      "-d",
      '{"decision":"approve","approval_digest":"sha256:0123abcd"}',
    ]);
  });

  it("run the long-poll only after the decision it waits for, where it answers at once", async () => {
    const text = await printed();
    const lines = text.split("\n");
    const waits = lines.flatMap((line, i) => (line.startsWith("curl") && line.includes("?wait=") ? [i] : []));
    const decisions = lines.flatMap((line, i) =>
      line.startsWith("curl") && line.includes('\\"decision\\"') ? [i] : [],
    );
    expect(waits.map((i) => lines[i])).toEqual([
      `curl -s -w '\\n' "$TG/approvals/$ID?wait=60" -H "authorization: Bearer $AGENT"`,
    ]);
    expect(decisions.map((i) => lines[i])).toEqual([
      `curl -s -w '\\n' $TG/approvals/$ID -H "authorization: Bearer $APPROVER" -H 'content-type: application/json' -d "{\\"decision\\":\\"approve\\",\\"approval_digest\\":\\"$DIGEST\\"}"`,
      `curl -s -w '\\n' $REF/approvals/$REF_ID -H "authorization: Bearer $REF_APPROVER" -H 'content-type: application/json' -d "{\\"decision\\":\\"approve\\",\\"approval_digest\\":\\"$REF_DIGEST\\"}"`,
    ]);
    expect((waits[0] ?? 0) > (decisions[0] ?? Infinity)).toBe(true);
  });
});
