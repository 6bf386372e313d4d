"""The best fixed cap schedule found by search, beside the any-window bound and the default policy.

How tight the oracle's bound is on a world, by a real schedule (thermogov.sim.compare.schedsearch):
each segment of ``--segment-s`` holds one operating point's caps, decided before the run, with
the board's own protections acting under it (the Pi firmware's ramp), searched by coordinate
ascent on the worst window.  Printed per scenario: the any-window bound, the board's protections
alone (the all-fastest schedule), the schedule found and its share of the bound, and ``stepped``'s
worst window (``--policy``).  With ``--open-ended`` the world is continued past its end
(thermogov.sim.compare.anywindow.extended), where no schedule can use the run's end.

    nice python bench/fixed_schedule.py --scenario rpi5-steady-25 [--segment-s 150] [--open-ended]

Nothing is asserted: the figures are to read (tests/compare/test_schedsearch_s28.py checks the
search's result never beats the bound).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from thermogov.interfaces import ConfigError  # noqa: E402
from thermogov.sim.compare.anywindow import extended, worst_window_ips  # noqa: E402
from thermogov.sim.compare.compare import run_policy  # noqa: E402
from thermogov.sim.compare.levelsearch import LevelResult, level_search  # noqa: E402
from thermogov.sim.compare.oracle import oracle  # noqa: E402
from thermogov.sim.compare.schedsearch import SearchResult, search  # noqa: E402
from thermogov.sim.scenarios import load_scenario  # noqa: E402


def _mhz(caps: dict[str, int]) -> str:
    return "/".join(str(f // 1_000_000) for f in caps.values())


def print_levels(name: str, bound: float | None, r: LevelResult, segment_s: float) -> None:
    """The level search's result beside the bound (the policy row follows from the caller)."""

    def pct(v: float) -> str:
        return f"{100.0 * v / bound:.1f} %" if bound else "n/a"

    print(f"{name}:")
    print(f"  any-window bound                  {bound:.3f} inf/s" if bound else "  any-window bound none")
    print(
        f"  fastest uniform level {r.start_level:<11.3f} {r.start.worst_ips:.3f} ({pct(r.start.worst_ips)})"
        f" trip reads {r.start.trip_reads}"
    )
    print(
        f"  best level schedule found         {r.best.worst_ips:.3f} ({pct(r.best.worst_ips)})"
        f" trip reads {r.best.trip_reads}, {r.runs} runs"
    )
    print(f"  levels per {segment_s:g} s (0 = fastest)  " + " ".join(f"{u:.3f}" for u in r.levels))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", required=True, help="a scenario, or several comma-separated")
    ap.add_argument("--segment-s", type=float, default=150.0, help="length of a schedule segment (s)")
    ap.add_argument("--sweeps", type=int, default=2, help="passes of coordinate ascent at most")
    ap.add_argument("--pairs", action="store_true", help="then pair moves (a rung slower here, faster there)")
    ap.add_argument("--duration", type=float, default=None, help="override the scenario's seconds")
    ap.add_argument("--open-ended", action="store_true", help="continue the world past its end")
    ap.add_argument("--policy", default="stepped", help="a policy scored beside ('' for none)")
    ap.add_argument(
        "--trip-reads-max",
        type=int,
        default=None,
        help="hold every schedule to this many trip readings, starting from the fastest uniform cap "
        "that keeps it (a Jetson, whose full clocks sit at the trip); default: the all-fastest start's",
    )
    ap.add_argument(
        "--levels",
        action="store_true",
        help="fractional rungs per segment (sim/compare/levelsearch.py; needs --trip-reads-max)",
    )
    args = ap.parse_args(argv)
    if args.levels and args.trip_reads_max is None:
        print("fixed_schedule: --levels needs --trip-reads-max (e.g. 0)", file=sys.stderr)
        return 2
    if not (args.segment_s > 0.0) or args.sweeps < 1 or (args.trip_reads_max or 0) < 0:
        print(
            "fixed_schedule: --segment-s must be > 0, --sweeps >= 1 and --trip-reads-max >= 0",
            file=sys.stderr,
        )
        return 2
    try:
        for name in [s.strip() for s in args.scenario.split(",") if s.strip()]:
            cfg = load_scenario(name)
            if args.duration is not None:
                cfg = dataclasses.replace(cfg, sim=dataclasses.replace(cfg.sim, duration_s=args.duration))
            if args.open_ended:
                cfg = extended(cfg)
            board = cfg.load_board()
            bound = oracle(cfg, board, any_window=True).throughput_ips

            def show_levels(i: int, r: LevelResult) -> None:
                print(f"  segment {i}: worst {r.best.worst_ips:.3f} inf/s after {r.runs} runs", flush=True)

            def show(i: int, r: SearchResult) -> None:
                print(f"  segment {i}: worst {r.best.worst_ips:.3f} inf/s after {r.runs} runs", flush=True)

            if args.levels:
                lev = level_search(
                    cfg,
                    args.segment_s,
                    args.trip_reads_max,
                    board=board,
                    sweeps=args.sweeps,
                    progress=show_levels,
                )
                print_levels(name, bound, lev, args.segment_s)
                if args.policy:
                    with tempfile.TemporaryDirectory() as tmp:
                        row = run_policy(cfg, args.policy, Path(tmp))
                        w = worst_window_ips(cfg, Path(row.run_dir))
                    share = f" ({100.0 * w / bound:.1f} % of the bound)" if (w and bound) else ""
                    print(f"  {args.policy:<33} {w:.3f}{share}" if w else f"  {args.policy:<33} n/a")
                continue
            res = search(
                cfg,
                args.segment_s,
                board=board,
                sweeps=args.sweeps,
                pairs=args.pairs,
                trip_reads_max=args.trip_reads_max,
                progress=show,
            )
            pol = None
            if args.policy:
                with tempfile.TemporaryDirectory() as tmp:
                    row = run_policy(cfg, args.policy, Path(tmp))
                    pol = worst_window_ips(cfg, Path(row.run_dir))
            b = f"{bound:.3f}" if bound else "none"

            def pct(v: float | None, bound: float | None = bound) -> str:
                return f"{100.0 * v / bound:.1f} %" if (v and bound) else "n/a"

            print(f"{name}{' (open-ended, ' + str(cfg.sim.duration_s) + ' s)' if args.open_ended else ''}:")
            print(f"  any-window bound                  {b} inf/s")
            start = (
                "board's protections alone"
                if args.trip_reads_max is None
                else "fastest uniform cap within reads"
            )
            print(
                f"  {start:<33} {res.start.worst_ips:.3f} ({pct(res.start.worst_ips)})"
                f" trip reads {res.start.trip_reads}"
            )
            print(
                f"  best fixed schedule found         {res.best.worst_ips:.3f} ({pct(res.best.worst_ips)})"
                f" trip reads {res.best.trip_reads}, {res.runs} runs"
            )
            print(
                f"  schedule (MHz per {args.segment_s:g} s)  "
                + " ".join(_mhz(res.points[k]) for k in res.schedule)
            )
            if pol is not None:
                print(f"  {args.policy:<33} {pol:.3f} ({pct(pol)})")
    except ConfigError as e:
        print(f"fixed_schedule: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
