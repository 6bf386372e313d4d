"""Session 23a: a sum of rails is read once a second, held in the rows between (review of 22d).

An AGX Orin's power is the sum of three rails (hw/railsum.py), six files read every 100 ms tick:
60 reads a second for a trace row and a ledger that need one a second.  Now the sum is read
once a second unless a ``[power]`` budget (which integrates power every tick) is in force, and
every trace row still carries a power: the last sum read.  The daemon runs on a virtual clock
(``time.monotonic`` and the wait replaced: tests/hw/test_hw_late_zones.py's ``_run``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.hw import fakesys
from tests.hw.test_hw_late_zones import _run as virtual_run
from tests.hw.test_hw_late_zones import _summary as virtual_summary
from thermogov.config import parse_config
from thermogov.hw import sysfs
from thermogov.hw.sysfs import SysfsTree

SUM_W = 19.98 * 0.240 + 19.98 * 0.080 + 5.06 * 0.740  # fakesys.AGX_ORIN_RAILS
GPU_CURR = "sys/devices/platform/c240000.i2c/i2c-1/1-0040/hwmon/hwmon3/curr1_input"  # VDD_GPU_SOC


def _run(
    work: Path, monkeypatch: pytest.MonkeyPatch, raw: dict[str, Any], script: Callable[[float], None]
) -> tuple[list[dict[str, str]], int, dict[str, Any]]:
    """(trace rows, reads of VDD_GPU_SOC's current, summary) of a 20 s dry run on a virtual clock."""
    reads = [0]
    real = sysfs.SysfsTree._read_bytes

    def counted(tree: SysfsTree, path: str) -> bytes:
        if path.endswith("1-0040/hwmon/hwmon3/curr1_input"):
            reads[0] += 1
        return real(tree, path)

    monkeypatch.setattr(sysfs.SysfsTree, "_read_bytes", counted)
    rows, _err = virtual_run(work, monkeypatch, 20.0, script, parse_config(raw))
    return rows, reads[0], virtual_summary(work)


def test_the_sum_is_read_once_a_second_and_every_row_holds_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = fakesys.agx_orin(tmp_path / "root")
    assert (t.root / GPU_CURR).exists()

    def script(el: float) -> None:  # the GPU rail draws 1 A more from 10.05 s on
        if el >= 10.05:
            (t.root / GPU_CURR).write_text("1240\n")

    rows, reads, summary = _run(tmp_path, monkeypatch, {}, script)
    assert len(rows) >= 190
    assert reads <= 25, reads  # main: one a tick (about 200); now one a second, and the start's
    powers = [(float(r["t_s"]), r["power_w"]) for r in rows]
    assert all(p for _t, p in powers), "every row carries a power"
    before = [float(p) for s, p in powers if s < 10.0]
    assert all(p == pytest.approx(SUM_W, abs=1e-3) for p in before)
    # The change is held until the next read, at most a second later, then every row has it.
    late = [float(p) for s, p in powers if s >= 11.2]
    assert late and all(p == pytest.approx(SUM_W + 19.98, abs=1e-3) for p in late), late[:3]
    assert any(float(p) == pytest.approx(SUM_W, abs=1e-3) for s, p in powers if 10.1 <= s < 10.9)
    assert summary["power_read_period_s"] == 1.0


def test_under_a_budget_the_sum_is_read_every_tick(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fakesys.agx_orin(tmp_path / "root")
    raw = {"power": {"budget_mains_w": 30.0, "budget_discharging_w": 30.0, "budget_charging_w": 30.0}}
    rows, reads, summary = _run(tmp_path, monkeypatch, raw, lambda _el: None)
    assert reads >= len(rows) >= 190  # the budget integrates every tick's power
    assert all(float(r["power_w"]) == pytest.approx(SUM_W, abs=1e-3) for r in rows)
    assert summary["power_read_period_s"] == 0.0
