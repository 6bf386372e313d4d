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


def _noisy(tr: Trend, t0: float, n: int, temp: float, seed: int) -> None:
    """``n`` readings at 10 Hz of ``temp`` with 0.1 °C read noise (the Orin's fused value)."""
    rng = random.Random(seed)
    for i in range(n):
        tr.update(t0 + i * 0.1, temp + rng.gauss(0.0, 0.1))


def test_a_return_just_under_jump_c_ends_the_bridge_it_undoes() -> None:
    # orin-sensor-stuck s1: the GPU's drop-out moved the fused value -2.20 °C (bridged) and its
    # return +1.96 °C (under jump_c); judged against jump_c alone the 2.2 °C offset stayed 60 s.
    tr = Trend(window_s=30.0, level_tau_s=2.0, jump_c=2.0, hold_s=60.0)
    _noisy(tr, 0.0, 1000, 84.5, seed=1)
    before = tr.update(100.0, 84.50)
    assert 0.05 < before.noise_c < 0.2
    assert tr.update(100.1, 82.30).anomaly  # out: -2.20 °C
    back = tr.update(100.2, 84.26)  # back: +1.96 °C, the held offset undone to 0.24 °C
    assert not back.anomaly
    rng = random.Random(2)
    after = [tr.update(100.3 + i * 0.1, 84.26 + rng.gauss(0.0, 0.1)) for i in range(50)]
    assert not any(e.anomaly for e in after)
    assert after[-1].level_c == pytest.approx(84.26, abs=0.2)  # not 86.46 (raw + phantom offset)


def test_a_small_step_during_a_bridge_that_does_not_undo_it_is_not_a_return() -> None:
    tr = Trend(window_s=30.0, level_tau_s=2.0, jump_c=2.0, hold_s=60.0)
    _noisy(tr, 0.0, 1000, 84.5, seed=3)
    tr.update(100.0, 84.50)
    tr.update(100.1, 82.30)
    assert tr.update(100.2, 83.30).anomaly  # +1.0 °C: half the offset left, far outside the noise
    assert tr.update(100.3, 81.60).anomaly  # the wrong way: the offset grows, still bridged


def test_on_a_coarse_noisy_sensor_half_a_return_does_not_end_the_bridge() -> None:
    # RPi-like: 0.45 °C read noise, so 3·sqrt(2)·sigma (1.9 °C) would accept a 1.1 °C step
    # back from a 2.2 °C jump; what is left (1.1 °C) is over half of jump_c.
    tr = Trend(window_s=30.0, level_tau_s=2.0, jump_c=2.0, hold_s=60.0)
    rng = random.Random(6)
    for i in range(1000):
        tr.update(i * 0.1, 80.0 + rng.gauss(0.0, 0.45))
    assert tr.update(100.0, 80.0).noise_c > 0.35
    tr.update(100.1, 82.2)
    assert tr.update(100.2, 81.1).anomaly
    assert tr.update(100.3, 82.2).anomaly
    assert not tr.update(100.4, 80.3).anomaly  # 1.9 °C back, 0.3 °C left: the bridge ends


def test_a_rise_just_under_jump_c_without_a_bridge_is_a_rise() -> None:
    tr = Trend(window_s=30.0, level_tau_s=2.0, jump_c=2.0, hold_s=60.0)
    _noisy(tr, 0.0, 1000, 80.0, seed=4)
    tr.update(100.0, 80.0)
    rng = random.Random(5)
    est = [tr.update(100.1 + i * 0.1, 81.9 + rng.gauss(0.0, 0.1)) for i in range(100)]
    assert not any(e.anomaly for e in est)
    assert est[-1].level_c == pytest.approx(81.9, abs=0.2)
    assert est[-1].slope_c_per_s > 0.02  # the 1.9 °C rise is in the trend's window
