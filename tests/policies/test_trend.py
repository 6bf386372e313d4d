"""The trend estimator: slope through noise, measurement jumps bridged, not mistaken for heat."""

from __future__ import annotations

import random

import pytest

from thermogov.policies.trend import Trend


def test_recovers_the_slope_of_a_noisy_ramp() -> None:
    rng = random.Random(4)
    tr = Trend(window_s=30.0, level_tau_s=2.0, jump_c=2.0, hold_s=60.0)
    for i in range(600):
        est = tr.update(i * 0.1, 70.0 + 0.02 * i * 0.1 + rng.gauss(0.0, 0.15))
    assert est.slope_c_per_s == pytest.approx(0.02, abs=0.003)
    assert est.noise_c == pytest.approx(0.15, abs=0.05)
    assert not est.anomaly


def test_a_dropout_step_is_bridged_until_the_sensor_returns() -> None:
    tr = Trend(window_s=10.0, level_tau_s=1.0, jump_c=2.0, hold_s=60.0)
    for i in range(100):
        tr.update(i * 0.1, 84.0)
    during = [tr.update(10.0 + i * 0.1, 78.8) for i in range(200)]  # fusion lost the hot sensor
    assert all(e.anomaly for e in during)
    assert all(e.level_c == pytest.approx(84.0) and e.slope_c_per_s == pytest.approx(0.0) for e in during)
    back = tr.update(30.0, 84.1)  # it returns: the opposite jump cancels the offset
    assert not back.anomaly and back.level_c == pytest.approx(84.0, abs=0.1)


def test_a_jump_that_persists_past_hold_becomes_the_new_level() -> None:
    tr = Trend(window_s=10.0, level_tau_s=0.0, jump_c=2.0, hold_s=5.0)
    for i in range(50):
        tr.update(i * 0.1, 60.0)
    for i in range(49):
        assert tr.update(5.0 + i * 0.1, 70.0).anomaly
    est = tr.update(10.2, 70.0)
    assert not est.anomaly and est.level_c == pytest.approx(70.0)


def test_changes_below_the_jump_threshold_are_temperature() -> None:
    tr = Trend(window_s=10.0, level_tau_s=0.0, jump_c=2.0, hold_s=60.0)
    tr.update(0.0, 60.0)
    est = tr.update(0.1, 61.5)
    assert not est.anomaly and est.level_c == pytest.approx(61.5)
