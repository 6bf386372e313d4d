"""The calibration model itself: the input between samples, leakage, block averaging.

Each test states a property the model must have for physical reasons, and computes the
reference independently (the simulator's plant stepped by hand), so it fails if the property is lost.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from thermogov.board import BoardProfile, load_board
from thermogov.sim.calibration.calibrate import LogData, decimate, derive_inputs
from thermogov.sim.calibration.fit import FitProblem
from thermogov.sim.calibration.model import grid_power, linear_response, make_grid, network, node_power
from thermogov.sim.model.plant import ThermalPlant

TOP_HZ = 1.5e9
LOW_HZ = 0.6e9


@pytest.fixture(scope="module")
def board() -> BoardProfile:
    return load_board("rpi4")


def _jittered_times(n: int, dt: float, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.cumsum(np.full(n, dt) + rng.uniform(-0.03, 0.03, n)) - dt


def _step_log(t: np.ndarray, on: int, off: int, temp_c: float = 50.0) -> LogData:
    """Clock raised (and busy) from sample ``on`` to sample ``off - 1``, like stressberry."""
    f = np.full(len(t), LOW_HZ)
    f[on:off] = TOP_HZ
    load = np.zeros(len(t))
    load[on:off] = 1.0
    return LogData(t, {"cpu": np.full(len(t), temp_c)}, {"cpu": f}, {"cpu": load}, None, "step")


def test_response_is_the_mean_over_all_moments_the_load_could_have_changed(board: BoardProfile) -> None:
    """A logged change happened at an unknown moment between two samples; the model must give
    the expected temperature under a moment uniform in that interval (a stressberry-like 2 s log)."""
    t = _jittered_times(60, 2.05)
    on, off = 20, 45
    data = _step_log(t, on, off)
    inputs = derive_inputs(data, board)
    names = board.thermal.node_names()
    cap, g = network(board.thermal)
    leak_at = {n: 50.0 for n in names}  # leakage at a fixed temperature keeps the network linear
    grid = make_grid(t)
    p = grid_power(board, inputs, grid, {n: np.full(len(grid.t), v) for n, v in leak_at.items()})
    x0 = np.linalg.solve(g, p[0])
    model = linear_response(cap, g, p, grid.h, x0)
    model_at_samples = np.array([np.interp(t, grid.t, model[:, i]) for i in range(len(names))]).T

    # Reference: the plant stepped exactly, with the load changing at each of many moments
    # spread uniformly over the two intervals that contain the edges, then averaged.
    idle = node_power(board, inputs, np.array([0]), {n: np.array([v]) for n, v in leak_at.items()})[0]
    busy = node_power(board, inputs, np.array([on]), {n: np.array([v]) for n, v in leak_at.items()})[0]

    def exact(frac: float) -> np.ndarray:
        """Plant trajectory at the samples with both edges ``frac`` of the way through their interval."""
        t_on = t[on - 1] + frac * (t[on] - t[on - 1])
        t_off = t[off - 1] + frac * (t[off] - t[off - 1])
        plant = ThermalPlant.from_profile(board.thermal, 0.0)
        plant.x = x0.copy()
        out = [plant.x.copy()]
        for a, b in itertools.pairwise(t):
            cuts = sorted({a, b, *(c for c in (t_on, t_off) if a < c < b)})
            for c0, c1 in itertools.pairwise(cuts):
                mid = 0.5 * (c0 + c1)
                plant.advance(c1 - c0, busy if t_on <= mid < t_off else idle)
            out.append(plant.x.copy())
        return np.array(out)

    expected = np.mean([exact(frac) for frac in (np.arange(40) + 0.5) / 40], axis=0)
    die = names.index("cpu")
    jump = float(np.ptp(expected[:, die]))
    assert jump > 5.0  # the die's fast step is what a misplaced edge misses
    assert np.max(np.abs(model_at_samples[:, die] - expected[:, die])) < 0.02 * jump
    # holding each sample until the next puts the change at the later sample: far off
    assert np.max(np.abs(exact(1.0)[:, die] - expected[:, die])) > 0.2 * jump


def test_fit_evaluates_the_same_model_as_the_open_loop_check(board: BoardProfile) -> None:
    """The linear evaluation the optimiser sees and the simulator's plant run open-loop agree,
    leakage included, whatever the logged temperatures say.  Leakage taken from the *logged*
    temperature would feed the observations into the prediction, and a tiny die conductance
    amplifies that path; both are set up here."""
    t = np.arange(0.0, 900.0, 1.0)
    data = _step_log(t, 100, 600, temp_c=85.0)  # logged far above what the model reaches
    prob = FitProblem.build(data, board, holdout=0.3, ambient_c=25.0)
    phi = np.zeros(len(prob.specs))
    names = [s.name for s in prob.specs]
    # a die link of 0.45 W/K whatever the profile's prior: the die runs ~10 K above the package
    prior = next(k.conductance_w_per_k for k in board.thermal.links if {k.a, k.b} == {"cpu", "package"})
    phi[names.index("G[cpu-package]")] = math.log(0.45 / prior)
    lin, _p, _b, _a = prob.predict(phi)
    free, _p, _b, _a = prob.predict(phi, free=True)
    assert np.ptp(free[0]) > 10.0
    # Leakage from the logged 85 °C would put the model ~0.5 K off here.  What is left is the
    # plant holding leakage over each 1/4 s step while the die settles in 0.08 s: a few
    # hundredths of a kelvin on the edge samples only.
    diff = np.abs(lin - free)[0]
    assert np.max(diff) < 0.1
    assert np.median(diff) < 0.005
    # the logged temperatures never enter the prediction, and the held-out tail not even the
    # leakage's reference temperature
    changed = _step_log(t, 100, 600, temp_c=85.0)
    changed.temps_c["cpu"][~prob.train] = 20.0
    other = FitProblem.build(changed, board, holdout=0.3, ambient_c=25.0)
    assert np.array_equal(other.predict(phi)[0], lin)


def test_block_averages_are_stamped_at_the_block_centre() -> None:
    """A block's readings and inputs are means over the block; stamping them at its first sample
    would shift the whole log half a block early against the model's clock."""
    n = 12_001
    t = np.arange(n, dtype=float)
    ramp = 0.01 * t
    data = LogData(t, {"cpu": ramp.copy()}, {"cpu": np.full(n, TOP_HZ)}, {"cpu": np.ones(n)}, None, "long")
    small = decimate(data, max_samples=4000)
    k = math.ceil(n / 4000)
    assert len(small.t_s) == n // k
    assert small.t_s[0] == pytest.approx((k - 1) / 2)
    # a linear trend is unchanged by averaging when the time is the block centre
    assert np.allclose(small.temps_c["cpu"], 0.01 * small.t_s)
