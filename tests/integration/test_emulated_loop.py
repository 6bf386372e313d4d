"""The real daemon governs the emulated Orin Nano with the default policy, calmly.

``stepped`` used to chatter here at 10x: crossing 70 °C its predicted error threw the ladder
away (full clocks to the lowest rung in one tick) and the release rule put it back a tick
later, 153 cap changes in 60 s, most of them full-ladder swings.  These runs bound what a
board owner would watch: cap changes per minute of board time, rungs moved per change (no
half-ladder swing while under the trip) and time at or above the trip.  The 1x leg starts
from a warmed-up board (``emulate --warm-up``) so 45 s of real time are spent in the band.

One rung per change at both speeds: on the Orin Nano (no firmware ramp to yield to) every rule
of ``stepped`` moves the cap at most a rung per tick, whatever the tick's timing, so a larger
move is a defect or the governor's failsafe, not noise.  The 10x leg used to
allow 3 and failed about one run in seven under load with 4: the dither released a period's
climb of ``u`` in one jump (2 -> 5 on normal ticks) and a late tick let ``u``'s per-second slew
move the cap several rungs at once.  ``test_fast_plant.py`` runs the same loop in-process on a
seeded clock with late ticks, so that failure reproduces on every run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.integration.loop import govern_emulated

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the daemon writes caps only as root")


def _check(stats, *, max_per_min: float, max_rungs: int, max_above_s: float) -> None:
    assert stats.max_fused_c > 72.0, "the run never reached the band, so it tested nothing"
    assert stats.changes_per_min <= max_per_min, stats.changes_per_min
    assert stats.max_rungs_per_change <= max_rungs, stats.max_rungs_per_change
    assert stats.big_swings_outside_trip == 0
    assert stats.time_above_trip_s <= max_above_s


def test_default_policy_governs_the_emulated_orin_nano_at_real_time(tmp_path: Path) -> None:
    stats, run = govern_emulated(tmp_path, speed=1.0, run_s=45.0, warm_up="110s")
    assert "limits restored" in run.stderr
    _check(stats, max_per_min=30.0, max_rungs=1, max_above_s=0.0)


@pytest.mark.slow
def test_default_policy_governs_the_emulated_orin_nano_at_10x(tmp_path: Path) -> None:
    stats, run = govern_emulated(tmp_path, speed=10.0, run_s=60.0)  # 10 min of board time from idle
    assert "limits restored" in run.stderr
    _check(stats, max_per_min=15.0, max_rungs=1, max_above_s=5.0)
