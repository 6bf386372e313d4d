"""Which housings a board that cools under a steady load can be in: the rise per watt it heads for.

The housings' pre-fit (:mod:`~thermogov.sim.calibration.enclosure`) ranks each candidate by how
well it fits the training part.  Where that part holds no load change, the fit frees only the
idle level, and the initial offset absorbs whatever the board does: the AGX Xavier report 4ebH
cools from 42.5 to 36 °C through six minutes of an unchanged 12 % load (booted three minutes
before), and the pre-fit prefers the devkit heatsink with its fan stopped (cost 12.29 against
12.56), whose forecast then climbs 8 K under full load while the board levels off.

The same readings say more than a level: a board that is still *falling* at a rate ``r`` under a
constant load is ``r·τ`` above where it will settle, ``τ`` the housing's slowest time constant.
So each housing implies its own asymptote from the readings (least squares of
``T(t) = T_∞ + A·e^(−t/τ)`` over the trailing constant-load stretch of the training part), and
predicts one from its network and the logged load (:func:`~thermogov.sim.calibration.steady.steady_state_c`).
Their ratio, each taken as the rise over the assumed ambient, is the thermal resistance the log
implies over the one the housing has.  A housing whose ratio is beyond :data:`RATIO_LIMIT` (the
power prior's one-sigma factor, ×/÷2: what the fit's power scales could absorb at one sigma) is
dropped from the pre-fit when at least one other housing is within it.

Only a falling stretch is read.  A rising one begins at a load step, and its first seconds are
the fast modes' (die and package), which the one-exponential fit reads as a slope of the slow
mode: on the stressberry runs every housing's ratio came out 3-6 (docs/calibration.md,
*Fourteenth session (issue 10): housing from evidence*).  The tail after the split is never read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from thermogov.board import BoardProfile, with_enclosure
from thermogov.sim.calibration.data import LogData
from thermogov.sim.calibration.inputs import derive_inputs, sensor_nodes
from thermogov.sim.calibration.model import POWER_PRIOR, network, slow_mode
from thermogov.sim.calibration.steady import dynamic_power, steady_state_c

RATIO_LIMIT = float(np.exp(POWER_PRIOR))  # x/÷2: the power scales' one-sigma prior factor
SAME_LOAD_SHARE = 0.05  # a sample is under the stretch's load within 5 % of the log's load range
MIN_READINGS = 6  # fewer readings in the stretch and it says nothing
MIN_FALL_K = 1.0  # the readings' least-squares line must fall at least this much (two 0.5 °C steps)


@dataclass(frozen=True)
class HousingRise:
    """One housing's evidence: the asymptote its time constant implies from the readings, and its own."""

    housing: str
    implied_c: float  # T_inf fitted to the falling stretch with this housing's slow time constant
    predicted_c: float  # the housing's steady state under the stretch's mean load
    ratio: float  # (implied - ambient) / (predicted - ambient); <= 0 is no match


def falling_stretch(t: np.ndarray, obs: np.ndarray, dyn: np.ndarray, train: np.ndarray) -> np.ndarray:
    """The sample indices of the training part's trailing stretch under one load, if the board falls
    through it by at least :data:`MIN_FALL_K` over :data:`MIN_READINGS` readings or more; else empty."""
    idx = np.flatnonzero(train)
    if not len(idx):
        return idx
    finite = np.isfinite(dyn)
    span = float(np.ptp(dyn[finite])) if finite.any() else 0.0
    last = int(idx[-1])
    first = last
    while first > 0 and train[first - 1] and abs(dyn[first - 1] - dyn[last]) <= SAME_LOAD_SHARE * span:
        first -= 1
    rows = np.arange(first, last + 1)
    rows = rows[np.isfinite(obs[rows])]
    if len(rows) < MIN_READINGS:
        return rows[:0]
    slope = np.polyfit(t[rows] - t[rows[0]], obs[rows], 1)[0]
    if -slope * float(t[rows[-1]] - t[rows[0]]) < MIN_FALL_K:
        return rows[:0]
    return rows


def implied_asymptote(t: np.ndarray, obs: np.ndarray, tau_s: float) -> float:
    """``T_inf`` of the least-squares ``T_inf + A·exp(-t/tau)`` through the readings."""
    basis = np.c_[np.ones(len(t)), np.exp(-(t - t[0]) / tau_s)]
    coef, *_ = np.linalg.lstsq(basis, obs, rcond=None)
    return float(coef[0])


def housing_rises(
    data: LogData, board: BoardProfile, names: Sequence[str], train: np.ndarray, ambient_c: float
) -> list[HousingRise]:
    """Each named housing's evidence from the falling stretch; empty when the log has none."""
    sensors = sensor_nodes(data, board)
    first = next(iter(sensors))
    obs = np.asarray(data.temps_c[first], dtype=float)
    inputs = derive_inputs(data, board)
    rows = falling_stretch(data.t_s, obs, dynamic_power(board, inputs), train)
    if not len(rows):
        return []
    out = []
    for name in names:
        housed = with_enclosure(board, name)
        node = housed.thermal.node_names().index(sensors[first])
        predicted = float(steady_state_c(housed, derive_inputs(data, housed), rows, ambient_c)[node])
        cap, g = network(housed.thermal)
        _shape, tau = slow_mode(cap, g)
        implied = implied_asymptote(data.t_s[rows], obs[rows], tau)
        rise = predicted - ambient_c
        ratio = (implied - ambient_c) / rise if rise > 0 else 0.0
        out.append(HousingRise(name, implied, predicted, ratio))
    return out


def consistent(rises: Sequence[HousingRise]) -> list[str]:
    """The housings whose implied over predicted rise is within :data:`RATIO_LIMIT` either way."""
    return [r.housing for r in rises if 1.0 / RATIO_LIMIT <= r.ratio <= RATIO_LIMIT]


def rise_note(rises: Sequence[HousingRise], kept: Sequence[str]) -> str:
    """One line for the user: what the falling stretch says of each housing."""
    parts = ", ".join(f"{r.housing} ×{r.ratio:.2f}" for r in rises)
    return (
        f"housing: the readings fall under a steady load; the rise they head for over each housing's own "
        f"({parts}) leaves {', '.join(kept)} for the pre-fit (sim/calibration/housingrise.py)"
    )
