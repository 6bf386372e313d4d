"""A measured steady state is one the readings show, not only one the fitted time constant implies."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from thermogov.board import BoardProfile, load_board
from thermogov.importers.runfolder import write_run_folder
from thermogov.sim.calibration.calibrate import load_log_data
from thermogov.sim.calibration.inputs import derive_inputs, sensor_nodes
from thermogov.sim.calibration.model import time_constants
from thermogov.sim.calibration.steady import SteadyState, drift_over, steady_state
from thermogov.sim.calibration.steptest import step_log


@pytest.fixture(scope="module")
def board() -> BoardProfile:
    return load_board("rpi4")


def _steady(board: BoardProfile, tmp: Path, load_s: float, tau_slow: float) -> SteadyState:
    run = write_run_folder(step_log(board, idle_s=120.0, load_s=load_s, cool_s=120.0), tmp)
    data = load_log_data(run.run_dir)
    got = steady_state(board, derive_inputs(data, board), data, sensor_nodes(data, board), 25.0, tau_slow)
    assert got is not None
    return got


def test_a_board_still_warming_is_not_called_settled_by_a_too_short_time_constant(
    board: BoardProfile, tmp_path: Path
) -> None:
    tau = time_constants(board.thermal)[0]
    # one slow time constant of load: the board is still warming; a model claiming a slow mode
    # of a tenth of the true one would call the segment four time constants long
    got = _steady(board, tmp_path, load_s=max(tau, 700.0), tau_slow=tau / 10.0)
    assert got.measured_c is None
    assert "did not settle" in got.note


def test_a_settled_board_is_measured(board: BoardProfile, tmp_path: Path) -> None:
    tau = time_constants(board.thermal)[0]
    got = _steady(board, tmp_path, load_s=8.0 * tau, tau_slow=tau)
    assert got.measured_c is not None and got.note == ""
    assert abs(got.error_c or 99.0) < 1.0  # the profile's own fixed point against its own plant


def test_drift_is_the_trend_across_the_window() -> None:
    t = np.arange(0.0, 600.0, 1.0)
    assert drift_over(t, 50.0 + 0.01 * t) == pytest.approx(5.99, abs=0.01)
    flat = 50.0 + np.where(np.arange(len(t)) % 2 == 0, 0.5, -0.5)  # noise alone does not move it
    assert abs(drift_over(t, flat) or 99.0) < 0.01
    assert drift_over(t[:2], flat[:2]) is None
