"""Bit-identity check of the simulator: record reference results, then check a change keeps them.

An optimisation of the simulator must not change what it computes: the same seed gives the same
trace, samples and summary, byte for byte.  This tool runs a fixed set of cases (every scenario
in ``sim/scenarios`` with the default policy, ``hysteresis`` and two kernel baselines, plus the
default world on two seeds and one unrecorded run) and stores each case's hashes and its
compressed trace and samples, so ``check`` can show the first row that differs.

Run::

    python tools/sim_identity.py record DIR    # on the code before the change
    python tools/sim_identity.py check DIR     # after it; exit 1 on any difference

Scenarios are shortened to ``--duration`` seconds (default 240) with their events moved
proportionally into the shortened run, so every event still happens; the cases are test
vectors, not the scenarios' published results.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from thermogov.config import Config
from thermogov.sim.model.runner import simulate
from thermogov.sim.scenarios import load_scenario, scenario_names

POLICIES = ("stepped", "hysteresis", "step_wise", "power_allocator")
FILES = ("trace.csv", "samples.csv")
VOLATILE = ("run_id",)  # the wall-clock time the run started, nothing the simulation computes


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    config: Config
    recorded: bool = True


def shortened(config: Config, duration_s: float) -> Config:
    """``config`` cut to ``duration_s``, its events moved to the same fraction of the run."""
    full = config.sim.duration_s
    if full <= duration_s:
        return config
    scale = duration_s / full
    events = tuple(dataclasses.replace(ev, at_s=round(ev.at_s * scale, 3)) for ev in config.sim.events)
    return dataclasses.replace(
        config, sim=dataclasses.replace(config.sim, duration_s=duration_s, events=events)
    )


def cases(duration_s: float) -> list[Case]:
    out = []
    for scenario in scenario_names():
        base = shortened(load_scenario(scenario), duration_s)
        for policy in POLICIES:
            out.append(Case(f"{scenario}.{policy}", dataclasses.replace(base, policy=policy)))
    default = shortened(Config(), duration_s)
    for seed in (1, 2):
        out.append(Case(f"default.stepped.s{seed}", dataclasses.replace(default, seed=seed)))
    out.append(Case("default.stepped.unrecorded", default, recorded=False))
    return out


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _stable_summary(summary: dict[str, Any]) -> bytes:
    kept = {k: v for k, v in summary.items() if k not in VOLATILE}
    return json.dumps(kept, sort_keys=True, default=str).encode()


def run_case(case: Case) -> tuple[dict[str, str], dict[str, bytes]]:
    """The case's hashes and the raw bytes of its files (empty for an unrecorded run)."""
    if not case.recorded:
        result = simulate(case.config)
        return {"summary": _digest(_stable_summary(result.summary))}, {}
    with tempfile.TemporaryDirectory() as tmp:
        result = simulate(case.config, out_dir=tmp)
        assert result.run_dir is not None
        blobs = {f: (result.run_dir / f).read_bytes() for f in FILES}
    hashes = {f: _digest(b) for f, b in blobs.items()}
    hashes["summary"] = _digest(_stable_summary(result.summary))
    return hashes, blobs


def record(ref: Path, duration_s: float, only: str = "") -> int:
    ref.mkdir(parents=True, exist_ok=True)
    table: dict[str, dict[str, str]] = {}
    for case in cases(duration_s):
        if only not in case.name:
            continue
        hashes, blobs = run_case(case)
        table[case.name] = hashes
        for f, b in blobs.items():
            (ref / f"{case.name}.{f}.gz").write_bytes(gzip.compress(b, mtime=0))
        print(f"recorded {case.name}", flush=True)
    (ref / "identity.json").write_text(json.dumps({"duration_s": duration_s, "cases": table}, indent=1))
    print(f"{len(table)} cases in {ref}")
    return 0


def first_difference(old: bytes, new: bytes) -> str:
    """The first differing line of two CSV files, numbered from 1 (the header)."""
    a, b = old.decode().splitlines(), new.decode().splitlines()
    for i, (x, y) in enumerate(zip(a, b, strict=False), start=1):
        if x != y:
            return f"line {i}:\n      was {x}\n      now {y}"
    return f"same first {min(len(a), len(b))} lines; was {len(a)} lines, now {len(b)}"


def check(ref: Path) -> int:
    index = ref / "identity.json"
    if not index.is_file():
        print(
            f"{index}: no reference; run `python tools/sim_identity.py record {ref}` first", file=sys.stderr
        )
        return 2
    stored = json.loads(index.read_text())
    want: dict[str, dict[str, str]] = stored["cases"]
    bad = 0
    known = {c.name: c for c in cases(float(stored["duration_s"]))}
    for name in want:
        if name not in known:
            print(f"GONE  {name}: in the reference, no longer a case")
            bad += 1
    for case in (c for name, c in known.items() if name in want):
        hashes, blobs = run_case(case)
        diffs = [k for k, v in hashes.items() if want[case.name].get(k) != v]
        if not diffs:
            print(f"same  {case.name}", flush=True)
            continue
        bad += 1
        print(f"DIFF  {case.name}: {', '.join(diffs)}")
        for f in diffs:
            if f in blobs:
                old = gzip.decompress((ref / f"{case.name}.{f}.gz").read_bytes())
                print(f"    {f} {first_difference(old, blobs[f])}")
    print(f"{bad} of {len(want)} cases differ" if bad else f"all {len(want)} cases bit-identical")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record", help="run the cases and store their hashes and files in DIR")
    rec.add_argument("dir", type=Path)
    rec.add_argument("--duration", type=float, default=240.0, help="simulated seconds per case")
    rec.add_argument("--only", default="", help="only the cases whose name contains this")
    chk = sub.add_parser("check", help="run the cases and compare them with DIR")
    chk.add_argument("dir", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "record":
        return record(args.dir, args.duration, args.only)
    return check(args.dir)


if __name__ == "__main__":
    sys.exit(main())
