/**
 * The `capability-cases-v1` harness: scenarios of capability operations with their expected
 * outcomes, run against a fresh (or given) engine state. See docs/capability-cases.md.
 * @module
 */
export {
  parseScenario,
  runScenario,
  sameJson,
  capabilityScenario,
  type CapabilityScenario,
  type ScenarioReport,
  type StepReport,
  type ScenarioError,
} from "./scenario";
