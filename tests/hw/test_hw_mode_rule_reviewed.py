"""Session 14's mode rule reviewed (hw/limitwatch.py ``exit_notes``), on a fake tree.

The rule leaves the windows an operator's new nvpmodel mode lowered.  A window is noted
"lowered" when another writer put it below thermogov's cap; the governor may later write a cap
of its own over it (lower when the board heats, higher when it cools).  What the rule leaves
must then still be the *other writer's* value, never thermogov's own cap of the moment: a cap
thermogov chose is never left in force after it exits, and a value it wrote over the mode's is
not passed off as the mode's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hw import fakesys
from tests.hw.limitrig import P0, watched_policy0
from thermogov.hw.daemon import _journal_entries
from thermogov.hw.devices import CapActuator
from thermogov.hw.journal import RecordedRanges, validate_entries
from thermogov.hw.limitwatch import LimitWatch
from thermogov.hw.sysfs import SysfsTree

MODE_MAX = 2000000  # kHz: what the operator's new mode writes (an OPP of the Pi 5 table)
MODE_CHANGE = "nvpmodel mode changed from 0 to 2 (status)"


def _rig(
    tmp: Path, start_min_khz: int | None = None
) -> tuple[fakesys.FakeTree, CapActuator, LimitWatch, list[str]]:
    return watched_policy0(tmp, cpu_mc=60000, start_min_khz=start_min_khz)


@pytest.mark.parametrize(
    "caps_after_mode_khz",
    [
        (1600000,),  # the board heats: thermogov writes a cap below the mode's
        (1600000, 2400000),  # ... then cools: thermogov writes its top over the mode's
    ],
)
def test_a_mode_change_leaves_the_modes_value_not_thermogovs_own_cap(
    tmp_path: Path, caps_after_mode_khz: tuple[int, ...]
) -> None:
    t, act, watch, _said = _rig(tmp_path)
    original_max = t.read_int(f"{P0}/scaling_max_freq")
    assert original_max > MODE_MAX
    t.write(f"{P0}/scaling_max_freq", MODE_MAX)  # nvpmodel -m 2 lowers the max
    watch.check(10.0)
    assert "policy0" in watch.lowered
    for i, cap_khz in enumerate(caps_after_mode_khz):
        act.apply(cap_khz * 1000)
        assert t.read_int(f"{P0}/scaling_max_freq") == cap_khz
        watch.check(20.0 + 10 * i)
    notes = watch.exit_notes(MODE_CHANGE)
    act.restore()
    assert t.read_int(f"{P0}/scaling_max_freq") == MODE_MAX, notes
    assert len(notes) == 1 and f"leaves policy0 1500000..{MODE_MAX} kHz" in notes[0], notes


def test_without_a_cap_of_thermogovs_own_since_the_mode_is_left_as_before(tmp_path: Path) -> None:
    t, act, watch, _said = _rig(tmp_path)
    t.write(f"{P0}/scaling_max_freq", MODE_MAX)
    watch.check(10.0)
    notes = watch.exit_notes(MODE_CHANGE)
    act.restore()
    assert t.read_int(f"{P0}/scaling_max_freq") == MODE_MAX, notes


def test_a_mode_max_below_the_min_of_before_is_adopted_as_a_window_a_journal_restore_accepts(
    tmp_path: Path,
) -> None:
    # The journal is rewritten with the adopted windows (a restore that fails keeps it); a
    # window whose min is above its max is refused by the next journal restore, and with it the
    # whole journal: every other limit thermogov lowered stays lowered.
    t, act, watch, _said = _rig(tmp_path, start_min_khz=1800000)
    t.write(f"{P0}/scaling_max_freq", 1700000)  # the new mode's max, below the min of before
    watch.check(10.0)
    watch.exit_notes(MODE_CHANGE)
    tree = SysfsTree(t.root)
    entries = RecordedRanges().stamp(tree, _journal_entries([act]))
    good, missing, _clamped = validate_entries(tree, entries)  # JournalError before
    assert [(e.min, e.max) for e in good] == [(1700000, 1700000)] and not missing


def test_a_raise_by_another_writer_after_the_mode_is_the_latest_choice_and_is_put_back(
    tmp_path: Path,
) -> None:
    # The mode lowers the max, thermogov caps below it, then another writer (jetson_clocks)
    # raises the max: its value is what restore puts back (the rule: the latest choice of
    # another writer), not the mode's older one nor thermogov's cap.
    t, act, watch, _said = _rig(tmp_path)
    t.write(f"{P0}/scaling_max_freq", MODE_MAX)
    watch.check(10.0)
    act.apply(1600000 * 1000)
    t.write(f"{P0}/scaling_max_freq", 2300000)
    watch.check(20.0)  # adopted, and the cap written again
    assert t.read_int(f"{P0}/scaling_max_freq") == 1600000
    watch.exit_notes(MODE_CHANGE)
    act.restore()
    assert t.read_int(f"{P0}/scaling_max_freq") == 2300000


def test_a_recorded_mode_change_is_a_ceiling_for_the_governors_later_caps(tmp_path: Path) -> None:
    # Before: the rule acted only at exit, so a higher cap the governor decided once the board
    # cooled wrote over the operator's new mode for the rest of the run.
    t, act, _unused, _said = _rig(tmp_path)
    said: list[str] = []
    recorded = [""]
    watch = LimitWatch([act], said.append, lambda: None, mode_change=lambda: recorded[0])
    original_max = t.read_int(f"{P0}/scaling_max_freq")
    t.write(f"{P0}/scaling_max_freq", MODE_MAX)  # nvpmodel -m 2 writes its caps ...
    watch.check(10.0)
    assert "policy0" in watch.lowered  # a kernel clamp or a mode: not told apart yet
    recorded[0] = MODE_CHANGE  # ... and records the mode
    tags = watch.check(20.0)
    assert tags == ["limits_changed:policy0"]
    assert not watch.lowered
    act.apply(2400000 * 1000)  # the board cooled: thermogov's top
    assert t.read_int(f"{P0}/scaling_max_freq") == MODE_MAX  # the mode's max stands
    act.apply(1600000 * 1000)  # hot again: a cap below it still goes in
    assert t.read_int(f"{P0}/scaling_max_freq") == 1600000
    assert watch.exit_notes(MODE_CHANGE) == []  # said once, when it was seen
    act.restore()
    assert t.read_int(f"{P0}/scaling_max_freq") == MODE_MAX < original_max
    lines = [s for s in said if MODE_CHANGE in s]
    assert len(lines) == 1 and "thermogov caps below them from now on" in lines[0], said


def test_without_a_recorded_mode_a_lowered_window_is_not_a_ceiling(tmp_path: Path) -> None:
    # A kernel clamp lifts again: the governor's own higher cap must still go in.
    t, act, _unused, _said = _rig(tmp_path)
    watch = LimitWatch([act], [].append, lambda: None, mode_change=lambda: "")
    t.write(f"{P0}/scaling_max_freq", MODE_MAX)
    watch.check(10.0)
    watch.check(20.0)
    assert "policy0" in watch.lowered
    act.apply(2400000 * 1000)
    assert t.read_int(f"{P0}/scaling_max_freq") == 2400000
