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
    {"cmd": "phases", "case": ID, "seconds": 0.15}     -> {"phases": {name: µs per step}}
    {"cmd": "quit"}
Interpreter start, imports and fixture parsing are outside every timed slice.
"""

from __future__ import annotations

import argparse
import copy
import importlib.machinery
import importlib.util
import hashlib
import json
from pathlib import Path
import sys
import time
import types

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SEED = ROOT / ".." / "shared" / "seeds" / "004_780ab4077f902ab8.txt"


def load_reference(path: Path):
    loader = importlib.machinery.SourceFileLoader("tool_dispatcher", str(path))
    spec = importlib.util.spec_from_loader("tool_dispatcher", loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules["tool_dispatcher"] = module
    loader.exec_module(module)
    return module


PHASES = ("host context", "arguments", "authorization", "dispatch", "packages", "digests", "SHA-256")
STUB_HEX = "0" * 64


def run_for(seconds: float, run) -> tuple[int, float]:
    """Calls `run` until `seconds` have passed; returns the number of calls and the seconds taken."""
    runs = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        run()
        runs += 1
        elapsed = time.perf_counter() - start
    return runs, elapsed


class _StubSha:
    """hashlib.sha256 replaced by a constant: every binding then agrees with itself."""

    def __init__(self, _data: bytes = b"") -> None:
        pass

    def hexdigest(self) -> str:
        return STUB_HEX


class Phases:
    """The reference's side of bench/phases.ts: the same phases of one case's dispatch steps.

    The phases other than "digests" and "SHA-256" run with `hashlib` replaced by a constant (the
    canonical texts are still written), so hashing is counted once, under "digests".
    """

    def __init__(self, td, fixture_case) -> None:
        self.td = td
        principal = td._principal_from_fixture(fixture_case["principal"])
        self.principal = principal
        self.items = []
        real = td.Dispatcher()
        stub_dispatcher = td.Dispatcher()
        original_digest = td._digest
        for step in fixture_case["steps"]:
            if step["action"] != "dispatch":
                raise ValueError("phases take dispatch steps only")
            call = td._call_from_fixture(step["proposal"], step["execution_context"])
            spec = real.registry.get(call.name)
            values = []

            def capturing(value, values=values):
                values.append(value)
                return original_digest(value)

            td._digest = capturing
            try:
                approvals = td.make_approval(principal, call, spec, step["approval"], step["now"])
                package = real.dispatch(principal, call, approvals=approvals, now=step["now"], failure=step["failure"])
                if td.validate_result(principal, call, spec, package) or package["model_result"]["status"] != "succeeded":
                    raise ValueError("phases take steps that succeed")
            finally:
                td._digest = original_digest
            with self.stubbed():
                stub_approvals = td.make_approval(principal, call, spec, step["approval"], step["now"])
                raw = stub_dispatcher.registry[call.name].handler(call.arguments)
                write = spec.risk == "write"
                stub_ref = "status_" + STUB_HEX[:32] if write else None
                record = td.Dispatcher._record_from_handler(spec, call, raw, STUB_HEX, stub_ref)
            self.items.append(types.SimpleNamespace(
                call=call, spec=spec, now=step["now"], failure=step["failure"], write=write,
                stub_approvals=stub_approvals, record=record, values=values,
                texts=[td._canonical_json(v) for v in values],
            ))
        self.stub_dispatcher = stub_dispatcher
        for name in PHASES:
            for _ in range(5):
                self.run(name)

    def stubbed(self):
        td = self.td

        class _Stub:
            def __enter__(self_inner):
                self_inner.saved = td.hashlib
                td.hashlib = types.SimpleNamespace(sha256=_StubSha)

            def __exit__(self_inner, *exc):
                td.hashlib = self_inner.saved
                return False

        return _Stub()

    def run(self, name: str) -> None:
        td, p, items = self.td, self.principal, self.items
        if name == "host context":
            for it in items:
                td.validate_host_context(p, it.call, now=it.now)
        elif name == "arguments":
            for it in items:
                if not td.Dispatcher._validate_arguments(it.spec, it.call.arguments):
                    raise ValueError("arguments refused")
        elif name == "authorization":
            d = self.stub_dispatcher
            with self.stubbed():
                for it in items:
                    if not d._authorized_order(p, it.call.arguments["order_ref"]):
                        raise ValueError("not authorized")
                    if not it.write:
                        continue
                    if not it.spec.business_validator(p, it.call.arguments):
                        raise ValueError("business rule")
                    if not td.Dispatcher._approval_valid(it.stub_approvals, p, it.call, it.spec, it.now):
                        raise ValueError("approval refused")
        elif name == "dispatch":
            with self.stubbed():
                d = td.Dispatcher()
                for it in items:
                    package = d.dispatch(p, it.call, approvals=it.stub_approvals, now=it.now, failure=it.failure)
                    if package["model_result"]["status"] != "succeeded":
                        raise ValueError("dispatch failed")
        elif name == "packages":
            with self.stubbed():
                for it in items:
                    package = td._success_package(p, it.call, it.spec, it.record, delivery="fresh")
                    if td.validate_result(p, it.call, it.spec, package):
                        raise ValueError("package refused")
        elif name == "digests":
            digest = td._digest
            for it in items:
                for value in it.values:
                    digest(value)
        elif name == "SHA-256":
            sha256 = hashlib.sha256
            for it in items:
                for text in it.texts:
                    sha256(text.encode("utf-8")).hexdigest()
        else:
            raise KeyError(name)

    def time(self, name: str, seconds: float) -> float:
        passes, elapsed = run_for(seconds, lambda: self.run(name))
        return elapsed * 1e6 / (passes * len(self.items))


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
    phase_sets = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        cmd = command.get("cmd")
        if cmd == "quit":
            break
        fx = sub_fixture(command.get("case"))
        if cmd == "time":
            runs, elapsed = run_for(float(command.get("seconds", 1.5)), lambda: td.run_fixture(fx))
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
        elif cmd == "phases":
            case_id = command["case"]
            if case_id not in phase_sets:
                phase_sets[case_id] = Phases(td, sub_fixture(case_id)["cases"][0])
            ps = phase_sets[case_id]
            budget = float(command.get("seconds", 0.15))
            reply = {"phases": {name: ps.time(name, budget) for name in PHASES}}
        elif cmd == "summary":
            reply = {"summary": td.run_fixture(fx)}
        else:
            reply = {"error": f"unknown command {cmd!r}"}
        print(json.dumps(reply, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
