/**
 * The conformance harness: what proves toolgate reproduces its reference contracts, kept out
 * of the published `toolgate/core`. Pure like the core (it imports the core, never the other
 * way round); the CLI, the tests, the benchmarks and the Worker's built-in demo tools use it.
 *
 * - `toolCases`: `tool-cases-v2` fixtures, the reference's demo tools and approver, the runner.
 * - `capabilityCases`: `capability-cases-v1` scenarios and their runner.
 * @module
 */
export * as toolCases from "./tool-cases";
export * as capabilityCases from "./capability-cases";
