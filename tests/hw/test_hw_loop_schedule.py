"""The daemon's wake-ups on a clock the test controls: one per distinct instant, and a stall skipped.

``thermogov.hw.daemon`` reads time only through its module's ``time`` and waits only through
``StopFlag.wait``; replacing both with a virtual clock runs the real loop (real sysfs reads,
real trace) without sleeping, so the schedule itself can be checked exactly.
"""

from __future__ import annotations

import io
import time
import types
from pathlib import Path

import pytest

from tests.hw import fakesys
from tests.hw.cliargs import run_options
from thermogov.hw import daemon
from thermogov.trace import load_trace


class VirtualClock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.woke: list[float] = []  # when each wait ended
        self.stall_at: float | None = None  # a suspended board: one wait that lasts 1.5 s

    def monotonic(self) -> float:
        return self.now

    def wait(self, flag: daemon.StopFlag, timeout_s: float) -> bool:
        self.now += timeout_s
        if self.stall_at is not None and self.now - 1000.0 >= self.stall_at:
            self.stall_at = None
            self.now += 1.5
        self.woke.append(self.now)
        return flag.event.is_set()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> VirtualClock:
    vc = VirtualClock()
    shim = types.SimpleNamespace(monotonic=vc.monotonic, perf_counter=time.perf_counter, time=time.time)
    monkeypatch.setattr(daemon, "time", shim)
    monkeypatch.setattr(daemon.StopFlag, "wait", lambda self, timeout_s: vc.wait(self, timeout_s))
    return vc


def _run(tmp_path: Path) -> dict:
    fakesys.orin_nano(tmp_path / "root", cpu_mc=60000, gpu_mc=60000)
    return daemon.Runner(run_options(tmp_path, 3.0), out=io.StringIO(), err=io.StringIO()).run()


def test_one_wake_up_per_distinct_instant_of_the_plan(tmp_path: Path, clock: VirtualClock) -> None:
    summary = _run(tmp_path)
    woke_ms = [round((t - 1000.0) * 1000) for t in clock.woke]
    # cpu 100 ms, gpu 150 ms, control 100 ms: the instants are the multiples of 100 or 150 ms
    # (the one at 0 needs no wait); a shared instant (300, 600 ...) is one wake-up, not two.
    assert woke_ms == [k for k in range(1, 3001) if k % 100 == 0 or k % 150 == 0]
    assert summary["ticks"] == 31 and summary["schedule_overruns"] == 0


def test_a_stall_is_skipped_without_a_burst_of_ticks(tmp_path: Path, clock: VirtualClock) -> None:
    clock.stall_at = 1.0
    summary = _run(tmp_path)
    trace = load_trace(tmp_path / "out" / summary["run_id"])
    gaps = [b - a for a, b in zip(trace["t_s"][:-1], trace["t_s"][1:], strict=True)]
    assert summary["schedule_overruns"] == 1
    assert max(gaps) >= 1.5  # the stall is one long gap in the trace ...
    assert min(gaps) >= 0.1 - 1e-6  # ... and no catch-up ticks after it
