"""A Pi 4's clock above the rpi4 table, judged by the board the log names (session 21p).

A C0 Pi 4 B (Rev 1.4/1.5) and the Pi 400 run 1800 MHz out of the box (raspberrypi/documentation,
config_txt/overclocking.adoc, default values); a Rev 1.1 at 1800 MHz has been overclocked.  The
import note says which, instead of calling either a clock "of another board".
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.cli.script import thermogov
from thermogov.board import builtin_board_data, load_board, load_board_file, parse_board
from thermogov.importers import parse_log
from thermogov.importers.boardrange import clock_notes
from thermogov.interfaces import ConfigError
from thermogov.sim.calibration.profile import board_toml

EXTERNAL = Path(__file__).resolve().parents[1] / "data" / "logs" / "external"
STOCK_C0 = EXTERNAL / "sbcbench_rpi4_3N94.txt"  # "RPi 4 Model B Rev 1.4", arm_freq 1800, no over_voltage
OVERCLOCKED_B0 = EXTERNAL / "sbcbench_rpi4_3F9C.txt"  # Rev 1.1, 1800 MHz + over_voltage=2


@pytest.mark.parametrize(
    ("model", "mhz"),
    [
        ("Raspberry Pi 4 Model B Rev 1.1", 1500),
        ("Raspberry Pi 4 Model B Rev 1.4", 1800),
        ("Raspberry Pi 4 Model B Rev 1.5", 1800),
        ("RPi 4 Model B Rev 1.4 / BCM2711 rev B0", 1800),
        ("Raspberry Pi 400 Rev 1.0", 1800),
        ("Raspberry Pi Compute Module 4 Rev 1.0", 1500),
    ],
)
def test_the_rpi4_profile_knows_each_models_stock_clock(model: str, mhz: int) -> None:
    assert load_board("rpi4").domains[0].stock_clock_for(model) == mhz * 1_000_000


def _cpu(notes: list[str]) -> str:
    (note,) = [n for n in notes if n.startswith("cpu clock reaches")]
    return note


def test_a_c0_pi4_at_its_stock_1800_is_not_called_another_board() -> None:
    note = _cpu(clock_notes(parse_log(str(STOCK_C0), "auto"), load_board("rpi4")))
    assert "stock clock" in note and "(1800 MHz)" in note
    assert "check --board" not in note and "overclock" not in note


def test_a_pi400_at_1800_is_stock_and_its_odd_over_voltage_is_not_shown() -> None:
    """The Pi 400's report prints over_voltage=0x11170, no step count (sim/calibration/overvolt.py)."""
    log = parse_log(str(STOCK_C0), "auto")
    log = replace(log, model="Raspberry Pi 400 Rev 1.0", firmware={"arm_freq": 1800, "over_voltage": 70000})
    note = _cpu(clock_notes(log, load_board("rpi4")))
    assert "stock clock of the Raspberry Pi 400 Rev 1.0" in note and "70000" not in note


def test_a_rev11_at_1800_is_said_overclocked_with_its_settings() -> None:
    note = _cpu(clock_notes(parse_log(str(OVERCLOCKED_B0), "auto"), load_board("rpi4")))
    assert "overclocked" in note and "arm_freq=1800, over_voltage=2" in note and "stock 1500 MHz" in note
    assert "check --board" not in note


def test_a_c0_pi4_beyond_its_stock_clock_is_an_overclock() -> None:
    log = parse_log(str(STOCK_C0), "auto")
    log = replace(
        log,
        samples=tuple(replace(s, freqs_hz={**s.freqs_hz, "cpu": 2_147_000_000}) for s in log.samples),
        firmware={"arm_freq": 2147, "over_voltage": 6},
    )
    note = _cpu(clock_notes(log, load_board("rpi4")))
    assert "overclocked" in note and "arm_freq=2147, over_voltage=6" in note and "stock 1800 MHz" in note


def test_a_clock_beyond_the_firmwares_own_setting_is_still_unexplained() -> None:
    log = replace(parse_log(str(OVERCLOCKED_B0), "auto"), firmware={"arm_freq": 1500})
    assert "check --board" in _cpu(clock_notes(log, load_board("rpi4")))


def test_import_says_a_stock_c0_clock_as_the_boards_own(tmp_path: Path) -> None:
    p = thermogov("import", str(STOCK_C0), "--out", str(tmp_path / "out"), "--json")
    assert p.returncode == 0, p.stderr
    info = json.loads(p.stdout)
    assert info["board_profile"] == "rpi4"
    assert "stock clock" in _cpu(info["notes"])


@pytest.mark.parametrize("value", ["fast", 0, -1800, 1e9])
def test_a_bad_model_stock_clock_is_refused_by_name(value: object) -> None:
    data = copy.deepcopy(builtin_board_data("rpi4"))
    data["domains"]["cpu"]["stock_mhz_by_model"] = {"pi 400": value}
    with pytest.raises(ConfigError, match=r"stock_mhz_by_model\.pi 400"):
        parse_board(data, "rpi4-bad.toml")


def test_a_written_profile_keeps_the_model_stock_clocks(tmp_path: Path) -> None:
    """A calibrated profile (board_toml) read back tells the same models apart."""
    board = load_board("rpi4")
    path = tmp_path / "rpi4-calibrated.toml"
    path.write_text(board_toml(board), encoding="utf-8")
    back = load_board_file(str(path))
    assert back.domains[0].model_stock_hz == board.domains[0].model_stock_hz != ()
