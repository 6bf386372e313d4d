"""Session 24b: the power is read every tick only while a ``[power]`` budget applies (hw/powerread.py).

23a read an AGX Orin's summed rails once a second unless a budget was configured; the single
input rail (an Orin Nano's ``VDD_IN``, two files) was still read every tick, 20 of its ~100
reads a second, and a budget configured only for a power state the board never reports (only
``budget_discharging_w`` on a board with no battery) kept the per-tick reads.  Now one rule
decides for every power source and counts only a budget that applies in the current power
state, switching when the supplies report another state.  The daemon runs on a virtual clock
(tests/hw/test_hw_late_zones.py's ``_run``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.hw import fakesys
from tests.hw.test_hw_late_zones import _run as virtual_run
from tests.hw.test_hw_late_zones import _summary as virtual_summary
from thermogov import budget
from thermogov.config import parse_config
from thermogov.hw import sysfs
from thermogov.hw.powerread import PowerReadGate, power_read_period_s
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import PowerStatus
from thermogov.powerconfig import PowerConfig

BAT_STATUS = "sys/devices/platform/fake-psy/power_supply/BAT0/status"
VDD_IN_W = 4.990 * 0.968  # fakesys.ORIN_NANO_RAILS
ON_BATTERY_ONLY = {"power": {"budget_discharging_w": 30.0}}


def _run(
    work: Path,
    monkeypatch: pytest.MonkeyPatch,
    raw: dict[str, Any],
    script: Callable[[float], None],
    counted_file: str,
) -> tuple[list[dict[str, str]], list[float], list[tuple[float, Any, Any]], dict[str, Any]]:
    """(trace rows, times ``counted_file`` was read, (t, power, state) handed to the budget each
    tick, summary) of a 20 s dry run on a virtual clock."""
    now: list[float] = []
    reads: list[float] = []
    real = sysfs.SysfsTree._read_bytes

    def counted(tree: SysfsTree, path: str) -> bytes:
        if path.endswith(counted_file):
            reads.append(now[-1] if now else 0.0)
        return real(tree, path)

    handed: list[tuple[float, Any, Any]] = []
    real_limit = budget.BudgetController.limit

    def limit(self: budget.BudgetController, now_s: float, caps: Any, power_w: Any, status: Any) -> Any:
        handed.append((now_s, power_w, None if status is None else status.state))
        return real_limit(self, now_s, caps, power_w, status)

    def timed(el: float) -> None:
        now.append(el)
        script(el)

    monkeypatch.setattr(sysfs.SysfsTree, "_read_bytes", counted)
    monkeypatch.setattr(budget.BudgetController, "limit", limit)
    rows, _err = virtual_run(work, monkeypatch, 20.0, timed, parse_config(raw))
    return rows, reads, handed, virtual_summary(work)


def test_the_input_rail_is_read_once_a_second_without_a_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    curr = next(p for p in (t.root / "sys/devices/platform/c240000.i2c/i2c-1/1-0040").rglob("curr1_input"))

    def script(el: float) -> None:  # VDD_IN draws 1 A more from 10.05 s on
        if el >= 10.05:
            curr.write_text("1968\n")

    rows, reads, _handed, summary = _run(tmp_path, monkeypatch, {}, script, "curr1_input")
    assert len(rows) >= 190
    assert len(reads) <= 25, len(reads)  # main: one a tick (about 200)
    powers = [(float(r["t_s"]), r["power_w"]) for r in rows]
    assert all(p for _t, p in powers), "every row carries a power"
    assert all(float(p) == pytest.approx(VDD_IN_W, abs=1e-3) for s, p in powers if s < 10.0)
    late = [float(p) for s, p in powers if s >= 11.2]
    assert late and all(p == pytest.approx(VDD_IN_W + 4.990, abs=1e-3) for p in late)
    assert any(float(p) == pytest.approx(VDD_IN_W, abs=1e-3) for s, p in powers if 10.1 <= s < 10.9)
    assert summary["power_read_period_s"] == 1.0  # main: no such key for an input rail


@pytest.mark.parametrize("board", ["orin-nano", "agx-orin"])
def test_a_budget_for_a_state_the_board_never_reports_reads_once_a_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, board: str
) -> None:
    """No battery: the state is always ``mains``, so a budget only on battery never applies."""
    (fakesys.orin_nano if board == "orin-nano" else fakesys.agx_orin)(tmp_path / "root")
    rows, reads, handed, summary = _run(
        tmp_path, monkeypatch, ON_BATTERY_ONLY, lambda _el: None, "curr1_input"
    )
    assert handed and {state for _t, _w, state in handed} == {"mains"}
    assert len(reads) <= 25, len(reads)  # main: every tick (VDD_IN's or VDD_GPU_SOC's current)
    assert all(r["power_w"] for r in rows)
    assert summary["power_read_period_s"] == 1.0


def test_a_budget_that_applies_reads_every_tick(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fakesys.orin_nano(tmp_path / "root", battery_decic=300)  # discharging
    rows, reads, handed, summary = _run(
        tmp_path, monkeypatch, ON_BATTERY_ONLY, lambda _el: None, "curr1_input"
    )
    assert len(reads) >= len(rows) >= 190
    assert all(w == pytest.approx(VDD_IN_W, abs=1e-3) for _t, w, _s in handed)
    assert summary["power_read_period_s"] == 0.0


def test_plugging_in_lifts_the_per_tick_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    t = fakesys.orin_nano(tmp_path / "root", battery_decic=300)

    def script(el: float) -> None:  # a charger plugged in at 10.5 s
        if el >= 10.5:
            (t.root / BAT_STATUS).write_text("Charging\n")

    _rows, reads, handed, summary = _run(tmp_path, monkeypatch, ON_BATTERY_ONLY, script, "curr1_input")
    switched = min(t_ for t_, _w, s in handed if s == "charging")
    assert 10.5 <= switched <= 11.6
    assert len([r for r in reads if 1.0 <= r < 10.0]) >= 85  # every tick while discharging
    after = [r for r in reads if switched + 0.05 < r <= 20.0]
    assert len(after) <= 10, after  # main: every tick
    assert summary["power_read_period_s"] == 1.0  # the state at the end: charging, no budget


def test_unplugging_starts_per_tick_reads_with_a_fresh_power(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = fakesys.orin_nano(tmp_path / "root", battery_decic=300)
    (t.root / BAT_STATUS).write_text("Charging\n")
    curr = next(p for p in (t.root / "sys/devices/platform/c240000.i2c/i2c-1/1-0040").rglob("curr1_input"))

    def script(el: float) -> None:  # VDD_IN draws 1 A more from 10.05 s, the charger pulled at 10.5 s
        if el >= 10.05:
            curr.write_text("1968\n")
        if el >= 10.5:
            (t.root / BAT_STATUS).write_text("Discharging\n")

    _rows, reads, handed, summary = _run(tmp_path, monkeypatch, ON_BATTERY_ONLY, script, "curr1_input")
    on_battery = [(t_, w) for t_, w, s in handed if s == "discharging"]
    first_t, first_w = on_battery[0]
    assert 10.5 <= first_t <= 11.6
    assert first_w == pytest.approx(VDD_IN_W + 4.990, abs=1e-3)  # read at that tick, not held
    assert len([r for r in reads if 1.0 <= r < 10.0]) <= 10  # once a second while charging
    assert len([r for r in reads if first_t - 0.01 < r <= 20.0]) >= len(on_battery) >= 80
    assert summary["power_read_period_s"] == 0.0


def test_the_rule() -> None:
    on_battery = PowerConfig(discharging_w=10.0)
    mains, discharging = PowerStatus("mains"), PowerStatus("discharging", 80.0)
    assert power_read_period_s(on_battery, mains) == 1.0
    assert power_read_period_s(on_battery, discharging) == 0.0
    assert power_read_period_s(on_battery, None) == 1.0
    assert power_read_period_s(PowerConfig(low_battery_w=5.0), PowerStatus("discharging", 10.0)) == 0.0
    assert power_read_period_s(PowerConfig(low_battery_w=5.0), discharging) == 1.0
    gate = PowerReadGate(on_battery)
    assert [gate.held(t / 10, mains) for t in range(12)] == [False] + [True] * 9 + [False, True]
    assert not gate.held(1.2, discharging) and not gate.held(1.3, discharging)
    assert gate.held(1.3, None) is False  # an unreadable report keeps the last known state
    assert not gate.held(1.4, mains) and gate.held(1.5, mains)  # leaving: this tick reads
