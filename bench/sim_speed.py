"""Simulator speed as a share of a bare SimPy loop measured in the same run, and its memory.

Run: ``python bench/sim_speed.py [--hours 1] [--repeat 5] [--no-memory]``.

An absolute real-time factor says as much about the machine and its other tenants as about the
code, so the headline is a ratio: one simulated hour of the default scenario against a bare
SimPy loop with the same periodic events (cpu 100 ms, gpu 150 ms, battery 200 ms, governor
100 ms, each a process that only waits) over the same simulated time.  The variants run
interleaved (bare, recorded, unrecorded, bare, ...) so a burst of load from another process
hits them alike, and each is the median of ``--repeat`` runs.  Issue 15 asks for a share of
the bare loop >= 0.14 recorded (it was about 0.05), aiming for 0.25.

Memory: one run of ``--hours`` and one of four times that, each with a run folder, each in a
fresh subprocess reporting its peak RSS, to show the footprint does not grow with simulated
time (the recorder streams; issue 15: 43 MB for 1 h and 4 h).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import simpy

from thermogov.config import Config
from thermogov.sim.model.runner import simulate

BARE_PERIODS_MS = (100, 150, 200, 100)  # cpu, gpu, battery sensors and the governor tick


def bare_loop(duration_ms: int) -> None:
    """The same periodic events as the default Orin run, each process doing nothing."""
    env = simpy.Environment()

    def every(period_ms: int):
        while True:
            yield env.timeout(period_ms)

    for p in BARE_PERIODS_MS:
        env.process(every(p))
    env.run(until=duration_ms)


def config_for(hours: float) -> Config:
    base = Config()
    return dataclasses.replace(base, sim=dataclasses.replace(base.sim, duration_s=3600.0 * hours))


def cpu_seconds(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def recorded_run(cfg: Config) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        simulate(cfg, out_dir=tmp)


MEMORY_CODE = """
import resource, sys
sys.path.insert(0, sys.argv[2])
from sim_speed import config_for, recorded_run
recorded_run(config_for(float(sys.argv[1])))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
"""


def peak_rss_mb(hours: float) -> float:
    """Peak RSS (MB) of a fresh process simulating ``hours`` with a run folder."""
    here = str(Path(__file__).resolve().parent)
    out = subprocess.run(
        [sys.executable, "-c", MEMORY_CODE, str(hours), here], check=True, capture_output=True, text=True
    )
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hours", type=float, default=1.0, help="simulated hours per run (default 1)")
    ap.add_argument("--repeat", type=int, default=5, help="runs of each variant; medians reported")
    ap.add_argument("--no-memory", action="store_true", help="skip the 1x/4x peak-RSS runs")
    args = ap.parse_args()
    cfg = config_for(args.hours)
    sim_s = cfg.sim.duration_s
    duration_ms = round(sim_s * 1000)
    times: dict[str, list[float]] = {"bare": [], "recorded": [], "unrecorded": []}
    for _ in range(args.repeat):
        times["bare"].append(cpu_seconds(lambda: bare_loop(duration_ms)))
        times["recorded"].append(cpu_seconds(lambda: recorded_run(cfg)))
        times["unrecorded"].append(cpu_seconds(lambda: simulate(cfg)))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"default scenario, {sim_s:.0f} simulated s, median of {args.repeat} interleaved runs (CPU time)")
    print(f"  bare SimPy loop   : {sim_s / med['bare']:8.0f}x real time  (CPU {med['bare']:.3f} s)")
    for name in ("recorded", "unrecorded"):
        share = med["bare"] / med[name]
        print(
            f"  {name:<17} : {sim_s / med[name]:8.0f}x real time  (CPU {med[name]:.3f} s)"
            f"   share of the bare loop {share:.3f}"
            + ("   target >= 0.14, aim 0.25" if name == "recorded" else "")
        )
    print(f"  recording costs   : {1 - med['unrecorded'] / med['recorded']:8.1%} of the recorded run's CPU")
    if not args.no_memory:
        one, four = peak_rss_mb(args.hours), peak_rss_mb(4 * args.hours)
        print(
            f"  peak RSS          : {one:.1f} MB for {args.hours:g} h, {four:.1f} MB for "
            f"{4 * args.hours:g} h (ratio {four / one:.2f}; flat is 1.00)"
        )


if __name__ == "__main__":
    main()
