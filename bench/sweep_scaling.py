"""Sweep throughput: the same sweep on 1 and 2 local worker processes and on a Dask LocalCluster(2).

Run: ``python bench/sweep_scaling.py [--points 24] [--duration 600] [--repeat 3]``.  Targets
(issue 14): >= 1.8x points/s with 2 local workers against 1 on a 2-core machine, and the Dask
executor within 15 % of local processes at the same worker count.

How the comparison is kept fair on a shared, noisy machine:

* every configuration runs the same points (one sweep file) and writes a byte-identical
  results table, which is checked;
* starting the executor (a LocalCluster spawns its workers and imports the simulator in each)
  is timed apart from the sweep itself; the overhead target is about the sweep, the start is
  printed next to it because it is what a user waits for too;
* the configurations are interleaved within each repeat, in a rotated order, and each figure
  is the median over repeats; the Dask/local ratio is also the median of the ratios paired
  within a repeat (runs seconds apart see about the same machine load);
* the median CPU time per point (the worker thread's own ``thread_time``) is printed as well,
  as it moves far less with other load than wall time does; and the load average is printed
  before and after, so the figures can be read against it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from thermogov.sim.sweep.engine import run_sweep
from thermogov.sim.sweep.executors import DaskExecutor, LocalExecutor, cpu_count
from thermogov.sim.sweep.spec import load_sweep

AMBIENTS = (20.0, 25.0, 30.0, 35.0, 40.0, 45.0)
HEATSINKS = (1.0, 0.8, 0.6, 0.4)
CONFIGS = (("local", 1), ("local", 2), ("dask", 2))
TARGET_SPEEDUP = 1.8
TARGET_OVERHEAD = 0.15


def sweep_text(points: int, duration_s: float) -> str:
    grid = [(a, h) for h in HEATSINKS for a in AMBIENTS]
    seeds = -(-points // len(grid))
    return (
        f'[sweep]\nscenario = "orin-steady-25"\nduration = {duration_s}\n\n[grid]\n'
        f"seed = {list(range(1, seeds + 1))}\nambient = {list(AMBIENTS)}\nheatsink = {list(HEATSINKS)}\n"
    )


@dataclass(frozen=True)
class Timing:
    start_s: float  # building the executor (cluster start and warm-up for Dask)
    sweep_s: float  # run_sweep alone: the points, the table
    cpu_s: float  # median CPU seconds per point, on the worker thread
    table: bytes


def timed(kind: str, workers: int, sweep_file: Path, out: Path) -> Timing:
    sweep = load_sweep(sweep_file)
    t0 = time.monotonic()
    ex = DaskExecutor(workers) if kind == "dask" else LocalExecutor(workers)
    with ex:
        t1 = time.monotonic()
        run = run_sweep(sweep, ex, out)
        t2 = time.monotonic()
    cpu = statistics.median(r.cpu_s for r in run.results.values())
    return Timing(t1 - t0, t2 - t1, cpu, (out / "results.csv").read_bytes())


def load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=24, help="at least this many (whole seed layers of 24)")
    ap.add_argument("--duration", type=float, default=600.0, help="simulated seconds per point")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved repeats; medians are reported")
    args = ap.parse_args()
    runs: dict[tuple[str, int], list[Timing]] = {c: [] for c in CONFIGS}
    with tempfile.TemporaryDirectory(prefix="thermogov-bench-sweep-") as tmp:
        sweep_file = Path(tmp) / "bench-sweep.toml"
        sweep_file.write_text(sweep_text(args.points, args.duration), encoding="utf-8")
        n = len(load_sweep(sweep_file).points)
        print(
            f"{n} points of {args.duration:g} simulated s each; {cpu_count()} cores; "
            f"median of {args.repeat} interleaved repeats; load average (1/5/15 min) before: {load()}"
        )
        for r in range(args.repeat):
            k = r % len(CONFIGS)
            for kind, w in CONFIGS[k:] + CONFIGS[:k]:
                runs[(kind, w)].append(timed(kind, w, sweep_file, Path(tmp) / f"{kind}-{w}-{r}"))
    print(f"load average after: {load()}")
    print(
        f"{'executor':<18} {'workers':>7} {'start s':>8} {'sweep s':>8} {'points/s':>9} "
        f"{'start+sweep s':>13} {'CPU s/point':>11}"
    )
    med: dict[tuple[str, int], tuple[float, float, float]] = {}
    for kind, w in CONFIGS:
        ts = runs[(kind, w)]
        m = tuple(statistics.median(getattr(t, a) for t in ts) for a in ("start_s", "sweep_s", "cpu_s"))
        med[(kind, w)] = m  # type: ignore[assignment]
        start, sweep, cpu = m
        name = "dask LocalCluster" if kind == "dask" else "local processes"
        print(
            f"{name:<18} {w:>7} {start:>8.2f} {sweep:>8.2f} {n / sweep:>9.2f} {start + sweep:>13.2f} {cpu:>11.3f}"
        )
    l1, l2, d2 = med[("local", 1)], med[("local", 2)], med[("dask", 2)]
    speedup = l1[1] / l2[1]
    print(
        f"speed-up 2 local workers vs 1 (sweep): {speedup:.2f}x, target >= {TARGET_SPEEDUP}x: "
        f"{'met' if speedup >= TARGET_SPEEDUP else 'MISSED'}"
    )
    paired = statistics.median(
        d.sweep_s / loc.sweep_s - 1 for d, loc in zip(runs[("dask", 2)], runs[("local", 2)], strict=True)
    )
    each = ", ".join(
        f"{100 * (d.sweep_s / loc.sweep_s - 1):+.0f}"
        for d, loc in zip(runs[("dask", 2)], runs[("local", 2)], strict=True)
    )
    print(
        f"dask overhead vs local at 2 workers (sweep, cluster start excluded): {100 * paired:+.1f} % "
        f"(median of paired repeats: {each} %; ratio of medians {100 * (d2[1] / l2[1] - 1):+.1f} %), "
        f"target <= {100 * TARGET_OVERHEAD:.0f} %: {'met' if paired <= TARGET_OVERHEAD else 'MISSED'}; "
        f"{paired / TARGET_OVERHEAD:.2f} of the allowance"
    )
    print(
        f"dask overhead including cluster start ({d2[0]:.2f} s): "
        f"{100 * ((d2[0] + d2[1]) / (l2[0] + l2[1]) - 1):+.1f} %"
    )
    print(f"CPU per point (median), dask vs local at 2 workers: {100 * (d2[2] / l2[2] - 1):+.1f} %")
    tables = {t.table for ts in runs.values() for t in ts}
    print(f"results tables identical across executors and repeats: {'yes' if len(tables) == 1 else 'NO'}")


if __name__ == "__main__":  # the guard matters: Dask's worker processes are spawned
    main()
