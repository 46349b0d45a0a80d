/**
 * R5, tools as data: each hostile definition of r5-tool-definitions.ts sent once as written,
 * alone (no concurrent request), timed. Pass: no 5xx, each answer within 2,000 ms, the verdict
 * of each the one its bound implies (src/core/tool-schema/limits.ts, src/core/policy/limits.ts,
 * src/contracts/tool-definition.ts), and the tools list still answers after every accepted one
 * (a stored definition that no longer builds would fail every later call).
 */
import { describe, expect, it } from "vitest";
import { report } from "../support/figures";
import { ADMIN, send, tenant } from "./client";
import { HOSTILE_DEFINITIONS, R5_SECRET, R5_TOOL, READ_DEFINITION, WRITE_DEFINITION } from "./r5-tool-definitions";

const BOUND_MS = 2_000;

describe("R5 hostile tool definitions, as written", () => {
  it("answers each with its verdict, never a 5xx, each within the bound", async () => {
    const t = await tenant("r5-tools");
    expect(
      (await send("PUT", `/v1/consumers/${t.name}/secrets/${R5_SECRET}`, ADMIN, { value: "s3cret-token" })).status,
    ).toBe(204);
    const cases: ReadonlyArray<readonly [string, unknown, string]> = [
      ["the read", READ_DEFINITION, "200"],
      ["the write", WRITE_DEFINITION, "200"],
      ...HOSTILE_DEFINITIONS,
    ];
    // Every body is within the 64 KiB cap, so each reaches the reader and the compilers.
    expect(
      cases.filter(([, body]) => new TextEncoder().encode(JSON.stringify(body)).length > 65_536).map(([name]) => name),
    ).toEqual([]);
    const verdicts: Array<[string, string]> = [];
    const afterwards: string[] = [];
    let slowest = { ms: 0, name: "" };
    for (const [name, body] of cases) {
      const started = performance.now();
      const res = await send("PUT", `/v1/consumers/${t.name}/tools/${R5_TOOL}`, ADMIN, body);
      const ms = performance.now() - started;
      if (ms > slowest.ms) slowest = { ms, name };
      verdicts.push([
        name,
        res.status < 300 ? `${res.status}` : `${res.status} ${res.json?.code} ${res.json?.path ?? "-"}`,
      ]);
      if (res.status < 300) {
        const listed = await send("GET", `/v1/consumers/${t.name}/tools?format=openai`, t.agent);
        if (listed.status !== 200)
          afterwards.push(`${name}: tools list answered ${listed.status} ${listed.text.slice(0, 120)}`);
      }
    }
    const fiveXx = verdicts.filter(([, v]) => v.startsWith("5"));
    const pass = fiveXx.length === 0 && afterwards.length === 0 && slowest.ms <= BOUND_MS;
    const accepted = verdicts.filter(([, v]) => v.startsWith("2")).length;
    report({
      id: "R5",
      check: "hostile tool definitions, as written",
      figure: `${verdicts.length} definitions, ${fiveXx.length} 5xx, ${accepted} 2xx, slowest ${Math.round(slowest.ms)} ms (${slowest.name}; bound ${BOUND_MS} ms)`,
      pass,
    });
    expect([fiveXx, afterwards]).toEqual([[], []]);
    expect(slowest.ms).toBeLessThanOrEqual(BOUND_MS);
    expect(verdicts).toEqual(cases.map(([name, , verdict]) => [name, verdict]));
  });
});
