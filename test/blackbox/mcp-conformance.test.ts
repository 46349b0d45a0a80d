/**
 * Black box: the official MCP conformance suite (`@modelcontextprotocol/conformance`, server
 * mode) against the gate's MCP endpoint under `wrangler dev`, through `runConformance` of
 * tools/lib/mcp-conformance.ts (what `npm run mcp:conformance` runs against `npm start`): the
 * consumer's tools imported through MCP targets from the reference server
 * `@modelcontextprotocol/server-everything` and from the tools the suite's scenarios call by name,
 * both real SDK servers on loopback; the suite, unmodified, behind a loopback proxy that adds a
 * subject-bound agent credential. Every scenario's result is printed; the assertion is the exact
 * map of scenario → passed.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance } from "../../tools/lib/mcp-conformance";
import { startDev, type DevServer } from "./wrangler-dev";

const ADMIN = randomBytes(24).toString("base64url");

let persistTo: string;
let dev: DevServer;

beforeAll(async () => {
  persistTo = mkdtempSync(join(tmpdir(), "toolgate-mcp-conformance-"));
  dev = await startDev(persistTo, ADMIN, {
    vars: { TOOLGATE_ALLOW_LOOPBACK_TARGETS: "1", TOOLGATE_SECRETS_KEY: randomBytes(32).toString("base64url") },
  });
}, 180_000);

afterAll(async () => {
  await dev?.kill();
  if (persistTo !== undefined) rmSync(persistTo, { recursive: true, force: true });
});

/**
 * Every scenario of the suite's active set and whether the gate passes it: all of them. The
 * sampling and elicitation scenarios pass because the "conformance" server is registered with
 * `relay` (docs/mcp.md, "Sampling and elicitation (opt-in)"); the resources, prompts and
 * completion scenarios read what the gate federates from the "conformance" server (docs/mcp.md,
 * "Resources, prompts and completion").
 */
const EXPECTED: Record<string, boolean> = {
  "server-initialize": true,
  "logging-set-level": true,
  ping: true,
  "tools-list": true,
  "tools-call-simple-text": true,
  "tools-call-image": true,
  "tools-call-audio": true,
  "tools-call-embedded-resource": true,
  "tools-call-mixed-content": true,
  "tools-call-error": true,
  "tools-call-with-logging": true,
  "tools-call-with-progress": true,
  "tools-call-sampling": true,
  "tools-call-elicitation": true,
  "dns-rebinding-protection": true,
  "completion-complete": true,
  "elicitation-sep1034-defaults": true,
  "elicitation-sep1330-enums": true,
  "server-sse-multiple-streams": true,
  "resources-list": true,
  "resources-read-text": true,
  "resources-read-binary": true,
  "resources-templates-read": true,
  "resources-subscribe": true,
  "resources-unsubscribe": true,
  "prompts-list": true,
  "prompts-get-simple": true,
  "prompts-get-with-args": true,
  "prompts-get-embedded-resource": true,
  "prompts-get-with-image": true,
};

describe("the official MCP conformance suite (server mode) against the gate", () => {
  it("passes every server scenario; every result is reported", async () => {
    const lines: string[] = [];
    const { results, table } = (await runConformance({
      base: dev.base,
      admin: ADMIN,
      log: (line: string) => lines.push(line),
    })) as { results: Record<string, boolean>; table: string };
    console.log(`${lines.join("\n")}\n${table}`);
    expect(lines).toEqual([
      "everything: imported 12, refused simulate-research-query",
      "conformance: imported 12, refused json_schema_2020_12_tool",
    ]);
    expect(results).toEqual(EXPECTED);
  }, 600_000);
});
