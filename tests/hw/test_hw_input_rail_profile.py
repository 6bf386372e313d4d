"""The profile names the board's input rail, or says there is none (session 22b).

A Jetson AGX Orin's INA3221s meter the module's rails (VDD_GPU_SOC, VDD_CPU_CV, VIN_SYS_5V0,
VDDQ_VDD2_1V8AO), no VDD_IN: every ``run`` warned at start that the input rail was missing, a
line nothing could be done about.  Its profile now says ``input_rail = "none"`` and the rails
whose sum is measured instead; ``run`` warns only when one of those is absent or unreadable and
``doctor`` shows the sum.  A profile may also name a rail of another label as the input.
Through the installed script.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from thermogov.board import load_board_file

AGX_RAILS = "sys/devices/platform/c240000.i2c/i2c-1/1-0040/hwmon/hwmon3"
NANO_RAIL = "sys/devices/platform/c240000.i2c/i2c-1/1-0040/hwmon/hwmon1"


def _run_stderr(tmp: Path, *extra: str) -> str:
    cfg = tmp / "c.toml"
    cfg.write_text('[run]\npolicy = "hysteresis"\n')
    args = [*procutil.paths(tmp), "--out", str(tmp / "out"), "--config", str(cfg), "--duration", "1", *extra]
    done = procutil.run_cli("run", *args)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stderr


def _doctor_power(tmp: Path, *extra: str) -> str:
    done = procutil.run_cli("doctor", "--sysfs-root", str(tmp / "root"), *extra)
    assert done.returncode == 0, done.stderr
    return next(line for line in done.stdout.splitlines() if line.startswith("board power:"))


def _power_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "board power" in line]


def test_an_agx_orin_run_no_longer_warns_of_the_input_rail_it_has_not(tmp_path: Path) -> None:
    fakesys.agx_orin(tmp_path / "root")
    assert _power_lines(_run_stderr(tmp_path)) == []  # main: "no VDD_IN/POM_5V_IN rail found ..."
    line = _doctor_power(tmp_path)
    assert "no input-rail monitor" in line, line
    # 19.98 V x 240 mA + 19.98 V x 80 mA + 5.06 V x 740 mA (tests/hw/fakesys.py AGX_ORIN_RAILS)
    assert "VDD_GPU_SOC + VDD_CPU_CV + VIN_SYS_5V0 = 10.138 W" in line, line


@pytest.mark.parametrize("damage", ["label-gone", "no-input"])
def test_a_summed_rail_that_is_missing_or_unreadable_is_said(tmp_path: Path, damage: str) -> None:
    t = fakesys.agx_orin(tmp_path / "root")
    if damage == "label-gone":
        (t.root / AGX_RAILS / "in3_label").write_text("NC\n")  # VIN_SYS_5V0 no longer shown
        want = "rail VIN_SYS_5V0, one the jetson-agx-orin profile sums, is not among"
    else:
        (t.root / AGX_RAILS / "curr2_input").unlink()  # VDD_CPU_CV: a voltage without its current
        want = "rail VDD_CPU_CV, one the jetson-agx-orin profile sums, cannot be read"
    lines = _power_lines(_run_stderr(tmp_path))
    assert len(lines) == 1 and "warning: board power" in lines[0] and want in lines[0], lines
    assert want in _doctor_power(tmp_path)


def _nano_profile(tmp: Path, line: str) -> Path:
    text = resources.files("thermogov.boards").joinpath("jetson-orin-nano.toml").read_text(encoding="utf-8")
    text = text.replace('input_rail = "VDD_IN"\n', "", 1)  # the profile's own (session 22e)
    path = tmp / "board.toml"
    path.write_text(text.replace("[board]\n", f"[board]\n{line}\n", 1), encoding="utf-8")
    return path


def test_a_profile_names_an_input_rail_of_another_label(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    (t.root / NANO_RAIL / "in1_label").write_text("VIN\n")  # a carrier whose input channel reads VIN
    board = _nano_profile(tmp_path, 'input_rail = "VIN"')
    assert load_board_file(board).input_rails == ("VIN",)
    assert _doctor_power(tmp_path, "--board", str(board)) == "board power: rail VIN on hwmon1"
    assert _power_lines(_run_stderr(tmp_path, "--board", str(board))) == []
    # the same tree with the stock profile: VIN is not the VDD_IN it names (session 22e)
    assert "no VDD_IN rail found" in _power_lines(_run_stderr(tmp_path))[0]


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('input_rail = "VDD IN"', "board.input_rail"),
        ('input_rail = ""', "board.input_rail"),
        ('summed_rails = ["VDD_IN"]', "board.summed_rails"),
        ('input_rail = "none"\nsummed_rails = ["A", "a"]', "board.summed_rails"),
        ('input_rail = "none"\nsummed_rails = ["VDD\\u0000"]', "board.summed_rails[0]"),
        # session 23d: input_rail as a list of labels tried in order
        ("input_rail = []", "board.input_rail: an empty list"),
        ('input_rail = ["VDD_IN", 5]', "board.input_rail[1]: expected a rail label"),
        ('input_rail = ["none"]', "board.input_rail[0]"),
        ('input_rail = ["VDD_IN", "vdd_in"]', "board.input_rail: a rail is listed twice"),
        ('input_rail = ["VDD IN"]', "board.input_rail[0]"),
        ("input_rail = 5", "board.input_rail: expected a rail label or a list"),
        ('input_rail = ["VDD_IN"]\nsummed_rails = ["A"]', "board.summed_rails"),
    ],
)
def test_a_bad_input_rail_field_is_refused_in_one_line(tmp_path: Path, line: str, field: str) -> None:
    fakesys.orin_nano(tmp_path / "root")
    board = _nano_profile(tmp_path, line)
    done = procutil.run_cli("doctor", "--sysfs-root", str(tmp_path / "root"), "--board", str(board))
    assert done.returncode == 2, done.stderr
    assert field in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
