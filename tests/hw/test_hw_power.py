"""Battery wherever there is one, and the power state read from power_supply (kernel ABI).

Trees are shaped like the real ``uevent`` samples (Dell and Lenovo laptops charging, a
Chromebook and a ThinkPad discharging, the ThinkPad's AC adapter).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.hw import fakesys
from tests.hw.fakesys import DATA, FakeTree, real_file
from thermogov.board import load_board
from thermogov.config import Config
from thermogov.hw.daemon import effective_board
from thermogov.hw.discovery import discover
from thermogov.hw.doctor import doctor_data, doctor_report
from thermogov.hw.mapping import FOUND_BATTERY_HARD_LIMIT_C, map_board
from thermogov.hw.power import PowerSupplyReader
from thermogov.hw.sysfs import SysfsTree

BAT0 = "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_TYPE=Battery\nPOWER_SUPPLY_STATUS=Discharging\nPOWER_SUPPLY_CAPACITY=74"


def _reader(t: FakeTree) -> PowerSupplyReader:
    tree = SysfsTree(t.root)
    return PowerSupplyReader(tree, discover(tree).supplies, clock=lambda: 5.0)


def test_agx_orin_robot_battery_joins_fusion_although_the_profile_does_not_list_it(tmp_path: Path) -> None:
    board = load_board("jetson-agx-orin")
    assert "battery" not in {s.name for s in board.sensors}
    t = fakesys.agx_orin(tmp_path)
    t.supply("BAT0", BAT0, temp_decic=312)
    bmap = map_board(discover(SysfsTree(t.root)), board)
    bat = next(b for b in bmap.sensors if b.sensor.name == "battery")
    assert (bat.sensor.weight, bat.sensor.period_ms, bat.sensor.kind) == (0.1, 200, "battery")
    assert bat.sensor.hard_limit_c == FOUND_BATTERY_HARD_LIMIT_C
    assert bat.divisor == 10.0 and bat.rel.endswith("power_supply/BAT0/temp")
    assert bmap.found_sensors == ("battery",)
    specs = Config(board="jetson-agx-orin").sensor_specs(effective_board(bmap.board, bmap))
    assert "battery" in {s.name for s in specs}
    report = "\n".join(doctor_report(SysfsTree(t.root), Config()))
    assert re.search(r"sensor battery\s+-> BAT0 \(power_supply\)\s+31\.2 °C\s+\(found on the board", report)
    assert "power state: discharging, 74 %, battery 31.2 °C" in report
    assert "without" not in report.split("fusion weights:")[1].splitlines()[0]
    data = doctor_data(SysfsTree(t.root), Config())
    assert data["found_sensors"] == ["battery"]
    assert data["power_state"]["state"] == "discharging"
    assert any(s["name"] == "battery" and s["temp_c"] == 31.2 for s in data["mapping"]["sensors"])


def test_mains_only_board_adds_no_battery(tmp_path: Path) -> None:
    t = fakesys.agx_orin(tmp_path)
    t.supply("AC", (DATA / "procfs_thinkpad_ac_uevent.txt").read_text())
    board = load_board("jetson-agx-orin")
    bmap = map_board(discover(SysfsTree(t.root)), board)
    assert bmap.board.sensors == board.sensors and bmap.found_sensors == ()
    assert _reader(t).read().state == "mains"


def test_a_battery_without_temp_is_not_added(tmp_path: Path) -> None:
    t = fakesys.agx_orin(tmp_path)
    t.supply("BAT0", (DATA / "procfs_thinkpad_bat0_uevent.txt").read_text())
    bmap = map_board(discover(SysfsTree(t.root)), load_board("jetson-agx-orin"))
    assert "battery" not in {s.name for s in bmap.board.sensors}
    st = _reader(t).read()
    # ThinkPad discharging: POWER_SUPPLY_POWER_NOW=5064000 µW, capacity 85
    assert st.state == "discharging" and st.capacity_pct == 85.0 and st.power_w == pytest.approx(5.064)
    assert st.battery_temp_c is None and st.t_s == 5.0


@pytest.mark.parametrize(
    ("name", "state", "capacity", "watts"),
    [
        # voltage_now µV x current_now µA: 12.729 V x 0.413 A
        ("sysfs_laptop-dell_bat0_uevent_charging_fastfetch118.txt", "charging", 98.0, 12.729 * 0.413),
        ("sysfs_laptop-lenovo_bat0_uevent_charging_i3status288.txt", "charging", 27.0, 12.796 * 2.977),
        ("sysfs_chromebook_batc_uevent_discharging_brunch117.txt", "discharging", 74.0, 3.942 * 1.560),
    ],
)
def test_real_uevents_give_state_capacity_and_power(
    tmp_path: Path, name: str, state: str, capacity: float, watts: float
) -> None:
    text = real_file(name).read_text()
    supply = re.search(r"POWER_SUPPLY_NAME=(\w+)", text)
    assert supply
    t = fakesys.orin_nano(tmp_path)
    t.supply(supply.group(1), text, kind="Battery", temp_decic=295)
    st = _reader(t).read()
    assert st.state == state and st.capacity_pct == capacity
    assert st.power_w == pytest.approx(watts, rel=1e-6)
    assert st.battery_temp_c == pytest.approx(29.5)


@pytest.mark.parametrize(
    ("status", "online", "state"),
    [
        ("Full\n", "1", "full"),
        ("Not charging\n", "1", "mains"),
        ("Unknown\n", "1", "mains"),
        ("Unknown\n", "0", "discharging"),
        ("\x00\xff garbage\n", "0", "discharging"),
    ],
)
def test_status_strings_and_chargers_online(tmp_path: Path, status: str, online: str, state: str) -> None:
    t = fakesys.orin_nano(tmp_path)
    t.supply("BAT0", BAT0, temp_decic=300)
    t.supply("AC", f"POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_ONLINE={online}", kind="Mains")
    t.write("sys/devices/platform/fake-psy/power_supply/BAT0/status", status)
    assert _reader(t).read().state == state


@pytest.mark.parametrize(
    ("attr", "value"),
    [
        ("capacity", "101\n"),
        ("capacity", "-3\n"),
        ("capacity", "nan\n"),
        ("capacity", ""),
        ("temp", "-2560\n"),  # the -256 °C offline marker
        ("temp", "9999\n"),  # 999.9 °C
        ("temp", "inf\n"),
        ("power_now", "99999999999999\n"),
        ("power_now", "12.5e3\n"),
    ],
)
def test_adversarial_attributes_become_no_value_not_a_number(tmp_path: Path, attr: str, value: str) -> None:
    t = fakesys.orin_nano(tmp_path)
    t.supply("BAT0", BAT0 + "\nPOWER_SUPPLY_POWER_NOW=4000000", temp_decic=300)
    t.write(f"sys/devices/platform/fake-psy/power_supply/BAT0/{attr}", value)
    st = _reader(t).read()
    assert st.state == "discharging"
    field = {"capacity": "capacity_pct", "temp": "battery_temp_c", "power_now": "power_w"}[attr]
    assert getattr(st, field) is None
    others = {"capacity_pct": 74.0, "battery_temp_c": 30.0, "power_w": 4.0}
    for k, v in others.items():
        if k != field:
            assert getattr(st, k) == pytest.approx(v)


def test_unreadable_status_and_no_charger_is_no_report(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path)
    t.supply("BAT0", BAT0, temp_decic=300)
    t.write("sys/devices/platform/fake-psy/power_supply/BAT0/status", "bogus\n")
    assert _reader(t).read() is None
    report = "\n".join(doctor_report(SysfsTree(t.root), Config()))
    assert "power state: unknown" in report


def test_no_supply_at_all_is_mains(tmp_path: Path) -> None:
    assert _reader(fakesys.rpi5(tmp_path)).read().state == "mains"


def test_the_per_tick_supply_reads_use_kept_descriptors_and_see_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daemon asks for the power state every tick: after the first read no attribute is
    opened again, values changed in place are read, and an unplugged charger is unknown, then
    read again when it comes back."""
    import os

    t = fakesys.orin_nano(tmp_path)
    t.supply("BAT0", BAT0 + "\nPOWER_SUPPLY_POWER_NOW=5064000", temp_decic=300)
    t.supply("AC", "POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_ONLINE=1", kind="Mains")
    reader = _reader(t)
    first = reader.read()
    assert (first.state, first.capacity_pct, first.power_w, first.battery_temp_c) == (
        "discharging",
        74.0,
        5.064,
        30.0,
    )
    opens: list[str] = []
    real_open = os.open

    def counting(path, flags, *a):  # type: ignore[no-untyped-def]
        opens.append(os.fspath(path))
        return real_open(path, flags, *a)

    monkeypatch.setattr(os, "open", counting)
    psy = "sys/devices/platform/fake-psy/power_supply"
    t.write(f"{psy}/BAT0/capacity", "73\n")  # in place, as a driver updates it
    t.write(f"{psy}/BAT0/status", "Charging\n")
    again = reader.read()
    assert (again.state, again.capacity_pct) == ("charging", 73.0)
    assert opens == []  # every per-tick attribute came through its kept descriptor
    online = t.root / psy / "AC" / "online"
    online.unlink()  # the charger's attribute vanishes (a USB supply unplugged)
    assert reader.online() is None
    online.write_text("0\n")
    assert reader.online() is False
