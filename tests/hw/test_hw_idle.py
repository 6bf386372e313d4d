"""Kernel idle injection: found on the tree, owned through the journal, restored on every exit path."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.core.fakes import FnSensor, RecordingActuator
from tests.hw import fakesys
from tests.hw.cliargs import run_options
from tests.hw.fakesys import FakeTree, KernelTree
from thermogov.config import parse_config
from thermogov.fusion import SensorSpec
from thermogov.governor import Governor
from thermogov.hw.daemon import run
from thermogov.hw.idle import IdleInjector, StateEntry, find_idle_devices, state_for_duty
from thermogov.hw.journal import Journal, JournalData, JournalError, recover
from thermogov.hw.publish import StatePublisher
from thermogov.hw.sysfs import SysfsTree
from thermogov.lever import LeverConfig
from thermogov.loadgov import LoadGovernor
from thermogov.modes import ModesConfig
from thermogov.policies.simple import Fixed
from thermogov.statedoc import StateIdentity
from thermogov.trace import load_trace

IDLE = "sys/class/thermal/cooling_device2"
FAN = "sys/class/thermal/cooling_device0"


def with_idle(t: FakeTree, cur: int = 0) -> FakeTree:
    t.write(f"{FAN}/type", "pwm-fan")
    t.write(f"{FAN}/max_state", 3)
    t.write(f"{FAN}/cur_state", 1)
    t.write("sys/class/thermal/cooling_device1/type", "cpufreq-cpu0")
    t.write("sys/class/thermal/cooling_device1/max_state", 9)
    t.write("sys/class/thermal/cooling_device1/cur_state", 0)
    t.write(f"{IDLE}/type", "thermal-idle")
    t.write(f"{IDLE}/max_state", 100)
    t.write(f"{IDLE}/cur_state", cur)
    return t


def test_only_idle_injection_devices_are_found(tmp_path: Path) -> None:
    with_idle(fakesys.rpi5(tmp_path / "root"))
    devs = find_idle_devices(SysfsTree(tmp_path / "root"))
    assert [(d.name, d.type, d.max_state) for d in devs] == [("cooling_device2", "thermal-idle", 100)]


def test_a_board_without_idle_injection_has_no_injector(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    assert IdleInjector.open(SysfsTree(tmp_path / "root")) is None


def test_the_duty_cycle_becomes_forced_idle_and_restore_puts_the_original_back(tmp_path: Path) -> None:
    t = with_idle(fakesys.rpi5(tmp_path / "root"), cur=5)
    tree = SysfsTree(tmp_path / "root")
    inj = IdleInjector.open(tree)
    assert inj is not None and inj.originals() == [StateEntry("cooling_device2", f"{IDLE}/cur_state", 5)]
    inj.set_load(None, 0.6)
    assert t.read_int(f"{IDLE}/cur_state") == 40
    inj.set_load(None, 0.0)  # standby
    assert t.read_int(f"{IDLE}/cur_state") == 100
    inj.restore()
    assert t.read_int(f"{IDLE}/cur_state") == 5
    assert state_for_duty(1.0, 100) == 0 and state_for_duty(0.333, 50) == 33


def _run(tmp: Path, tree: KernelTree, **kw: Any) -> dict[str, Any]:
    cfg = parse_config({"lever": {"enabled": True}})
    return run(run_options(tmp, config=cfg, **kw), out=io.StringIO(), err=io.StringIO(), tree=tree)


def test_a_hot_board_injects_idle_and_every_state_is_restored_at_the_end(tmp_path: Path) -> None:
    t = with_idle(fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000))
    before = t.snapshot()
    kt = KernelTree(tmp_path / "root")
    summary = _run(tmp_path, kt, duration_s=1.5)
    idle_writes = [v for p, v in kt.writes if p == f"{IDLE}/cur_state"]
    assert max(idle_writes) > 0, "at the lowest caps and above the trip, the lever must inject idle"
    assert idle_writes[-1] == 0  # the restore
    assert not [p for p, _ in kt.writes if p.startswith((FAN, "sys/class/thermal/cooling_device1"))]
    assert t.snapshot() == before and not Journal(tmp_path / "state").exists()
    trace = load_trace(tmp_path / "out" / summary["run_id"])
    assert max(trace["load_level"]) >= 2 and trace["mode"][-1] == "multires_320"
    assert summary["load_level_time_s"]


def test_an_exception_mid_run_still_restores_the_idle_state(tmp_path: Path) -> None:
    t = with_idle(fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000))
    before = t.snapshot()
    kt = KernelTree(tmp_path / "root")
    n = {"idle": 0}

    def boom(real: str, data: bytes) -> None:
        if real.endswith("cooling_device2/cur_state") and data != b"0\n":
            n["idle"] += 1
            if n["idle"] == 3:
                raise RuntimeError("injected")

    kt.before_write.append(boom)
    with pytest.raises(RuntimeError, match="injected"):
        _run(tmp_path, kt, duration_s=3.0)
    assert t.snapshot() == before and not Journal(tmp_path / "state").exists()


def test_a_crashed_run_leaves_a_journal_that_restores_the_idle_state(tmp_path: Path) -> None:
    t = with_idle(fakesys.rpi5(tmp_path / "root"), cur=0)
    tree = SysfsTree(tmp_path / "root")
    j = Journal(tmp_path / "state")
    j.write(
        JournalData(
            fakesys.dead_pid(),
            "",
            str(tree.root),
            0.0,
            (),
            (StateEntry("cooling_device2", f"{IDLE}/cur_state", 0),),
        )
    )
    t.write(f"{IDLE}/cur_state", 70)  # what the killed daemon left
    assert "not running" in (recover(tree, j) or "")
    assert t.read_int(f"{IDLE}/cur_state") == 0 and not j.exists()


@pytest.mark.parametrize(
    ("rel", "value", "needle"),
    [
        (f"{FAN}/cur_state", 0, "is a 'pwm-fan' cooling device, not idle injection"),
        (f"{IDLE}/cur_state", 101, "state 101 is outside 0..100"),
        (f"{IDLE}/max_state", 0, "is not the cur_state of a thermal cooling device"),
        ("sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq", 0, "is not the cur_state"),
    ],
)
def test_a_journal_naming_anything_else_is_refused_before_any_write(
    tmp_path: Path, rel: str, value: int, needle: str
) -> None:
    t = with_idle(fakesys.rpi5(tmp_path / "root"), cur=30)
    tree = SysfsTree(tmp_path / "root")
    j = Journal(tmp_path / "state")
    j.write(JournalData(fakesys.dead_pid(), "", str(tree.root), 0.0, (), (StateEntry("x", rel, value),)))
    before = t.snapshot()
    with pytest.raises(JournalError, match=needle.replace("(", r"\(").replace(".", r"\.")):
        recover(tree, j)
    assert t.snapshot() == before and j.exists()


def test_the_state_file_publishes_the_mode_and_the_load_level(tmp_path: Path) -> None:

    table = (1_000_000_000, 2_000_000_000)
    cpu = RecordingActuator("cpu", table)
    load = LoadGovernor(ModesConfig(), LeverConfig(enabled=True), 85.0)
    gov = Governor(
        [SensorSpec("cpu", 1.0, 100, 95.0)],
        {"cpu": FnSensor("cpu", lambda: 86.0)},
        [cpu],
        Fixed({"cpu": table[0]}),
        load=load,
    )
    path = tmp_path / "state.json"
    pub = StatePublisher(
        StateIdentity(os.getpid(), 0.0, "fake", False, "", "none"), path, ["cpu"], ["cpu"], print
    )
    for t in range(3):
        gov.sample("cpu", 0.1 * t)
        rec = gov.tick(0.1 * t)
    assert (gov.mode, gov.load_level) == ("multires_320", 3)  # above the trip: a rung each tick
    assert (rec.mode, rec.load_level) == ("multires_320", 3)
    pub.publish(rec, gov, 0)
    doc = json.loads(path.read_text())
    assert doc["mode"] == "multires_320" and doc["load_level"] == "3 multires_320@98%"


@pytest.mark.parametrize("cur", [0, 35])
def test_doctor_lists_idle_injection_devices_and_says_when_one_already_injects(
    tmp_path: Path, cur: int
) -> None:
    from click.testing import CliRunner

    from thermogov.hw.cli import doctor_command

    root = with_idle(fakesys.rpi5(tmp_path / "root"), cur=cur)
    text = CliRunner().invoke(doctor_command, ["--sysfs-root", str(root.root)])
    assert text.exit_code == 0, text.output
    line = next(ln for ln in text.output.splitlines() if "cooling_device2" in ln)
    assert f"cur_state {cur}/100" in line
    assert ("already injecting" in line) == (cur > 0)
    assert "pwm-fan" not in line and "cooling_device1" not in text.output.split("idle injection")[1]
    data = CliRunner().invoke(doctor_command, ["--sysfs-root", str(root.root), "--json"])
    assert json.loads(data.output)["idle_injection"] == [
        {"device": "cooling_device2", "type": "thermal-idle", "max_state": 100, "cur_state": cur}
    ]


def test_doctor_says_when_a_board_has_no_idle_injection(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from thermogov.hw.cli import doctor_command

    root = fakesys.rpi5(tmp_path / "root")
    out = CliRunner().invoke(doctor_command, ["--sysfs-root", str(root.root), "--json"])
    assert json.loads(out.output)["idle_injection"] == []
    text = CliRunner().invoke(doctor_command, ["--sysfs-root", str(root.root)]).output
    assert "idle injection: none" in text
