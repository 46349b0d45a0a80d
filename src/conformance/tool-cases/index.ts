/**
 * The `tool-cases-v2` harness: the reference's demo tools and approver, the fixture contract and
 * loader, and the runner that replays a fixture the way the reference's `run_fixture` does.
 * @module
 */
export * from "./constants";
export {
  createDemoEngine,
  createDemoRegistry,
  createRefundDraftTool,
  DEMO_ORDERS,
  getOrderTool,
  sideEffectCount,
  SIDE_EFFECT_COUNTER,
} from "./demo-registry";
export { makeApproval } from "./make-approval";
export {
  parseToolCasesFixture,
  toolCasesFixtureSchema,
  type FixtureCase,
  type FixtureParseResult,
  type FixtureStep,
  type ToolCasesFixture,
} from "./fixture-contract";
export { loadToolCasesFixture, type FixtureLoadResult } from "./load-fixture";
export {
  pyJsonEquals,
  runFixture,
  type FixtureRun,
  type RunFixtureOptions,
  type RunFixtureResult,
  type StepRecord,
} from "./run-fixture";
