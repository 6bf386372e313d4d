"""A Pi 5's policy0 under a :class:`~thermogov.hw.limitwatch.LimitWatch`, driven by hand in tests.

The limit watch's rules (another writer, a mode change, the boost rule's resets) are judged one
look at a time on a fake tree: the tree, the actuator owning policy0's limits, the watch and the
lines it said.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.hw import fakesys
from thermogov.hw.devices import CapActuator
from thermogov.hw.limits import LimitFiles, TreeIO
from thermogov.hw.limitwatch import LimitWatch
from thermogov.hw.sysfs import SysfsTree

P0 = "sys/devices/system/cpu/cpufreq/policy0"


def watched_policy0(
    tmp: Path, *, cpu_mc: int, start_min_khz: int | None = None, **watch_options: Any
) -> tuple[fakesys.FakeTree, CapActuator, LimitWatch, list[str]]:
    """(tree, actuator, watch, lines said); ``watch_options`` go to LimitWatch (mode_change, boost_reset ...)."""
    t = fakesys.rpi5(tmp / "root", cpu_mc=cpu_mc)
    if start_min_khz is not None:
        t.write(f"{P0}/scaling_min_freq", start_min_khz)
    _, act = owned_policy0(t)
    said: list[str] = []
    return t, act, LimitWatch([act], said.append, lambda: None, **watch_options), said


def owned_policy0(t: fakesys.FakeTree) -> tuple[SysfsTree, CapActuator]:
    """The tree as thermogov opens it and the actuator owning policy0's limits, its limits of
    before read from the tree as it stands (write the start state first)."""
    tree = SysfsTree(t.root)
    f = LimitFiles(
        "policy0", f"{P0}/scaling_min_freq", f"{P0}/scaling_max_freq", f"{P0}/scaling_cur_freq", 1000
    )
    tree.own(f.min_rel)
    tree.own(f.max_rel)
    io = TreeIO(tree)
    orig = {"policy0": (io.read_int(f.min_rel), io.read_int(f.max_rel))}
    table = [k * 1000 for k in fakesys.RPI5_CPU_KHZ]
    return tree, CapActuator("cpu", [f], table, io, orig, lambda: 0)
