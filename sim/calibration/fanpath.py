"""A fan the board's firmware switches with temperature, inside the calibration model.

A Raspberry Pi 5 Active Cooler is not a fixed path to air: the firmware's step curve
(``fan_temp0..3`` = 50 / 60 / 67.5 / 75 °C with 5 °C hysteresis, the profile's ``[fan]``
table, :mod:`thermogov.fanprofile`) raises the heatsink's conductance each time the SoC
crosses a step.  A model with one fixed conductance cannot show what such logs show: the
temperature *falling* under a constant single-threaded load when the fan comes on at 50 °C,
or under full load when it steps up at 60 °C.  The simulator already models such a fan
(:mod:`thermogov.sim.model.fan`: one node's conductance to ambient per level, the board's
curve polled like the kernel polls its zone); the calibration uses the same table and curve:

* **in the fit** the level is what the firmware chose, read off the *logged* temperature of
  the curve's node (the firmware reads that same sensor): a known schedule, like a logged
  clock, so the fitted parameters cannot move a switching instant and the cost stays smooth.
  Only training readings are used; after the last one the level is held.  The network is then
  linear between switches and :func:`switched_response` runs it exactly, one segment per level;
* **in the forecast** (and the open-loop check) the curve runs on the *model's* temperature
  (:func:`~thermogov.sim.calibration.model.free_run`), starting from the level the readings
  show at the split: nothing after the split is read.

The fan's conductance scales with the fitted conductance of its node to ambient
(:func:`~thermogov.sim.calibration.model.apply_params`): forced and natural convection leave
through the same fins, so a heatsink that sheds more or less heat than the profile says does
so at every fan level.  The fan's own power is not in the model: it is drawn from the 5 V rail
and leaves in the airflow, heating no node.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np

from thermogov.board import BoardProfile
from thermogov.fanprofile import FanProfile
from thermogov.sim.calibration.data import LogData, ffill
from thermogov.sim.calibration.model import Grid, Modes, linear_response, on_grid


def curve_sensor(fan: FanProfile, sensors: Mapping[str, str]) -> str:
    """The logged sensor the fan's curve reads: one on its node, else the first matched sensor."""
    return next((s for s, node in sensors.items() if node == fan.curve_node), next(iter(sensors)))


def levels_from_log(
    board: BoardProfile, data: LogData, sensors: Mapping[str, str], grid: Grid, train: np.ndarray
) -> np.ndarray | None:
    """Per grid step, the level the board's own curve chose from the logged temperature (training only).

    The temperature between two readings is interpolated at each step's centre, as the inputs
    are; the curve runs with its hysteresis from level 0 at the first step (a log that starts
    inside a hysteresis band cannot say which side the fan was on; below the first step it is
    off either way).  After the last training reading the level is held: the held-out readings
    are never read.  None when the board has no fan."""
    fan = board.fan
    if fan is None:
        return None
    obs = ffill(np.asarray(data.temps_c[curve_sensor(fan, sensors)], dtype=float))
    seen = np.flatnonzero(train & np.isfinite(obs))
    levels = np.zeros(len(grid.t), dtype=int)
    if not len(seen):
        return levels
    obs = np.where(np.isfinite(obs), obs, obs[seen[0]])
    obs[seen[-1] + 1 :] = obs[seen[-1]]  # the held-out readings are not the fit's to read
    temp = on_grid(obs, grid)
    last = int(np.searchsorted(grid.t, data.t_s[seen[-1]], side="right"))
    level = 0
    curve = fan.default_curve
    for k in range(len(grid.t)):
        if k < max(last, 1):
            level = curve.target(float(temp[k]), level)
        levels[k] = level
    return levels


def fan_conductance(board: BoardProfile, levels: np.ndarray) -> np.ndarray:
    """The fan's extra conductance to ambient (W/K) on each grid step."""
    assert board.fan is not None
    return np.asarray(board.fan.conductance_w_per_k, dtype=float)[levels]


def with_fan(g: np.ndarray, node: int, g_fan: float) -> np.ndarray:
    """A conductance matrix with ``g_fan`` added to ``node``'s path to ambient."""
    out = g.copy()
    out[node, node] += g_fan
    return out


def switched_response(
    cap: np.ndarray, g: np.ndarray, node: int, g_fan: np.ndarray, power: np.ndarray, h: float, x0: np.ndarray
) -> np.ndarray:
    """:func:`~thermogov.sim.calibration.model.linear_response` with a fan that switches levels.

    Between two switches the network is linear and time-invariant, so each segment is run
    exactly from the state the last one ended in (step ``k`` to ``k + 1`` uses the level and
    power of step ``k``); one eigen-decomposition per distinct level."""
    n = len(power)
    x = np.empty((n, len(cap)))
    cuts = [0, *(np.flatnonzero(np.diff(g_fan[:n]) != 0) + 1).tolist(), n]
    modes: dict[float, Modes] = {}
    state = x0
    for a, b in itertools.pairwise(cuts):
        gf = float(g_fan[a])
        if gf not in modes:
            modes[gf] = Modes.of(cap, with_fan(g, node, gf))
        end = min(b + 1, n)
        seg = linear_response(cap, with_fan(g, node, gf), power[a:end], h, state, modes[gf])
        x[a:end] = seg
        state = seg[-1]
    return x
