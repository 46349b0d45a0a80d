#!/usr/bin/env bash
# Dev tool: compares toolgate's `cases --dump` with the reference's dump.py, byte for byte, on
# every *.json fixture in DIR (expected.json is skipped). Needs python3 and the reference.
#
#   scripts/differential.sh DIR [MAX_LISTED]
#
# Prints "N identical, M differ" and the first differing files with cmp's first difference and
# both exit statuses. Dumps of differing fixtures are kept under a temporary directory (printed).
# Both sides run in one process each (the reference's dump.py is imported as a module, toolgate's
# bundled CLI is called in-process with a capturing io), so the outputs are exactly what
# `python3 dump.py FILE` and `toolgate cases --fixture FILE --dump` print.
# The reference defaults to ../shared/conformance/tool-cases/reference/dump.py relative to the
# repository root; override with TOOLGATE_REFERENCE_DUMP.
set -euo pipefail

dir=${1:?usage: scripts/differential.sh DIR [MAX_LISTED]}
max_listed=${2:-10}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
reference=${TOOLGATE_REFERENCE_DUMP:-$root/../shared/conformance/tool-cases/reference/dump.py}
python=${PYTHON:-python3}

if ! command -v "$python" >/dev/null 2>&1; then echo "differential.sh: $python not found" >&2; exit 2; fi
if [ ! -f "$reference" ]; then echo "differential.sh: reference dump.py not found at $reference" >&2; exit 2; fi
dir=$(cd "$dir" && pwd)
(cd "$root" && node scripts/build-cli.js)

out=$(mktemp -d "${TMPDIR:-/tmp}/toolgate-differential.XXXXXX")
list="$out/files.txt"
find "$dir" -maxdepth 1 -name '*.json' ! -name expected.json | sort >"$list"
total=$(wc -l <"$list")
if [ "$total" -eq 0 ]; then echo "differential.sh: no fixtures in $dir" >&2; exit 2; fi

# The reference: dump.py imported once, dump_document() + render() per fixture, like its main().
timeout 3600 "$python" - "$reference" "$list" "$out" <<'PY'
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
PY

# toolgate: the bundled CLI's main() in one Node process, stdout captured per fixture.
timeout 3600 node --input-type=module - "$root/dist/cli.js" "$list" "$out" <<'JS'
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
const [cli, listing, out] = process.argv.slice(2);
const { main } = await import(pathToFileURL(cli).href);
for (const file of readFileSync(listing, "utf8").split("\n").filter(Boolean)) {
  const chunks = [];
  const io = {
    stdout: (text) => chunks.push(text),
    stderr: () => {},
    readFile: (path) => new Uint8Array(readFileSync(path)),
  };
  let status;
  try {
    status = await main(["cases", "--fixture", file, "--dump"], io);
  } catch (error) {
    status = `threw ${error instanceof Error ? error.message : String(error)}`;
  }
  const base = basename(file, ".json");
  writeFileSync(`${out}/${base}.toolgate.json`, new TextEncoder().encode(chunks.join("")));
  writeFileSync(`${out}/${base}.toolgate.rc`, String(status));
}
JS

same=0
differ=0
listed=()
while IFS= read -r file; do
  base=$(basename "$file" .json)
  ours="$out/$base.toolgate.json"
  theirs="$out/$base.reference.json"
  our_rc=$(cat "$out/$base.toolgate.rc")
  their_rc=$(cat "$out/$base.reference.rc")
  if [ "$our_rc" = "$their_rc" ] && cmp -s "$ours" "$theirs"; then
    same=$((same + 1))
    rm -f "$ours" "$theirs" "$out/$base.toolgate.rc" "$out/$base.reference.rc"
  else
    differ=$((differ + 1))
    if [ "${#listed[@]}" -lt "$max_listed" ]; then
      where=$(cmp "$ours" "$theirs" 2>&1 | head -1 || true)
      listed+=("  $file: exit toolgate=$our_rc reference=$their_rc; ${where:-same bytes}")
    fi
  fi
done <"$list"

echo "$same identical, $differ differ"
if [ "$differ" -gt 0 ]; then
  printf '%s\n' "${listed[@]}"
  echo "dumps of differing fixtures: $out"
  exit 1
fi
rm -rf "$out"
