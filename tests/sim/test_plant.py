import numpy as np
import pytest
from scipy.integrate import solve_ivp

from thermogov.board import builtin_board_names, load_board
from thermogov.sim.model.plant import ThermalPlant


@pytest.mark.parametrize("board", builtin_board_names())
def test_exact_step_matches_a_stiff_ode_solver(board: str) -> None:
    plant = ThermalPlant.from_profile(load_board(board).thermal, 25.0)
    rng = np.random.default_rng(3)
    plant.set_temps_c(25.0 + rng.uniform(0, 40, len(plant.names)))
    x0 = plant.x.copy()
    power = rng.uniform(0.0, 6.0, len(plant.names))
    for h in (0.001, 0.15, 7.3, 120.0):
        plant.x = x0.copy()
        plant.advance(h, power)
        ref = solve_ivp(
            lambda t, x: plant.derivative(x, power), (0.0, h), x0, method="Radau", rtol=1e-11, atol=1e-11
        )
        assert plant.x == pytest.approx(ref.y[:, -1], abs=1e-6)


def test_many_small_steps_equal_one_big_step() -> None:
    a = ThermalPlant.from_profile(load_board("jetson-orin-nano").thermal, 25.0)
    b = ThermalPlant.from_profile(load_board("jetson-orin-nano").thermal, 25.0)
    p = np.linspace(0.5, 3.0, len(a.names))
    for _ in range(600):
        a.advance(0.1, p)
    b.advance(60.0, p)
    assert a.temps_c() == pytest.approx(b.temps_c(), abs=1e-9)


@pytest.mark.parametrize("board", builtin_board_names())
def test_steady_state_is_inverse_conductance_times_power(board: str) -> None:
    plant = ThermalPlant.from_profile(load_board(board).thermal, 31.0)
    p = np.arange(1.0, len(plant.names) + 1.0)
    expected = np.linalg.solve(plant.laplacian(), p) + 31.0
    assert plant.steady_state_c(p) == pytest.approx(expected)
    slowest = plant.time_constants_s()[0]
    plant.advance(40 * slowest, p)
    assert plant.temps_c() == pytest.approx(expected, abs=1e-6)


def test_ambient_step_keeps_node_temperatures_continuous() -> None:
    plant = ThermalPlant.from_profile(load_board("rpi5").thermal, 25.0)
    plant.set_temps_c(np.array([60.0, 55.0, 40.0]))
    before = plant.temps_c().copy()
    plant.set_ambient(40.0)
    assert plant.temps_c() == pytest.approx(before)
    plant.advance(1e6, np.zeros(3))
    assert plant.temps_c() == pytest.approx(np.full(3, 40.0))


def test_weaker_ambient_link_raises_steady_state() -> None:
    plant = ThermalPlant.from_profile(load_board("jetson-orin-nano").thermal, 25.0)
    p = np.ones(len(plant.names))
    before = plant.steady_state_c(p)
    plant.scale_ambient_link("lid", 0.5)
    after = plant.steady_state_c(p)
    assert np.all(after > before)
