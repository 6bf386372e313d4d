"""A board that falls under a steady load tells which housings it can be in (housingrise.py).

Synthetic readings only: an exact approach to one housing's own steady state at its own slow time
constant, the kind of stretch the AGX Xavier report 4ebH starts with (booted minutes before, a light
benchmark at one load).
"""

from __future__ import annotations

import numpy as np

from thermogov.board import load_board, with_enclosure
from thermogov.sim.calibration.data import LogData
from thermogov.sim.calibration.fit import _housing
from thermogov.sim.calibration.housingrise import (
    MIN_READINGS,
    consistent,
    falling_stretch,
    housing_rises,
    implied_asymptote,
)
from thermogov.sim.calibration.inputs import derive_inputs
from thermogov.sim.calibration.model import network, slow_mode
from thermogov.sim.calibration.steady import steady_state_c

BOARD = "jetson-agx-xavier"  # housings devkit (fan heatsink) and fan-off
AMBIENT_C = 25.0


def _cooling_in(housing: str, excess_k: float = 8.0) -> LogData:
    """Readings that fall toward ``housing``'s steady state at its slow time constant, one load throughout."""
    board = with_enclosure(load_board(BOARD), housing)
    t = np.arange(0.0, 1000.0, 20.0)
    load = {"cpu": np.full(len(t), 0.12)}
    freq = {"cpu": np.full(len(t), 2.2656e9)}
    data = LogData(t, {"cpu": np.zeros(len(t))}, freq, load, None, "synthetic")
    node = board.thermal.node_names().index("cpu")
    settle = float(steady_state_c(board, derive_inputs(data, board), np.arange(len(t)), AMBIENT_C)[node])
    cap, g = network(board.thermal)
    _shape, tau = slow_mode(cap, g)
    data.temps_c["cpu"] = settle + excess_k * np.exp(-t / tau)
    return data


def test_a_falling_stretch_is_the_training_parts_tail_under_its_last_load() -> None:
    t = np.arange(20.0)
    dyn = np.where(t < 8, 5.0, 1.0)  # a load step down at 8 s
    train = t < 16
    falling = 50.0 - 0.5 * t
    assert list(falling_stretch(t, falling, dyn, train)) == list(range(8, 16))
    assert not len(falling_stretch(t, 40.0 + 0.5 * t, dyn, train))  # rising: read nothing
    assert not len(falling_stretch(t, np.full(20, 40.0), dyn, train))  # flat: nothing to extrapolate
    short = t < 8 + MIN_READINGS - 1
    assert not len(falling_stretch(t, falling, dyn, short))  # too few readings after the step


def test_the_asymptote_of_an_exact_approach_is_recovered() -> None:
    t = np.linspace(0.0, 400.0, 11)
    assert abs(implied_asymptote(t, 33.0 + 9.0 * np.exp(-t / 250.0), 250.0) - 33.0) < 1e-9


def test_a_board_cooling_as_the_devkit_does_rules_out_the_stopped_fan_and_the_reverse() -> None:
    board = load_board(BOARD)
    for truth, other in (("devkit", "fan-off"), ("fan-off", "devkit")):
        data = _cooling_in(truth)
        train = data.t_s <= 400.0
        rises = {r.housing: r for r in housing_rises(data, board, ["devkit", "fan-off"], train, AMBIENT_C)}
        assert abs(rises[truth].ratio - 1.0) < 0.05
        assert consistent(list(rises.values())) == [truth], (truth, other, rises)


def test_the_fit_starts_in_the_housing_the_fall_leaves_and_says_why() -> None:
    from thermogov.sim.calibration.fit import FitProblem

    board = load_board(BOARD)

    def build(b):
        return FitProblem.build(_cooling_in("devkit"), b, holdout=0.6, ambient_c=AMBIENT_C)

    housed, note = _housing(_cooling_in("devkit"), board, None, build, lambda _: None)
    assert housed.enclosure == "devkit"
    assert note is not None and "housingrise.py" in note and "fan-off" in note
    declared, note = _housing(_cooling_in("devkit"), board, "fan-off", build, lambda _: None)
    assert declared.enclosure == "fan-off" and note == "enclosure fan-off (declared)"
