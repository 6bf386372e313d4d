"""The state at the split: the Kalman filter recovers a hidden node's error and a sensor's level.

A two-node network (a fast sensed node on a slow hidden one) whose trajectory is off the fit's
by a known amount in *both* nodes, read by a sensor with a constant level error and noise: the
filter must put the hidden node, the sensed node and the level where they are.
"""

from __future__ import annotations

import numpy as np
import pytest

from thermogov.sim.calibration.state import estimate_state, measurement_noise

CAP = np.array([20.0, 800.0])  # sensed package, hidden board (J/K)
G = np.array([[1.0, -1.0], [-1.0, 1.3]])  # link 1 W/K, board to air 0.3 W/K


def _error_trajectory(e0: np.ndarray, t: np.ndarray) -> np.ndarray:
    d = 1.0 / np.sqrt(CAP)
    lam, u = np.linalg.eigh(-(d[:, None] * G * d[None, :]))
    z0 = (u.T / d[None, :]) @ e0
    return ((d[:, None] * u) @ (np.exp(np.outer(lam, t)) * z0[:, None])).T


@pytest.mark.parametrize(("e0", "bias"), [((2.0, 6.0), 0.7), ((-1.0, -4.0), -1.2)])
def test_the_filter_recovers_a_hidden_node_and_the_sensor_level(e0: tuple[float, float], bias: float) -> None:
    rng = np.random.default_rng(5)
    t = np.arange(0.0, 500.0, 1.0)
    e = _error_trajectory(np.array(e0), t)
    pred = np.full((1, len(t)), 50.0)  # the fit's trajectory; the truth is off it by e and the level
    obs = pred + e[:, 0][None, :] + bias + rng.normal(0.0, 0.1, (1, len(t)))
    est = estimate_state(CAP, G, t, obs, pred, np.array([0]), len(t) - 1)
    assert est.dx[1] == pytest.approx(e[-1, 1], abs=0.3)  # the hidden board node
    assert est.dx[0] == pytest.approx(e[-1, 0], abs=0.3)
    assert est.bias[0] == pytest.approx(bias, abs=0.3)
    # carried forward by the network: the correction decays as the true error does
    later = est.dx_at(CAP, G, t[-1] + 300.0)
    assert later == pytest.approx(_error_trajectory(np.array(e[-1]), np.array([300.0]))[0], abs=0.3)


def test_the_filter_never_reads_past_the_split() -> None:
    t = np.arange(0.0, 200.0, 1.0)
    pred = np.zeros((1, len(t)))
    obs = np.zeros((1, len(t)))
    a = estimate_state(CAP, G, t, obs, pred, np.array([0]), 99)
    obs[:, 100:] = 40.0
    b = estimate_state(CAP, G, t, obs, pred, np.array([0]), 99)
    assert np.array_equal(a.dx, b.dx) and np.array_equal(a.bias, b.bias)


def test_measurement_noise_is_the_scatter_or_at_least_the_quantisation() -> None:
    rng = np.random.default_rng(1)
    noisy = 40.0 + rng.normal(0.0, 0.3, 2000)
    assert np.sqrt(measurement_noise(noisy)) == pytest.approx(0.3, rel=0.15)
    steps = np.repeat([40.0, 40.5, 40.0, 40.5], 100)  # a quantised sensor that rarely moves
    assert measurement_noise(steps) == pytest.approx(0.5**2 / 12.0)
