"""How many of the model's parameters a log can support: chosen by validation inside the training part.

A short training window that ends mid-rise, or a sparse report, does not determine every
capacitance and conductance of the network; a fit that frees them all matches the window and
then extrapolates its own noise (the 20-minute AGX Orin log fitted on 8 minutes: train RMSE
0.29 °C, held-out 0.77 °C against 0.24 °C for holding the last reading).  A careful modeller
picks the model's size on data the fit did not see, and that data can only come from inside
the training part: time-series (forward) validation (R. J. Hyndman and G. Athanasopoulos,
*Forecasting: principles and practice*, 3rd ed., section 5.10 "Time series cross-validation").

Each rung of :data:`LADDER` frees fewer parameters.  Every rung is fitted on the first
:data:`INNER_SHARE` of the training part and forecasts the rest of it the way the held-out
check does (restarted from the filtered state, :mod:`~thermogov.sim.calibration.state`); the
rung with the lowest forecast RMSE wins, a larger one only when it beats every smaller one by
:data:`MARGIN` (ties go to the smaller model).  The winner is then fitted on the whole training
part.  Nothing here reads the held-out tail.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from thermogov.sim.calibration.data import LogData
from thermogov.sim.calibration.model import ParamSpec

INNER_SHARE = 0.7  # the first 70 % of the training part fits, the last 30 % validates
MARGIN = 0.05  # a larger model must forecast >= 5 % better than every smaller one
EDGE_SHARE = 0.5  # the validation part must hold a load change of half the training part's range
MIN_INNER_READINGS = 6  # fewer validation readings than this and there is nothing to choose on

# Rungs, largest first: what each keeps at the profile's value.
LADDER: tuple[tuple[str, frozenset[str]], ...] = (
    ("full", frozenset()),
    ("gains", frozenset({"capacitance", "cap_scale", "link"})),
    ("levels", frozenset({"capacitance", "cap_scale", "link", "ambient_link", "dyn_scale"})),
)


def reduced(specs: Sequence[ParamSpec], rung: str) -> list[ParamSpec]:
    """``specs`` with the kinds the rung holds fixed at the profile's value."""
    held = dict(LADDER)[rung]
    return [dataclasses.replace(s, fixed=True) if s.kind in held else s for s in specs]


def head(data: LogData, n: int) -> LogData:
    """The first ``n`` rows of a log (the inner fit never sees beyond the training part)."""
    return dataclasses.replace(
        data,
        t_s=data.t_s[:n],
        temps_c={k: v[:n] for k, v in data.temps_c.items()},
        freq_hz={k: v[:n] for k, v in data.freq_hz.items()},
        load={k: v[:n] for k, v in data.load.items()},
        power_w=None if data.power_w is None else data.power_w[:n],
        volt_v={k: v[:n] for k, v in data.volt_v.items()},
    )


def informative(dyn: np.ndarray, validation: np.ndarray) -> bool:
    """Whether the validation part tests a response the inner fit has not seen: a load change.

    A validation part under one constant load (a long run's plateau, or the rest of a rise the
    inner fit saw start) scores how well each size holds a level or continues a curve it was
    fitted to, which favours the smallest model whatever the data support (a 5.8 h log whose
    inner validation was its plateau dropped to the smallest size and missed its cool-down by
    7 °C).  Only a load change of at least ``EDGE_SHARE`` of the training part's range makes
    the comparison a forecast of a new transient."""
    full = float(np.ptp(dyn)) if len(dyn) else 0.0
    part = dyn[validation]
    return full > 0 and len(part) > 1 and float(np.ptp(part)) >= EDGE_SHARE * full


def choose(scores: dict[str, float]) -> str:
    """The smallest rung whose forecast RMSE no larger rung beats by ``MARGIN``."""
    order = [name for name, _held in LADDER if name in scores and np.isfinite(scores[name])]
    if not order:
        return LADDER[0][0]
    best = order[-1]  # the smallest scored rung
    for name in reversed(order[:-1]):  # ever larger rungs
        if scores[name] < (1.0 - MARGIN) * min(scores[n] for n in order[order.index(name) + 1 :]):
            best = name
    return best
