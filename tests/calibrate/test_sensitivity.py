"""The fit's fast kernels: exact discrete response, analytic Jacobian, training-only evaluation.

Each reference is computed independently of the kernel it checks (the simulator's plant stepped
by hand, central differences of the residuals, the full-length prediction), so a test fails
when a kernel drifts from the model it stands for.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.calibrate.jacobian import central_differences
from thermogov.board import BoardProfile, load_board
from thermogov.sim.calibration.calibrate import LogData
from thermogov.sim.calibration.fit import SIGMA_T_C, FitProblem
from thermogov.sim.calibration.model import linear_response, network
from thermogov.sim.calibration.sensitivity import divided_differences
from thermogov.sim.model.plant import ThermalPlant


def _step_log(board: BoardProfile, n: int = 400, with_power: bool = True, seed: int = 3) -> LogData:
    """A 1 Hz log with every domain's clock and load stepping up and down, readings noisy."""
    rng = np.random.default_rng(seed)
    t = np.arange(float(n))
    freq, load = {}, {}
    for j, d in enumerate(board.domains):
        top, low = float(max(d.opp_hz)), float(min(d.opp_hz))
        on = (t >= 60 + 40 * j) & (t < 260 + 20 * j)
        freq[d.name] = np.where(on, top, low)
        load[d.name] = np.where(on, 0.9, 0.05)
    temp = 40.0 + 15.0 * (1.0 - np.exp(-np.clip(t - 60, 0, None) / 80.0)) + rng.normal(0, 0.3, n)
    power = 3.0 + 4.0 * ((t >= 60) & (t < 260)) + rng.normal(0, 0.1, n) if with_power else None
    sensor = {"rpi4": "cpu", "jetson-agx-orin": "cpu"}[board.name]
    return LogData(t, {sensor: temp}, freq, load, power, "synthetic")


@pytest.mark.parametrize(("name", "with_power"), [("rpi4", False), ("jetson-agx-orin", True)])
def test_analytic_jacobian_matchescentral_differences(name: str, with_power: bool) -> None:
    """Every column (capacitances, links, power scales, ambient, offset, the time-constant
    wall) through all leakage passes, away from the prior (phi random) so no term is zero."""
    board = load_board(name)
    prob = FitProblem.build(_step_log(board, with_power=with_power), board, holdout=0.3, ambient_c=25.0)
    assert prob.analytic_jacobian
    rng = np.random.default_rng(7)
    x = rng.normal(0.0, 0.6, len(prob.free))
    jac = prob.jacobian(x)
    ref = central_differences(prob, x)
    scale = np.abs(ref).max(axis=0)
    assert np.all(scale > 0)
    assert np.max(np.abs(jac - ref).max(axis=0) / scale) < 1e-5


def test_time_constant_wall_is_differentiated() -> None:
    """A network pushed past the slow-time-constant range: the wall's row is live and exact."""
    board = load_board("rpi4")
    prob = FitProblem.build(_step_log(board, with_power=False), board, holdout=0.3, ambient_c=25.0)
    names = [prob.specs[i].name for i in prob.free]
    x = np.zeros(len(prob.free))
    for j, nm in enumerate(names):
        if nm.startswith("C["):
            x[j] = 2.0  # capacitances x 9: the slow mode far above its prior
        if nm.endswith("-ambient]"):
            x[j] = -2.0
    r = prob.residuals(x)
    if r[-1] == 0.0:
        pytest.skip("profile's range not reached by this perturbation")
    jac = prob.jacobian(x)
    for j, ref in enumerate(central_differences(prob, x)[-1]):
        assert jac[-1, j] == pytest.approx(ref, rel=1e-5, abs=1e-6)


def test_discrete_response_reproduces_the_plant_stepped_by_hand() -> None:
    """The modal recursion is the exact zero-order-hold discretisation: the simulator's plant,
    advanced step by step with the same power, agrees to 1e-9 K on a stiff synthetic network."""
    board = load_board("jetson-agx-orin")
    cap, g = network(board.thermal)
    rng = np.random.default_rng(11)
    n, h = 3000, 0.25
    power = rng.uniform(0.0, 10.0, (n, len(cap)))
    x0 = rng.uniform(0.0, 20.0, len(cap))
    model = linear_response(cap, g, power, h, x0)
    plant = ThermalPlant.from_profile(board.thermal, 0.0)
    plant.x = x0.copy()
    ref = np.empty_like(model)
    for k in range(n):
        ref[k] = plant.x
        plant.advance(h, power[k])
    assert np.max(np.abs(model - ref)) < 1e-9


def test_divided_differences_match_their_definition() -> None:
    """Including nearly equal eigenvalues, where the plain difference quotient cancels."""
    mu = np.array([-1e-5, -1e-5 + 1e-9, -0.3, -2.0, -40.0, -800.0])
    fe, fphi = divided_differences(mu)

    def phi1(x: float) -> float:
        return float(np.expm1(x) / x)

    for i, a in enumerate(mu):
        for j, b in enumerate(mu):
            if abs(a - b) > 1e-3:
                assert fe[i, j] == pytest.approx((np.exp(a) - np.exp(b)) / (a - b), rel=1e-12, abs=1e-300)
                assert fphi[i, j] == pytest.approx((phi1(a) - phi1(b)) / (a - b), rel=1e-9)
            else:  # the derivative at the midpoint
                m = 0.5 * (a + b)
                assert fe[i, j] == pytest.approx(np.exp(m), rel=1e-8)
                d = 1e-4
                assert fphi[i, j] == pytest.approx((phi1(m + d) - phi1(m - d)) / (2 * d), rel=1e-6)


def test_fit_residuals_are_the_full_predictions_training_part() -> None:
    """The fit stops its run at the last training sample; its residuals must be exactly those
    of the full-length prediction (the response is causal), and nothing after the split enters."""
    board = load_board("jetson-agx-orin")
    data = _step_log(board)
    prob = FitProblem.build(data, board, holdout=0.5, ambient_c=25.0)
    assert prob.n_fit < len(prob.grid.t)
    x = np.random.default_rng(5).normal(0.0, 0.5, len(prob.free))
    pred, _total, _b, _a = prob.predict(prob.expand(x))
    sensor = next(iter(prob.sensors))
    m = prob.train & np.isfinite(data.temps_c[sensor])
    expected = (pred[0][m] - data.temps_c[sensor][m]) * (prob.data_weight / SIGMA_T_C)
    got = prob.residuals(x)[: int(m.sum())]
    assert np.allclose(got, expected, rtol=0, atol=1e-10)
