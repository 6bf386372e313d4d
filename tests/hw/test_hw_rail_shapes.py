"""Stock Jetson boards' power rails as their kernels show them (session 23d).

(1) L4T 28 (JetPack 3, kernel 4.4; by the pinpoint energy tool's paths, an early AGX Xavier L4T
too) shows NVIDIA's iio INA3221
channels under ``iio_device``, not ``iio:deviceK``: a TX2's input power is
``/sys/devices/3160000.i2c/i2c-0/0-0041/iio_device/in_power0_input``
(github.com/JonghoKim-Harry/tx2-power-measurement ``tx2_sysfs_power.h``), the chip's name in
``iio_device/name``; discovery read only ``iio:deviceK``, so such a board had no power at all.
The AGX Xavier's labels are those its tegrastats prints (JetPack 4.2: ``GPU 463/463 CPU 618/618
SOC 2936/2936 CV 0/0 VDDRQ 309/309 SYS5V 3306/3306``, github.com/martinkersner/gtop pull 7).
(2) A TX2 profile: input ``VDD_IN`` on the INA3221 at 0x41 (energymon jetson/JetsonPowerRails.md).
(3) ``input_rail`` as a list tried in order (the Nano: L4T's ``POM_5V_IN``, then ``VDD_IN``).
Through the installed script, on fakesys-style trees.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from tests.hw.fakesys import I2C0, FakeTree, tx2
from tests.hw.test_hw_input_rail_profile import _nano_profile
from tests.hw.test_hw_jetson_rail_profiles import I2C, XAVIER_40, XAVIER_41, agx_xavier
from thermogov.board import load_board, load_board_file

# The AGX Xavier's six labels as its JetPack 4.2 tegrastats prints them (gtop pull 7, above).
XAVIER_TEGRASTATS = "GPU 463/463 CPU 618/618 SOC 2936/2936 CV 0/0 VDDRQ 309/309 SYS5V 3306/3306"


def agx_xavier_l4t28(root: Path) -> FakeTree:
    """The AGX Xavier of session 22e's tests with its two chips as L4T 28 shows them."""
    t = agx_xavier(root)
    for n in (1, 2):
        (root / f"sys/class/hwmon/hwmon{n}").unlink()
    for addr, rails in (("1-0040", XAVIER_40), ("1-0041", XAVIER_41)):
        shutil.rmtree(root / I2C / addr)
        fakesys.iio_chip(t, I2C, addr, rails, "iio_device")
    return t


def _doctor(tmp: Path, *extra: str) -> str:
    done = procutil.run_cli("doctor", "--sysfs-root", str(tmp / "root"), *extra)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout


def _power_line(stdout: str) -> str:
    return next(line for line in stdout.splitlines() if line.startswith("board power:"))


def _run(tmp: Path, *extra: str) -> tuple[str, list[str], dict[str, object]]:
    cfg = tmp / "c.toml"
    cfg.write_text('[run]\npolicy = "hysteresis"\n')
    args = [*procutil.paths(tmp), "--out", str(tmp / "out"), "--config", str(cfg), "--duration", "1", *extra]
    done = procutil.run_cli("run", *args)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    (trace,) = (tmp / "out").rglob("trace.csv")
    with trace.open() as f:
        powers = [row["power_w"] for row in csv.DictReader(f)]
    return done.stderr, powers, json.loads(next((tmp / "out").rglob("summary.json")).read_text())


# -- (1) the AGX Xavier's labels, and L4T 28's iio_device --------------------------------------
def test_the_agx_xavier_profile_sums_the_labels_its_tegrastats_prints() -> None:
    printed = XAVIER_TEGRASTATS.split()[::2]
    assert list(load_board("jetson-agx-xavier").summed_rails) == printed


def test_an_l4t_28_agx_xavier_reads_its_rails_under_iio_device(tmp_path: Path) -> None:
    agx_xavier_l4t28(tmp_path / "root")
    want = sum(mv * ma // 1000 for _, mv, ma in (*XAVIER_40, *XAVIER_41)) / 1000
    line = _power_line(_doctor(tmp_path))
    assert f"GPU + CPU + SOC + CV + VDDRQ + SYS5V = {want:.3f} W" in line, line  # main: "not among"
    stderr, powers, _ = _run(tmp_path)
    assert [x for x in stderr.splitlines() if "board power" in x] == [], stderr
    assert powers and all(float(p) == pytest.approx(want, abs=2e-3) for p in powers), powers


def test_an_iio_device_link_beside_iio_device_k_is_not_read_twice(tmp_path: Path) -> None:
    t = tx2(tmp_path / "root")
    for k, addr in enumerate(("0-0040", "0-0041")):
        t.link(f"{I2C0}/{addr}/iio_device", f"{I2C0}/{addr}/iio:device{k}")
    out = _doctor(tmp_path)
    assert out.count("rail VDD_IN ") == 1, out
    assert _power_line(out) == "board power: rail VDD_IN on iio:device1"


# -- (2) a TX2 profile --------------------------------------------------------------------------
@pytest.mark.parametrize("iio", ["iio:device{k}", "iio_device"], ids=["l4t32", "l4t28"])
def test_a_tx2_is_detected_and_its_input_rail_is_the_power(tmp_path: Path, iio: str) -> None:
    tx2(tmp_path / "root", iio)
    out = _doctor(tmp_path)
    assert "profile: jetson-tx2" in out, out  # main: no TX2 profile
    where = "iio:device1" if iio.startswith("iio:") else "iio_device of i2c 0-0041"  # 24b: the chip named
    assert _power_line(out) == f"board power: rail VDD_IN on {where}"
    stderr, powers, summary = _run(tmp_path)
    assert [x for x in stderr.splitlines() if "board power" in x] == [], stderr
    assert powers and all(float(p) == pytest.approx(3.61, abs=2e-3) for p in powers), powers
    assert summary["power_rail"] == "VDD_IN"


# -- (3) input_rail as a list -------------------------------------------------------------------
def test_the_nano_names_both_of_its_input_labels_in_order(tmp_path: Path) -> None:
    assert load_board("jetson-nano").input_rails == ("POM_5V_IN", "VDD_IN")
    t = fakesys.jetson_nano(tmp_path / "root")
    # a second chip whose first channel reads VDD_IN: the profile's first label still wins
    t.ina3221(5, "sys/devices/7000c400.i2c/i2c-1/1-0041", (("VDD_IN", 5000, 900),))
    assert _power_line(_doctor(tmp_path)) == "board power: rail POM_5V_IN on hwmon0"


def test_a_listed_label_later_in_the_list_is_bound_when_the_first_is_absent(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    (t.root / "sys/devices/platform/c240000.i2c/i2c-1/1-0040/hwmon/hwmon1/in1_label").write_text("VIN\n")
    board = _nano_profile(tmp_path, 'input_rail = ["VDD_IN", "VIN"]')
    assert load_board_file(board).input_rails == ("VDD_IN", "VIN")
    assert _power_line(_doctor(tmp_path, "--board", str(board))) == "board power: rail VIN on hwmon1"
    stderr, _, summary = _run(tmp_path, "--board", str(board))
    assert [x for x in stderr.splitlines() if "board power" in x] == [], stderr
    assert summary["power_rail"] == "VIN"


# -- session 24b: two iio_device chips told apart ------------------------------------------------
def test_a_broken_iio_device_rail_names_its_chip(tmp_path: Path) -> None:
    """A TX2 on L4T 28 has two chips whose channels are both under ``iio_device``: the message
    names the i2c device (bus 0, address 0x41), so the user knows which folder is wrong
    (main: "rail VDD_IN on iio_device", as for 0-0040)."""
    tx2(tmp_path / "root", "iio_device")
    for f in ("in_power0_input", "in_voltage0_input", "in_current0_input"):
        (tmp_path / "root" / I2C0 / "0-0041/iio_device" / f).unlink()
    line = _power_line(_doctor(tmp_path))
    assert line.startswith("board power: rail VDD_IN on iio_device of i2c 0-0041 has no power input"), line
    stderr, powers, _ = _run(tmp_path)
    said = [x for x in stderr.splitlines() if "VDD_IN" in x]
    assert said and all("iio_device of i2c 0-0041" in x for x in said), stderr
    assert powers and not any(powers)


def test_the_carriers_vdd_mux_is_never_the_input(tmp_path: Path) -> None:
    """A TX2 devkit's carrier chip (0x42) meters VDD_MUX, which feeds the carrier in parallel
    with the module's VDD_IN (energymon jetson/JetsonPowerRails.md): the input stays VDD_IN.
    A guard (passes on main too): VDD_MUX is not in the profile's input_rail."""
    t = tx2(tmp_path / "root", "iio_device")
    fakesys.iio_chip(
        t, I2C0, "0-0042", (("VDD_MUX", 19000, 120), ("VDD_5V0_IO_SYS", 5000, 200)), "iio_device"
    )
    assert load_board("jetson-tx2").input_rails == ("VDD_IN",)
    assert _power_line(_doctor(tmp_path)) == "board power: rail VDD_IN on iio_device of i2c 0-0041"
