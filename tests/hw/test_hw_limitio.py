"""The actuator asks its :class:`~thermogov.hw.limits.LimitIO` whether a member the kernel
removed is why a write was refused (session 21's review finding 3), instead of reaching for a
``tree`` attribute of whatever io it was given."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hw import fakesys
from thermogov.hw.confine import ConfinementError
from thermogov.hw.devices import CapActuator
from thermogov.hw.limits import DryRunIO, LimitFiles
from thermogov.hw.sysfs import SysfsTree

P0 = "sys/devices/system/cpu/cpufreq/policy0"
F = LimitFiles("policy0", f"{P0}/scaling_min_freq", f"{P0}/scaling_max_freq", f"{P0}/scaling_cur_freq", 1000)
TABLE = (600_000_000, 1_200_000_000, 1_800_000_000)


class RemovedIO:
    """An io (no tree behind it) whose member the kernel removed: every write is refused."""

    def __init__(self, removed: bool) -> None:
        self.removed = removed
        self.values = {F.min_rel: 600_000, F.max_rel: 1_800_000}

    def read_int(self, rel: str) -> int:
        return self.values[rel]

    def write_int(self, rel: str, value: int) -> None:
        raise ConfinementError(f"{rel}: replaced since start-up; refusing to write")

    def kernel_removed(self, f: LimitFiles) -> bool:
        return self.removed


def _actuator(io: RemovedIO) -> CapActuator:
    return CapActuator("cpu", [F], TABLE, io, {"policy0": (600_000, 1_800_000)}, lambda: 0)


def test_a_member_its_io_says_the_kernel_removed_is_held_not_a_failure() -> None:
    a = _actuator(RemovedIO(removed=True))
    assert a.apply(TABLE[0]) == TABLE[0]  # held: nothing online to write, the cap kept


def test_a_refusal_of_a_member_still_there_stands() -> None:
    with pytest.raises(ConfinementError):
        _actuator(RemovedIO(removed=False)).apply(TABLE[0])


def test_a_dry_run_removes_nothing(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    (t.root / P0 / "scaling_max_freq").unlink()  # gone: still never "removed" where nothing is owned
    assert DryRunIO(SysfsTree(t.root)).kernel_removed(F) is False
