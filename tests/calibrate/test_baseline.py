"""The baseline-luck diagnostics: what holding other recent readings and the best constant score."""

from __future__ import annotations

import numpy as np
import pytest

from thermogov.sim.calibration.baseline import hindsight_flat_rmse, recent_persistence


def _flat_noisy_log() -> tuple[np.ndarray, np.ndarray]:
    """A settled board read by a 0.5 °C sensor: 40 training readings, 60 held out."""
    rng = np.random.default_rng(3)
    obs = np.round((50.0 + rng.normal(0.0, 0.3, 100)) * 2.0) / 2.0
    train = np.arange(100) < 40
    return obs, train


def test_the_last_entry_is_persistence_and_each_entry_holds_one_reading() -> None:
    obs, train = _flat_noisy_log()
    got = recent_persistence(obs, train, n=5)
    tail = obs[~train]
    assert len(got) == 5
    for value, reading in zip(got, obs[35:40], strict=True):
        assert value == pytest.approx(np.sqrt(np.mean((tail - reading) ** 2)))


def test_a_reading_at_the_tails_mean_scores_the_hindsight_floor_and_no_reading_scores_below() -> None:
    obs, train = _flat_noisy_log()
    floor = hindsight_flat_rmse(obs, train)
    assert floor == pytest.approx(float(np.std(obs[~train])))
    assert recent_persistence(obs, train, n=40).min() >= floor - 1e-12
    lucky = obs.copy()
    lucky[39] = float(np.mean(obs[~train]))  # the last training reading lands on the tail's mean
    assert recent_persistence(lucky, train)[-1] == pytest.approx(floor)


def test_gaps_are_skipped_and_a_log_without_a_tail_gives_nothing() -> None:
    obs, train = _flat_noisy_log()
    gappy = obs.copy()
    gappy[39] = np.nan  # the last training reading missing: persistence holds the one before
    tail = obs[~train]
    assert recent_persistence(gappy, train)[-1] == pytest.approx(np.sqrt(np.mean((tail - obs[38]) ** 2)))
    assert len(recent_persistence(obs, np.ones(100, dtype=bool))) == 0
    assert hindsight_flat_rmse(obs, np.ones(100, dtype=bool)) is None
