"""Every Jetson profile names its input rail, or the rails it sums (session 22e).

Session 22b let a profile say ``input_rail`` (or ``"none"`` with ``summed_rails``) and gave the
AGX Orin its sum; the AGX Xavier kept the "input rail missing" start warning although its two
INA3221 meter GPU, CPU, SOC (0x40) and CV, VDDRQ, SYS5V (0x41) and no input at all (Jetson AGX
Xavier Series Product Design Guide, "Power Monitor"; labels as linux
arch/arm64/boot/dts/nvidia/tegra194-p2888.dtsi sets them).  Now its profile sums the six, and the
Xavier NX and Orin Nano profiles name ``VDD_IN`` (the label their tegrastats logs and sbc-bench
show).  Through the installed script, on fakesys-style trees with the labels those boards carry.
"""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from tests.hw.fakesys import FakeTree
from thermogov.board import load_board

# (label, mV, mA): SYS_VIN_HV 19 V from the devkit supply, SYS_VIN_MV 5 V; whole mW for JetPack 4
XAVIER_40 = (("GPU", 19000, 160), ("CPU", 19000, 80), ("SOC", 19000, 56))
XAVIER_41 = (("CV", 19000, 0), ("VDDRQ", 19000, 8), ("SYS5V", 5000, 300))
XAVIER_SUM_W = sum(mv * ma for _, mv, ma in (*XAVIER_40, *XAVIER_41)) / 1e6
SUMMED = "GPU + CPU + SOC + CV + VDDRQ + SYS5V"
XAVIER_NX_RAILS = (("VDD_IN", 5000, 1100), ("VDD_CPU_GPU_CV", 5000, 340), ("VDD_SOC", 5000, 200))
I2C = "sys/devices/platform/c240000.i2c/i2c-1"
Build = Callable[[Path], FakeTree]


def agx_xavier(root: Path) -> FakeTree:
    """An AGX Xavier devkit on JetPack 5 (T194, 8 Carmel cores in 4 clusters, gv11b)."""
    t = FakeTree(root)
    t.model("Jetson-AGX", ("nvidia,p2972-0000", "nvidia,tegra194"))
    for i, z in enumerate(("AUX-therm", "CPU-therm", "thermal-fan-est", "AO-therm", "GPU-therm", "PMIC-Die")):
        t.zone(i, z, 100000 if z.startswith("PMIC") else 45000)
    for p in (0, 2, 4, 6):
        t.policy(p, [p, p + 1], fakesys.XAVIER_NX_CPU_KHZ, min_khz=1190400, max_khz=1907200)
    t.devfreq(
        "sys/devices/17000000.gv11b", "17000000.gv11b", "gv11b", (114750000, 522750000, 930750000, 1377000000)
    )
    t.ina3221(1, f"{I2C}/1-0040", XAVIER_40)
    t.ina3221(2, f"{I2C}/1-0041", XAVIER_41)
    return t


def agx_xavier_jp4(root: Path) -> FakeTree:
    """The same board on JetPack 4: NVIDIA's iio ``ina3221x`` names each channel ``rail_name_N``."""
    t = agx_xavier(root)
    for n in (1, 2):
        (root / f"sys/class/hwmon/hwmon{n}").unlink()
    shutil.rmtree(root / I2C)
    for addr, rails in (("1-0040", XAVIER_40), ("1-0041", XAVIER_41)):
        dev = f"{I2C}/{addr}"
        t.write(f"{dev}/name", "ina3221x\n")
        t.link(f"sys/bus/i2c/devices/{addr}", dev)
        for n, (label, mv, ma) in enumerate(rails):
            t.write(f"{dev}/iio:device{addr[-1]}/rail_name_{n}", label + "\n")
            t.write(f"{dev}/iio:device{addr[-1]}/in_power{n}_input", mv * ma // 1000)  # mW
            t.write(f"{dev}/iio:device{addr[-1]}/in_voltage{n}_input", mv)
            t.write(f"{dev}/iio:device{addr[-1]}/in_current{n}_input", ma)
    return t


def xavier_nx(root: Path) -> FakeTree:
    t = fakesys.xavier_nx(root)
    t.ina3221(1, "sys/devices/c250000.i2c/i2c-7/7-0040", XAVIER_NX_RAILS)
    return t


def _run(tmp: Path) -> tuple[str, list[str], dict[str, object]]:
    cfg = tmp / "c.toml"
    cfg.write_text('[run]\npolicy = "hysteresis"\n')
    args = [*procutil.paths(tmp), "--out", str(tmp / "out"), "--config", str(cfg), "--duration", "1"]
    done = procutil.run_cli("run", *args)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    (trace,) = (tmp / "out").rglob("trace.csv")
    with trace.open() as f:
        powers = [row["power_w"] for row in csv.DictReader(f)]
    summary = json.loads(next((tmp / "out").rglob("summary.json")).read_text())
    return done.stderr, powers, summary


def _doctor_power(tmp: Path) -> str:
    done = procutil.run_cli("doctor", "--sysfs-root", str(tmp / "root"))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return next(line for line in done.stdout.splitlines() if line.startswith("board power:"))


@pytest.mark.parametrize("build", [agx_xavier, agx_xavier_jp4], ids=["jp5-hwmon", "jp4-iio"])
def test_an_agx_xavier_sums_its_six_rails(tmp_path: Path, build: Build) -> None:
    build(tmp_path / "root")
    line = _doctor_power(tmp_path)
    assert "the jetson-agx-xavier profile says this board has no input-rail monitor" in line, line
    assert f"{SUMMED} = {XAVIER_SUM_W:.3f} W" in line, line
    stderr, powers, summary = _run(tmp_path)
    assert [x for x in stderr.splitlines() if "board power" in x] == []  # main: "no VDD_IN/POM_5V_IN"
    assert powers and all(float(p) == pytest.approx(XAVIER_SUM_W, abs=2e-3) for p in powers), powers
    assert summary["power_rail"] is None
    assert summary["power_summed_rails"] == ["GPU", "CPU", "SOC", "CV", "VDDRQ", "SYS5V"]


def test_an_agx_xavier_missing_a_summed_rail_is_said_once(tmp_path: Path) -> None:
    t = agx_xavier(tmp_path / "root")
    (t.root / f"{I2C}/1-0041/hwmon/hwmon2/in2_label").write_text("NC\n")  # VDDRQ no longer shown
    stderr, powers, _ = _run(tmp_path)
    lines = [x for x in stderr.splitlines() if "board power" in x]
    want = "rail VDDRQ, one the jetson-agx-xavier profile sums, is not among"
    assert len(lines) == 1 and want in lines[0], lines
    assert powers and not any(powers), powers  # never five rails of six passed off as the whole


@pytest.mark.parametrize(
    ("build", "name", "watts"),
    [(xavier_nx, "jetson-xavier-nx", 5.5), (fakesys.orin_nano, "jetson-orin-nano", 4.99 * 0.968)],
)
def test_the_input_rail_named_is_the_power(tmp_path: Path, build: Build, name: str, watts: float) -> None:
    assert load_board(name).input_rails == ("VDD_IN",)  # main (22e): "" (any of VDD_IN/POM_5V_IN)
    t = build(tmp_path / "root")
    hwmon = next(p.name for p in (t.root / "sys/class/hwmon").iterdir())
    assert _doctor_power(tmp_path) == f"board power: rail VDD_IN on {hwmon}"
    stderr, powers, summary = _run(tmp_path)
    assert [x for x in stderr.splitlines() if "board power" in x] == []
    assert powers and all(float(p) == pytest.approx(watts, abs=2e-3) for p in powers), powers
    assert summary["power_rail"] == "VDD_IN"


def test_the_nano_keeps_both_input_labels(tmp_path: Path) -> None:
    """L4T's POM_5V_IN and the TX1/mainline VDD_IN: the Nano profile lists both (session 23d)."""
    assert load_board("jetson-nano").input_rails == ("POM_5V_IN", "VDD_IN")  # session 23d: both, named
    t = fakesys.jetson_nano(tmp_path / "root")
    (t.root / "sys/class/hwmon/hwmon0/in1_label").write_text("VDD_IN\n")
    assert _doctor_power(tmp_path) == "board power: rail VDD_IN on hwmon0"
