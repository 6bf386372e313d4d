"""Session 25c: chargers that appear after start, go away and come back (hw/power.py ``rescan``).

Main read the external supplies found at start only.  With the battery's ``status`` Unknown (some
fuel gauges) the power state is told from the chargers' ``online``: a USB-C source registered
after start (tcpm's ``tcpm-source-psy-*``, ucsi's ``ucsi-source-psy-*``) was invisible, the state
stayed "discharging" on external power, and one that went away read as an error (state unknown,
the last one kept: "mains" on battery).  The daemon runs on tests/hw/test_hw_late_zones.py's
virtual clock (its seconds), publishing its state as tests/hw/test_hw_waiting_sensors.py does.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.hw import fakesys, procutil
from tests.hw.test_hw_late_zones import _run as late_zones_run
from tests.hw.test_hw_waiting_sensors import BAT, _run
from thermogov.config import Config, parse_config
from thermogov.hw.discovery import POWER_SUPPLY, discover
from thermogov.hw.doctor import doctor_data, doctor_report
from thermogov.hw.power import PowerSupplyReader
from thermogov.hw.publish import PublishOptions
from thermogov.hw.sysfs import SysfsTree

# A fuel gauge that cannot tell: the chargers' ``online`` decides mains or discharging.
UNKNOWN_BAT = "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_STATUS=Unknown\nPOWER_SUPPLY_CAPACITY=80"
TCPM = "tcpm-source-psy-1-0022"  # drivers/usb/typec/tcpm/tcpm.c: "tcpm-source-psy-" + the port's device


def _board(work: Path, *, ac: bool) -> fakesys.FakeTree:
    t = fakesys.orin_nano(work / "root", jetpack=6, cpu_mc=60000, gpu_mc=60000)
    t.supply("BAT0", UNKNOWN_BAT, temp_decic=300)
    if ac:
        t.supply("AC", "POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_ONLINE=0", kind="Mains")
    return t


def _usb(t: fakesys.FakeTree, name: str = TCPM, online: str = "1") -> None:
    t.supply(name, f"POWER_SUPPLY_NAME={name}\nPOWER_SUPPLY_ONLINE={online}", kind="USB")


def _unplug(t: fakesys.FakeTree, name: str) -> None:
    """The kernel unregisters the supply: its class link and its device folder go."""
    link = t.root / "sys/class/power_supply" / name
    shutil.rmtree(link.resolve())
    link.unlink()


def _power_by_second(
    work: Path, monkeypatch: pytest.MonkeyPatch, seconds: float, script: Callable[[float], None]
) -> tuple[dict[int, dict[str, Any]], str]:
    """The published ``power`` section at each virtual second, and stderr."""
    power: dict[int, dict[str, Any]] = {}
    state = work / "run" / "state.json"

    def step(el: float) -> None:
        script(el)
        if state.exists():
            power[round(el)] = json.loads(state.read_text())["power"]

    _rows, err = _run(work, monkeypatch, seconds, step)
    return power, err


def test_a_usb_supply_appearing_at_5_s_turns_discharging_into_mains(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Main: the AC adapter found at start (offline) was the only charger read: "discharging" for
    # the whole run although the USB-C source is online, and a [power] discharging budget enforced.
    t = _board(tmp_path, ac=True)

    def plug(el: float) -> None:
        if el >= 5.0 and not (t.root / "sys/class/power_supply" / TCPM).exists():
            _usb(t)

    power, err = _power_by_second(tmp_path, monkeypatch, 12.0, plug)
    before = [p["state"] for s, p in power.items() if s < 5]
    after = [p["state"] for s, p in power.items() if s >= 8]
    assert before and set(before) == {"discharging"}, power
    assert after and set(after) == {"mains"}, power
    assert err.count(f"power supply {TCPM} (USB) appeared, online") == 1, err
    last = power[max(power)]
    assert {"name": TCPM, "type": "USB", "online": 1} in last["supplies"], last


def test_a_usb_source_that_goes_away_is_offline_and_counts_again_when_it_comes_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Main: the gone supply's online read as an error, so with the battery's status Unknown the
    # state was unknown and the last one ("mains") was kept while the board ran on its battery.
    t = _board(tmp_path, ac=False)
    _usb(t)

    def script(el: float) -> None:
        there = (t.root / "sys/class/power_supply" / TCPM).exists()
        if 5.0 <= el < 12.0 and there:
            _unplug(t, TCPM)
        elif el >= 12.0 and not there:
            _usb(t)

    power, err = _power_by_second(tmp_path, monkeypatch, 18.0, script)
    states = {s: p["state"] for s, p in power.items()}
    assert {states[s] for s in states if s < 5} == {"mains"}, states
    assert {states[s] for s in states if 8 <= s < 12} == {"discharging"}, states
    assert {states[s] for s in states if s >= 15} == {"mains"}, states
    assert power[10]["supplies"] == [], power[10]
    assert err.count(f"power supply {TCPM} (USB) went away") == 1, err
    assert err.count(f"power supply {TCPM} (USB) appeared") == 1, err
    assert "Traceback" not in err


def test_hostile_new_supplies_are_skipped_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = _board(tmp_path, ac=True)
    cls = t.root / "sys/class/power_supply"

    def script(el: float) -> None:
        if el >= 5.0 and not (cls / "loop").is_symlink():
            t.write("sys/devices/fake/typeless/type/x", "a directory, not an attribute")
            t.in_class("sys/class/power_supply/typeless", "sys/devices/fake/typeless")
            _usb(t, "garbage", online="yes")
            _usb(t, "seven", online="7")
            _usb(t, "fifo")
            fifo = (cls / "fifo").resolve() / "online"
            fifo.unlink()
            os.mkfifo(fifo)
            (cls / "loop").symlink_to("loop")
        if el >= 9.0 and not (cls / "late-ac").exists():
            t.supply("late-ac", "POWER_SUPPLY_NAME=late-ac\nPOWER_SUPPLY_ONLINE=1", kind="Mains")

    power, err = _power_by_second(tmp_path, monkeypatch, 14.0, script)
    states = {s: p["state"] for s, p in power.items()}
    assert {states[s] for s in states if s < 9} == {"discharging"}, states  # none of them counts
    assert {states[s] for s in states if s >= 11} == {"mains"}, states  # the look goes on after them
    for name in ("typeless", "garbage", "seven", "fifo", "loop"):
        assert err.count(f"power supply {name} ") == 1, (name, err)
    assert "appeared but is skipped" in err and "reads 7, not 0, 1 or 2" in err, err
    assert "Traceback" not in err
    names = {x["name"] for x in power[max(power)]["supplies"]}
    assert names == {"AC", "late-ac"}, power[max(power)]


class _Counted(SysfsTree):
    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.reads: Counter[str] = Counter()

    def _read_bytes(self, real: str) -> bytes:
        self.reads[real] += 1
        return super()._read_bytes(real)


def test_the_rescan_reads_nothing_more_while_the_folder_stays_the_same(tmp_path: Path) -> None:
    t = _board(tmp_path, ac=True)
    now = [0.0]
    tree = _Counted(t.root)
    reader = PowerSupplyReader(tree, discover(tree).supplies, lambda: now[0], rescan=True)
    tree.reads.clear()
    for k in range(10):
        now[0] = float(k)
        reader.poll()
    per_poll = set(tree.reads.values())
    assert per_poll == {10}, tree.reads  # the battery's and the charger's attributes, once a poll
    _usb(t)
    now[0] = 10.0
    st = reader.poll()
    assert st is not None and st.state == "mains"
    assert sum(1 for r in tree.reads if r.endswith("/type")) == 1, tree.reads  # only the new one's


def test_an_online_programmable_usb_source_counts_as_online(tmp_path: Path) -> None:
    # Main counted only 0 and 1: a USB PD PPS source's 2 ("Online Programmable",
    # Documentation/ABI/testing/sysfs-class-power) was no value, and the state unknown.
    t = _board(tmp_path, ac=False)
    _usb(t, online="2")
    tree = SysfsTree(t.root)
    st = PowerSupplyReader(tree, discover(tree).supplies, lambda: 1.0).read()
    assert st is not None and st.state == "mains"
    report = "\n".join(doctor_report(SysfsTree(t.root), Config()))
    assert f"{TCPM:<15} {'USB':<18} online 2" in report, report
    usb = next(s for s in doctor_data(SysfsTree(t.root), Config())["power_supplies"] if s["name"] == TCPM)
    assert usb == {"name": TCPM, "type": "USB", "online": 2}


def test_status_shows_the_chargers_as_the_daemon_last_read_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = _board(tmp_path, ac=True)
    kept = tmp_path / "kept.json"
    state = tmp_path / "run" / "state.json"

    def script(el: float) -> None:
        if el >= 3.0 and not (t.root / "sys/class/power_supply" / TCPM).exists():
            _usb(t)
        if el >= 6.0 and not kept.exists() and state.exists():
            shutil.copy(state, kept)

    _power_by_second(tmp_path, monkeypatch, 7.0, script)
    doc = json.loads(kept.read_text())
    # fresh: a slow machine must not make it stale first (stamped again at each asking, 30i)
    p = procutil.status_cli("--state", str(kept), refresh=lambda: procutil.restamp(kept))
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"chargers: AC (Mains) offline, {TCPM} (USB) online" in p.stdout, p.stdout
    assert "power: " in p.stdout and "supply mains" in p.stdout, p.stdout
    # A state file whose supplies are not shaped as the daemon writes them: shown, no traceback.
    doc["power"]["supplies"] = [5, {"name": "x", "online": "z"}]
    kept.write_text(json.dumps(doc))
    p = procutil.status_cli("--state", str(kept), refresh=lambda: procutil.restamp(kept))
    assert p.returncode == 0 and "chargers: ?, x (?) online unknown" in p.stdout, p.stdout + p.stderr


def test_a_supply_linked_before_its_attributes_is_added_at_the_next_look(tmp_path: Path) -> None:
    # The kernel links a device into its class folder before it makes its attributes
    # (drivers/base/core.c device_add): a look between the two sees an entry with no ``type``.
    t = _board(tmp_path, ac=True)
    now = [0.0]
    said: list[str] = []
    tree = SysfsTree(t.root)
    reader = PowerSupplyReader(tree, discover(tree).supplies, lambda: now[0], rescan=True, log=said.append)
    assert reader.poll() is not None and reader.poll().state == "discharging"  # type: ignore[union-attr]
    real = f"sys/devices/platform/fake-psy/power_supply/{TCPM}"
    t.in_class(f"sys/class/power_supply/{TCPM}", real)
    now[0] = 1.0
    st = reader.poll()
    assert st is not None and st.state == "discharging" and said == [], said  # not there yet, not said
    t.write(f"{real}/type", "USB\n")  # its attributes made
    t.write(f"{real}/online", "1\n")
    now[0] = 2.0
    st = reader.poll()
    assert st is not None and st.state == "mains", said
    assert said == [f"power supply {TCPM} (USB) appeared, online; it counts in the power state"], said


def power_each_second(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    seconds: float,
    plug: Callable[[float], None],
    cfg: Config,
) -> tuple[dict[int, dict[str, Any]], str]:
    """A virtual-clock run of ``seconds`` that calls ``plug`` each step (to add or pull supplies)
    and keeps the state document's ``power`` block per whole second, with the run's stderr."""
    power: dict[int, dict[str, Any]] = {}
    state = tmp_path / "run" / "state.json"

    def step(el: float) -> None:
        plug(el)
        if state.exists():
            power[round(el)] = json.loads(state.read_text())["power"]

    publish = PublishOptions(state_file=state)
    _rows, err = late_zones_run(tmp_path, monkeypatch, seconds, step, config=cfg, publish=publish)
    return power, err


def test_a_battery_the_profile_does_not_name_appearing_at_5_s_sets_the_power_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Main (session 25l): only a battery the profile names (hw/latezones.py) was added after start;
    # on the mains devkit's profile (no battery) a pack plugged in at 5 s left the state "mains"
    # for the run, and no [power] discharging budget applied.
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=60000, gpu_mc=60000)
    t.supply("AC", "POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_ONLINE=0", kind="Mains")
    cfg = parse_config({"run": {"board": "jetson-orin-nano-devkit"}})
    cls = t.root / "sys/class/power_supply"

    def plug(el: float) -> None:
        if el >= 5.0 and not (cls / "BAT1").exists():
            t.supply(
                "BAT1", "POWER_SUPPLY_NAME=BAT1\nPOWER_SUPPLY_STATUS=Discharging\nPOWER_SUPPLY_CAPACITY=70"
            )
        if el >= 8.0 and not (cls / "BAT2").exists():  # a second pack: the first stays the one read
            t.supply("BAT2", "POWER_SUPPLY_NAME=BAT2\nPOWER_SUPPLY_STATUS=Charging\nPOWER_SUPPLY_CAPACITY=20")

    power, err = power_each_second(tmp_path, monkeypatch, 12.0, plug, cfg)
    states = {s: p["state"] for s, p in power.items()}
    assert {states[s] for s in states if s < 5} == {"mains"}, states
    assert {states[s] for s in states if s >= 7} == {"discharging"}, states
    assert power[max(power)]["capacity_pct"] == 70, power[max(power)]
    assert err.count("power supply BAT1 (Battery) appeared") == 1, err
    assert "BAT2" not in err and "Traceback" not in err, err


def test_a_battery_waited_for_costs_one_listing_of_the_supply_folder_a_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Main (session 25l): while the profile's battery was waited for, hw/latezones.py and the
    # supplies reader each listed /sys/class/power_supply once a second: two getdents, one listing.
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=60000, gpu_mc=60000)
    t.supply("AC", "POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_ONLINE=1", kind="Mains")
    listed = Counter[float]()
    real_listdir = SysfsTree.listdir
    clock = [0.0]

    def counted(self: SysfsTree, rel: str, pattern: str = "") -> list[str]:
        if rel == POWER_SUPPLY:
            listed[clock[0]] += 1
        return real_listdir(self, rel, pattern)

    monkeypatch.setattr(SysfsTree, "listdir", counted)

    def plug(el: float) -> None:
        clock[0] = round(el, 3)
        if el >= 12.0 and not (t.root / "sys/class/power_supply/BAT0").exists():
            t.supply("BAT0", BAT, temp_decic=305)

    rows, err = _run(tmp_path, monkeypatch, 16.0, plug)
    waiting = sum(n for at, n in listed.items() if 1.0 <= at < 11.0)  # ten seconds
    assert 9 <= waiting <= 11, sorted(listed.items())  # the reader's own look, once a second
    joined = [float(r["t_s"]) for r in rows if "sensor_joined:battery" in r["event"].split()]
    assert len(joined) == 1 and 12.0 <= joined[0] <= 13.5, joined  # still found at once
    assert "Traceback" not in err
