"""Session 22a: another writer of a cooling-device fan's ``pwm1``, on the emulated pwm-fan.

The emulated driver writes a state's duty at its step after thermogov's ``cur_state`` write (a
late driver: what made session 21d's read-back rule take the driver's own update for a rival,
CI's tests/sim/test_fan_emulate.py), and keeps a ``pwm1`` written by anyone, moving the state to
it, as mainline pwm-fan does.  thermogov knows each state's duty from the device tree's
``cooling-levels`` (hw/fanlevels.py) and trusts it once a look confirms it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from thermogov.board import load_board
from thermogov.config import Config
from thermogov.hw.fan import HwFan, discover_fan
from thermogov.hw.sysfs import SysfsTree
from thermogov.sim.emulator.emulate import Emulator

STATE = "sys/class/thermal/cooling_device0/cur_state"


def _warm(tmp: Path, board_name: str) -> tuple[Emulator, HwFan, list[float], list[str]]:
    """A warm emulated board, its fan governed by an ``HwFan`` on a clock the test moves."""
    board = load_board(board_name)
    emu = Emulator(board, tmp, Config(board=board_name), speed=1.0, warm_up_s=300.0)
    emu.step(300.5)
    tree = SysfsTree(tmp)
    dev = discover_fan(tree)
    assert dev is not None and dev.state_rel is not None
    now = [0.0]
    fan = HwFan(tree, dev, clock=lambda: now[0])
    said: list[str] = []
    fan.on_left = said.append
    return emu, fan, now, said


def _confirm_2_and_4(emu: Emulator, fan: HwFan, now: list[float], looks: int) -> str:
    """thermogov moves the fan to states 2 then 4, each looked at after the driver's step; the
    hwmon's ``pwm1``."""
    for step, level in enumerate((2, 4)):
        fan.apply(level)
        emu.step(301.0 + step)
        _look(fan, now, looks)
    assert fan.dev.pwm_rel is not None
    return fan.dev.pwm_rel


def _look(fan: HwFan, now: list[float], times: int) -> None:
    for _ in range(times):
        now[0] += 0.1
        _ = fan.level


@pytest.mark.parametrize("board_name", ["rpi5-fan", "jetson-orin-nano-devkit"])
@pytest.mark.parametrize("late", [1, 2, 3])
def test_a_driver_late_by_one_to_three_looks_is_never_a_rival(
    tmp_path: Path, board_name: str, late: int
) -> None:
    """After each of thermogov's writes ``pwm1`` keeps the previous state's duty for ``late``
    looks (and across a second write, and the kernel's curve moving in between); the fan stays
    governed and is put back at the end (21d's rule left it at its top state)."""
    emu, fan, now, said = _warm(tmp_path, board_name)
    top = fan.levels - 1
    t = 301.0
    for level in (top, 1, top, 0, 2, top, 1):
        fan.apply(level)
        _look(fan, now, late)
        if level == 0:  # a second write before the driver caught up with the first
            fan.apply(top)
            _look(fan, now, late)
        emu.step(t)
        t += 0.5
        _look(fan, now, late)
        assert not fan.left and not said
    assert fan._duties is not None and len(fan._duties.confirmed) >= 3  # the rule was live
    fan.restore()
    assert not said and int((tmp_path / STATE).read_text()) == dict(fan.originals)[fan.dev.state_rel]


def test_a_pwm1_written_by_a_user_leaves_the_fan_said_once_not_restored(tmp_path: Path) -> None:
    """Pi 5: thermogov moved the fan through states 2 and 4 (confirmed: 125, 250); a user's
    ``echo 255 > pwm1`` keeps state 4 at duty 255: another writer, said once, never written over,
    nothing put back.  On main thermogov judged no cooling-device fan (it wrote over it)."""
    emu, fan, now, said = _warm(tmp_path, "rpi5-fan")
    hwmon = _confirm_2_and_4(emu, fan, now, 2)
    assert not said
    (tmp_path / hwmon).write_text("255\n")
    emu.step(303.0)
    _look(fan, now, 1)
    assert len(said) == 1
    assert "pwm1 reads 255, not 250, the duty of cur_state 4 in the device tree's cooling-levels" in said[0]
    assert "another writer drives the fan" in said[0]
    assert fan.apply(1) == 4  # not written over
    _look(fan, now, 3)
    fan.restore()
    emu.step(304.0)
    assert len(said) == 1
    assert (tmp_path / hwmon).read_text() == "255\n" and int((tmp_path / STATE).read_text()) == 4


def test_a_pwm1_write_that_moves_the_state_is_seen_at_a_confirmed_state(tmp_path: Path) -> None:
    """``echo 130 > pwm1`` at state 4: the driver moves the state to 2 (125 <= 130) and keeps
    130; state 2 was confirmed, so the duty tells the user from step_wise."""
    emu, fan, now, said = _warm(tmp_path, "rpi5-fan")
    hwmon = _confirm_2_and_4(emu, fan, now, 1)
    (tmp_path / hwmon).write_text("130\n")
    emu.step(303.0)
    _look(fan, now, 1)
    assert len(said) == 1 and "pwm1 reads 130, not 125, the duty of cur_state 2" in said[0]
