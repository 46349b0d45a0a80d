#!/usr/bin/env bash
# Dev tool: compares toolgate's `cases --dump` with the reference's dump.py, byte for byte, on
# every *.json fixture in DIR (expected.json is skipped). Needs python3 and the reference.
#
#   scripts/differential.sh DIR [MAX_LISTED]
#
# Prints "N identical, M differ" and the first differing files with cmp's first difference and
# both exit statuses. Dumps of differing fixtures are kept under $OUT (printed at the end).
# The reference defaults to ../shared/conformance/tool-cases/reference/dump.py relative to the
# repository root; override with TOOLGATE_REFERENCE_DUMP. JOBS sets the parallelism.
set -euo pipefail

dir=${1:?usage: scripts/differential.sh DIR [MAX_LISTED]}
max_listed=${2:-10}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
reference=${TOOLGATE_REFERENCE_DUMP:-$root/../shared/conformance/tool-cases/reference/dump.py}
python=${PYTHON:-python3}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

if ! command -v "$python" >/dev/null 2>&1; then echo "differential.sh: $python not found" >&2; exit 2; fi
if [ ! -f "$reference" ]; then echo "differential.sh: reference dump.py not found at $reference" >&2; exit 2; fi
(cd "$root" && node scripts/build-cli.js)

OUT=$(mktemp -d "${TMPDIR:-/tmp}/toolgate-differential.XXXXXX")
export OUT root reference python

compare_one() {
  local file=$1
  local base
  base=$(basename "$file" .json)
  local ours="$OUT/$base.toolgate.json" theirs="$OUT/$base.reference.json"
  local our_rc=0 their_rc=0
  timeout 120 node "$root/bin/toolgate.js" cases --fixture "$file" --dump >"$ours" 2>/dev/null || our_rc=$?
  timeout 120 "$python" "$reference" "$file" >"$theirs" 2>/dev/null || their_rc=$?
  if [ "$our_rc" = "$their_rc" ] && cmp -s "$ours" "$theirs"; then
    rm -f "$ours" "$theirs"
    echo "same $file"
  else
    local where
    where=$(cmp "$ours" "$theirs" 2>&1 | head -1 || true)
    echo "diff $file exit toolgate=$our_rc reference=$their_rc ${where:-(same bytes)}"
  fi
}
export -f compare_one

results=$(find "$dir" -maxdepth 1 -name '*.json' ! -name expected.json -print0 | sort -z |
  xargs -0 -n 1 -P "$jobs" bash -c 'compare_one "$1"' _)

same=$(grep -c '^same ' <<<"$results" || true)
differ=$(grep -c '^diff ' <<<"$results" || true)
echo "$same identical, $differ differ"
if [ "$differ" -gt 0 ]; then
  grep '^diff ' <<<"$results" | sort | head -n "$max_listed" | sed 's/^diff /  /'
  echo "dumps of differing fixtures: $OUT"
  exit 1
fi
rm -rf "$OUT"
