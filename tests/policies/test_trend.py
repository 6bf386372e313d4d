"""The trend estimator: slope through noise, measurement jumps bridged, not mistaken for heat."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from thermogov.policies.trend import JUMP_SIGMAS, Trend


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


def _orin_at(seed: int, reading: float) -> Trend:
    """A default-parameter trend after 100 s of the Orin's fused noise at 84.5 °C, then ``reading``."""
    tr = Trend(window_s=30.0, level_tau_s=2.0, jump_c=2.0, hold_s=60.0)
    _noisy(tr, 0.0, 1000, 84.5, seed=seed)
    tr.update(100.0, reading)
    return tr


def _settles_at(tr: Trend, t0: float, temp: float, seed: int) -> None:
    """Five seconds of the Orin's noise at ``temp`` after a return: no bridge, level at ``temp``."""
    rng = random.Random(seed)
    after = [tr.update(t0 + i * 0.1, temp + rng.gauss(0.0, 0.1)) for i in range(50)]
    assert not any(e.anomaly for e in after)
    assert after[-1].level_c == pytest.approx(temp, abs=0.2)


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
    _settles_at(tr, 100.3, 84.26, seed=2)  # not 86.46 (raw + phantom offset)


def test_a_small_step_during_a_bridge_that_does_not_undo_it_is_not_a_return() -> None:
    tr = Trend(window_s=30.0, level_tau_s=2.0, jump_c=2.0, hold_s=60.0)
    _noisy(tr, 0.0, 1000, 84.5, seed=3)
    tr.update(100.0, 84.50)
    tr.update(100.1, 82.30)
    assert tr.update(100.2, 83.30).anomaly  # +1.0 °C: half the offset left, far outside the noise
    assert tr.update(100.3, 81.60).anomaly  # the wrong way: the offset grows, still bridged


def test_on_a_coarse_noisy_sensor_half_a_return_does_not_end_the_bridge() -> None:
    # RPi-like: 0.45 °C read noise, so 3·sqrt(2)·sigma (1.9 °C) would accept a 2.2 °C step
    # back from a 4.4 °C jump; what is left (2.2 °C) is over half of the threshold (3.3 °C).
    tr = Trend(window_s=30.0, level_tau_s=2.0, jump_c=2.0, hold_s=60.0)
    rng = random.Random(6)
    for i in range(1000):
        tr.update(i * 0.1, 80.0 + rng.gauss(0.0, 0.45))
    assert tr.update(100.0, 80.0).noise_c > 0.35
    assert tr.update(100.1, 84.4).anomaly  # over JUMP_SIGMAS sigmas: bridged
    assert tr.update(100.2, 82.2).anomaly
    assert tr.update(100.3, 82.2).anomaly
    assert not tr.update(100.4, 80.3).anomaly  # back over two steps, 0.3 °C left: the bridge ends


def test_a_rise_just_under_jump_c_without_a_bridge_is_a_rise() -> None:
    tr = Trend(window_s=30.0, level_tau_s=2.0, jump_c=2.0, hold_s=60.0)
    _noisy(tr, 0.0, 1000, 80.0, seed=4)
    tr.update(100.0, 80.0)
    rng = random.Random(5)
    est = [tr.update(100.1 + i * 0.1, 81.9 + rng.gauss(0.0, 0.1)) for i in range(100)]
    assert not any(e.anomaly for e in est)
    assert est[-1].level_c == pytest.approx(81.9, abs=0.2)
    assert est[-1].slope_c_per_s > 0.02  # the 1.9 °C rise is in the trend's window


def test_a_return_spread_over_three_readings_ends_the_bridge() -> None:
    # A stuck sensor coming back over three readings, each step under jump_c: judged one step
    # at a time, each leaves most of the offset and the phantom stays for hold_s.
    tr = _orin_at(7, 84.50)
    assert tr.update(100.1, 82.30).anomaly  # out: -2.20 °C
    assert tr.update(100.2, 83.10).anomaly  # +0.8: 1.4 °C of the offset left
    assert tr.update(100.3, 83.80).anomaly  # +0.7: 0.7 °C left, more than 3·sqrt(2)·sigma
    back = tr.update(100.4, 84.45)  # +0.65: back at the value before the jump
    assert not back.anomaly
    _settles_at(tr, 100.5, 84.45, seed=8)  # not 86.65 (raw + phantom offset)


def test_a_jump_back_to_the_level_after_a_smaller_departure_opens_no_bridge() -> None:
    # orin-sensor-stuck s5: the GPU left the fusion for one reading (-1.69 °C, under jump_c,
    # temperature) and came back (+2.00 °C, over it): bridged, the return held a -2 °C phantom
    # offset for hold_s.  Landing back on the level, it ends the departure instead.
    tr = _orin_at(10, 84.23)
    assert not tr.update(100.1, 82.54).anomaly  # out: -1.69 °C
    back = tr.update(100.2, 84.545)  # back: +2.005 °C
    assert not back.anomaly
    assert back.level_c == pytest.approx(84.45, abs=0.2)  # not 82.5 (raw - phantom offset)
    # A jump that leaves the level is still bridged.
    assert tr.update(100.3, 86.8).anomaly


def test_a_slow_rise_while_the_sensor_is_out_does_not_end_the_bridge() -> None:
    # The same 2.2 °C back, but over 10 s: temperature, not the sensor (RETURN_SPAN_S is 1 s).
    tr = _orin_at(9, 84.50)
    tr.update(100.1, 82.30)
    drift = [tr.update(100.2 + i * 0.1, 82.30 + 0.022 * (i + 1)) for i in range(100)]
    assert all(e.anomaly for e in drift)


def _pi_readings(rng: random.Random, n: int, sigma: float) -> list[float]:
    """``n`` readings at 10 Hz of a Pi-like sensor: a slow swing of the die (±3 °C over 10
    minutes), Gaussian read noise ``sigma`` and the ADC's 0.55 °C codes."""
    q = 0.55
    return [
        q * round((80.0 + 3.0 * math.sin(i * 0.1 * 2.0 * math.pi / 600.0) + rng.gauss(0.0, sigma)) / q)
        for i in range(n)
    ]


@pytest.mark.parametrize("sigma", [0.33, 0.8])
def test_pi_read_noise_opens_no_bridge_at_the_stated_false_alarm_rate(sigma: float) -> None:
    # The stated rate: a Gaussian step passes JUMP_SIGMAS of its own sigmas under 0.01 times an
    # hour at 10 readings a second.
    assert math.erfc(JUMP_SIGMAS / math.sqrt(2.0)) * 36_000 < 0.01
    readings = _pi_readings(random.Random(11), 4 * 36_000, sigma)  # four hours
    over_jump_c = sum(abs(b - a) > 2.0 for a, b in itertools.pairwise(readings))
    assert over_jump_c >= 3  # jump_c alone (2 °C) would have opened bridges on this noise
    tr = Trend(window_s=30.0, level_tau_s=2.0, jump_c=2.0, hold_s=60.0)
    est = [tr.update(i * 0.1, v) for i, v in enumerate(readings)]
    assert not any(e.anomaly for e in est)
    assert est[-1].noise_c == pytest.approx(math.hypot(sigma, 0.55 / math.sqrt(12.0)), rel=0.25)
    # A real drop-out step well over the noise is still bridged.
    t = len(readings) * 0.1
    assert tr.update(t, readings[-1] - 12.0 * est[-1].noise_c).anomaly


def test_a_drop_out_during_a_fast_warm_up_is_still_bridged() -> None:
    # Start-up at 0.5 °C/s: the level lags 1 °C behind and the residual around it is ten times
    # the read noise, but the steps between readings are not; a 2.2 °C drop-out is a jump.
    tr = Trend(window_s=30.0, level_tau_s=2.0, jump_c=2.0, hold_s=60.0)
    rng = random.Random(12)
    for i in range(600):
        est = tr.update(i * 0.1, 50.0 + 0.05 * i + rng.gauss(0.0, 0.1))
    assert est.noise_c > 0.5  # the lag, counted by the residual
    assert tr.update(60.0, 50.0 + 0.05 * 600 - 2.2).anomaly


def test_a_step_before_the_noise_is_measured_is_temperature() -> None:
    # rpi5-closed-35 s4: the die warmed 2.2 °C (four 0.55 °C codes) in the run's first 100 ms
    # and was bridged as a drop-out: with no step noise measured yet, nothing is a jump.
    tr = Trend(window_s=30.0, level_tau_s=2.0, jump_c=2.0, hold_s=60.0)
    tr.update(0.0, 68.75)
    est = [tr.update(0.1 * (i + 1), v) for i, v in enumerate((70.95, 70.4, 70.4, 70.95, 71.5))]
    assert not any(e.anomaly for e in est)
