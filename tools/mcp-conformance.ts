// `npm run mcp:conformance`: the official MCP conformance suite (server mode) against the MCP
// endpoint of the gate `npm start` serves: TOOLGATE_BASE, else http://127.0.0.1:TOOLGATE_PORT,
// else port 8787; the admin token from .dev.vars (or TOOLGATE_DEV_VARS). Exit 0 only when every
// check of every scenario passed, 1 when one failed, 2 when the suite could not run (one line,
// no stack). How the suite is set up: tools/lib/mcp-conformance.ts; the decisions around it:
// tools/lib/mcp-conformance-command.ts.
import { runConformance } from "./lib/mcp-conformance.ts";
import {
  adminToken,
  conformanceBase,
  conformanceVerdict,
  devVarsPath,
  EXIT_CANNOT_RUN,
  probeGate,
} from "./lib/mcp-conformance-command.ts";

async function main(): Promise<number> {
  const cannotRun = (message: string): number => {
    process.stderr.write(`${message}\n`);
    return EXIT_CANNOT_RUN;
  };
  const base = conformanceBase(process.env);
  if (!base.ok) return cannotRun(base.message);
  const gate = await probeGate(base.base);
  if (!gate.ok) return cannotRun(gate.message);
  const admin = adminToken(devVarsPath(process.env));
  if (!admin.ok) return cannotRun(admin.message);
  let run: Awaited<ReturnType<typeof runConformance>>;
  try {
    run = await runConformance({
      base: base.base,
      admin: admin.token,
      log: (line) => process.stdout.write(`${line}\n`),
    });
  } catch (error) {
    // Setting up the consumer failed (a wrong admin token answers 401, say): the suite never ran.
    return cannotRun(
      `mcp conformance: the suite could not run against ${base.base}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  process.stdout.write(run.table);
  const verdict = conformanceVerdict(run.results, run.suiteExit);
  process.stdout.write(`\n${verdict.line}\n`);
  return verdict.status;
}

// An exit code rather than process.exit: the table reaches a pipe in full before the process ends.
process.exitCode = await main();
