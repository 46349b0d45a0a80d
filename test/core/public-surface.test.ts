import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, expectTypeOf, it } from "vitest";
import type * as z from "zod";
import pkg from "../../package.json";
import * as client from "../../src/client";
import type { BoundEffect, CapabilityRequestInput, ToolCallAnswer, U64, Wire } from "../../src/client";
import type { ToolCallResponse } from "../../src/contracts/tool-call";
import * as core from "../../src/core";
import type { providerBoundCapabilityEffectEnvelope } from "../../src/core/capability";

const root = new URL("../../", import.meta.url);

// Every value a barrel re-exports, so a re-export of a name that no longer exists shows up.
function undefinedExports(namespace: object, prefix: string): string[] {
  return Object.entries(namespace)
    .filter(([, value]) => value === undefined)
    .map(([name]) => `${prefix}${name}`);
}

describe("the package's public entry points", () => {
  it("maps ., ./core, ./client and ./worker to the built ESM and declarations of sources that exist", () => {
    expect(Object.keys(pkg.exports).sort()).toEqual([".", "./client", "./core", "./package.json", "./worker"]);
    // dist/<name>.js and its declarations are built from these sources (scripts/build-package.js; test/blackbox/packed-install.test.ts installs them).
    const built = { core: "src/core/index.ts", client: "src/client/index.ts", worker: "src/worker/gate.ts" };
    for (const [name, source] of Object.entries(built)) {
      expect(existsSync(fileURLToPath(new URL(source, root)))).toBe(true);
      const entry = { import: `./dist/${name}.js`, types: `./dist/types/${source.slice(4, -3)}.d.ts` };
      expect(pkg.exports[`./${name}` as keyof typeof pkg.exports]).toEqual(entry);
    }
    expect(pkg.exports["."]).toEqual(pkg.exports["./core"]);
  });

  it("names the core's subsystems as namespaces and strict JSON flat", () => {
    expect(typeof core.readJson).toBe("function");
    expect(typeof core.canonicalJson).toBe("function");
    expect(typeof core.capability.CapabilityEngine).toBe("function");
    expect(typeof core.toolResult.createEngine).toBe("function");
    expect(typeof core.wire.decodeEnvelope).toBe("function");
    expect(typeof core.adapters.adapterFor).toBe("function");
    // Names two subsystems share stay apart.
    expect(core.capability.validateResult).not.toBe(core.toolResult.validateResult);
  });

  it("re-exports no missing name", () => {
    const missing = [
      ...undefinedExports(core, ""),
      ...undefinedExports(core.capability, "capability."),
      ...undefinedExports(core.toolResult, "toolResult."),
      ...undefinedExports(core.wire, "wire."),
      ...undefinedExports(core.adapters, "adapters."),
      ...undefinedExports(core.audit, "audit."),
      ...undefinedExports(client, "client."),
    ];
    expect(missing).toEqual([]);
  });

  it("keeps the client's runtime names", () => {
    const names = ["AgentClient", "ApproverClient", "ProviderPoller", "connectProvider", "PROVIDER_PROTOCOL", "failure", "inlineResult", "jsonBytes", "observationFor", "call", "readWire", "writeWire"];
    expect(names.filter((name) => !(name in client))).toEqual([]);
  });

  it("derives the client's wire types from the contracts", () => {
    // The tool-call answer is the ToolCallResponse contract, optional members included.
    expectTypeOf<ToolCallAnswer>().toEqualTypeOf<z.output<typeof ToolCallResponse>>();
    expectTypeOf<ToolCallAnswer>().toHaveProperty("status_ref");
    expectTypeOf<ToolCallAnswer>().toHaveProperty("approval_id");
    // Received u64s are numbers or bigints; sent ones accept either.
    expectTypeOf<BoundEffect>().toEqualTypeOf<Wire<z.output<typeof providerBoundCapabilityEffectEnvelope>>>();
    expectTypeOf<BoundEffect["effect"]["operation_id"]>().toEqualTypeOf<U64>();
    expectTypeOf<CapabilityRequestInput["deadline_tick"]>().toEqualTypeOf<U64>();
    expectTypeOf<Wire<{ a: bigint; b: [bigint, string][]; c: bigint | null }>>().toEqualTypeOf<{ a: U64; b: [U64, string][]; c: U64 | null }>();
  });
});
