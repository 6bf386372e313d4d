"""How far to trust the model after the split: a drift weight and a level share chosen inside the training part.

The held-out forecast starts from the filtered state at the split (:mod:`~thermogov.sim.calibration.state`)
and runs the fitted model on the logged inputs.  It can be split into two parts:

* the **response** to the input changes after the split (the full run minus the run with every
  input held at its value at the split), which is what a model knows and persistence does not;
* the **drift**: the run with the inputs held, minus the state at the split, i.e. where the
  model thinks the board is heading under the load it is already under.

A model whose gain is off gets the drift wrong even where it fits the training part: fitted on
8 minutes of a slow rise, the AGX Orin powergui log's model forecasts a further +1 °C that the
settled board never shows, and loses to persistence by a factor of three.  The forecast here is
``full - (1 - w) * drift``: ``w = 1`` is the model as fitted, ``w = 0`` keeps only its response
to input changes on top of the state at the split (persistence plus the model's response).
This is shrinkage of one forecast component toward the no-change forecast, the same idea as a
damped trend (E. S. Gardner and E. McKenzie, "Forecasting trends in time series", Management
Science 31, 1985), with the damping chosen by forecasting data the fit did not see.

A second, coarser shrink acts on the whole forecast: the **level share** ``a`` keeps
``level + a * (forecast - level)``, ``level`` being each sensor's value at the split (the
filtered state with its offset): persistence of the filtered level at ``a = 0``.  It scales the
response and the drift together, as a gain that is off scales both (a model whose gain is too
high both keeps charging and overshoots the next load change).

Both are chosen by the validation :mod:`~thermogov.sim.calibration.select` already runs (fit on
the first 70 % of the training part, forecast the rest), ``w`` first, then ``a`` with that
``w``; a value below 1 is kept only when it beats 1 by :data:`MARGIN`.  That choice says
something about the held-out tail only when the inner tail was a like test, so each is chosen
only where

* the final fit saw the load at its split at most :data:`RANGE_RATIO` times as long as the
  inner fit saw the load at its own (:func:`saw_as_much`): a training part that ends mid-rise
  gives an inner model far worse than the final one, and a shrink that rescues the former
  over-shrinks the latter (stressberry logs with leave-one-out priors: 1.26 → 3.34 °C without
  this rule);
* the component it scales has a comparable size in the inner tail and in the held-out forecast
  (:func:`exercised`: the inner RMS at least ``1 / RANGE_RATIO`` of the held-out one, both the
  model's own, no reading after the split): a shrink chosen where the drift was 0.05 °C says
  nothing of a forecast that moves 2.4 °C;
* for ``w``, the inner tail's load was flat (it tests the drift alone) or changed like the
  held-out tail's (:func:`comparable`): a weight that won across a load step may only have
  offset a gain error the step exposed.

Both belong to the forecast from a filtered state, not to the plant: the simulator runs the
fitted network closed-loop from its own initial state with inputs that change all the time,
where "the inputs at the split" and "the level at the split" do not exist.  So they are
reported (text, notes, ``--json`` ``drift_weight`` and ``level_share``) but not written into the
calibrated profile.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from thermogov.sim.calibration.model import GridInputs

WEIGHTS = (1.0, 0.75, 0.5, 0.25, 0.0)  # candidate drift weights, the model as fitted first
MARGIN = 0.05  # a w < 1 must forecast the inner tail >= 5 % better than w = 1
FLAT_SHARE = 0.1  # a tail whose load range is below this share of the training part's is flat
RANGE_RATIO = 2.0  # two non-flat tails are comparable when their load ranges are within this factor


def held(pre: GridInputs, start: int) -> GridInputs:
    """The inputs on the grid with every value from step ``start`` on held at its value there."""

    def hold(a: np.ndarray) -> np.ndarray:
        out = a.copy()
        if start < len(out):
            out[start:] = out[start]
        return out

    return GridInputs(
        {k: hold(v) for k, v in pre.volt.items()}, {k: hold(v) for k, v in pre.dyn_unit.items()}
    )


def blend(full: np.ndarray, drift: np.ndarray, weight: float) -> np.ndarray:
    """The forecast with the model's drift weighted by ``weight`` (1: the model as fitted)."""
    return full - (1.0 - weight) * drift


def toward_level(forecast: np.ndarray, level: np.ndarray, tail: np.ndarray, share: float) -> np.ndarray:
    """The forecast's deviation from the level at the split, scaled by ``share`` on the ``tail`` samples.

    ``forecast`` is sensors x samples, ``level`` one value per sensor, ``tail`` the samples after
    the split (the ones before it are the fit's and stay)."""
    out = forecast.copy()
    out[:, tail] = level[:, None] + share * (forecast[:, tail] - level[:, None])
    return out


def exercised(inner_deviation: np.ndarray, forecast_deviation: np.ndarray) -> bool:
    """Whether the inner tail exercised a shrink of the forecast's deviation at the size it has later.

    A share chosen where the model's deviation from the level is small says little about a
    forecast whose deviation is many times larger (a held-out tail with a load change the inner
    tail lacked): the inner score barely depends on the share there, and a few per cent of noise
    decide it.  So the RMS of the inner tail's deviation must be at least ``1 / RANGE_RATIO`` of
    the held-out tail's (both the model's own, no readings after the split)."""
    if not len(inner_deviation) or not len(forecast_deviation):
        return False
    r_in = float(np.sqrt(np.mean(inner_deviation**2)))
    r_out = float(np.sqrt(np.mean(forecast_deviation**2)))
    return r_in > 0.0 and r_in * RANGE_RATIO >= r_out


def time_under_load(t: np.ndarray, dyn: np.ndarray, last: int, band: float) -> float:
    """How long before sample ``last`` the load stayed within ``band`` of its value there (s)."""
    k = last
    while k > 0 and abs(dyn[k - 1] - dyn[last]) <= band:
        k -= 1
    return float(t[last] - t[k])


def saw_as_much(t: np.ndarray, dyn: np.ndarray, inner_last: int, last: int, training: np.ndarray) -> bool:
    """Whether the inner fit saw the load at its split about as long as the final fit sees the load at its.

    The inner validation scores a model fitted on less data than the final one.  Where the
    training part ends mid-rise (a load that began 18 s before the inner split and 90 s before
    the final one), the inner model's drift is far worse than the final model's, and a weight
    that rescues it over-shrinks a drift the final fit got right.  So the final fit may have
    seen the load at its split at most ``RANGE_RATIO`` times as long as the inner fit saw the
    load at its own split.  ``dyn`` is the dynamic power per sample, ``training`` its training part."""
    band = FLAT_SHARE * (float(np.ptp(training)) if len(training) else 0.0)
    seen_inner = time_under_load(t, dyn, inner_last, band)
    seen_final = time_under_load(t, dyn, last, band)
    return seen_final <= RANGE_RATIO * seen_inner


def choose_weight(scores: Mapping[float, float]) -> float:
    """The weight with the lowest inner-tail RMSE, if it beats ``w = 1`` by ``MARGIN``; else 1."""
    finite = {w: s for w, s in scores.items() if np.isfinite(s)}
    if 1.0 not in finite:
        return 1.0
    best = min(finite, key=lambda w: (finite[w], -w))  # ties go to the larger weight
    return best if finite[best] < (1.0 - MARGIN) * finite[1.0] else 1.0


def comparable(inner_tail: np.ndarray, forecast_tail: np.ndarray, training: np.ndarray) -> bool:
    """Whether the inner validation's verdict on the drift stands for the held-out tail.

    Each argument is the dynamic power per sample (:func:`~thermogov.sim.calibration.steady.dynamic_power`)
    over one part of the log.  An inner tail under a flat load (range below ``FLAT_SHARE`` of the
    training part's) tests the drift alone, which is the part the weight scales, whatever loads
    the held-out tail brings (their response is kept in full).  An inner tail with a load change
    scores the drift and the response to that change together (a smaller weight can win there
    only by offsetting a gain error the change exposed), so it stands only for a held-out tail
    with a like change: range within ``RANGE_RATIO`` of the inner tail's."""
    span = float(np.ptp(training)) if len(training) else 0.0
    if not len(inner_tail) or not len(forecast_tail):
        return False
    r_in, r_out = float(np.ptp(inner_tail)), float(np.ptp(forecast_tail))
    flat = FLAT_SHARE * span
    if r_in <= flat:
        return True
    return r_out > flat and max(r_in, r_out) <= RANGE_RATIO * min(r_in, r_out)
