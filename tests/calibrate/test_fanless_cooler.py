"""A Pi 5 report that lists its hardware sensors without a fan chip is not fitted with the Active Cooler.

sbc-bench prints lm-sensors' chips before and after the run; a fan on the Pi 5's header is the
``pwmfan`` chip, listed even at 0 RPM.  Where the list has none and the pre-fit still prefers the
Active Cooler, the board wears a passive cooler: the profile's ``passive-heatsink`` housing
(sim/calibration/enclosure.py, ``fanless_for``; docs/calibration.md, fifteenth session).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from thermogov.board import load_board, with_enclosure
from thermogov.importers import parse_log
from thermogov.importers.runfolder import write_run_folder
from thermogov.sim.calibration.data import load_log_data
from thermogov.sim.calibration.enclosure import FANLESS_COOLER, candidates, fanless_for, shows_no_fan
from thermogov.sim.calibration.fit import calibrate

EXTERNAL = Path(__file__).parents[1] / "data" / "logs" / "external"
# A Pi 5 at 3 GHz whose sensor blocks list cpu_thermal, an SHT4x and the RP1 ADC, no pwmfan; the
# pre-fit of main's housings picks the Active Cooler for it (SOURCES.md)
FANLESS_PI5 = EXTERNAL / "sbcbench_rpi5_frdzAn.txt"
CHIPS = ("cpu_thermal-virtual-0", "sht4x-i2c-1-44", "rp1_adc-isa-0000")
PWMFAN_BLOCK = "pwmfan-isa-0000\nfan1:           0 RPM\n\n"


def variant_of(text: str, tmp_path: Path) -> tuple[str | None, tuple[str, ...]]:
    path = tmp_path / "report.txt"
    path.write_text(text, encoding="utf-8")
    result = calibrate(load_log_data(path), load_board("rpi5"), holdout=0.6)
    return result.variant, result.notes


def test_the_importer_lists_the_chips_of_the_first_sensor_block_and_a_run_folder_keeps_them(
    tmp_path: Path,
) -> None:
    log = parse_log(FANLESS_PI5)
    assert log.sensor_chips == CHIPS and log.fan_evidence == ""
    again = load_log_data(write_run_folder(log, tmp_path).run_dir)
    assert again.sensor_chips == CHIPS and shows_no_fan(again)


def test_a_fanless_sensor_list_takes_the_passive_cooler_where_the_pre_fit_prefers_the_fan(
    tmp_path: Path,
) -> None:
    variant, notes = variant_of(FANLESS_PI5.read_text(encoding="utf-8"), tmp_path)
    assert variant == FANLESS_COOLER
    note = next(n for n in notes if n.startswith(f"enclosure {FANLESS_COOLER}"))
    assert "prefers active-cooler" in note and "sht4x-i2c-1-44" in note and "--enclosure" in note


def test_a_pwmfan_chip_in_the_list_keeps_the_active_cooler(tmp_path: Path) -> None:
    text = FANLESS_PI5.read_text(encoding="utf-8").replace(
        "Hardware sensors:\n\n", f"Hardware sensors:\n\n{PWMFAN_BLOCK}"
    )
    variant, notes = variant_of(text, tmp_path)
    assert variant == "active-cooler" and any("the log shows a fan" in n for n in notes)


def test_a_report_without_a_sensor_list_says_nothing_of_a_fan(tmp_path: Path) -> None:
    """No list is no evidence either way: the pre-fit's pick stands (the Active Cooler here)."""
    text = FANLESS_PI5.read_text(encoding="utf-8").replace("Hardware sensors:", "Hardware sensors (cut):")
    variant, _notes = variant_of(text, tmp_path)
    assert variant == "active-cooler"


def test_a_declared_housing_wins(tmp_path: Path) -> None:
    data = load_log_data(FANLESS_PI5)
    result = calibrate(data, load_board("rpi5"), holdout=0.6, enclosure="active-cooler")
    assert result.board.fan is not None and not any(FANLESS_COOLER in n for n in result.notes)


def test_only_a_fan_pick_is_replaced() -> None:
    data = load_log_data(FANLESS_PI5)
    board = load_board("rpi5")
    picks = {name: fanless_for(board, with_enclosure(board, name), data) for name in candidates(board)}
    assert picks == {"case": None, "bare": None, "active-cooler": FANLESS_COOLER}


@pytest.mark.parametrize("board_name", ["rpi4", "jetson-orin-nano", "rpi5-fan"])
def test_a_profile_without_the_passive_cooler_is_left_alone(board_name: str) -> None:
    """A Jetson dev kit's list shows no fan chip either; the rpi4 pre-fit's housings have no fan."""
    data = load_log_data(FANLESS_PI5)
    board = load_board(board_name)
    assert all(fanless_for(board, with_enclosure(board, n), data) is None for n in candidates(board))


def test_the_pi5_passive_cooler_is_the_pi4_one_and_only_evidence_reaches_it() -> None:
    pi5, pi4 = load_board("rpi5"), load_board("rpi4")
    assert pi5.enclosure == "case"  # the suite's default housing is unchanged
    assert FANLESS_COOLER not in candidates(pi5)
    a, b = (next(e for e in p.enclosures if e.name == FANLESS_COOLER) for p in (pi5, pi4))
    assert (a.to_ambient_w_per_k, a.capacitance_j_per_k, a.nodes, a.fan) == (
        b.to_ambient_w_per_k,
        b.capacitance_j_per_k,
        b.nodes,
        b.fan,
    )
