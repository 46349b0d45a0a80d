/**
 * `toolgate admin tools enable|disable|delete NAME` and `secrets delete NAME`: the request each
 * sends (method, path, media type, body) and what it prints, human and `--json`. The gate is a
 * stub that answers what the HTTP API documents for these routes. Expected text is written by hand.
 */
import { describe, expect, it } from "vitest";
import { runAdmin } from "../../src/cli/admin";
import type { CliIo } from "../../src/cli/io";

interface Sent {
  method: string;
  url: string;
  type: string | null;
  body: string;
}

/** An io whose gate answers `status` with `body` (none for 204), and what was sent and printed. */
function io(status: number, body?: unknown): { io: CliIo; sent: Sent[]; out: string[]; err: string[] } {
  const sent: Sent[] = [];
  const out: string[] = [];
  const err: string[] = [];
  return {
    sent,
    out,
    err,
    io: {
      stdout: (text) => out.push(text),
      stderr: (text) => err.push(text),
      readFile: () => new Uint8Array(),
      env: { TOOLGATE_ADMIN_TOKEN: "admin-token", TOOLGATE_CONSUMER: "acme", TOOLGATE_URL: "http://127.0.0.1:8881" },
      fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        sent.push({
          method: request.method,
          url: request.url,
          type: request.headers.get("content-type"),
          body: await request.text(),
        });
        return body === undefined
          ? new Response(null, { status })
          : new Response(JSON.stringify(body), {
              status,
              headers: { "content-type": status < 300 ? "application/json" : "application/problem+json" },
            });
      },
    },
  };
}

const TOOL_URL = "http://127.0.0.1:8881/v1/consumers/acme/tools/lookup_customer";

describe("toolgate admin tools enable|disable|delete", () => {
  it("enable sends a merge patch of the tool's state and prints it", async () => {
    const run = io(200, { name: "lookup_customer", state: "enabled" });
    expect(await runAdmin(["tools", "enable", "lookup_customer"], run.io)).toBe(0);
    expect(run.sent).toEqual([
      { method: "PATCH", url: TOOL_URL, type: "application/merge-patch+json", body: '{"state":"enabled"}' },
    ]);
    expect([run.out, run.err]).toEqual([["enabled tool lookup_customer\n"], []]);
  });

  it("disable, with --json: the gate's answer as it wrote it", async () => {
    const run = io(200, { name: "lookup_customer", state: "disabled" });
    expect(await runAdmin(["tools", "disable", "lookup_customer", "--json"], run.io)).toBe(0);
    expect(run.sent.map((s) => [s.method, s.body])).toEqual([["PATCH", '{"state":"disabled"}']]);
    expect(run.out).toEqual(['{"name":"lookup_customer","state":"disabled"}\n']);
  });

  it("delete sends DELETE and prints what it deleted", async () => {
    const run = io(204);
    expect(await runAdmin(["tools", "delete", "lookup_customer"], run.io)).toBe(0);
    expect(run.sent).toEqual([{ method: "DELETE", url: TOOL_URL, type: null, body: "" }]);
    expect(run.out).toEqual(["deleted tool lookup_customer\n"]);
    const json = io(204);
    expect(await runAdmin(["tools", "delete", "lookup_customer", "--json"], json.io)).toBe(0);
    expect(json.out).toEqual(['{"deleted":true,"tool":"lookup_customer"}\n']);
  });

  it("names the gate's refusal of an unknown tool, and refuses a name outside the pattern before sending", async () => {
    const run = io(404, {
      type: "https://toolgate.dev/problems/not-found",
      title: "Not found",
      status: 404,
      code: "NOT_FOUND",
      detail: "No such tool.",
    });
    expect(await runAdmin(["tools", "enable", "nope"], run.io)).toBe(1);
    expect(run.err).toEqual([
      "toolgate admin tools enable: PATCH /v1/consumers/acme/tools/nope: Not found (404 NOT_FOUND): No such tool.\n",
    ]);
    const bad = io(200, {});
    expect(await runAdmin(["tools", "disable", "9lives"], bad.io)).toBe(2);
    expect([bad.sent, bad.err[0]?.split("\n")[0]]).toEqual([
      [],
      "toolgate admin tools disable: not a tool name: 9lives",
    ]);
  });
});

describe("toolgate admin secrets delete", () => {
  it("sends DELETE and prints what it deleted, human and --json", async () => {
    const run = io(204);
    expect(await runAdmin(["secrets", "delete", "billing_token"], run.io)).toBe(0);
    expect(run.sent).toEqual([
      { method: "DELETE", url: "http://127.0.0.1:8881/v1/consumers/acme/secrets/billing_token", type: null, body: "" },
    ]);
    expect(run.out).toEqual(["deleted secret billing_token\n"]);
    const json = io(204);
    expect(await runAdmin(["secrets", "delete", "billing_token", "--json"], json.io)).toBe(0);
    expect(json.out).toEqual(['{"deleted":true,"secret":"billing_token"}\n']);
  });
});
