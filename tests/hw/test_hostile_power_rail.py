"""An input rail reading no power a running board can draw, through the installed script.

Before: an INA3221 ``VDD_IN`` reading garbage left the trace's ``power_w`` empty, and one
reading 0, a negative or more than the board can draw was recorded and fed to a power-aware
policy as the board's power, in both cases with nothing said.  docs/hardware.md, "Session 17b".
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.cli.script import thermogov
from tests.hw import fakesys
from tests.hw.test_hostile_sysfs_contents import _run, warned_at_doctor_and_run

RAIL = "sys/devices/platform/c240000.i2c/i2c-1/1-0040/hwmon/hwmon1"


@pytest.mark.parametrize(
    ("rel", "value", "shown"),
    [
        ("in1_input", "junk", "'junk'"),
        ("in1_input", "0", "0.00 W is no power for VDD_IN"),
        ("curr1_input", "-968", "W is no power for VDD_IN"),
        ("curr1_input", "968000", "W is no power for VDD_IN"),  # 4.8 kW on a module's input
    ],
)
def test_a_rail_reading_no_power_is_said_at_doctor_and_run_and_never_recorded(
    tmp_path: Path, rel: str, value: str, shown: str
) -> None:
    tree = fakesys.orin_nano(tmp_path / "root", cpu_mc=92000, gpu_mc=92000)
    tree.write(f"{RAIL}/{rel}", f"{value}\n")
    for line in warned_at_doctor_and_run(tmp_path, tree, "board power is unreadable"):
        assert rel in line and shown in line and "power_w is empty" in line
    (trace,) = (tmp_path / "out").rglob("trace.csv")
    with trace.open() as f:
        powers = [row["power_w"] for row in csv.DictReader(f)]
    assert powers and all(p == "" for p in powers)


def test_a_rail_reading_a_board_s_power_is_recorded_and_unsaid(tmp_path: Path) -> None:
    fakesys.orin_nano(tmp_path / "root", cpu_mc=92000, gpu_mc=92000)
    run = thermogov(*_run(tmp_path))
    assert run.returncode == 0, run.stderr
    assert "board power" not in run.stderr
    (trace,) = (tmp_path / "out").rglob("trace.csv")
    with trace.open() as f:
        powers = [float(row["power_w"]) for row in csv.DictReader(f)]
    assert powers and all(p == pytest.approx(4990 * 968 / 1e6, abs=1e-3) for p in powers)
