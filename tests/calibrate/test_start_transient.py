"""A second initial offset, along the second-slowest mode, on logs whose first row starts a section.

sbc-bench's first benchmark heats the board from its first reading, so the start is off
equilibrium in a faster mode than the slowest one the fit's one offset moves
(docs/calibration.md, *Twelfth session: F3 and the Uptime prior*).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import thermogov.sim.calibration.fit as fit
from tests.calibrate.sparse import sbcbench_runs
from thermogov.board import load_board
from thermogov.sim.calibration.calibrate import calibrate
from thermogov.sim.calibration.data import LogData, load_log_data
from thermogov.sim.calibration.fit import FitProblem, starts_a_section
from thermogov.sim.calibration.model import fast_offset_spec

# rpi4's second-slowest mode is ~4 s: a reading every 2 s sees it, one every 20 s (sbc-bench's
# 7-zip section) does not
SEEN_EVERY_S = 2
SPARSE_EVERY_S = 20
STEP_S = 600.0


def _log(starts: bool, every_s: float = SEEN_EVERY_S) -> LogData:
    t = np.arange(0.0, 1200.0, every_s)
    load = np.where(t < STEP_S, 0.25, 1.0)
    return LogData(
        t,
        {"cpu": np.where(t < STEP_S, 50.0, 60.0)},
        {"cpu": np.full(len(t), 1.5e9)},
        {"cpu": load},
        None,
        "synthetic",
        load_starts_at_gaps=starts,
    )


def _problem(starts: bool, holdout: float, every_s: float = SEEN_EVERY_S) -> FitProblem:
    return FitProblem.build(_log(starts, every_s), load_board("rpi4"), holdout=holdout, ambient_c=25.0)


def test_only_a_log_that_starts_a_section_and_has_a_held_out_part_gets_it() -> None:
    assert starts_a_section(_problem(True, 0.6))
    assert not starts_a_section(_problem(False, 0.6))  # no section starts: the one offset
    assert not starts_a_section(_problem(True, 0.0))  # a whole-log fit (the fleet's): the one offset
    # the second reading after the mode has gone: the offset would only move the first reading
    assert not starts_a_section(_problem(True, 0.6, SPARSE_EVERY_S))


def test_the_second_offset_moves_the_first_reading_by_itself_and_fades_before_the_slow_one() -> None:
    prob = _problem(True, 0.6)
    prob.specs = [*prob.specs, fast_offset_spec()]
    assert not prob.analytic_jacobian  # its derivative is not in the sensitivities
    spec_of = {s.name: i for i, s in enumerate(prob.specs)}
    base = prob.predict(np.zeros(len(prob.specs)))[0][0]

    def moved(name: str) -> np.ndarray:
        phi = np.zeros(len(prob.specs))
        phi[spec_of[name]] = 3.0 / prob.specs[spec_of[name]].sigma  # +3 K at the sensor
        return prob.predict(phi)[0][0] - base

    fast, slow = moved("initial_offset_fast"), moved("initial_offset")
    assert fast[0] == pytest.approx(3.0, abs=0.1) and slow[0] == pytest.approx(3.0, abs=0.1)
    later = prob.data.t_s >= 100.0
    assert np.all(np.abs(fast[later]) < np.abs(slow[later]))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[bool, Path]:
    return sbcbench_runs(tmp_path_factory, 900.0, SEEN_EVERY_S, STEP_S)


@pytest.mark.parametrize("on", [True, False])
def test_the_fit_frees_it_only_where_a_section_starts(
    runs: dict[bool, Path], monkeypatch: pytest.MonkeyPatch, on: bool
) -> None:
    monkeypatch.setattr(fit, "START_TRANSIENT", on)
    board = load_board("rpi4")

    def names(starts: bool, holdout: float) -> set[str]:
        return {p.name for p in calibrate(load_log_data(runs[starts]), board, holdout=holdout).params}

    assert ("initial_offset_fast" in names(True, 0.5)) is on
    assert "initial_offset_fast" not in names(False, 0.5)
    assert "initial_offset_fast" not in names(True, 0.0)
