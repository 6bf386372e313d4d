"""Choose ``stepped``'s defaults by leave-one-family-out cross-validation over scenario families.

Every candidate setting (the product of ``--param KEY=V1,V2,...`` grids; the current defaults
are always a candidate, listed first so that a tie keeps them; the others carry only the keys
they change, fewest first, so an exact tie changes as few defaults as it can) runs on every world of every
family of :mod:`thermogov.sim.scenarios.families`, beside ``hysteresis`` (whose time above the
trip and at a hard limit is each world's bound).  :mod:`thermogov.sim.compare.crossval` then
chooses, for each family left out, the candidate best on the others and scores it on the one
left out, and recommends the candidate most folds chose.  Nothing is asserted: it prints the
folds and the recommendation, which docs/policies.md records with the command that made it.

    python bench/cross_validate.py [--param limit_margin_c=0.5,1.0,1.5] [--param margin_c=0.5,1.0]
        [--param code_once=false,true] [--family-scale 0.25] [--jobs 2] [--family NAME ...]

A ``--param`` value is of the type of its key's default in :class:`SteppedParams` (numbers,
``true``/``false``, or the words a choice takes; the trend's keys are numbers), and every
candidate builds the policy once before any run: a bad key or value is one line and exit 2.

Cost: candidates x worlds runs (13 worlds at the default boards); ``--family-scale`` shortens
every world (0.25: a 2-hour ramp becomes 30 minutes of board time).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import math
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from thermogov.config import Config  # noqa: E402
from thermogov.interfaces import ConfigError  # noqa: E402
from thermogov.policies import make_policy  # noqa: E402
from thermogov.policies.base import PolicyContext  # noqa: E402
from thermogov.policies.stepped import SteppedParams  # noqa: E402
from thermogov.sim.compare.compare import run_grid  # noqa: E402
from thermogov.sim.compare.crossval import Outcome, leave_one_family_out, scores  # noqa: E402
from thermogov.sim.scenarios.families import FAMILIES, all_family_scenarios  # noqa: E402
from thermogov.tomlcheck import Table  # noqa: E402

POLICY = "stepped"
DEFAULT_GRID: dict[str, list[float | bool | str]] = {
    "limit_margin_c": [0.5, 1.0, 1.5],
    "margin_c": [0.5, 1.0],
}


Value = float | bool | str


def _value(key: str, text: str, default: Value) -> Value:
    """``text`` as a value of the type of ``key``'s default; a wrong one raises ValueError naming both."""
    v = text.strip()
    if isinstance(default, bool):
        if v not in ("true", "false"):
            raise ValueError(f"--param {key}: {v!r} is not true or false; e.g. --param {key}=false,true")
        return v == "true"
    if isinstance(default, float):
        try:
            number = float(v)
        except ValueError:
            raise ValueError(
                f"--param {key}: {v!r} is not a number; e.g. --param {key}={default:g}"
            ) from None
        if not math.isfinite(number):
            raise ValueError(f"--param {key}: {v!r} is not a finite number; e.g. --param {key}={default:g}")
        return number
    if not v:
        raise ValueError(f"--param {key}: an empty value; e.g. --param {key}={default}")
    return v


def parse_grid(specs: list[str] | None) -> dict[str, list[Value]]:
    """``--param KEY=V1,V2`` axes, each value of the type of ``KEY``'s default in :class:`SteppedParams`."""
    if not specs:
        return dict(DEFAULT_GRID)
    defaults = dataclasses.asdict(SteppedParams())
    grid: dict[str, list[Value]] = {}
    for s in specs:
        key, _, vals = (part.strip() for part in s.partition("="))
        if not key or not vals:
            raise ValueError(f"--param: {s!r} is not KEY=V1,V2; e.g. --param limit_margin_c=0.5,1.5")
        # A key outside SteppedParams (the trend's window_s, jump_c, ...) is a number;
        # check_candidate() refuses one the policy does not know.
        grid[key] = [_value(key, v, defaults.get(key, 1.0)) for v in vals.split(",")]
    return grid


def check_candidate(knobs: dict[str, Value]) -> None:
    """Build the policy once from ``knobs`` (a choice's word, a value's range, two knobs that
    exclude each other), so a bad candidate is one line before any run, not a worker's traceback."""
    board = Config().load_board()
    ctx = PolicyContext(
        board=board,
        tables_hz={d.name: d.opp_hz for d in board.domains},
        control_period_s=0.1,
        sensor_names=tuple(s.name for s in board.sensors),
    )
    make_policy(POLICY, Table(dict(knobs), f"--param policies.{POLICY}"), ctx)


def _label(knobs: dict[str, Value]) -> str:
    def text(v: Value) -> str:
        return str(v).lower() if isinstance(v, bool) else f"{v:g}" if isinstance(v, float) else v

    return ",".join(f"{k}={text(v)}" for k, v in knobs.items()) or "defaults"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--param", action="append", help="KEY=V1,V2,... (repeatable): a grid axis")
    ap.add_argument("--family", action="append", choices=FAMILIES, help="a family (default: all)")
    ap.add_argument("--family-scale", type=float, default=0.25)
    ap.add_argument("--jobs", type=int, default=min(os.cpu_count() or 1, 2))
    args = ap.parse_args()
    try:
        grid = parse_grid(args.param)
    except ValueError as e:
        ap.exit(2, f"cross_validate.py: {e}\n")
    defaults = dataclasses.asdict(SteppedParams())
    grid_points = [dict(zip(grid, vals, strict=True)) for vals in itertools.product(*grid.values())]
    # Only what differs from the current defaults; the defaults first and then by how many keys
    # a candidate changes, so an exact tie goes to the fewest changed defaults.
    changed = [{k: v for k, v in c.items() if defaults.get(k) != v} for c in grid_points]
    unique = list({_label(c): c for c in changed if c}.values())
    candidates = [{}, *sorted(unique, key=len)]
    try:
        for knobs in candidates:
            check_candidate(knobs)
    except ConfigError as e:
        ap.exit(2, f"cross_validate.py: {e}\n")
    worlds = all_family_scenarios(Config(), time_scale=args.family_scale, families=args.family or FAMILIES)
    started = time.monotonic()
    configs = []
    for g in worlds:
        for knobs in candidates:
            cfg = dataclasses.replace(g.config, policies={**g.config.policies, POLICY: knobs})
            configs.append((f"{g.name}|{_label(knobs)}", cfg))
    rows, _ = run_grid(configs, [POLICY], jobs=args.jobs, with_oracle=False)
    ref, _ = run_grid([(g.name, g.config) for g in worlds], ["hysteresis"], jobs=args.jobs, with_oracle=False)
    bounds = {r.scenario: (r.above_trip_s, r.hard_limit_s) for r in ref}
    family = {g.name: g.family for g in worlds}
    outcomes = []
    for r in rows:
        world, _, cand = r.scenario.partition("|")
        outcomes.append(Outcome(world, family[world], cand, r.sustained_ips, r.above_trip_s, r.hard_limit_s))
    folds, pick = leave_one_family_out(outcomes, bounds)
    score = scores(outcomes, bounds)
    print("per world: score of each candidate (x: broke the bound, s above the trip / at a hard limit)")
    for g in worlds:
        above, limit = bounds[g.name]
        parts = []
        for o in (o for o in outcomes if o.world == g.name):
            flag = "" if score[(o.world, o.candidate)] > 0 else f" x({o.above_trip_s:g}/{o.hard_limit_s:g})"
            parts.append(f"{o.candidate} {score[(o.world, o.candidate)]:.4f}{flag}")
        print(f"  {g.name:<36} bound {above:g}/{limit:g} s: " + "; ".join(parts))
    print(
        f"{POLICY}: {len(candidates)} candidates x {len(worlds)} worlds (family scale {args.family_scale:g})"
    )
    print(f"{'held out':<20} {'chosen on the others':<36} {'score':>6} {'best there':<36} {'score':>6}")
    for fd in folds:
        print(
            f"{fd.held_out:<20} {fd.chosen:<36} {fd.held_out_score:6.4f} {fd.best_on_held_out:<36} {fd.best_score:6.4f}"
        )
    mean = sum(fd.held_out_score for fd in folds) / len(folds)
    print(
        f"mean held-out score {mean:.4f}; recommended: {pick}"
        + (" (the current defaults)" if pick == "defaults" else "")
    )
    print(f"{len(rows) + len(ref)} runs in {time.monotonic() - started:.0f} s with {args.jobs} processes")


if __name__ == "__main__":
    main()
