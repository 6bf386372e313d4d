"""A report whose switched fan never runs in the training part, begun minutes after a cold boot.

sbc-bench 3N94 (Pi 4, ``dtoverlay=gpio-fan,...,temp=60000``, up 4 minutes): the training part
warms 36 -> 49 °C at one core with the fan stopped.  The fan's node keeps the housing's path to
ambient (sim/calibration/fanoff.py) and the start may reach room temperature
(sim/calibration/coldstart.py), so the forecast climbs to the fan's switch as the board did
(docs/calibration.md, sixteenth session).  On main the fitted path ×4 and the start held on
its −20 °C guard keep the forecast below the switch: the fan never comes on.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from thermogov.board import load_board, with_enclosure
from thermogov.sim.calibration.coldstart import admitted_idle_rise, start_reaches_room
from thermogov.sim.calibration.data import load_log_data
from thermogov.sim.calibration.enclosure import with_declared_switch
from thermogov.sim.calibration.fanoff import fan_never_on, held_while_fan_off
from thermogov.sim.calibration.fit import CalibrationResult, FitProblem, FittedParam, calibrate
from thermogov.sim.calibration.model import OFFSET_BOUND_C

EXTERNAL = Path(__file__).parents[1] / "data" / "logs" / "external"
GPIO_FAN_PI4 = EXTERNAL / "sbcbench_rpi4_3N94.txt"  # the overlay's switch: on at 60 °C, off at 50
TRIP_C = 60.0


def problem(holdout: float) -> FitProblem:
    data = load_log_data(GPIO_FAN_PI4)
    board = with_declared_switch(with_enclosure(load_board("rpi4"), "gpio-fan"), data.fan_switch_c)
    return FitProblem.build(data, board, holdout=holdout, ambient_c=25.0)


def path(result: CalibrationResult, name: str = "G[board-ambient]") -> FittedParam:
    return next(p for p in result.params if p.name == name)


def test_a_fan_that_never_switched_in_training_holds_its_nodes_path_and_the_forecast_reaches_its_switch() -> (
    None
):
    r = calibrate(load_log_data(GPIO_FAN_PI4), load_board("rpi4"), holdout=0.6)
    g = path(r)
    assert r.variant == "gpio-fan" and g.value == g.prior and g.determined_by == "prior"
    train = r.t_s <= r.t_s[0] + 0.4 * (r.t_s[-1] - r.t_s[0])
    assert np.nanmax(r.measured_c[train]) < TRIP_C  # the training part never reaches the switch ...
    assert np.nanmax(r.predicted_c[~train]) >= TRIP_C  # ... and the forecast does, as the board did
    assert any("fanoff.py" in n for n in r.notes) and any("coldstart.py" in n for n in r.notes)
    assert r.rmse_holdout_c is not None and r.rmse_persistence_c is not None
    assert r.rmse_holdout_c < 0.5 * r.rmse_persistence_c


def test_a_training_part_the_fan_switches_in_keeps_the_path_and_the_guard_free() -> None:
    whole = calibrate(load_log_data(GPIO_FAN_PI4), load_board("rpi4"), holdout=0.0)
    assert path(whole).determined_by == "data"  # the fan runs in the log: its effect is in the data
    assert not any("fanoff.py" in n or "coldstart.py" in n for n in whole.notes)
    prob = problem(0.0)
    assert not fan_never_on(prob.board, prob.fan_levels, prob.n_fit)
    assert start_reaches_room(prob) == prob.specs  # a whole-log fit keeps the guard


def test_the_rule_reads_only_the_training_part_and_only_a_fan_whose_lowest_level_is_off() -> None:
    prob = problem(0.6)
    assert fan_never_on(prob.board, prob.fan_levels, prob.n_fit)
    assert [s.name for s in prob.specs if s.kind == "ambient_link" and s.fixed] == ["G[board-ambient]"]
    assert held_while_fan_off(prob.specs, load_board("rpi4"), False) == prob.specs
    assert not fan_never_on(load_board("rpi4"), prob.fan_levels, prob.n_fit)  # no fan: nothing to hold
    levels = np.ones_like(prob.fan_levels)
    assert not fan_never_on(prob.board, levels, prob.n_fit)


def test_the_guard_widens_to_the_admitted_idle_rise_and_never_narrows() -> None:
    prob = problem(0.6)
    rise = admitted_idle_rise(prob)
    offset = next(s for s in start_reaches_room(prob) if s.kind == "offset")
    assert rise > OFFSET_BOUND_C and abs(offset.bound * offset.sigma - rise) < 1e-9
    for s in start_reaches_room(prob):
        if s.kind == "offset":
            assert s.bound * s.sigma >= OFFSET_BOUND_C
