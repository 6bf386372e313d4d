"""The level share from the training part's end: the model is shrunk only where the readings reject its trend."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.calibrate.settled import clamped
from thermogov.board import load_board
from thermogov.importers.runfolder import write_run_folder
from thermogov.sim.calibration.calibrate import calibrate, load_log_data
from thermogov.sim.calibration.evidence import holds_load, lag1, trend_evidence, window
from thermogov.sim.calibration.steptest import step_log

N = 200
TRAIN = np.arange(N) < 100  # the window is samples 70..99


def _case(reading_gain: float, noise: float = 0.05, tail_load: float = 1.0) -> tuple[np.ndarray, ...]:
    """A fitted trajectory that rises 0.3 K over the window, readings that rise ``reading_gain`` of it
    (white noise of sd ``noise``, the same draw in every test)."""
    rng = np.random.default_rng(3)
    t = np.arange(N, dtype=float)
    fitted = 60.0 + 2.0 * (t / N)
    obs = 60.0 + reading_gain * 2.0 * (t / N) + noise * rng.standard_normal(N)
    dyn = np.where(TRAIN, 1.0, tail_load)
    dyn[:10] = 0.0  # the training part holds a load change (its range is 1)
    return obs, fitted, dyn


def test_the_window_is_the_inner_validations_tail() -> None:
    assert window(TRAIN).tolist() == list(range(70, 100))
    assert len(window(np.zeros(5, dtype=bool))) == 0


def test_readings_that_follow_the_model_keep_it() -> None:
    obs, fitted, dyn = _case(1.0)
    ev = trend_evidence(obs, fitted, TRAIN, dyn)
    assert ev.share == 1.0 and ev.raw is not None and abs(ev.raw - 1.0) < 0.5 and "stands" in ev.why


def test_a_board_that_stays_put_while_the_model_rises_is_shrunk() -> None:
    obs, fitted, dyn = _case(0.0)
    ev = trend_evidence(obs, fitted, TRAIN, dyn)
    assert not ev.why and ev.share < 0.3
    o, f, d = _case(0.5, noise=0.01)
    half = trend_evidence(o, f, TRAIN, d)
    assert 0.35 < half.share < 0.65  # the posterior sits near the readings' own factor when they are precise


def test_noise_as_large_as_the_movement_is_no_evidence() -> None:
    obs, fitted, dyn = _case(0.0, noise=1.0)
    assert trend_evidence(obs, fitted, TRAIN, dyn).share == 1.0


def test_no_evidence_without_movement_readings_or_a_steady_load() -> None:
    obs, fitted, dyn = _case(0.0)
    flat = np.full(N, 60.0)
    assert "does not move" in trend_evidence(obs, flat, TRAIN, dyn).why
    sparse = obs.copy()
    sparse[70:97] = np.nan  # 3 readings left in the window
    assert "fewer than" in trend_evidence(sparse, fitted, TRAIN, dyn).why
    cooling = _case(0.0, tail_load=0.0)[2]  # the load ends after the split: a response, not a trend
    assert "load differs" in trend_evidence(obs, fitted, TRAIN, cooling).why


def test_the_held_out_readings_are_never_read() -> None:
    obs, fitted, dyn = _case(0.0)
    other = obs.copy()
    other[~TRAIN] = 99.0
    assert trend_evidence(obs, fitted, TRAIN, dyn) == trend_evidence(other, fitted, TRAIN, dyn)


def test_helpers() -> None:
    assert lag1(np.array([1.0, -1.0, 1.0, -1.0, 1.0])) == 0.0  # negative clipped: never narrows the noise
    assert 0.5 < lag1(np.sin(np.linspace(0, 3, 50))) <= 0.95
    dyn = np.array([0.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    train = np.array([True, True, True, True, False, False])
    assert holds_load(dyn, np.array([2, 3]), ~train, train)
    assert not holds_load(np.array([0.0, 1.0, 1.0, 1.0, 0.0, 0.0]), np.array([2, 3]), ~train, train)


@pytest.fixture(scope="module")
def settled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    log = step_log(load_board("rpi4"), idle_s=60, load_s=2000, cool_s=0, seed=5)
    return write_run_folder(clamped(log, 600.0), tmp_path_factory.mktemp("settled")).run_dir


def test_a_board_that_settles_late_in_training_gets_a_share_from_the_evidence(settled: Path) -> None:
    """The board stops warming at 600 s, inside the last 30 % of an 824 s training part: the
    inner validation halves the drift (weight 0.5), and the held-out forecast still rises 0.91 °C
    RMS above the flat tail; the readings at the training part's end show the model's trend
    wrong, and the share from that evidence takes the forecast within 0.3 °C."""
    r = calibrate(load_log_data(settled), load_board("rpi4"), holdout=0.6)
    assert r.level_share < 0.5
    note = next(n for n in r.notes if n.startswith("forecast level share"))
    assert "evidence.py" in note
    assert r.rmse_holdout_c is not None and r.rmse_holdout_c < 0.4
