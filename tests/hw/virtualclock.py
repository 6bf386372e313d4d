"""A daemon run on a virtual clock, for in-process tests that script a tree's changes in time.

The daemon sleeps in ``StopFlag.wait`` and reads ``time``; both are replaced so that a run of
minutes takes milliseconds and each wait is a step at which the test changes the tree, the same
sequence on every machine however loaded (no sleeps, no timed assertions).
"""

from __future__ import annotations

import types
from collections.abc import Callable

import pytest

from thermogov.hw import daemon

START_S = 1000.0  # the virtual monotonic clock's reading at the run's start


def install(monkeypatch: pytest.MonkeyPatch, script: Callable[[float], None]) -> None:
    """Replace the daemon's clock and waits: each wait advances the clock by its timeout, then
    calls ``script`` with the seconds since the start."""
    now = [START_S]

    def wait(flag: daemon.StopFlag, timeout_s: float) -> bool:
        now[0] += timeout_s
        script(now[0] - START_S)
        return flag.event.is_set()

    clock = types.SimpleNamespace(monotonic=lambda: now[0], perf_counter=lambda: now[0], time=lambda: now[0])
    monkeypatch.setattr(daemon, "time", clock)
    monkeypatch.setattr(daemon.StopFlag, "wait", wait)
