"""An input rail reading no power a running board can draw, through the installed script.

Before: an INA3221 ``VDD_IN`` reading garbage left the trace's ``power_w`` empty, and one
reading 0, a negative or more than the board can draw was recorded and fed to a power-aware
policy as the board's power, in both cases with nothing said.  docs/hardware.md, "Session 17b".
A rail that goes bad mid-run, after good reads: "Session 18".
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.cli.script import thermogov
from tests.hw import fakesys, procutil
from tests.hw.test_hostile_sysfs_contents import _run, warned_at_doctor_and_run
from tests.hw.test_hw_status_live import poll

RAIL = "sys/devices/platform/c240000.i2c/i2c-1/1-0040/hwmon/hwmon1"


# (file, what it reads, what the line shows): garbage, 0, a negative, 4.8 kW on a module's input.
BAD_READS = [
    ("in1_input", "junk", "'junk'"),
    ("in1_input", "0", "0.00 W is no power for VDD_IN"),
    ("curr1_input", "-968", "W is no power for VDD_IN"),
    ("curr1_input", "968000", "W is no power for VDD_IN"),
]


@pytest.mark.parametrize(("rel", "value", "shown"), BAD_READS)
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


def _powers(tmp: Path) -> list[str]:
    found = list((tmp / "out").rglob("trace.csv"))
    if not found:
        return []
    with found[0].open() as f:
        return [row["power_w"] for row in csv.DictReader(f)]


@pytest.mark.parametrize(("rel", "value", "shown"), BAD_READS)
def test_a_rail_going_bad_mid_run_is_said_once_recorded_empty_and_said_back(
    tmp_path: Path, rel: str, value: str, shown: str
) -> None:
    # Before (rev17b): the trace's power_w went empty with nothing said (docs/hardware.md, "Session 18").
    tree = fakesys.orin_nano(tmp_path / "root", cpu_mc=92000, gpu_mc=92000)
    good = (tree.root / RAIL / rel).read_text()
    proc = procutil.start_run(tmp_path, "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    poll(lambda: [p for p in _powers(tmp_path) if p], "a recorded power")
    tree.write(f"{RAIL}/{rel}", f"{value}\n")
    line = procutil.wait_line(proc, "board power is unreadable", stream="stderr")
    assert rel in line and shown in line and "power_w is empty" in line
    n = len(_powers(tmp_path))
    poll(lambda: _powers(tmp_path)[n:].count("") >= 5, "five empty power_w rows")  # many bad ticks
    tree.write(f"{RAIL}/{rel}", good)
    line = procutil.wait_line(proc, "board power readable again", stream="stderr")
    assert "VDD_IN: 4.83 W" in line
    err = procutil.stopped(proc)
    assert "board power is unreadable" not in err, "said once, not once per tick"
    powers = _powers(tmp_path)
    assert powers[0] and powers[-1], "recorded before and after"
    assert "" in powers
