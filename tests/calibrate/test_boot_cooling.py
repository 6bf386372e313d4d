"""A report begun while the board still cools from a busier boot keeps its start (sim/calibration/bootcool.py).

sbc-bench 3InF and 3VME (Pi 4, up 4 and 3 minutes, 5-minute load average 0.15 above the
1-minute one): their training readings fall at a steady one-core load.  On main the fitted
start offset reads that decay as a warm start along the slowest mode and carries it into the
held-out part, too cool there (docs/calibration.md, nineteenth session).  The rule is read from
the report's ``Uptime:`` line only, never from its name.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from thermogov.board import load_board
from thermogov.sim.calibration import bootcool, fit
from thermogov.sim.calibration.bootcool import BOOT_WINDOW_S, BUSY_LOAD, cooling_from_boot
from thermogov.sim.calibration.data import load_log_data

EXTERNAL = Path(__file__).parents[1] / "data" / "logs" / "external"
BOOT_COOLING = ("sbcbench_rpi4_3InF.txt", "sbcbench_rpi4_3VME.txt")
# up 1 min with the last minute the busiest; up 5 min, busiest last; up 5 min, averages near 0
# (a cold boot, warming); up 41 h
NOT_BOOT_COOLING = (
    "sbcbench_rpi4_3F9C.txt",
    "sbcbench_rpi4_3OBF.txt",
    "sbcbench_rpi5_frdzAn.txt",
    "sbcbench_rpi4_3L37.txt",
)


@pytest.mark.parametrize("name", BOOT_COOLING)
def test_a_report_cooling_from_its_boot_is_found_from_its_uptime_line(name: str) -> None:
    assert cooling_from_boot(load_log_data(EXTERNAL / name))


@pytest.mark.parametrize("name", NOT_BOOT_COOLING)
def test_other_reports_are_not(name: str) -> None:
    assert not cooling_from_boot(load_log_data(EXTERNAL / name))


def test_the_rule_needs_both_a_recent_boot_and_a_fall_of_sbc_benchs_busy_line() -> None:
    data = load_log_data(EXTERNAL / BOOT_COOLING[0])
    assert data.uptime_s is not None and data.load_average is not None
    one, five, fifteen = data.load_average
    assert not cooling_from_boot(dataclasses.replace(data, uptime_s=BOOT_WINDOW_S))  # up 15 min or more
    assert not cooling_from_boot(dataclasses.replace(data, uptime_s=None))
    assert not cooling_from_boot(dataclasses.replace(data, load_average=None))
    small = (five - 0.5 * BUSY_LOAD, five, fifteen)
    assert not cooling_from_boot(dataclasses.replace(data, load_average=small))
    assert not cooling_from_boot(dataclasses.replace(data, load_average=(one, float("nan"), fifteen)))


def offset(result: fit.CalibrationResult) -> fit.FittedParam:
    return next(p for p in result.params if p.name == "initial_offset")


@pytest.mark.parametrize("name", BOOT_COOLING)
def test_the_start_is_held_and_the_held_out_part_is_nearer_than_with_the_fitted_start(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, board = load_log_data(EXTERNAL / name), load_board("rpi4")
    held = fit.calibrate(data, board, holdout=0.6)
    assert offset(held).value == 0.0 and offset(held).determined_by == "prior"
    assert any("bootcool.py" in n for n in held.notes)
    monkeypatch.setattr(fit, "start_held", lambda prob: prob.specs)  # main's fit: the start fitted
    monkeypatch.setattr(fit, "cooling_from_boot", lambda data: False)
    fitted = fit.calibrate(data, board, holdout=0.6)
    assert offset(fitted).value != 0.0
    assert held.rmse_holdout_c is not None and fitted.rmse_holdout_c is not None
    assert held.rmse_holdout_c < fitted.rmse_holdout_c


def test_a_whole_log_fit_keeps_its_start_free() -> None:
    data = load_log_data(EXTERNAL / BOOT_COOLING[0])
    prob = fit.FitProblem.build(data, load_board("rpi4"), holdout=0.0, ambient_c=25.0)
    assert bootcool.start_held(prob) == prob.specs
    whole = fit.calibrate(data, load_board("rpi4"), holdout=0.0)
    assert offset(whole).determined_by == "data" and not any("bootcool.py" in n for n in whole.notes)
