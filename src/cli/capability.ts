import { parseScenario, runScenario } from "../conformance/capability-cases";
import { writeWireJsonPretty } from "../core/capability";
import type { CliIo } from "./io";

const USAGE = "usage: toolgate capability --fixture FILE\n";

/**
 * `toolgate capability --fixture FILE`: runs a capability-cases-v1 scenario and prints
 * the report (every step's actual outcome) as one JSON document.
 * Exit 0 when every expectation matched, 1 when some did not, 2 for invalid input.
 */
export function runCapability(args: string[], io: CliIo): number {
  if (args.length !== 2 || args[0] !== "--fixture" || args[1] === undefined) {
    io.stderr(USAGE);
    return 2;
  }
  const path = args[1];
  let bytes: Uint8Array;
  try {
    bytes = io.readFile(path);
  } catch (error) {
    io.stderr(`toolgate capability: cannot read ${path}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const parsed = parseScenario(bytes);
  if (!parsed.ok) {
    io.stderr(`toolgate capability: ${path}: ${parsed.error.code}\n${parsed.error.message}\n`);
    return 2;
  }
  const { report } = runScenario(parsed.scenario);
  io.stdout(`${writeWireJsonPretty(report)}\n`);
  if (!report.passed) {
    const failed = report.results.filter((result) => result.matched === false).map((result) => result.index);
    io.stderr(`toolgate capability: ${path}: ${report.mismatches} step(s) did not match: ${failed.join(", ")}\n`);
    return 1;
  }
  return 0;
}
