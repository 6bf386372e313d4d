"""Session 19: a Jetson Nano on JetPack 4.6 has its input rail on the iio bus, not hwmon.

L4T 32 (kernel 4.9) drives the INA3221 with NVIDIA's iio driver ``ina3221x``: the channels sit
under ``/sys/bus/i2c/devices/6-0040/iio:device0`` as ``rail_name_N`` and ``in_powerN_input``
(mW).  thermogov looked only at hwmon, so a stock Nano ran with an empty power column and no
power limiter without a reason beyond "no VDD_IN/POM_5V_IN rail found".
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

from tests.hw import fakesys, procutil
from tests.hw.fakesys import FakeTree

IIO = "sys/devices/7000c400.i2c/i2c-6/6-0040"


def _nano_jp4(root: Path) -> FakeTree:
    """The Nano tree with its INA3221 moved from hwmon to JetPack 4's iio device."""
    t = fakesys.jetson_nano(root, cpu_mc=92000)
    hw = Path(root / "sys/class/hwmon/hwmon0").resolve()
    (root / "sys/class/hwmon/hwmon0").unlink()
    shutil.rmtree(hw)
    t.write(f"{IIO}/name", "ina3221x\n")
    t.link("sys/bus/i2c/devices/6-0040", IIO)
    for n, (label, mw) in enumerate((("POM_5V_IN", 2100), ("POM_5V_GPU", 0), ("POM_5V_CPU", 400))):
        t.write(f"{IIO}/iio:device0/rail_name_{n}", label + "\n")
        t.write(f"{IIO}/iio:device0/in_power{n}_input", mw)
        t.write(f"{IIO}/iio:device0/in_voltage{n}_input", 5000)
        t.write(f"{IIO}/iio:device0/in_current{n}_input", mw // 5)
    return t


def test_doctor_finds_the_input_rail_of_jetpack_4s_iio_driver(tmp_path: Path) -> None:
    _nano_jp4(tmp_path / "root")
    done = procutil.run_cli("doctor", "--sysfs-root", str(tmp_path / "root"))
    assert done.returncode == 0, done.stderr
    assert "board power: rail POM_5V_IN on iio:device0" in done.stdout


def test_a_run_reads_its_power_in_milliwatts(tmp_path: Path) -> None:
    _nano_jp4(tmp_path / "root")
    cfg = tmp_path / "cfg.toml"
    cfg.write_text('[run]\npolicy = "hysteresis"\n')
    args = [*procutil.paths(tmp_path), "--out", str(tmp_path / "out"), "--config", str(cfg)]
    done = procutil.run_cli("run", *args, "--duration", "1s")
    assert done.returncode == 0, done.stderr
    (trace,) = (tmp_path / "out").glob("*/trace.csv")
    with trace.open() as fh:
        watts = {row["power_w"] for row in csv.DictReader(fh)}
    assert watts == {"2.1000"}, watts  # 2100 mW, neither 0.0021 W nor empty
