"""A board with both a governed fan and kernel idle injection: one journal owns both.

The fan's attributes (``attrs``, hw/fan.py) and the idle-injection states (``states``,
hw/idle.py) are journaled together before the first write and both are put back on every
exit path, and by ``recover`` after a crash.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.hw import fakesys
from tests.hw.cliargs import run_options
from tests.hw.fakesys import FakeTree, KernelTree
from thermogov.config import parse_config
from thermogov.hw.daemon import Runner
from thermogov.hw.idle import StateEntry
from thermogov.hw.journal import AttrEntry, Journal, JournalData, JournalError, recover
from thermogov.hw.sysfs import SysfsTree

FAN_STATE = "sys/class/thermal/cooling_device0/cur_state"
IDLE = "sys/class/thermal/cooling_device2"
BOTH = {"run": {"policy": "hysteresis", "fan": "governor"}, "lever": {"enabled": True}}


def _board(tmp: Path) -> FakeTree:
    t = fakesys.rpi5(tmp / "root", cpu_mc=95000)
    fakesys.pwm_fan(t, state=1, pwm=75)
    t.write(f"{IDLE}/type", "thermal-idle")
    t.write(f"{IDLE}/max_state", 100)
    t.write(f"{IDLE}/cur_state", 0)
    return t


def test_the_journal_holds_the_fan_and_the_idle_state_and_both_are_restored(tmp_path: Path) -> None:
    t = _board(tmp_path)
    before = t.snapshot()
    kt = KernelTree(tmp_path / "root")
    seen: list[dict[str, Any]] = []

    class Spy(Runner):
        def _loop(self, prep, gov, telemetry, on_tick, dry_ios, run_dir):  # type: ignore[no-untyped-def,override]
            def tick(rec):  # type: ignore[no-untyped-def]
                if not seen:
                    seen.append(json.loads((tmp_path / "state" / "journal.json").read_text()))
                on_tick(rec)

            super()._loop(prep, gov, telemetry, tick, dry_ios, run_dir)

    opts = run_options(tmp_path, 1.5, config=parse_config(BOTH))
    Spy(opts, out=io.StringIO(), err=io.StringIO(), tree=kt).run()
    assert seen[0]["attrs"] == [{"rel": FAN_STATE, "value": 1}]
    assert seen[0]["states"] == [{"device": "cooling_device2", "rel": f"{IDLE}/cur_state", "value": 0}]
    writes = {p for p, _ in kt.writes}
    assert any(p.endswith("cooling_device0/cur_state") for p in writes), "the governed fan was driven"
    assert f"{IDLE}/cur_state" in writes, "the lever injected idle at the lowest caps"
    assert t.snapshot() == before and not Journal(tmp_path / "state").exists()


def test_an_exception_mid_run_restores_the_fan_and_the_idle_state(tmp_path: Path) -> None:
    t = _board(tmp_path)
    before = t.snapshot()

    class Boom(Runner):
        def _loop(self, prep, gov, telemetry, on_tick, dry_ios, run_dir):  # type: ignore[no-untyped-def,override]
            gov.sample("cpu", 0.0)
            gov.tick(0.0)
            assert t.read_int(FAN_STATE) == 4  # written: a hard limit puts the fan at its top
            raise RuntimeError("injected")

    with pytest.raises(RuntimeError, match="injected"):
        Boom(run_options(tmp_path, 0.5, config=parse_config(BOTH))).run()
    assert t.snapshot() == before and not Journal(tmp_path / "state").exists()


def test_a_crash_journal_with_both_restores_both(tmp_path: Path) -> None:
    t = _board(tmp_path)
    tree = SysfsTree(t.root)
    j = Journal(tmp_path / "state")
    state = StateEntry("cooling_device2", f"{IDLE}/cur_state", 0)
    j.write(
        JournalData(fakesys.dead_pid(), "", str(tree.root), 0.0, (), (state,), (AttrEntry(FAN_STATE, 1),))
    )
    t.write(f"{IDLE}/cur_state", 60)  # what the killed daemon left
    t.write(FAN_STATE, 4)
    msg = recover(tree, j) or ""
    assert "1 idle-injection state(s)" in msg and "1 fan setting(s)" in msg
    assert t.read_int(f"{IDLE}/cur_state") == 0 and t.read_int(FAN_STATE) == 1 and not j.exists()


def test_a_tampered_idle_entry_refuses_the_fan_restore_too(tmp_path: Path) -> None:
    """Validation covers the whole journal before a single write, whichever list is bad."""
    t = _board(tmp_path)
    tree = SysfsTree(t.root)
    t.write(FAN_STATE, 4)
    before = t.snapshot()
    j = Journal(tmp_path / "state")
    bad = StateEntry("cooling_device0", FAN_STATE, 0)  # the fan is not an idle-injection device
    j.write(JournalData(fakesys.dead_pid(), "", str(tree.root), 0.0, (), (bad,), (AttrEntry(FAN_STATE, 1),)))
    with pytest.raises(JournalError, match="refused"):
        recover(tree, j)
    assert t.snapshot() == before and j.exists()
