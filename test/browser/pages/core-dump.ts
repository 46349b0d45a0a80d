import { prettyJson } from "../../../src/core/json";
import { loadToolCasesFixture, runFixture } from "../../../src/conformance/tool-cases";

/**
 * Runs the public Tool Result v2 fixture through the core engine in the page and builds the
 * same dump document as `toolgate cases --dump` (exit code, steps, summary).
 */
async function dump(): Promise<{ text: string; exitCode: number }> {
  const bytes = new Uint8Array(await (await fetch("/fixture.json")).arrayBuffer());
  const loaded = loadToolCasesFixture(bytes);
  if (!loaded.ok) throw new Error(loaded.error.message);
  const result = runFixture(loaded.fixture, { records: true });
  if (!result.ok) throw new Error(result.error.message);
  const { run } = result;
  return {
    text: `${prettyJson({ exit_code: run.exitCode, rejected: false, steps: run.steps, summary: run.summary })}\n`,
    exitCode: run.exitCode,
  };
}

(globalThis as { toolgateDump?: typeof dump }).toolgateDump = dump;
