"""A benchmark's activity factor derived from the logs, judged on logs it was not chosen on.

Run: ``python bench/activityloo.py --board rpi4 --workload "tinymembench latency"
--factors 0.5,0.7,1 [--data DIR ...] [--json]`` (default folder: ``$THERMOGOV_REAL_DATA``).

``workload_activity`` weighs the load of the phases a log names (:mod:`~thermogov.sim.calibration.activity`).
Where no published figure gives the factor, the logs are the only source, and a value chosen on the
bench's own logs scores itself.  For every factor of the grid each log of ``--board`` that names
``--workload`` is fitted as ``bench/fidelity.py`` fits it (its first 40 %, the plain call), with
the profile's CPU domains weighing that workload by the factor; then each log is left out in turn,
the factor is chosen on the others and the log is scored at it
(:mod:`~thermogov.sim.calibration.factorloo`).  The summary compares that leave-one-out figure
with every log at the profile's own factor: a factor worth stating lowers it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from fidelity import TARGET_RMSE_C, candidate, real_logs  # noqa: E402  (the same candidates and boards)

from tests.realdata import REAL_DATA  # noqa: E402


def weighed(board: Any, workload: str, factor: float) -> Any:
    """``board`` with its CPU domains weighing ``workload`` by ``factor`` (the other factors kept)."""
    domains = tuple(
        dataclasses.replace(
            d, workload_activity=tuple({**dict(d.workload_activity), workload: factor}.items())
        )
        if d.kind == "cpufreq"
        else d
        for d in board.domains
    )
    return dataclasses.replace(board, domains=domains)


def profile_factor(board: Any, workload: str) -> float:
    """The factor the profile gives ``workload`` now: its own entry, else the longest name it holds, else 1."""
    for d in board.domains:
        if d.kind == "cpufreq":
            own = dict(d.workload_activity)
            keys = [k for k in own if k in workload]
            if keys:
                return float(own[max(keys, key=len)])
    return 1.0


def main() -> int:
    from thermogov.interfaces import ThermogovError
    from thermogov.sim.calibration.calibrate import calibrate
    from thermogov.sim.calibration.factorloo import leave_one_out

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, action="append", help="folder of real logs (repeatable)")
    ap.add_argument("--board", required=True, help="profile name, e.g. rpi4")
    ap.add_argument("--workload", required=True, help="the phase name the factor weighs")
    ap.add_argument("--factors", required=True, help="comma-separated grid of factors")
    ap.add_argument("--json", action="store_true", help="the grid and the leave-one-out rows as JSON")
    args = ap.parse_args()
    try:
        grid = sorted({float(x) for x in args.factors.split(",")})
    except ValueError:
        print(f"--factors: {args.factors!r} is not a comma-separated list of numbers", file=sys.stderr)
        return 2
    if not grid or not all(math.isfinite(f) and 0 < f <= 4 for f in grid):
        print(
            "--factors: every factor must be in (0, 4] (the range workload_activity accepts)", file=sys.stderr
        )
        return 2
    folders = [p for p in (args.data or [REAL_DATA]) if p.is_dir()]
    if not folders:
        print("no folder of real logs (set THERMOGOV_REAL_DATA or --data); nothing to measure")
        return 0
    workload = args.workload.lower()
    logs = []
    for folder in folders:
        for path in real_logs(folder):
            got = candidate(path)
            if got and got[1].name == args.board and any(workload in n.lower() for n, _ in got[0].phases):
                logs.append((path.name, *got))
    if not logs:
        print(f"no {args.board} log names {args.workload!r}; nothing to measure")
        return 0
    own = profile_factor(logs[0][2], workload)
    grid = sorted({*grid, own})
    rmse: dict[float, dict[str, float]] = {}
    for f in grid:
        rmse[f] = {}
        for name, data, board in logs:
            try:
                rmse[f][name] = (
                    calibrate(data, weighed(board, workload, f), holdout=0.6).rmse_holdout_c or math.nan
                )
            except ThermogovError:
                rmse[f][name] = math.nan
    rows = leave_one_out(rmse, own)
    loo = sum(r.rmse_c for r in rows)
    at_own = sum(r.rmse_profile_c for r in rows)
    within = (
        sum(r.rmse_c <= TARGET_RMSE_C for r in rows),
        sum(r.rmse_profile_c <= TARGET_RMSE_C for r in rows),
    )
    if args.json:
        out = {
            "board": args.board,
            "workload": args.workload,
            "profile_factor": own,
            "grid": {f"{f:g}": rmse[f] for f in grid},
            "rows": [dataclasses.asdict(r) for r in rows],
            "totals": {
                "loo_sum_c": loo,
                "profile_sum_c": at_own,
                "loo_within": within[0],
                "profile_within": within[1],
            },
        }
        print(json.dumps(out, indent=1))
        return 0
    print(
        f"{args.board}, {args.workload!r}: profile factor {own:g}, grid {', '.join(f'{f:g}' for f in grid)}"
    )
    print(f"{'log':40s} {'chosen':>7s} {'RMSE':>6s} {'profile':>8s}")
    for r in rows:
        print(f"{r.log:40s} {r.chosen:7g} {r.rmse_c:6.2f} {r.rmse_profile_c:8.2f}")
    print(
        f"leave-one-out: summed held-out RMSE {loo:.2f} °C, {within[0]}/{len(rows)} within {TARGET_RMSE_C} °C; "
        f"at the profile's factor: {at_own:.2f} °C, {within[1]}/{len(rows)}"
    )
    for f in grid:
        total = sum(rmse[f].values())
        print(f"  factor {f:g} on every log (in-sample): {total:.2f} °C")
    return 0


if __name__ == "__main__":
    sys.exit(main())
