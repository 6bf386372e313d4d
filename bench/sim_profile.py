"""Where a simulated run's time goes, by sampling the stack: inclusive and own shares per function.

Run: ``python bench/sim_profile.py [--hours 1] [--interval-ms 1] [--top 30] [--unrecorded]``.

cProfile charges every Python call a fixed cost of its own, so on this code (tens of small calls
per tick beside a few numpy calls) it overstates the Python parts and understates the numpy
ones.  A SIGPROF timer instead interrupts the run every ``--interval-ms`` of CPU time and counts
the functions on the stack: no per-call cost, and the shares hold to about ±1/sqrt(2 samples)
(±2 % at 500 samples).  Functions are named ``file:function`` (a name shared by two files'
functions is kept apart by the file).  Unix only (SIGPROF).
"""

from __future__ import annotations

import argparse
import collections
import math
import signal
import tempfile
from types import FrameType

from sim_speed import config_for

from thermogov.sim.model.runner import simulate


class StackSampler:
    """Counts, per ``file:function``, the samples it was on the stack (inclusive) or on top (own)."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self.inclusive: collections.Counter[str] = collections.Counter()
        self.own: collections.Counter[str] = collections.Counter()
        self.samples = 0

    def _on_signal(self, _sig: int, frame: FrameType | None) -> None:
        self.samples += 1
        seen: set[str] = set()
        top = True
        while frame is not None:
            code = frame.f_code
            name = f"{code.co_filename.rsplit('/', 1)[-1]}:{code.co_name}"
            if top:
                self.own[name] += 1
                top = False
            if name not in seen:  # a recursive function counts once per sample
                self.inclusive[name] += 1
                seen.add(name)
            frame = frame.f_back

    def __enter__(self) -> StackSampler:
        self._old = signal.signal(signal.SIGPROF, self._on_signal)
        signal.setitimer(signal.ITIMER_PROF, self.interval_s, self.interval_s)
        return self

    def __exit__(self, *_exc: object) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0.0, 0.0)
        signal.signal(signal.SIGPROF, self._old)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hours", type=float, default=1.0, help="simulated hours (default 1)")
    ap.add_argument("--interval-ms", type=float, default=1.0, help="CPU time between samples (default 1)")
    ap.add_argument("--top", type=int, default=30, help="functions listed per table (default 30)")
    ap.add_argument(
        "--unrecorded", action="store_true", help="no run folder (default: recorded, as the bench)"
    )
    args = ap.parse_args()
    if not all(0 < v < math.inf for v in (args.hours, args.interval_ms)):
        ap.error("--hours and --interval-ms must be positive finite numbers")
    cfg = config_for(args.hours)  # the bench's own run (bench/sim_speed.py)
    sampler = StackSampler(args.interval_ms / 1000.0)
    with tempfile.TemporaryDirectory() as tmp, sampler:
        simulate(cfg, out_dir=None if args.unrecorded else tmp)
    n = max(sampler.samples, 1)
    print(
        f"default scenario, {args.hours:g} simulated h, {sampler.samples} samples every {args.interval_ms:g} ms CPU"
    )
    for title, counts in (("inclusive", sampler.inclusive), ("own", sampler.own)):
        print(f"-- {title}")
        for name, k in counts.most_common(args.top):
            print(f"  {k / n:6.1%}  {name}")


if __name__ == "__main__":
    main()
