"""Control quality on the whole scenario suite: every policy against the oracle and the kernel.

Runs every scenario of ``sim/scenarios`` with every policy on the same seed (paired), solves
the oracle for each scenario, and prints per scenario and policy the sustained throughput, its
ratio to the oracle, and its ratios to ``step_wise`` and ``power_allocator`` measured in the
same run, then the issue's targets for the candidate policy (default ``stepped``) as
pass/miss lines.  Nothing is asserted: quality targets are figures to read, not tests.

The product claim is throughput *at the same thermal limit*, and the kernel governors at an
85 °C trip hold the zone a few degrees above 85 °C.  So by default (``--no-iso-limit`` to skip)
every kernel baseline also runs as ``<policy>@iso``, its trip lowered by bisection until it
spends no more time above 85 °C than ``hysteresis`` (:mod:`thermogov.sim.compare.isolimit`); the ratios
and targets are taken against those, and the plain rows with their seconds above the trip are
printed next to them so both views are visible.

    python bench/control_quality.py [--jobs 2] [--scenario NAME ...] [--out DIR] [--csv PATH]

The full suite simulates ~10 hours of board time per policy, plus ~7 bisection runs per kernel
baseline; with two processes it takes several minutes.  ``--out`` keeps every run folder;
``--csv`` writes the rows (``tuned_trip_c`` on the iso rows).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from thermogov.sim.compare.compare import RunRow, compare, write_csv  # noqa: E402
from thermogov.sim.compare.isolimit import iso_label  # noqa: E402
from thermogov.sim.scenarios import scenario_names  # noqa: E402

POLICIES = ["hysteresis", "performance", "step_wise", "bang_bang", "power_allocator", "stepped"]
KERNEL = ("step_wise", "power_allocator")


def _ratio(a: float | None, b: float | None) -> str:
    return "  n/a" if a is None or not b else f"{a / b:5.3f}"


def _kernel(block: dict[str, RunRow], k: str) -> RunRow | None:
    """The baseline ``k`` to judge against: its iso-limit row when there is one."""
    return block.get(iso_label(k)) or block.get(k)


def report(rows: list[RunRow], candidate: str) -> list[str]:
    lines = []
    head = (
        f"{'scenario':<20} {'policy':<20} {'inf/s':>7} {'oracle':>7} {'/oracle':>7} "
        f"{'/step_wise':>10} {'/pow_alloc':>10} {'>trip s':>7} {'limit s':>7} {'trip':>5}"
    )
    lines.append("ratios to step_wise / power_allocator are to their @iso rows when present")
    lines.append(head)
    for scen in dict.fromkeys(r.scenario for r in rows):
        block = {r.policy: r for r in rows if r.scenario == scen}
        for r in block.values():
            sw, pa = (_kernel(block, k) for k in KERNEL)
            trip = "" if r.tuned_trip_c is None else f"{r.tuned_trip_c:g}"
            if r.iso_bound_s is not None and r.above_trip_s > r.iso_bound_s:
                trip += "!"  # even the lowest trip of the grid missed the bound
            lines.append(
                f"{scen:<20} {r.policy:<20} {r.sustained_ips or 0:7.2f} {r.oracle_ips or 0:7.2f} "
                f"{_ratio(r.sustained_ips, r.oracle_ips):>7} "
                f"{_ratio(r.sustained_ips, sw.sustained_ips if sw else None):>10} "
                f"{_ratio(r.sustained_ips, pa.sustained_ips if pa else None):>10} "
                f"{r.above_trip_s:7.1f} {r.hard_limit_s:7.1f} {trip:>5}"
            )
        lines.append("")
    lines.extend(views(rows, candidate))
    lines.append("")
    lines.extend(targets(rows, candidate))
    return lines


def views(rows: list[RunRow], candidate: str) -> list[str]:
    """Per scenario, ``candidate`` over the oracle, the iso-limit and the plain kernel baselines.

    Both views side by side: iso-limit (same thermal limit, the product claim) and plain (the
    kernel as configured at 85 °C, with the seconds above the trip that bought its throughput).
    """
    out = [f"{candidate} vs oracle, iso-limit kernel (tuned trip) and plain kernel (s above 85 °C):"]
    for scen in dict.fromkeys(r.scenario for r in rows):
        block = {r.policy: r for r in rows if r.scenario == scen}
        c = block.get(candidate)
        if c is None or c.sustained_ips is None:
            continue
        parts = [f"/oracle {_ratio(c.sustained_ips, c.oracle_ips)}"]
        for k in KERNEL:
            iso = block.get(iso_label(k))
            if iso is not None:
                parts.append(
                    f"/{iso.policy} {_ratio(c.sustained_ips, iso.sustained_ips)} "
                    f"(trip {iso.tuned_trip_c:g}, {iso.above_trip_s:g}s)"
                )
        for k in KERNEL:
            plain = block.get(k)
            if plain is not None:
                parts.append(f"/{k} {_ratio(c.sustained_ips, plain.sustained_ips)} ({plain.above_trip_s:g}s)")
        out.append(f"  {scen:<20} " + "; ".join(parts))
    return out


def targets(rows: list[RunRow], candidate: str) -> list[str]:
    """The issue's targets for ``candidate``, one verdict per scenario and target."""
    out = [f"targets for {candidate}:"]
    for scen in dict.fromkeys(r.scenario for r in rows):
        block = {r.policy: r for r in rows if r.scenario == scen}
        c = block.get(candidate)
        if c is None or c.sustained_ips is None:
            continue
        verdicts = []
        pct = c.pct_oracle
        verdicts.append(
            f"oracle {'n/a' if pct is None else f'{pct:.1f}%'}{'' if pct is None or pct >= 95 else ' MISS'}"
        )
        reached = any((r.max_fused_c or 0.0) >= 85.0 for r in block.values())
        for k in KERNEL:
            other = _kernel(block, k)
            if reached and other and other.sustained_ips is not None:
                ok = c.sustained_ips > other.sustained_ips
                note = " (it ran above the trip)" if other.above_trip_s > 0 else ""
                verdicts.append(f"> {other.policy} {'yes' if ok else 'MISS' + note}")
        verdicts.append(f"limit {c.hard_limit_s:g}s{'' if c.hard_limit_s == 0 else ' MISS'}")
        h = block.get("hysteresis")
        if h is not None:
            verdicts.append(
                f"above trip {c.above_trip_s:g}s vs {h.above_trip_s:g}s{'' if c.above_trip_s <= h.above_trip_s else ' MISS'}"
            )
        out.append(f"  {scen:<20} " + "; ".join(verdicts))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", action="append", help="a scenario (repeatable; default: all)")
    ap.add_argument("--policy", action="append", help="a policy (repeatable; default: the suite)")
    ap.add_argument("--candidate", default="stepped", help="the policy the targets are checked for")
    ap.add_argument("--jobs", type=int, default=min(os.cpu_count() or 1, 4))
    ap.add_argument("--out", type=Path, help="keep the run folders here")
    ap.add_argument("--csv", type=Path, help="write the rows as CSV")
    ap.add_argument(
        "--iso-limit",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also run the kernel baselines re-tuned to hysteresis's time above the trip (default: on)",
    )
    args = ap.parse_args()
    started = time.monotonic()
    rows, _ = compare(
        args.scenario or scenario_names(),
        args.policy or POLICIES,
        out_dir=args.out,
        jobs=args.jobs,
        iso_limit=args.iso_limit,
        progress=lambda msg: print(msg, file=sys.stderr),
    )
    print("\n".join(report(rows, args.candidate)))
    if args.csv:
        write_csv(rows, args.csv)
    print(f"\n{len(rows)} runs in {time.monotonic() - started:.0f} s with {args.jobs} processes")


if __name__ == "__main__":
    main()
