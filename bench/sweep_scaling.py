"""Sweep throughput: the same sweep on 1 and 2 local worker processes and on a Dask LocalCluster(2).

Run: ``python bench/sweep_scaling.py [--points 24] [--duration 600] [--repeat 2]``.  Targets
(issue 14): >= 1.8x points/s with 2 local workers against 1 on a 2-core machine, and the Dask
executor within 15 % of local processes at the same worker count.  Each configuration is
timed twice: the whole sweep including starting the executor (what a user waits for), and the
sweep alone from the first submitted point (the executor's per-point overhead).  Runs are
interleaved and the best of ``--repeat`` kept, because these machines are shared and noisy.
Every configuration must produce the byte-identical results table, which is checked too.  The
median CPU time per point (each worker thread's own ``thread_time``) is printed as well: unlike
the wall figures it does not move with whatever else the machine is running.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from thermogov.sim.sweep.engine import run_sweep
from thermogov.sim.sweep.executors import DaskExecutor, LocalExecutor, cpu_count
from thermogov.sim.sweep.spec import load_sweep

AMBIENTS = (20.0, 25.0, 30.0, 35.0, 40.0, 45.0)
HEATSINKS = (1.0, 0.8, 0.6, 0.4)


def sweep_text(points: int, duration_s: float) -> str:
    grid = [(a, h) for h in HEATSINKS for a in AMBIENTS]
    seeds = -(-points // len(grid))
    return (
        f'[sweep]\nscenario = "orin-steady-25"\nduration = {duration_s}\n\n[grid]\n'
        f"seed = {list(range(1, seeds + 1))}\nambient = {list(AMBIENTS)}\nheatsink = {list(HEATSINKS)}\n"
    )


def timed(kind: str, workers: int, sweep_file: Path, out: Path) -> tuple[float, float, float, bytes]:
    t0 = time.monotonic()
    sweep = load_sweep(sweep_file)
    ex = DaskExecutor(workers) if kind == "dask" else LocalExecutor(workers)
    with ex:
        t1 = time.monotonic()
        run = run_sweep(sweep, ex, out)
        t2 = time.monotonic()
    cpu = statistics.median(r.cpu_s for r in run.results.values())
    return t2 - t0, t2 - t1, cpu, (out / "results.csv").read_bytes()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=24, help="at least this many (whole seed layers of 24)")
    ap.add_argument("--duration", type=float, default=600.0, help="simulated seconds per point")
    ap.add_argument("--repeat", type=int, default=2, help="best of N")
    args = ap.parse_args()
    configs = [("local", 1), ("local", 2), ("dask", 2)]
    best: dict[tuple[str, int], tuple[float, float]] = {}
    cpus: dict[tuple[str, int], list[float]] = {c: [] for c in configs}
    tables: set[bytes] = set()
    with tempfile.TemporaryDirectory(prefix="thermogov-bench-sweep-") as tmp:
        sweep_file = Path(tmp) / "bench-sweep.toml"
        sweep_file.write_text(sweep_text(args.points, args.duration), encoding="utf-8")
        n = len(load_sweep(sweep_file).points)
        print(f"{n} points of {args.duration:g} simulated s each; {cpu_count()} cores; best of {args.repeat}")
        for r in range(args.repeat):
            for kind, w in configs:
                total, sweep_only, cpu, table = timed(kind, w, sweep_file, Path(tmp) / f"{kind}-{w}-{r}")
                tables.add(table)
                cpus[(kind, w)].append(cpu)
                old = best.get((kind, w))
                best[(kind, w)] = (
                    (total, sweep_only) if old is None else (min(old[0], total), min(old[1], sweep_only))
                )
    print(
        f"{'executor':<18} {'workers':>7} {'wall s':>8} {'points/s':>9} {'sweep-only s':>12} {'points/s':>9}"
        f" {'CPU s/point':>11}"
    )
    for kind, w in configs:
        total, only = best[(kind, w)]
        name = "dask LocalCluster" if kind == "dask" else "local processes"
        cpu = min(cpus[(kind, w)])
        print(
            f"{name:<18} {w:>7} {total:>8.2f} {n / total:>9.2f} {only:>12.2f} {n / only:>9.2f} {cpu:>11.3f}"
        )
    l1, l2, d2 = best[("local", 1)], best[("local", 2)], best[("dask", 2)]
    print(
        f"speed-up 2 local workers vs 1: {l1[0] / l2[0]:.2f}x wall, {l1[1] / l2[1]:.2f}x sweep-only (target >= 1.8x)"
    )
    print(
        f"dask overhead vs local at 2 workers: {100 * (d2[0] / l2[0] - 1):+.1f} % wall (incl. cluster start), "
        f"{100 * (d2[1] / l2[1] - 1):+.1f} % sweep-only (target <= 15 %)"
    )
    c2, cd = min(cpus[("local", 2)]), min(cpus[("dask", 2)])
    print(
        f"CPU per point (median, best run), dask vs local at 2 workers: {100 * (cd / c2 - 1):+.1f} % "
        "(independent of other load on the machine; wall figures are not)"
    )
    print(f"results tables identical across executors: {'yes' if len(tables) == 1 else 'NO'}")


if __name__ == "__main__":  # the guard matters: Dask's worker processes are spawned
    main()
