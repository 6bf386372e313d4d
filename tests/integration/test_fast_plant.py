"""The default policy on the emulated Orin Nano at 10x, in-process on a scripted clock.

The same closed loop as ``test_emulated_loop.py``'s 10x leg (the board ten times faster than the
policy's clock) without the daemon, root or the machine's scheduling: the ticks are a seeded
list with a loaded machine's late ones written in (about one in ten, up to 0.5 s late), so a
failure here is the same failure on every run.  Before the cap followed the dither's rung a
rung per tick, these seeds moved it up to 5 rungs in one tick (2 -> 7 at 71 °C on a normal
tick; 8 -> 5 after a 0.6 s one); the daemon test saw 4 about one run in seven.
"""

from __future__ import annotations

import pytest

from tests.integration.fastplant import govern_fast, tick_times


@pytest.mark.parametrize("seed", [1, 6, 10])
def test_stepped_moves_the_cap_one_rung_per_tick_on_a_fast_plant_with_late_ticks(seed: int) -> None:
    times = tick_times(600, seed, late_every=10, late_s=0.5)  # 60 s of ticks: 10 min of board time
    run = govern_fast(times)
    assert max(run.fused_c) > 72.0, "the run never reached the band, so it tested nothing"
    assert max(run.fused_c) < 85.0
    assert max(run.moves) == 1
    changes_per_board_min = sum(1 for m in run.moves if m) / (times[-1] * 10.0 / 60.0)
    assert changes_per_board_min <= 15.0  # the daemon test's bound
