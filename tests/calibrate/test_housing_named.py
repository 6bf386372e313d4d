"""A log that names its product (an sbc-bench title) picks the housing that product ships in."""

from __future__ import annotations

from pathlib import Path

from thermogov.board import load_board
from thermogov.sim.calibration.data import load_log_data
from thermogov.sim.calibration.enclosure import housing_named

REPORT = """sbc-bench v0.9.41 NVIDIA Orin Nano Developer Kit (Fri, 05 May 2023 20:59:12 +0200)

System health while running 7-zip multi core benchmark:

Time        CPU    load %cpu %sys %usr %nice %io %irq   Temp
20:00:00: 1510MHz  1.15  70%   8%  27%  33%   0%   0%  47.4°C
20:00:10: 1510MHz  1.11  18%   0%  18%   0%   0%   0%  47.6°C
20:00:20: 1510MHz  3.08  99%   0%  99%   0%   0%   0%  49.8°C
"""


def test_developer_kit_names_the_devkit_housing() -> None:
    board = load_board("jetson-orin-nano")
    assert board.enclosure != "devkit"  # the default is another housing: the name decides
    assert housing_named(board, "NVIDIA Orin Nano Developer Kit") == "devkit"
    assert housing_named(board, "Jetson Orin Nano devkit") == "devkit"
    assert housing_named(board, "NVIDIA Jetson Orin Nano 8GB module") is None
    assert housing_named(board, "") is None


def test_a_profile_without_that_housing_is_left_to_the_pre_fit() -> None:
    assert housing_named(load_board("rpi4"), "NVIDIA Orin Nano Developer Kit") is None


def test_the_product_name_reaches_the_calibration_raw_and_imported(tmp_path: Path) -> None:
    from thermogov.importers import parse_log
    from thermogov.importers.runfolder import write_run_folder

    log = tmp_path / "report.txt"
    log.write_text(REPORT, encoding="utf-8")
    assert load_log_data(log).model == "NVIDIA Orin Nano Developer Kit"
    run = write_run_folder(parse_log(log), tmp_path / "runs")
    assert load_log_data(run.run_dir).model == "NVIDIA Orin Nano Developer Kit"
