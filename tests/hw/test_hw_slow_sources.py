"""Slow sources at their own period (hw/polled.py): read once a period, a change seen within one.

The daemon's tick is 100 ms; power supplies, throttle counters and the fan's tachometer are read
once a second.  These tests drive each source at the tick's instants and check both halves of the
promise: between polls nothing is read, and a change on the board shows up at the first poll
after it, never later than one period.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.hw import fakesys
from tests.hw.fakethrottle import set_oc, soctherm_oc
from tests.hw.test_hw_kept_reads import kept
from thermogov.fan import FanController, spread_curve
from thermogov.governor import TickRecord
from thermogov.hw.discovery import discover
from thermogov.hw.fan import HwFan, discover_fan
from thermogov.hw.polled import SLACK, Every
from thermogov.hw.power import PowerSupplyReader
from thermogov.hw.sysfs import SysfsTree
from thermogov.hw.throttle import POLL_PERIOD_S, ThrottleMonitor

TICK_S = 0.1
BAT0 = "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_TYPE=Battery\nPOWER_SUPPLY_STATUS=Discharging\nPOWER_SUPPLY_CAPACITY=74"


class CountingTree(SysfsTree):
    """A tree that counts the reads that reach the kernel's files (the documented test hook)."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.reads: Counter[str] = Counter()

    def _read_bytes(self, real: str) -> bytes:
        self.reads[self.relative(real)] += 1
        return super()._read_bytes(real)


def _ticks(start_s: float, stop_s: float) -> list[float]:
    """The control instants in [start, stop), as the daemon stamps them (k * 100 ms)."""
    return [k * TICK_S for k in range(round(start_s / TICK_S), round(stop_s / TICK_S))]


def _rec(t_s: float) -> TickRecord:
    return TickRecord(t_s, 60.0, (60.0,), "cpu", "ok", (1,), (1,), None, None, "")


# -- the gate -----------------------------------------------------------------------------------
def test_every_is_due_once_per_period_on_the_grid_of_its_first_poll() -> None:
    gate = Every(1.0)
    # A woken tick is stamped a little late, and not by the same amount each time.
    stamps = [0.0003 + t + (0.0002 if round(t * 10) % 3 else -0.0002) for t in _ticks(0.0, 5.0)]
    due = [round(t, 1) for t in stamps if gate.due(t)]
    assert due == [0.0, 1.0, 2.0, 3.0, 4.0]  # never pushed a tick late by a jitter below the slack


def test_every_after_a_stall_polls_once_then_a_period_from_then() -> None:
    gate = Every(1.0)
    assert gate.due(0.0)
    assert gate.due(7.35)  # a suspended board: one poll now, no catch-up burst
    assert not gate.due(8.0)
    assert not gate.due(8.3)
    assert gate.due(8.35)
    gate.reset()
    assert gate.due(8.4)


def test_every_slack_is_a_small_share_of_the_period() -> None:
    gate = Every(2.0)
    assert gate.due(0.0)
    assert not gate.due(2.0 - 2 * SLACK * 2.0)
    assert gate.due(2.0 - SLACK * 2.0 / 2)


def test_every_ready_s_is_never_after_a_time_due_would_accept() -> None:
    """Callers skip ``due`` while ``t < ready_s``: that must never skip a True (or reorder)."""
    a, b = Every(1.0), Every(1.0)
    # Jittered ticks, a stall, a reset and a time going back a little (a late stamp after an early one).
    stamps = [t + (0.004 if round(t * 10) % 4 else -0.004) for t in _ticks(0.0, 3.0)]
    stamps += [9.37, 9.4, 9.5, 10.36, 10.33, 10.4, 11.2, 11.41]
    via_gate, direct = [], []
    for t in stamps:
        if t == 10.4:
            a.reset()
            b.reset()
        via_gate.append(t >= a.ready_s and a.due(t))
        direct.append(b.due(t))
    assert via_gate == direct
    # The grid's 0, 1, 2 s; once after the stall; a period later; at once after the reset (10.4),
    # and then a period after that, not at 11.2.
    assert [round(t, 2) for t, d in zip(stamps, direct, strict=True) if d] == [
        -0.0,
        1.0,
        2.0,
        9.37,
        10.36,
        10.4,
        11.41,
    ]


@pytest.mark.parametrize("period", [0.0, -1.0])
def test_every_refuses_a_period_that_is_not_positive(period: float) -> None:
    with pytest.raises(ValueError, match="positive"):
        Every(period)


# -- power supplies -------------------------------------------------------------------------------
def test_power_supply_is_read_once_a_period_and_a_change_is_seen_within_one(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path)
    t.supply("BAT0", BAT0, temp_decic=300)
    tree = CountingTree(t.root)
    now = [0.0]
    reader = PowerSupplyReader(tree, discover(tree).supplies, clock=lambda: now[0])
    status = "sys/devices/platform/fake-psy/power_supply/BAT0/status"
    states = {}
    for t_s in _ticks(0.0, 3.0):
        now[0] = t_s
        if round(t_s, 1) == 1.3:
            t.write(status, "Charging\n")  # the charger is plugged in between two polls
        got = reader.poll()
        assert got is not None
        states[round(t_s, 1)] = got.state
    assert tree.reads[status] == 3  # at 0, 1 and 2 s: not 30 times
    assert states[1.9] == "discharging"  # the last report until the next poll
    assert states[2.0] == "charging"  # seen at the first poll after the change (0.7 s later)


# -- throttle counters ----------------------------------------------------------------------------
def test_a_throttle_event_is_tagged_within_one_poll_period_and_not_read_every_tick(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path, jetpack=6)
    real = soctherm_oc(t, 5, (0, 0, 0))
    tree = CountingTree(t.root)
    mon = ThrottleMonitor.open(tree)
    counter = f"{real}/oc3_event_cnt"
    tagged: dict[float, str] = {}
    for t_s in _ticks(0.0, 4.0):
        if round(t_s, 1) == 2.1:
            set_oc(t, real, (0, 0, 2))  # two instantaneous over-current events right after a poll
        rec = mon.annotate(_rec(t_s))
        if rec.event:
            tagged[round(t_s, 1)] = rec.event
    assert list(tagged.values()) == ["throttle:over-current-instant=2"]  # once, with both events
    assert 0.0 < next(iter(tagged)) - 2.1 <= POLL_PERIOD_S  # within one poll period of the change
    assert tree.reads[counter] == 4  # one poll a second (0, 1, 2, 3 s), not one per tick
    assert mon.snapshot().counts["over-current-instant"] == 2


def test_throttle_sources_are_read_through_kept_descriptors(tmp_path: Path) -> None:
    """After the first poll every throttle file has a kept descriptor; a rewrite in place is read."""
    t = fakesys.orin_nano(tmp_path, jetpack=6)
    real = soctherm_oc(t, 5, (0, 0, 0))
    tree = SysfsTree(t.root)
    mon = ThrottleMonitor.open(tree)
    assert mon.poll(0.0) == []
    files = [rel for src in mon.sources for rel in src.files()]
    assert "sys/class/hwmon/hwmon5/oc1_event_cnt" in files and "sys/class/thermal/thermal_zone0/temp" in files
    assert all(kept(tree, rel) for rel in files)  # (fd, dev, ino, ...) held from the first poll
    with (t.root / real / "oc1_event_cnt").open("w") as f:  # in place, as a driver's show() would
        f.write("4\n")
    assert mon.poll(1.0) == ["throttle:under-voltage=4"]


# -- the fan's tachometer -------------------------------------------------------------------------
def _fan(tmp_path: Path) -> tuple[fakesys.FakeTree, CountingTree, HwFan, list[float]]:
    t = fakesys.rpi5(tmp_path / "root")
    fakesys.pwm_fan(t, state=1, pwm=75, rpm=2804)
    tree = CountingTree(t.root)
    dev = discover_fan(tree)
    assert dev is not None and dev.rpm_rel is not None
    now = [0.0]
    return t, tree, HwFan(tree, dev, clock=lambda: now[0]), now


def test_the_tachometer_is_read_once_a_period_and_again_after_a_level_change(tmp_path: Path) -> None:
    t, tree, fan, now = _fan(tmp_path)
    rpm_rel = "sys/devices/platform/cooling_fan/hwmon/hwmon2/fan1_input"
    seen = []
    for t_s in _ticks(0.0, 2.0):
        now[0] = t_s
        seen.append(fan.rpm())
    assert tree.reads[rpm_rel] == 2 and seen == [2804] * 20
    t.write(rpm_rel, 0)
    now[0] = 2.05
    fan.apply(3)  # a new level: the stall alarm must judge it on a fresh reading
    assert fan.rpm() == 0 and tree.reads[rpm_rel] == 3


def test_a_stalled_fan_is_still_reported_within_a_poll_period_of_its_dwell(tmp_path: Path) -> None:
    t, _, fan, now = _fan(tmp_path)
    ctl = FanController(fan, spread_curve(fan.levels, 50.0, 70.0, 2.0), dwell_s=1.0)
    rpm_rel = "sys/devices/platform/cooling_fan/hwmon/hwmon2/fan1_input"
    stalled_at = None
    for t_s in _ticks(0.0, 6.0):
        now[0] = t_s
        if round(t_s, 1) == 1.2:
            t.write(rpm_rel, 0)  # the fan stops while driven (level 1 and up)
        _, events = ctl.step(t_s, 60.0, wants_cut=False, clocks_at_top=True)
        if any(e.startswith("fan_stalled") for e in events):
            stalled_at = t_s
            break
    assert stalled_at is not None
    # First seen at the 2 s poll, reported a dwell (1 s) later: at most a poll period after
    # the 1 s of 0 RPM a fresh read of every tick would have reported (2.2 s).
    assert 2.2 <= stalled_at <= 2.2 + 1.0 + 1e-9


def test_the_fan_level_is_read_once_per_instant_and_read_back_after_a_write(tmp_path: Path) -> None:
    t, tree, fan, now = _fan(tmp_path)
    state = "sys/devices/virtual/thermal/cooling_device0/cur_state"
    before = tree.reads[state]
    assert [fan.level for _ in range(3)] == [1, 1, 1]  # the controller and the trace row of one tick
    assert tree.reads[state] == before + 1
    t.write(state, 2)  # the kernel's step_wise moves it between two ticks
    now[0] = 0.1
    assert fan.level == 2 and tree.reads[state] == before + 2
    assert fan.apply(4) == 4  # at the same instant: the write is read back, not assumed
    assert tree.reads[state] == before + 3
