import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, expectTypeOf, it } from "vitest";
import type * as z from "zod";
import pkg from "../../package.json";
import * as client from "../../src/client";
import * as capabilityProvider from "../../src/client/capability-provider";
import type { BoundEffect, CapabilityRequestInput, ToolCallAnswer, U64, Wire } from "../../src/client";
import type { ToolCallResponse } from "../../src/contracts/tool-call";
import * as conformance from "../../src/conformance";
import * as core from "../../src/core";
import * as toolResult from "../../src/core/tool-result";
import type { providerBoundCapabilityEffectEnvelope } from "../../src/core/capability";
import type { EngineOptions, ToolRegistry } from "../../src/core/tool-result";

const root = new URL("../../", import.meta.url);

// Every value a barrel re-exports, so a re-export of a name that no longer exists shows up.
function undefinedExports(namespace: object, prefix: string): string[] {
  return Object.entries(namespace)
    .filter(([, value]) => value === undefined)
    .map(([name]) => `${prefix}${name}`);
}

describe("the package's public entry points", () => {
  it("maps ., ./core, ./client, ./capability-provider, ./tool-result, ./worker, ./ai-sdk and ./openai-agents to the built ESM and declarations of sources that exist", () => {
    expect(Object.keys(pkg.exports).sort()).toEqual([
      ".",
      "./ai-sdk",
      "./capability-provider",
      "./client",
      "./core",
      "./openai-agents",
      "./package.json",
      "./tool-result",
      "./worker",
    ]);
    // dist/<name>.js and its declarations are built from these sources (tools/lib/build-package.ts; test/blackbox/packed-install.test.ts installs them).
    const built = {
      core: "src/core/index.ts",
      client: "src/client/index.ts",
      "capability-provider": "src/client/capability-provider.ts",
      "tool-result": "src/core/tool-result/index.ts",
      worker: "src/worker/gate.ts",
      "ai-sdk": "src/adapters/ai-sdk/index.ts",
      "openai-agents": "src/adapters/openai-agents/index.ts",
    };
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
      ...undefinedExports(capabilityProvider, "capabilityProvider."),
      ...undefinedExports(conformance.toolCases, "conformance.toolCases."),
      ...undefinedExports(conformance.capabilityCases, "conformance.capabilityCases."),
    ];
    expect(missing).toEqual([]);
  });

  it("ships the engine, not the conformance harness: no fixture runner, demo tool or demo approver in the core", () => {
    // Each of these lives in src/conformance (the CLI, the tests and the Worker's built-in tools import it there).
    const toolCases = [
      "AUTHORIZED_APPROVER_IDS",
      "createDemoEngine",
      "createDemoRegistry",
      "createRefundDraftTool",
      "DEFAULT_APPROVER_ID",
      "DEMO_ORDERS",
      "FIXTURE_SCHEMA_VERSION",
      "getOrderTool",
      "loadToolCasesFixture",
      "makeApproval",
      "MAX_CASES",
      "MAX_FIXTURE_BYTES",
      "MAX_JSON_DEPTH",
      "MAX_STEPS_PER_CASE",
      "parseToolCasesFixture",
      "pyJsonEquals",
      "runFixture",
      "SIDE_EFFECT_COUNTER",
      "sideEffectCount",
      "toolCasesFixtureSchema",
      "VALID_ACTIONS",
      "VALID_APPROVAL_MODES",
    ];
    const capabilityCases = ["capabilityScenario", "parseScenario", "runScenario", "sameJson"];
    expect([
      ...toolCases.filter((name) => name in core.toolResult),
      ...capabilityCases.filter((name) => name in core.capability),
    ]).toEqual([]);
    expect([...toolCases, ...capabilityCases].filter((name) => name in core)).toEqual([]);
    expect(toolCases.filter((name) => !(name in conformance.toolCases))).toEqual([]);
    expect(capabilityCases.filter((name) => !(name in conformance.capabilityCases))).toEqual([]);
  });

  it("builds an engine only over the tools and approvers it is given: no demo defaults", () => {
    expectTypeOf<EngineOptions["registry"]>().toEqualTypeOf<ToolRegistry>();
    expectTypeOf<EngineOptions["approvers"]>().toEqualTypeOf<ReadonlySet<string>>();
    // Called without them anyway (as plain JavaScript could), it names no tool and trusts no approver.
    const bare: unknown = Reflect.apply(core.toolResult.createEngine, undefined, [{}]);
    expect(bare).toMatchObject({ registry: undefined, approvers: undefined });
    const registry = core.toolResult.createRegistry([]);
    const approvers = new Set(["approver-1"]);
    const engine = core.toolResult.createEngine({ registry, approvers });
    expect(engine.registry).toBe(registry);
    expect(engine.approvers).toBe(approvers);
    expect(engine.registry.get("get_order")).toBe(undefined);
    // The reference's demo dispatcher is the harness's, named there.
    const demo = conformance.toolCases.createDemoEngine();
    expect([...demo.approvers]).toEqual(["human-reviewer-1"]);
    expect([demo.registry.get("get_order")?.name, demo.registry.get("create_refund_draft")?.name]).toEqual([
      "get_order",
      "create_refund_draft",
    ]);
  });

  it("keeps the client's runtime names", () => {
    const names = [
      "AgentClient",
      "ApproverClient",
      "ProviderPoller",
      "connectProvider",
      "PROVIDER_PROTOCOL",
      "failure",
      "inlineResult",
      "jsonBytes",
      "observationFor",
      "call",
      "readWire",
      "writeWire",
    ];
    expect(names.filter((name) => !(name in client))).toEqual([]);
  });

  it("ships a capability provider and the Tool Result engine each alone, as the same values", () => {
    // toolgate/capability-provider: the client's provider half, nothing of the other clients.
    expect(Object.keys(capabilityProvider).sort()).toEqual([
      "PROVIDER_PROTOCOL",
      "ProviderPoller",
      "connectProvider",
      "failure",
      "inlineResult",
      "jsonBytes",
      "observationFor",
    ]);
    for (const [name, value] of Object.entries(capabilityProvider))
      expect(value).toBe(client[name as keyof typeof client]);
    // toolgate/tool-result: the core's toolResult namespace, name for name.
    expect(Object.keys(toolResult).sort()).toEqual(Object.keys(core.toolResult).sort());
    expect(toolResult.createEngine).toBe(core.toolResult.createEngine);
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
    expectTypeOf<Wire<{ a: bigint; b: [bigint, string][]; c: bigint | null }>>().toEqualTypeOf<{
      a: U64;
      b: [U64, string][];
      c: U64 | null;
    }>();
  });
});
