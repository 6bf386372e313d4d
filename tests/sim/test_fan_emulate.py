"""The emulated Pi 5 + Active Cooler: pwm-fan's files, the kernel's curve and the daemon's writes."""

from __future__ import annotations

from pathlib import Path

from thermogov.board import load_board
from thermogov.config import Config
from thermogov.hw.fan import HwFan, discover_fan
from thermogov.hw.sysfs import SysfsTree
from thermogov.sim.emulator.emulate import Emulator

STATE = "sys/class/thermal/cooling_device0/cur_state"


def _state(root: Path) -> int:
    return int((root / STATE).read_text())


def test_the_emulated_fan_is_found_and_a_daemon_write_drives_the_simulated_fan(tmp_path: Path) -> None:
    board = load_board("rpi5-fan")
    emu = Emulator(board, tmp_path, Config(board="rpi5-fan"), speed=1.0, warm_up_s=300.0)
    assert emu.fan is not None
    emu.step(300.5)
    kernel_level = emu.world.fan.level  # type: ignore[union-attr]
    assert kernel_level >= 1 and _state(tmp_path) == kernel_level  # warm: the kernel's curve has it on

    tree = SysfsTree(tmp_path)
    dev = discover_fan(tree)
    assert dev is not None and dev.max_state == 4
    fan = HwFan(tree, dev)
    fan.apply(4)
    emu.step(301.0)
    assert emu.world.fan.level == 4  # type: ignore[union-attr]
    rpm = int((tmp_path / dev.rpm_rel).read_text())  # type: ignore[operator]
    assert rpm > 0
    fan.restore()
    emu.step(301.5)
    assert emu.world.fan.level == kernel_level  # type: ignore[union-attr]


def test_the_kernel_curve_rewrites_cur_state_when_its_own_target_changes(tmp_path: Path) -> None:
    """Between trip crossings a write holds; at a crossing the kernel's step_wise wins (a real Pi 5)."""
    board = load_board("rpi5-fan")
    emu = Emulator(board, tmp_path, Config(board="rpi5-fan"), speed=1.0)
    fan = emu.world.fan
    assert fan is not None and emu.fan is not None
    emu.world.plant.set_temps_c({n: 80.0 for n in emu.world.plant.names})
    emu.step(0.5)
    assert fan.level == 4 and _state(tmp_path) == 4  # hot: the kernel's curve at its top
    (tmp_path / STATE).write_text("2\n")  # a daemon lowers it: holds while no trip is crossed
    emu.step(1.0)
    assert fan.level == 2
    emu.world.plant.set_temps_c({n: 30.0 for n in emu.world.plant.names})  # far below every trip
    emu.step(1.5)
    assert fan.level == 0 and _state(tmp_path) == 0  # the kernel's target fell: it rewrote cur_state
