// Dev tool: compares toolgate's `cases --dump` with the reference's dump.py, byte for byte, on
// every *.json fixture in DIR (expected.json is skipped). Needs python3 and the reference.
//
//   node tools/run.js tools/differential.ts DIR [MAX_LISTED]
//
// Prints "N identical, M differ" and the first differing files with the offset and line of their
// first difference and both exit statuses. Dumps of differing fixtures are kept under a temporary
// directory (printed). Both sides run in one process each (the reference's dump.py is imported as
// a module in one Python process; toolgate's bundled CLI is called in this process with a
// capturing io), so the outputs are exactly what `python3 dump.py FILE` and
// `toolgate cases --fixture FILE --dump` print.
// The reference defaults to ../shared/conformance/tool-cases/reference/dump.py relative to the
// repository root; override with TOOLGATE_REFERENCE_DUMP.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { buildCli } from "./lib/build-cli.ts";
import { ROOT } from "./lib/paths.ts";

/** The reference side: dump.py imported once, dump_document() + render() per fixture, like its main(). */
const REFERENCE_RUNNER = `
import importlib.machinery, importlib.util, sys
from pathlib import Path
reference, listing, out = sys.argv[1:4]
loader = importlib.machinery.SourceFileLoader("toolgate_reference_dump", reference)
spec = importlib.util.spec_from_loader("toolgate_reference_dump", loader)
dump = importlib.util.module_from_spec(spec)
loader.exec_module(dump)
for line in Path(listing).read_text(encoding="utf-8").splitlines():
    base = Path(line).stem
    document, status = dump.dump_document(Path(line))
    Path(out, base + ".reference.json").write_bytes(dump.render(document).encode("utf-8"))
    Path(out, base + ".reference.rc").write_text(str(status))
`;

/** What the bundled CLI's `main` takes: its arguments and its io. */
type CliMain = (
  args: string[],
  io: { stdout: (text: string) => void; stderr: (text: string) => void; readFile: (path: string) => Uint8Array },
) => Promise<number>;

function fail(message: string): never {
  process.stderr.write(`differential: ${message}\n`);
  process.exit(2);
}

/** Where two byte strings first differ, as cmp says it: "differ: byte N, line L" (null: the same). */
function firstDifference(a: Uint8Array, b: Uint8Array): string | null {
  const n = Math.min(a.length, b.length);
  let line = 1;
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return `differ: byte ${i + 1}, line ${line}`;
    if (a[i] === 0x0a) line += 1;
  }
  return a.length === b.length ? null : `EOF on the shorter after byte ${n}`;
}

const [dirArg, maxArg] = process.argv.slice(2);
if (dirArg === undefined) fail("usage: node tools/run.js tools/differential.ts DIR [MAX_LISTED]");
const maxListed = maxArg === undefined ? 10 : Number.parseInt(maxArg, 10);
const reference =
  process.env.TOOLGATE_REFERENCE_DUMP ??
  join(ROOT, "..", "shared", "conformance", "tool-cases", "reference", "dump.py");
const python = process.env.PYTHON ?? "python3";

if (spawnSync(python, ["--version"], { stdio: "ignore" }).status !== 0) fail(`${python} not found`);
if (!existsSync(reference)) fail(`reference dump.py not found at ${reference}`);
const dir = resolve(dirArg);
await buildCli();

const out = mkdtempSync(join(tmpdir(), "toolgate-differential."));
const files = readdirSync(dir)
  .filter((name) => name.endsWith(".json") && name !== "expected.json")
  .sort()
  .map((name) => join(dir, name));
if (files.length === 0) fail(`no fixtures in ${dir}`);
const list = join(out, "files.txt");
writeFileSync(list, `${files.join("\n")}\n`);

const ran = spawnSync(python, ["-", reference, list, out], {
  input: REFERENCE_RUNNER,
  stdio: ["pipe", "inherit", "inherit"],
  timeout: 3_600_000,
});
if (ran.status !== 0) fail(`the reference failed (exit ${ran.status ?? ran.signal})`);

// toolgate: the bundled CLI's main() in this process, stdout captured per fixture.
const { main } = (await import(pathToFileURL(join(ROOT, "dist", "cli.js")).href)) as { main: CliMain };
for (const file of files) {
  const chunks: string[] = [];
  const io = {
    stdout: (text: string) => void chunks.push(text),
    stderr: () => {},
    readFile: (path: string) => new Uint8Array(readFileSync(path)),
  };
  let status: string;
  try {
    status = String(await main(["cases", "--fixture", file, "--dump"], io));
  } catch (error) {
    status = `threw ${error instanceof Error ? error.message : String(error)}`;
  }
  const base = basename(file, ".json");
  writeFileSync(join(out, `${base}.toolgate.json`), new TextEncoder().encode(chunks.join("")));
  writeFileSync(join(out, `${base}.toolgate.rc`), status);
}

let same = 0;
const listed: string[] = [];
for (const file of files) {
  const base = basename(file, ".json");
  const paths = [`${base}.toolgate.json`, `${base}.reference.json`, `${base}.toolgate.rc`, `${base}.reference.rc`].map(
    (name) => join(out, name),
  );
  const [ours = "", theirs = "", ourRc = "", theirRc = ""] = paths;
  const ourStatus = readFileSync(ourRc, "utf8");
  const theirStatus = readFileSync(theirRc, "utf8");
  const where = firstDifference(readFileSync(ours), readFileSync(theirs));
  if (ourStatus === theirStatus && where === null) {
    same += 1;
    for (const path of paths) rmSync(path, { force: true });
  } else if (listed.length < maxListed) {
    listed.push(`  ${file}: exit toolgate=${ourStatus} reference=${theirStatus}; ${where ?? "same bytes"}`);
  }
}
const differ = files.length - same;
process.stdout.write(`${same} identical, ${differ} differ\n`);
if (differ > 0) {
  process.stdout.write(`${listed.join("\n")}\ndumps of differing fixtures: ${out}\n`);
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
