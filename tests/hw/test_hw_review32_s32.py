"""Session 32r: root-daemon safety, the items review 31r left (docs/hardware.md, "Session 32r").

The rules are driven in process on tmp trees (tests/hw/fakesys.py), a change under a running
daemon through the IO's hooks, never a sleep; an exit status through the installed script
(tests/hw/procutil.py) only where the status is the thing tested.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.hw import fakesys

P0 = "sys/devices/system/cpu/cpufreq/policy0"


# -- (1) an owned limit removed between the actuator's read and its own: exit 1, nothing owned -------
class _GoesAfterRead:
    """A SysfsTree whose ``victim`` file is removed right after its first read: the window
    between :meth:`CapActuator.open`'s read of the limits and its ``own``."""

    @staticmethod
    def make(root: Path, victim: str):  # type: ignore[no-untyped-def]
        from thermogov.hw.sysfs import SysfsTree

        class Tree(SysfsTree):
            def read_int(self, rel, error=None):  # type: ignore[no-untyped-def,override]
                value = super().read_int(rel, error) if error else super().read_int(rel)
                if rel == victim and (root / victim).exists():
                    os.remove(root / victim)
                return value

        return Tree(root)


def test_a_limit_removed_between_the_read_and_own_is_a_runtime_failure_nothing_owned(tmp_path: Path) -> None:
    """The GPU's ``max_freq`` goes after the actuator read it and before it is owned (a device
    unbound during start-up): a runtime failure naming the file, nothing owned (the CPU domain
    opened before it let go too), nothing written, no journal.  BASE f31071c: ActuatorError
    "no such attribute to own" (exit 2, bad input), the CPU's limits left owned."""
    from thermogov.board import load_board
    from thermogov.hw.daemon import open_actuators
    from thermogov.hw.discovery import discover
    from thermogov.hw.mapping import map_board
    from thermogov.interfaces import RuntimeFailure

    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=95000, gpu_mc=95000)
    probe = _GoesAfterRead.make(t.root, "-")
    bindings = list(map_board(discover(probe), load_board("jetson-orin-nano")).domains)
    assert [b.domain.name for b in bindings][-1] == "gpu", "the GPU opens after the CPU"
    victim = bindings[-1].files[0].max_rel
    tree = _GoesAfterRead.make(t.root, victim)
    bindings = list(map_board(discover(tree), load_board("jetson-orin-nano")).domains)
    before = t.snapshot()
    with pytest.raises(RuntimeFailure, match=r"max_freq: went away between the read .*nothing was changed"):
        open_actuators(tree, bindings, dry_run=False)
    assert tree.owned() == frozenset()
    after = t.snapshot()
    (gone,) = set(before) - set(after)
    assert gone.endswith("17000000.gpu/max_freq") and {k: before[k] for k in after} == after
