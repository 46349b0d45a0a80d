// Runs one tool-cases-v2 fixture through the core in Deno or Bun and writes `toolgate cases
// --dump`'s document to stdout, byte for byte what the CLI prints in Node: the pretty JSON of
// exit code, steps and summary, then a newline. The fixture runner is the conformance harness
// (not part of the package; bundled from source with the core it imports); the JSON writer is
// the package's (`toolgate`). The fixture's path arrives on stdin. Only the runtime's own file
// and stream APIs are used; no Node built-in.
import { prettyJson } from "toolgate";
import { toolCases } from "../../../src/conformance";

const Deno = globalThis.Deno;
const Bun = globalThis.Bun;

/** All of stdin as text. */
async function readStdin() {
  if (Deno !== undefined) return new Response(Deno.stdin.readable).text();
  return Bun.stdin.text();
}

/** A file's bytes. */
async function readFile(path) {
  if (Deno !== undefined) return Deno.readFile(path);
  return new Uint8Array(await Bun.file(path).arrayBuffer());
}

/** Writes every byte of `text` (UTF-8) to stdout. */
async function writeStdout(text) {
  const bytes = new TextEncoder().encode(text);
  if (Deno === undefined) {
    await Bun.write(Bun.stdout, bytes);
    return;
  }
  let written = 0;
  while (written < bytes.length) written += await Deno.stdout.write(bytes.subarray(written));
}

const path = (await readStdin()).trim();
const loaded = toolCases.loadToolCasesFixture(await readFile(path));
if (!loaded.ok) throw new Error(`fixture refused: ${loaded.error.message}`);
const result = toolCases.runFixture(loaded.fixture, { records: true });
if (!result.ok) throw new Error(`fixture refused while running: ${result.error.message}`);
const { run } = result;
await writeStdout(
  prettyJson({ exit_code: run.exitCode, rejected: false, steps: run.steps, summary: run.summary }) + "\n",
);
