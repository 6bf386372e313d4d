"""A log that says when a new load began (sbc-bench: a section's first line) starts it there.

The model otherwise takes a change between two samples as happening at an unknown moment between
them (the power ramps over the interval, ``model.GridInputs``); an sbc-bench monitor prints a
section's first line as its benchmark starts, so the next line's load holds from that line on,
and from the monitor's start-up before it (``inputs.MONITOR_START_S``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.calibrate.sparse import sbcbench_runs
from thermogov.board import load_board
from thermogov.sim.calibration.calibrate import calibrate
from thermogov.sim.calibration.data import LogData, load_log_data
from thermogov.sim.calibration.inputs import MONITOR_START_S, derive_inputs
from thermogov.sim.calibration.model import GridInputs, make_grid

STEP_S = 600.0  # the benchmark starts with the monitor line at 600 s
EVERY_S = 20  # one monitor line every 20 s, as sbc-bench's 7-zip section prints them


def _sparse(t: np.ndarray, load: np.ndarray, starts: bool) -> LogData:
    n = len(t)
    return LogData(
        t,
        {"cpu": np.full(n, 50.0)},
        {"cpu": np.full(n, 1.5e9)},
        {"cpu": load},
        None,
        "synthetic",
        load_starts_at_gaps=starts,
    )


def test_the_next_load_holds_from_the_row_that_starts_it() -> None:
    board = load_board("rpi4")
    t = np.arange(0.0, 100.0, 20.0)
    load = np.array([0.25, 0.25, np.nan, 1.0, 1.0])  # a new section starts at 40 s
    grid = make_grid(t)
    known = GridInputs.of(board, derive_inputs(_sparse(t, load, True), board), grid).dyn_unit["cpu"]
    ramped = GridInputs.of(board, derive_inputs(_sparse(t, load, False), board), grid).dyn_unit["cpu"]
    centre = grid.t + 0.5 * grid.h
    after = (centre >= 40.0 - MONITOR_START_S) & (centre < 60.0)
    full = known[centre > 60.0].max()
    assert np.allclose(known[after], full)  # the whole interval after the start row runs the new load
    assert np.all(np.diff(ramped[after]) > 0) and ramped[after].max() < full  # the default: a ramp
    assert np.array_equal(known[~after], ramped[~after])  # nothing else moves


def test_the_load_begins_the_monitor_start_up_before_its_row() -> None:
    """A grid step whose centre lies within the monitor's start-up before the start row already runs
    the new load; one just earlier keeps the previous section's."""
    board = load_board("rpi4")
    t = np.arange(0.0, 100.0, 20.0)
    load = np.array([0.25, 0.25, np.nan, 1.0, 1.0])  # a new section starts at 40 s
    grid = make_grid(t, subdivision=80)  # steps of 0.25 s: several inside the start-up
    dyn = GridInputs.of(board, derive_inputs(_sparse(t, load, True), board), grid).dyn_unit["cpu"]
    centre = grid.t + 0.5 * grid.h
    full, before = dyn[centre > 60.0].max(), dyn[centre < 20.0].max()
    lead = (centre >= 40.0 - MONITOR_START_S) & (centre < 40.0)
    earlier = (centre >= 40.0 - MONITOR_START_S - 2.0) & (centre < 40.0 - MONITOR_START_S)
    assert lead.sum() >= 3 and earlier.sum() >= 3
    assert np.allclose(dyn[lead], full)
    assert np.allclose(dyn[earlier], before)


def test_no_starts_without_the_flag_or_without_a_gap() -> None:
    board = load_board("rpi4")
    t = np.arange(0.0, 100.0, 20.0)
    assert derive_inputs(_sparse(t, np.array([0.25, 0.25, np.nan, 1.0, 1.0]), False), board).load_starts == {}
    inputs = derive_inputs(_sparse(t, np.array([0.25, 0.25, 0.6, 1.0, 1.0]), True), board)
    assert inputs.load_starts == {}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[bool, Path]:
    return sbcbench_runs(tmp_path_factory, 600.0, EVERY_S, STEP_S)


def test_the_run_folder_keeps_the_flag(runs: dict[bool, Path]) -> None:
    assert load_log_data(runs[True]).load_starts_at_gaps
    assert not load_log_data(runs[False]).load_starts_at_gaps


def test_a_step_at_a_known_row_is_forecast_where_it_happened(runs: dict[bool, Path]) -> None:
    """The profile's own board, the step in the held-out part: the forecast with the step at its
    row follows the board; spread over the interval after it, the first loaded reading lags."""
    board = load_board("rpi4")
    known = calibrate(load_log_data(runs[True]), board, holdout=0.6)
    ramped = calibrate(load_log_data(runs[False]), board, holdout=0.6)
    assert known.rmse_holdout_c is not None and ramped.rmse_holdout_c is not None
    assert known.rmse_holdout_c < 0.5 * ramped.rmse_holdout_c
    assert any("where a new load began" in n for n in known.notes)
