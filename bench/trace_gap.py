"""Where policy A loses to policy B, tick by tick, on one scenario and each seed.

Runs both arms (policies or variants, ``stepped+stand_back=true``) on the same world and seed,
then lines their traces up (:mod:`thermogov.sim.compare.tracegap`): the instant the clocks first
differ, how many ticks differ and in how many stretches, and the inference gap A − B booked to
what the clocks did (A's own cap under B's clock; A slower with its cap not the reason; A faster;
the same clocks), over the run and over the steady window the bench scores.  Beside it each run's
expected seconds above the trip (:mod:`thermogov.sim.compare.expected`), over the run and from
the first differing tick on: what A's lost inferences bought.  Session 23a traced rpi5-steady-25's
−0.14 % with it (docs/policies.md)::

    python bench/trace_gap.py --scenario rpi5-steady-25 --policy stepped,step_wise --seeds 1-3

``--drawn N`` takes world ``N`` of a fresh draw instead (``bench/drawn_worlds.py``: ``--draw-seed``,
``--draw-exclude``, ``--family-scale`` as in ``bench/stepped_seeds.py``), the worlds nobody tuned
on; session 29c traced draw 2026's world 19 with a throwaway script for want of it (session 30c)::

    python bench/trace_gap.py --drawn 19 --draw-seed 2026 --draw-exclude jetson-orin-nano-super \\
        --family-scale 0.5 --policy stepped+sink_ramp=true,stepped --seeds 2
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from drawn_worlds import drawn_worlds

from thermogov.config import Config
from thermogov.interfaces import ConfigError
from thermogov.sim.compare.compare import TRIP_C
from thermogov.sim.compare.expected import ReadLog, expected_above_s, recording_reads, trace_ticks
from thermogov.sim.compare.seedset import parse_seeds
from thermogov.sim.compare.tracegap import gap_lines, load_trace, trace_gap
from thermogov.sim.model.runner import build_policy, simulate, validate_events
from thermogov.sim.scenarios import load_scenario
from thermogov.units import parse_duration_s
from thermogov.variant import check_variant, parse_variant


@dataclasses.dataclass(frozen=True)
class Arm:
    run_dir: Path
    reads: ReadLog
    window_s: tuple[float, float]
    ticks: tuple[list[float], list[str]]


def run_arm(config: Config, out: Path) -> Arm:
    """One run written to ``out``, with the true values its sensors read (for the expectation)."""
    with recording_reads() as log:
        res = simulate(config, out_dir=out)
    assert res.run_dir is not None
    lo, hi = res.summary["steady_window_s"]
    return Arm(res.run_dir, log, (float(lo), float(hi)), trace_ticks(res.run_dir))


def expected_from(arm: Arm, config: Config, from_s: float) -> float:
    """The arm's expected seconds above the trip counted from ``from_s`` on."""
    t, used = arm.ticks
    i = next((k for k, x in enumerate(t) if x >= from_s), len(t))
    return expected_above_s(arm.reads, t[i:], used[i:], config.load_board(), TRIP_C)


def pick_world(args: argparse.Namespace) -> tuple[str, Config]:
    """The one world to trace: a suite scenario, or world ``--drawn`` of draw ``--draw-seed``."""
    if args.drawn is None:
        if not args.scenario.strip():
            raise ValueError("give --scenario NAME or --drawn N; e.g. --scenario orin-fan-failure")
        return args.scenario.strip(), load_scenario(args.scenario.strip())
    if args.scenario.strip():
        raise ValueError("--scenario and --drawn name two worlds; give one of them")
    if args.drawn < 1:
        raise ValueError(f"--drawn counts worlds from 1, got {args.drawn}; e.g. --drawn 19")
    if not (0.0 < args.family_scale < float("inf")):
        raise ValueError(f"--family-scale must be a positive number, got {args.family_scale}; e.g. 0.5")
    exclude = {b.strip() for b in args.draw_exclude.split(",") if b.strip()}
    (world,) = drawn_worlds(args.draw_seed, [args.drawn], time_scale=args.family_scale, exclude=exclude)
    print(f"draw {args.draw_seed} world {args.drawn}: {world.name} ({world.what})", flush=True)
    return world.name, world.config


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="", help="one suite scenario (or --drawn)")
    ap.add_argument("--drawn", type=int, help="instead of --scenario: world N of a fresh draw (1-based)")
    ap.add_argument("--draw-seed", type=int, default=16, help="with --drawn: which draw (default 16)")
    ap.add_argument(
        "--draw-exclude", default="", help="with --drawn: boards left out of the draw (comma-separated)"
    )
    ap.add_argument(
        "--family-scale", type=float, default=1.0, help="with --drawn: the world's length (default 1.0, full)"
    )
    ap.add_argument("--policy", required=True, help="A,B: two policies or variants (A is judged against B)")
    ap.add_argument("--seeds", default="1", help="seeds as a range or a comma list (default 1)")
    ap.add_argument("--duration", help="override the run's simulated time (600, 10m)")
    args = ap.parse_args()
    try:
        seeds = parse_seeds(args.seeds)
        arms = [parse_variant(p.strip()) for p in args.policy.split(",") if p.strip()]
        if len(arms) != 2:
            raise ValueError(
                f"--policy: give exactly two arms A,B, got {args.policy!r}; e.g. stepped,step_wise"
            )
        name, base = pick_world(args)
        if args.duration:
            sim = dataclasses.replace(base.sim, duration_s=parse_duration_s(args.duration, "--duration"))
            base = dataclasses.replace(base, sim=sim)
        board = base.load_board()
        validate_events(base, board)  # a --duration that ends before an event is one line, not a traceback
        for arm in arms:  # a bad variant is one line before any run
            check_variant(arm, base, lambda c: build_policy(c, board))
    except (ConfigError, ValueError) as e:
        print(f"trace_gap: {e}", file=sys.stderr)
        return 2
    la, lb = arms[0].label, arms[1].label
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            cfgs = [dataclasses.replace(arm.apply(base), seed=seed) for arm in arms]
            a, b = (run_arm(c, Path(tmp) / f"s{seed}-{n}") for c, n in zip(cfgs, "ab", strict=True))
            g = trace_gap(load_trace(a.run_dir), load_trace(b.run_dir), a.window_s)
            print(f"{name} seed {seed}: {la} (A) against {lb} (B)")
            print("\n".join(gap_lines(g, la, lb)))
            line = (
                f"  expected >trip s: {la} {expected_from(a, cfgs[0], 0.0):.3f} / "
                f"{lb} {expected_from(b, cfgs[1], 0.0):.3f}"
            )
            if g.first_diff_s is not None:
                line += (
                    f"; from {g.first_diff_s:.1f} s on {expected_from(a, cfgs[0], g.first_diff_s):.3f} / "
                    f"{expected_from(b, cfgs[1], g.first_diff_s):.3f}"
                )
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
