"""A governed sensor reading like whole degrees is taken in the ABI's millidegrees, and named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hw import fakesys
from tests.hw.procutil import run_cli
from thermogov.hw.unitcheck import looks_like_whole_degrees

ZONE0 = "sys/devices/virtual/thermal/thermal_zone0/temp"


@pytest.mark.parametrize(
    ("raw", "flagged"),
    [(45, True), (-12, True), (150, True), (0, False), (151, False), (-41, False), (45000, False)],
)
def test_only_nonzero_values_inside_the_accepted_range_read_like_whole_degrees(
    raw: int, flagged: bool
) -> None:
    assert looks_like_whole_degrees(raw) is flagged


def test_doctor_names_a_zone_that_reads_like_whole_degrees_and_keeps_the_abi_unit(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    t.write(ZONE0, "90\n")
    p = run_cli("doctor", "--sysfs-root", str(tmp_path / "root"), "--json")
    assert p.returncode == 0, p.stderr
    (warning,) = json.loads(p.stdout)["warnings"]
    assert "sensor cpu" in warning and "reads 90" in warning and "0.09 °C" in warning
    zone = json.loads(p.stdout)["thermal_zones"][0]
    assert zone["temp_c"] == pytest.approx(0.09)  # the ABI's unit, not a guess


def test_a_board_in_millidegrees_and_a_battery_in_tenths_get_no_unit_warning(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root", battery_decic=90)  # 9.0 °C in tenths: ordinary
    t.write(ZONE0, "45000\n")
    p = run_cli("doctor", "--sysfs-root", str(tmp_path / "root"), "--json")
    assert p.returncode == 0, p.stderr
    assert not [w for w in json.loads(p.stdout)["warnings"] if "whole degrees" in w]


@pytest.mark.parametrize("raw", [0, -40000])
def test_a_sensor_reading_like_no_measurement_is_named_at_doctor_and_run(tmp_path: Path, raw: int) -> None:
    # Session 16: a Pi 5 whose only zone reads exactly 0 or its -40 °C floor was governed as cold
    # (full clocks) with nothing said; the value is still believed, but doctor and run name it.
    t = fakesys.rpi5(tmp_path / "root")
    t.write(ZONE0, f"{raw}\n")
    p = run_cli("doctor", "--sysfs-root", str(tmp_path / "root"), "--json")
    assert p.returncode == 0, p.stderr
    (warning,) = json.loads(p.stdout)["warnings"]
    assert f"reads {raw}," in warning and "not yet ready" in warning and "stuck_after_s" in warning
    r = run_cli(
        "run",
        "--dry-run",
        "--duration",
        "0.3s",
        "--sysfs-root",
        str(t.root),
        "--out",
        str(tmp_path / "o"),
        "--state-file",
        str(tmp_path / "s.json"),
    )
    assert r.returncode == 0 and f"reads {raw}," in r.stderr, r.stderr


def test_a_dead_twin_at_its_floor_beside_a_live_zone_is_not_named(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root", cpu_mc=50000)
    fakesys.zone_ahead(t, "cpu-thermal", -40000)  # the hottest, 50 °C, is what the sensor reads
    p = run_cli("doctor", "--sysfs-root", str(tmp_path / "root"), "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["warnings"] == []
