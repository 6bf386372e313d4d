"""Session 24b: ``thermogov emulate --board jetson-tx2`` builds a tree shaped like L4T 28 on a TX2.

Before, the TX2 profile (session 23d) had no tree shape: the emulated board had zones without
trips, no power rails (its L4T 28 INA3221s are ``iio_device`` chips, which the emulator could not
write), and its six cores split in order over ``policy0``/``policy1``.  Now
``sim/emulator/trees/jetson-tx2.toml`` gives the mainline tegra186 critical trips, the module's
two ``ina3221x`` chips under ``iio_device`` (the model's power in mW and mA) and L4T's cluster
split (A57 CPUs 0, 3-5 in ``policy0``, Denver CPUs 1-2 in ``policy1``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from thermogov.board import load_board
from thermogov.config import Config
from thermogov.hw.discovery import discover
from thermogov.hw.mapping import map_board
from thermogov.hw.sysfs import SysfsTree
from thermogov.hw.telemetry import HwTelemetry
from thermogov.interfaces import ConfigError
from thermogov.sim.emulator.emulate import Emulator
from thermogov.sim.emulator.trees import parse_tree_shape

I2C = "sys/devices/3160000.i2c/i2c-0"


def test_the_tx2_tree_has_l4t_28_rails_trips_and_clusters(tmp_path: Path) -> None:
    board = load_board("jetson-tx2")
    emu = Emulator(board, tmp_path, Config(board="jetson-tx2"), speed=1.0)
    for k in range(1, 6):
        emu.step(k * 0.5)
    tree = SysfsTree(tmp_path)
    inv = discover(tree)
    assert (tmp_path / I2C / "0-0041/iio_device/rail_name_0").read_text() == "VDD_IN\n"
    assert (tmp_path / "sys/bus/i2c/devices/0-0041").resolve() == (tmp_path / I2C / "0-0041").resolve()
    assert [(r.label, r.hwmon) for r in inv.iio_rails] == [
        ("VDD_SYS_GPU", "iio_device of i2c 0-0040"),
        ("VDD_SYS_SOC", "iio_device of i2c 0-0040"),
        ("VDD_4V0_WIFI", "iio_device of i2c 0-0040"),
        ("VDD_IN", "iio_device of i2c 0-0041"),
        ("VDD_SYS_CPU", "iio_device of i2c 0-0041"),
        ("VDD_SYS_DDR", "iio_device of i2c 0-0041"),
    ]
    bmap = map_board(inv, board)
    assert bmap.power is not None and bmap.power.label == "VDD_IN"
    watts, model = HwTelemetry(tree, bmap.power).power_w(), emu.world.last_power_w
    assert watts is not None and model is not None and model > 3.0
    assert watts == pytest.approx(model, abs=1e-3)  # in_power0_input, mW
    cpu = next(r for r in inv.iio_rails if r.label == "VDD_SYS_CPU")
    assert cpu.curr_rel is not None
    assert tree.read_int(cpu.curr_rel) == round(emu.world.domain_power_w()["cpu"] / 19.0 * 1000)
    assert [(p.name, p.related_cpus) for p in inv.policies] == [
        ("policy0", (0, 3, 4, 5)),
        ("policy1", (1, 2)),
    ]
    assert {z.type: [(t.type, t.temp_c) for t in z.trips] for z in inv.zones} == {
        "BCPU-therm": [("critical", 101.0)],
        "GPU-therm": [("critical", 101.0)],
    }


def test_doctor_on_the_emulated_tx2_names_the_chip_of_its_input(tmp_path: Path) -> None:
    board = load_board("jetson-tx2")
    Emulator(board, tmp_path, Config(board="jetson-tx2"), speed=1.0).step(0.5)
    exe = Path(sys.executable).with_name("thermogov")
    done = subprocess.run(
        [str(exe), "doctor", "--sysfs-root", str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "profile: jetson-tx2" in done.stdout
    assert "board power: rail VDD_IN on iio_device of i2c 0-0041" in done.stdout


@pytest.mark.parametrize(
    ("shape", "field"),
    [
        ({"iio_device": [{"device": "0-0041", "rails": []}]}, "iio_device[0].device"),
        ({"iio_device": [{"device": "x/i2c-0/1-0041", "rails": []}]}, "iio_device[0].device"),
        ({"cpufreq": {"policy4": {"cpus": [0]}}}, "policy4"),
        ({"cpufreq": {"policy0": {"cpus": [0, 0]}}}, "cpus"),
        ({"cpufreq": {"policy0": {"cpus": [1.5]}}}, "cpus"),
    ],
)
def test_a_bad_tree_shape_is_refused_naming_the_field(shape: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError, match=field.replace("[", r"\[").replace("]", r"\]")):
        parse_tree_shape(shape, "t.toml", load_board("jetson-tx2"))
