"""``stepped`` variants over a seed set, beside the default and ``hysteresis``'s bound per seed.

``bench/control_quality.py --seeds`` races every policy and re-tunes the kernel baselines, which
takes 12-22 minutes per Pi scenario here; to judge a change of ``stepped``'s parameters only
``stepped`` needs to run again, and the tuned baselines can be read from docs/policies.md.  This
runs the default ``stepped``, each ``--candidate`` (``[policies.stepped]`` keys set on top of the
scenario's) and ``hysteresis`` on every seed with the bench's own runner (``run_policy``, the
worst window of :mod:`thermogov.sim.compare.anywindow`), at the run's end and on the world
continued past it (``anywindow.extended``, as the bench's open-ended view; ``--extend 1`` skips
it), and prints per row the mean worst window with its 95 % t half-width and extremes, the
seconds above the trip per seed against ``hysteresis``'s (the trip target, judged per seed), and
each candidate over the default seed by seed (paired: the same noise).  Session 12 judged
``near_trip_k`` with it (docs/policies.md)::

    python bench/stepped_seeds.py --scenario rpi5-long-1h,rpi5-steady-25 --seeds 1-5 \\
        --candidate near_trip_k=3.5,excursion_k=0 [--candidate ...] [--jobs 2]

``--world`` takes the generated worlds of :mod:`thermogov.sim.scenarios.families` by name
(``fan-failure-jetson-xavier-nx``), at ``--family-scale`` of their length (default 1.0, full),
beside or instead of ``--scenario``; session 13 judged ``code_once`` with both.  ``--drawn 5,11``
takes worlds drawn fresh from the families (``bench/drawn_worlds.py``, draw ``--draw-seed``, 16 by
default) at ``--family-scale``; session 16d judged ``code_edge_coarse`` on them.

``--known-length`` gives every candidate the world's length and scored window
(:func:`thermogov.sim.compare.runlength.run_length_knobs`: ``run_s``, ``bank_window_s``), as a
user running a job of known length would; those rows are labelled ``[run length known]`` and
the default row never gets them.  On the open-ended view the stated length stays the original
world's, so the run goes on past it (session 15 judged ``bank_c`` so)::

    python bench/stepped_seeds.py --scenario rpi5-steady-25 --seeds 1-8 --known-length \\
        --candidate bank_c=2

``--expected`` adds, per seed, the *expected* seconds above the trip given the run's true fused
trajectory and the sensors' noise and codes (:mod:`thermogov.sim.compare.expected`), and judges
the trip target on its sum over the seeds against ``hysteresis``'s: one seed's count of trip
readings is a lottery on a 0.5-degree board (session 19c judged ``first_arrival`` so).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from drawn_worlds import drawn_worlds  # noqa: E402  (bench/, beside this script)

from thermogov.config import Config  # noqa: E402
from thermogov.interfaces import ConfigError  # noqa: E402
from thermogov.policies import make_policy  # noqa: E402
from thermogov.policies.base import PolicyContext  # noqa: E402
from thermogov.sim.compare.anywindow import anywindow_bound, extended  # noqa: E402
from thermogov.sim.compare.compare import TRIP_C  # noqa: E402
from thermogov.sim.compare.expected import expected_above_s, recording_reads, trace_ticks  # noqa: E402
from thermogov.sim.compare.runlength import run_length_knobs  # noqa: E402
from thermogov.sim.compare.seedcausal import many_seed_yardsticks, seed_causal_lines  # noqa: E402
from thermogov.sim.compare.seedrace import TARGET_PCT  # noqa: E402
from thermogov.sim.compare.seedset import SeedRows, Spread, parse_seeds, plain_rows, with_seed  # noqa: E402
from thermogov.sim.scenarios import load_scenario  # noqa: E402
from thermogov.sim.scenarios.families import all_family_scenarios  # noqa: E402
from thermogov.sim.sweep.executors import pool_context  # noqa: E402
from thermogov.tomlcheck import Table  # noqa: E402

POLICY = "stepped"
Job = tuple[str, Config, str, list[int], Path, bool]


def parse_candidate(text: str) -> dict[str, float | bool | str]:
    """``"near_trip_k=3.5,excursion_k=0"`` as ``[policies.stepped]`` keys; the policy validates them."""
    out: dict[str, float | bool | str] = {}
    for part in (p.strip() for p in text.split(",")):
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ValueError(
                f"--candidate {text!r}: {part!r} is not KEY=VALUE; e.g. --candidate near_trip_k=3.5"
            )
        v = value.strip()
        if v in ("true", "false"):
            out[key.strip()] = v == "true"
            continue
        try:
            out[key.strip()] = float(v)
        except ValueError:
            out[key.strip()] = v
    return out


def with_params(config: Config, knobs: dict[str, float | bool | str]) -> Config:
    params = {**config.policies.get(POLICY, {}), **knobs}
    return dataclasses.replace(config, policies={**config.policies, POLICY: params})


def stated(base: Config, knobs: dict[str, float | bool | str], known: bool) -> dict[str, float | bool | str]:
    """``knobs``, with ``base``'s length and scored window first when the length is known."""
    return {**run_length_knobs(base), **knobs} if known else knobs


def check_params(config: Config, knobs: dict[str, float | bool | str]) -> None:
    """Build the policy once from ``knobs`` so that a bad key or value is one line, before any run."""
    board = config.load_board()
    ctx = PolicyContext(
        board=board,
        tables_hz={d.name: d.opp_hz for d in board.domains},
        control_period_s=0.1,
        sensor_names=tuple(s.name for s in board.sensors),
    )
    params = Table(dict(with_params(config, knobs).policies[POLICY]), f"policies.{POLICY}")
    make_policy(POLICY, params, ctx)


def family_worlds(names: Sequence[str], scale: float) -> list[tuple[str, Config]]:
    """The generated family worlds named, at ``scale`` of their length; an unknown name is one line."""
    worlds = {g.name: g.config for g in all_family_scenarios(time_scale=scale)}
    out = []
    for name in names:
        if name not in worlds:
            raise ValueError(f"--world {name!r}: not a family world; choose one of {', '.join(worlds)}")
        out.append((name, worlds[name]))
    return out


def _run(job: Job) -> tuple[str, SeedRows, dict[int, float]]:
    """One variant on every seed; with ``expected``, each seed's expected seconds above the trip."""
    label, cfg, policy, seeds, where, expected = job
    if not expected:
        return label, plain_rows(cfg, policy, seeds, where, label), {}
    out, exp = SeedRows(label, policy), {}
    board = cfg.load_board()
    for s in seeds:
        with recording_reads() as log:  # one seed's reads per log: the expectation is per run
            one = plain_rows(cfg, policy, [s], where, label)
        out.rows.update(one.rows)
        out.worst.update(one.worst)
        if run_dir := one.rows[s].run_dir:
            exp[s] = expected_above_s(log, *trace_ticks(Path(run_dir)), board, TRIP_C)
    return label, out, exp


def expected_lines(expected: dict[str, dict[int, float]], seeds: Sequence[int]) -> list[str]:
    """Per variant, the expected seconds above the trip per seed and their sum against ``hysteresis``'s."""
    bound = sum(expected["hysteresis"].get(s, 0.0) for s in seeds)
    out = []
    for name, per_seed in expected.items():
        total = sum(per_seed.get(s, 0.0) for s in seeds)
        verdict = "" if name == "hysteresis" else (" (kept)" if total <= bound + 1e-9 else " MISS")
        shown = "/".join(f"{per_seed[s]:.3f}" if s in per_seed else "n/a" for s in seeds)
        out.append(f"    {name}: expected >trip s {shown}; sum {total:.3f}{verdict}")
    return out


def row_lines(rows: dict[str, SeedRows], seeds: Sequence[int]) -> list[str]:
    """One line per variant: mean worst window, seconds above the trip per seed, paired change."""
    hyst, default = rows["hysteresis"], rows["default"]
    bound = hyst.above_s()
    out = [f"    hysteresis >trip s per seed: {'/'.join(f'{bound[s]:g}' for s in seeds)}"]
    for name, r in rows.items():
        if name == "hysteresis":
            continue
        spread = r.worst_spread()
        above = r.above_s()
        misses = [s for s in seeds if above[s] > bound[s] + 1e-9]
        # No worst window (a drawn length off the any-window grid, docs/policies.md session 16c):
        # the run's sustained rate stands in, and says so.
        steady = r.steady()
        shown = spread.text() if spread else f"n/a (sustained {steady.text() if steady else 'n/a'})"
        text = f"    {name}: worst {shown}; >trip {'/'.join(f'{above[s]:g}' for s in seeds)}"
        text += f" MISS on seed {','.join(map(str, misses))}" if misses else " (kept on every seed)"
        pairs = [
            100.0 * (r.worst[s] / default.worst[s] - 1.0)  # type: ignore[operator]
            for s in seeds
            if r.worst.get(s) and default.worst.get(s)
        ]
        what = "paired over default"
        if not pairs:
            pairs = [
                100.0 * (a.sustained_ips / b.sustained_ips - 1.0)
                for s in seeds
                if (a := r.rows.get(s)) and (b := default.rows.get(s)) and a.sustained_ips and b.sustained_ips
            ]
            what = "paired sustained over default"
        if name != "default" and pairs:
            p = Spread.of(pairs)
            assert p is not None
            text += f"; {what} {p.mean:+.2f} % [{p.low:+.2f}..{p.high:+.2f}]"
            # Seed by seed, so that a decision can be taken on seeds held out from an earlier one.
            text += f" (per seed {'/'.join(f'{v:+.2f}' for v in pairs)})"
        out.append(text)
    return out


def _bound(job: tuple[Config, int]) -> float | None:
    res = anywindow_bound(with_seed(job[0], job[1]))
    return None if res is None else res.throughput_ips


def causal_judged(
    judged: dict[str, tuple[Config, dict[str, SeedRows], dict[int, float | None]]], jobs: int
) -> list[str]:
    """Every ``stepped`` row's share of the tightest bound its own past allows, judged per seed.

    The bench's causal block over the seeds (:mod:`thermogov.sim.compare.seedcausal`), one line
    per variant: each variant has its own past, so its own causal bounds.
    """
    end_cfg, end_rows, end_bound = judged["run's end"]
    opened = judged.get("open-ended")
    views = {
        name: (
            end_cfg,
            (r, end_bound),
            None if opened is None else (opened[0], opened[1].get(name), opened[2]),
        )
        for name, r in end_rows.items()
    }
    return seed_causal_lines(many_seed_yardsticks(views, jobs), POLICY, TARGET_PCT)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="", help="one or more comma-separated suite scenarios")
    ap.add_argument("--world", default="", help="one or more comma-separated family worlds")
    ap.add_argument("--drawn", default="", help="worlds drawn fresh from the families (5,11 or 1-4)")
    ap.add_argument("--draw-seed", type=int, default=16, help="with --drawn: which draw (default 16)")
    ap.add_argument(
        "--draw-exclude",
        default="",
        help="with --drawn: boards left out of the draw (comma-separated), to draw again the worlds of "
        "a draw made before they were added (draw 2026 before jetson-orin-nano-super)",
    )
    ap.add_argument(
        "--family-scale", type=float, default=1.0, help="length of the family worlds (default 1.0, full)"
    )
    ap.add_argument("--seeds", default="1-5", help="seeds as a range or a comma list (default 1-5)")
    ap.add_argument(
        "--candidate",
        action="append",
        default=[],
        help="[policies.stepped] keys to set, KEY=VALUE[,KEY=VALUE] (repeatable)",
    )
    ap.add_argument(
        "--extend",
        type=float,
        help="open-ended view: the world run this many times as long (default: the bench's; 1 skips it)",
    )
    ap.add_argument(
        "--known-length",
        action="store_true",
        help="tell every candidate the world's length and scored window (rows labelled [run length known])",
    )
    ap.add_argument(
        "--expected",
        action="store_true",
        help="also the expected seconds above the trip per seed, from the true trajectory and the read noise",
    )
    ap.add_argument(
        "--bounds",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="judge every stepped row's 98 %% per seed on the tightest causal bound (default: on; "
        "--no-bounds skips the bounds' solves)",
    )
    ap.add_argument("--jobs", type=int, default=min(os.cpu_count() or 1, 2))
    args = ap.parse_args()
    try:
        seeds = parse_seeds(args.seeds)
        candidates = [(c, parse_candidate(c)) for c in args.candidate]
        if not (0.0 < args.family_scale < float("inf")):
            raise ValueError(f"--family-scale must be a positive number, got {args.family_scale}; e.g. 1.0")
        configs = [(n.strip(), load_scenario(n.strip())) for n in args.scenario.split(",") if n.strip()]
        worlds = [n.strip() for n in args.world.split(",") if n.strip()]
        configs += family_worlds(worlds, args.family_scale) if worlds else []
        if args.drawn:
            try:  # the same list syntax: world numbers count from 1 like seeds
                drawn = parse_seeds(args.drawn)
            except ValueError as e:
                raise ValueError(str(e).replace("--seeds", "--drawn")) from None
            exclude = {b.strip() for b in args.draw_exclude.split(",") if b.strip()}
            configs += [
                (w.name, w.config)
                for w in drawn_worlds(args.draw_seed, drawn, time_scale=args.family_scale, exclude=exclude)
            ]
        if not configs:
            raise ValueError(
                "no world to run; give --scenario NAME[,NAME], --world NAME[,NAME] and/or --drawn N[,N]"
            )
        for _, base in configs:
            for _, knobs in candidates:
                check_params(base, stated(base, knobs, args.known_length))
    except (ValueError, ConfigError) as e:
        ap.exit(2, f"stepped_seeds.py: {e}\n")
    if args.extend is not None and not (1.0 <= args.extend < float("inf")):
        ap.exit(2, f"stepped_seeds.py: --extend must be a finite number >= 1, got {args.extend}\n")
    started = time.monotonic()
    with (
        tempfile.TemporaryDirectory(prefix="stepped-seeds-") as tmp,
        ProcessPoolExecutor(max(args.jobs, 1), mp_context=pool_context()) as ex,
    ):
        for scen, base in configs:
            views = [("run's end", base)]
            if args.extend is None or args.extend > 1.0:
                views.append(("open-ended", extended(base, args.extend)))
            # Per view: its world, every stepped row and the any-window bound per seed.
            judged: dict[str, tuple[Config, dict[str, SeedRows], dict[int, float | None]]] = {}
            for view, cfg in views:
                exp = args.expected
                jobs: list[Job] = [("hysteresis", cfg, "hysteresis", seeds, Path(tmp) / "h", exp)]
                jobs.append(("default", cfg, POLICY, seeds, Path(tmp) / "d", exp))
                for i, (name, knobs) in enumerate(candidates):
                    # The stated length is the original world's, on the open-ended view too.
                    given = stated(base, knobs, args.known_length)
                    label = f"{name} [run length known]" if args.known_length else name
                    jobs.append((label, with_params(cfg, given), POLICY, seeds, Path(tmp) / f"c{i}", exp))
                done = list(ex.map(_run, jobs))
                rows = {label: r for label, r, _ in done}
                print(f"{scen}, {view}, seeds {args.seeds}:")
                print("\n".join(row_lines(rows, seeds)))
                if exp:
                    print("\n".join(expected_lines({label: e for label, _, e in done}, seeds)))
                if args.bounds:
                    bound = dict(zip(seeds, ex.map(_bound, [(cfg, s) for s in seeds]), strict=True))
                    judged[view] = (cfg, {k: r for k, r in rows.items() if k != "hysteresis"}, bound)
            if judged:
                print(f"{scen}, seeds {args.seeds}:")
                print("\n".join(causal_judged(judged, args.jobs)))
    print(f"\n{time.monotonic() - started:.0f} s with {args.jobs} processes")


if __name__ == "__main__":
    main()
