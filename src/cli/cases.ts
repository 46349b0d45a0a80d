import { prettyJson } from "../core/json";
import { loadToolCasesFixture, runFixture } from "../conformance/tool-cases";
import type { CliIo } from "./io";

const USAGE = "usage: toolgate cases --fixture FILE [--dump]\n";

interface CasesArgs {
  readonly fixture: string;
  readonly dump: boolean;
}

// Accepts `--fixture FILE`, `--fixture=FILE` and `--dump`, like the reference's argparse front end.
function parseArgs(args: string[]): CasesArgs | string {
  let fixture: string | undefined;
  let dump = false;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === "--dump") dump = true;
    else if (arg === "--fixture") {
      const value = args[i + 1];
      if (value === undefined) return "argument --fixture: expected one argument";
      fixture = value;
      i += 1;
    } else if (arg.startsWith("--fixture=")) fixture = arg.slice("--fixture=".length);
    else return `unrecognized argument: ${arg}`;
  }
  return fixture === undefined || fixture === "" ? "the --fixture FILE argument is required" : { fixture, dump };
}

function reject(io: CliIo, dump: boolean, message: string): number {
  io.stderr(`toolgate cases: ${message}\n`);
  if (dump) io.stdout(prettyJson({ exit_code: 2, message: `${message}\n`, rejected: true }) + "\n");
  return 2;
}

/**
 * `toolgate cases --fixture FILE [--dump]`: runs a tool-cases-v2 fixture. Prints the reference
 * CLI's summary (or, with --dump, every package and projection); exits 0 when every step passed,
 * 1 when some failed, 2 when the fixture is refused (nothing on stdout without --dump).
 */
export function runCases(args: string[], io: CliIo): number {
  const parsed = parseArgs(args);
  if (typeof parsed === "string") {
    io.stderr(`toolgate cases: ${parsed}\n${USAGE}`);
    return 2;
  }
  let bytes: Uint8Array;
  try {
    bytes = io.readFile(parsed.fixture);
  } catch (error) {
    const reason = error instanceof Error && "code" in error ? String(error.code) : "unreadable";
    return reject(io, parsed.dump, `cannot read fixture ${parsed.fixture} (${reason})`);
  }
  const loaded = loadToolCasesFixture(bytes);
  if (!loaded.ok) return reject(io, parsed.dump, `${parsed.fixture}: ${loaded.error.message}`);
  const result = runFixture(loaded.fixture, { records: parsed.dump });
  if (!result.ok)
    return reject(io, parsed.dump, `${parsed.fixture}: fixture refused while running: ${result.error.message}`);
  const { run } = result;
  if (parsed.dump) {
    io.stdout(prettyJson({ exit_code: run.exitCode, rejected: false, steps: run.steps, summary: run.summary }) + "\n");
  } else {
    io.stdout(prettyJson(run.summary) + "\n");
  }
  return run.exitCode;
}
