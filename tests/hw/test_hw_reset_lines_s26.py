"""A raise the boost rule explains is capped again every time, but not said every time (session 26).

Since session 26r a raise of a boost policy's max to exactly the top of the state its switch
reads is the kernel's (hw/boostrule.py): capped again at every look, never left to "another
writer".  An agent that writes that top every second (``cpupower frequency-set -u`` in a loop,
auto-cpufreq's periodic writes) then made the daemon log a line a second for as long as it ran.
The cap must still be written again every time; the lines stop after a few, then come at the
10th, 100th, 1000th repeat.  On the code before, 150 such raises gave 150 lines (fails).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hw import fakesys
from tests.hw.limitrig import P0, watched_policy0
from thermogov.hw.devices import CapActuator
from thermogov.hw.limitwatch import SAY_EACH_RESET_UP_TO, LimitWatch, worth_saying

RAISES = 150


def _watched_pi5(tmp: Path, how: str) -> tuple[fakesys.FakeTree, CapActuator, LimitWatch, list[str]]:
    # the boost rule's verdict for every raise: a switch seen ("switched") or none ("same")
    return watched_policy0(tmp, cpu_mc=80000, boost_reset=lambda _rel, _value: how)


@pytest.mark.parametrize("how", ["same", "switched"])
def test_every_explained_raise_is_capped_again_and_the_lines_thin_out(tmp_path: Path, how: str) -> None:
    t, act, watch, said = _watched_pi5(tmp_path, how)
    top_khz = t.read_int(f"{P0}/scaling_max_freq")
    cap_khz = fakesys.RPI5_CPU_KHZ[1]
    act.apply(cap_khz * 1000)
    watch.check(0.0)
    for i in range(1, RAISES + 1):
        t.write(f"{P0}/scaling_max_freq", top_khz)  # the agent (or the kernel) writes the top
        watch.check(float(i))
        assert t.read_int(f"{P0}/scaling_max_freq") == cap_khz, f"raise {i} left uncapped"
    assert "policy0" not in act.left_to_others
    expected = [n for n in range(1, RAISES + 1) if worth_saying(n)]
    assert expected == [*range(1, SAY_EACH_RESET_UP_TO + 1), 10, 100]
    assert len(said) == len(expected), said
    assert f"({SAY_EACH_RESET_UP_TO} this run)" in said[SAY_EACH_RESET_UP_TO - 1]
    assert "further ones are said at the 10th, 100th" in said[SAY_EACH_RESET_UP_TO - 1]
    assert "(100 this run)" in said[-1]
    act.restore()
    assert t.read_int(f"{P0}/scaling_max_freq") == top_khz  # the top the raise set is put back
