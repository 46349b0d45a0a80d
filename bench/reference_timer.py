#!/usr/bin/env python3
"""Times the Tool Result v2 reference's run_fixture in-process, for side-by-side benchmarks.

Usage:
    python3 bench/reference_timer.py --fixture FILE [--seed-module PATH]

The reference module is loaded unmodified from PATH (default: the environment variable
TOOLGATE_REFERENCE_SEED, else ../shared/seeds/004_780ab4077f902ab8.txt relative to the
repository root). The fixture is parsed with the reference's duplicate-key hook and checked with
validate_fixture (not load_fixture: a 250-step fixture exceeds its 64 KiB cap). Every case of the
fixture is also available on its own, by case id.

After loading, it prints one JSON line {"ready": true, ...} and then answers commands on stdin,
one JSON line each:
    {"cmd": "time", "case": ID|null, "seconds": 1.5}   -> {"runs", "steps", "elapsed"}
    {"cmd": "digests", "case": ID|null}                -> {"steps", "digests", "bytes", "unique"}
    {"cmd": "summary", "case": ID|null}                -> {"summary": run_fixture(...)}
    {"cmd": "quit"}
Interpreter start, imports and fixture parsing are outside every timed slice.
"""

from __future__ import annotations

import argparse
import copy
import importlib.machinery
import importlib.util
import json
from pathlib import Path
import sys
import time

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SEED = ROOT / ".." / "shared" / "seeds" / "004_780ab4077f902ab8.txt"


def load_reference(path: Path):
    loader = importlib.machinery.SourceFileLoader("tool_dispatcher", str(path))
    spec = importlib.util.spec_from_loader("tool_dispatcher", loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules["tool_dispatcher"] = module
    loader.exec_module(module)
    return module


def main() -> int:
    import os

    parser = argparse.ArgumentParser()
    parser.add_argument("--fixture", type=Path, required=True)
    parser.add_argument("--seed-module", type=Path, default=Path(os.environ.get("TOOLGATE_REFERENCE_SEED", DEFAULT_SEED)))
    args = parser.parse_args()
    td = load_reference(args.seed_module)

    fixture = json.loads(
        args.fixture.read_text(encoding="utf-8"),
        object_pairs_hook=td._unique_object,
        parse_constant=td._reject_constant,
    )
    errors = td.validate_fixture(fixture)
    if errors:
        print(json.dumps({"ready": False, "errors": errors[:5]}), flush=True)
        return 2

    def sub_fixture(case_id):
        if case_id is None:
            return fixture
        cases = [c for c in fixture["cases"] if c["id"] == case_id]
        if not cases:
            raise KeyError(case_id)
        return {**fixture, "cases": cases}

    def step_count(fx) -> int:
        return sum(len(c["steps"]) for c in fx["cases"])

    # Warm-up run that also checks that every step passes.
    warm = td.run_fixture(copy.deepcopy(fixture))
    print(json.dumps({"ready": True, "passed": warm["passed"], "steps": warm["step_count"],
                      "python": sys.version.split()[0]}), flush=True)

    original_digest = td._digest
    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        cmd = command.get("cmd")
        if cmd == "quit":
            break
        fx = sub_fixture(command.get("case"))
        if cmd == "time":
            budget = float(command.get("seconds", 1.5))
            runs = 0
            start = time.perf_counter()
            elapsed = 0.0
            while elapsed < budget:
                td.run_fixture(fx)
                runs += 1
                elapsed = time.perf_counter() - start
            reply = {"runs": runs, "steps": runs * step_count(fx), "elapsed": elapsed}
        elif cmd == "digests":
            counts = {"digests": 0, "bytes": 0}
            seen: set[str] = set()

            def counting_digest(value):
                text = td._canonical_json(value)
                counts["digests"] += 1
                counts["bytes"] += len(text.encode("utf-8"))
                hexdigest = original_digest(value)
                seen.add(hexdigest)
                return hexdigest

            td._digest = counting_digest
            try:
                td.run_fixture(fx)
            finally:
                td._digest = original_digest
            reply = {"steps": step_count(fx), **counts, "unique": sorted(seen)}
        elif cmd == "summary":
            reply = {"summary": td.run_fixture(fx)}
        else:
            reply = {"error": f"unknown command {cmd!r}"}
        print(json.dumps(reply, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
