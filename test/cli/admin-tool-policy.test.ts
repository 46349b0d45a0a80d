/**
 * `toolgate admin tools shadow NAME` and `tools replay NAME --definition FILE [--limit N]`: the
 * request each sends and what it prints, human and `--json`. The gate is a stub answering what
 * the HTTP API documents for these routes (contracts/tool-shadow.ts). Expected text is written by hand.
 */
import { describe, expect, it } from "vitest";
import { runAdmin } from "../../src/cli/admin";
import type { CliIo } from "../../src/cli/io";

interface Sent {
  method: string;
  url: string;
  body: string;
}

/** An io whose gate answers `status` with `body`, whose files are `files`, and what was sent and printed. */
function io(status: number, body: unknown, files: Record<string, string> = {}) {
  const sent: Sent[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const stub: CliIo = {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    readFile: (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`ENOENT: no such file, open '${path}'`);
      return new TextEncoder().encode(text);
    },
    env: { TOOLGATE_ADMIN_TOKEN: "admin-token", TOOLGATE_CONSUMER: "acme", TOOLGATE_URL: "http://127.0.0.1:8881" },
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      sent.push({ method: request.method, url: request.url, body: await request.text() });
      return new Response(JSON.stringify(body), {
        status,
        headers: { "content-type": status < 300 ? "application/json" : "application/problem+json" },
      });
    },
  };
  return { io: stub, sent, out, err };
}

const BASE = "http://127.0.0.1:8881/v1/consumers/acme/tools/create_invoice";

const SHADOW_VIEW = {
  name: "create_invoice",
  shadow: { approval: "args.amount > 50" },
  revision: "shadow-0123456789abcdef",
  counts: { evaluated: 4, agreed: 2, disagreed: { authorize: 1, approval: 1 } },
  disagreements: [
    {
      tool: "create_invoice",
      revision: "shadow-0123456789abcdef",
      at: 1_784_419_200,
      kind: "approval",
      enforced: "allowed",
      shadow: "needs_approval",
      subject_id: "user-1",
      call_id: "call-2",
      request_sha256: "a".repeat(64),
    },
  ],
};

const REPLAY_VIEW = {
  name: "create_invoice",
  since: 1_784_332_800,
  calls: 8,
  replayed: 4,
  without_arguments: 2,
  before_policy: 2,
  happened: { refused: 0, needs_approval: 1, allowed: 3 },
  candidate: { refused: 1, needs_approval: 2, allowed: 1 },
  differing: 1,
  differences: [
    {
      seq: 12,
      at: 1_784_419_260,
      call_id: "call-4",
      subject_id: "user-1",
      request_sha256: "b".repeat(64),
      happened: "allowed",
      candidate: "refused",
    },
  ],
};

describe("toolgate admin tools shadow", () => {
  it("reads the tool's shadow view and prints the counts and the kept disagreements", async () => {
    const run = io(200, SHADOW_VIEW);
    expect(await runAdmin(["tools", "shadow", "create_invoice"], run.io)).toBe(0);
    expect(run.sent).toEqual([{ method: "GET", url: `${BASE}/shadow`, body: "" }]);
    expect(run.out).toEqual([
      "tool:       create_invoice\n" +
        "shadow:     approval: args.amount > 50\n" +
        "revision:   shadow-0123456789abcdef\n" +
        "evaluated:  4\n" +
        "agreed:     2\n" +
        "disagreed:  authorize 1, approval 1\n" +
        "AT                    KIND      ENFORCED  SHADOW          SUBJECT  CALL\n" +
        "2026-07-19T00:00:00Z  approval  allowed   needs_approval  user-1   call-2\n",
    ]);
    const json = io(200, SHADOW_VIEW);
    expect(await runAdmin(["tools", "shadow", "create_invoice", "--json"], json.io)).toBe(0);
    expect(json.out).toEqual([`${JSON.stringify(SHADOW_VIEW)}\n`]);
  });
});

describe("toolgate admin tools replay", () => {
  it("sends the candidate and the limit, says what it replays, and prints the figures and the differing calls", async () => {
    const run = io(200, REPLAY_VIEW, { "candidate.json": '{"risk": "write", "approval": "args.amount > 50"}' });
    expect(
      await runAdmin(["tools", "replay", "create_invoice", "--definition", "candidate.json", "--limit", "50"], run.io),
    ).toBe(0);
    expect(run.sent).toEqual([
      {
        method: "POST",
        url: `${BASE}/replay`,
        body: '{"definition":{"approval":"args.amount > 50","risk":"write"},"limit":50}',
      },
    ]);
    expect(run.err).toEqual([
      "replaying create_invoice against its newest 50 calls held by the gate…\n",
      "replayed 4 of 8 calls\n",
    ]);
    expect(run.out).toEqual([
      "tool:           create_invoice\n" +
        "since:          2026-07-18T00:00:00Z\n" +
        "calls:          8\n" +
        "replayed:       4\n" +
        "not replayed:   2 without arguments (audit_arguments: digest)\n" +
        "before policy:  2\n" +
        "happened:       refused 0, needs_approval 1, allowed 3\n" +
        "candidate:      refused 1, needs_approval 2, allowed 1\n" +
        "differing:      1\n" +
        "SEQ  AT                    HAPPENED  CANDIDATE  SUBJECT  CALL\n" +
        "12   2026-07-19T00:01:00Z  allowed   refused    user-1   call-4\n",
    ]);
  });

  it("refuses a missing --definition, a limit out of range and a file that is not JSON before sending", async () => {
    const none = io(200, REPLAY_VIEW);
    expect(await runAdmin(["tools", "replay", "create_invoice"], none.io)).toBe(2);
    expect([none.sent, none.err]).toEqual([
      [],
      ["toolgate admin tools replay: --definition FILE is required (the candidate definition as JSON)\n"],
    ]);
    const big = io(200, REPLAY_VIEW, { "c.json": "{}" });
    expect(
      await runAdmin(["tools", "replay", "create_invoice", "--definition", "c.json", "--limit", "501"], big.io),
    ).toBe(2);
    expect([big.sent, big.err]).toEqual([
      [],
      ["toolgate admin tools replay: --limit is a whole number from 1 to 500\n"],
    ]);
    const bad = io(200, REPLAY_VIEW, { "c.json": "{'risk': 'write'}" });
    expect(await runAdmin(["tools", "replay", "create_invoice", "--definition", "c.json"], bad.io)).toBe(2);
    expect(bad.sent).toEqual([]);
    expect(bad.err[0]?.startsWith("toolgate admin tools replay: c.json is not JSON: ")).toBe(true);
  });
});
