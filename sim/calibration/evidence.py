"""How much of the model's own recent movement the readings show: a level share from the training part's end.

A forecast restarted at the split (:mod:`~thermogov.sim.calibration.state`) is the filtered level
plus the model's deviation from it.  Where the board keeps the load it has been under, that
deviation is the model's claim about the trend: how far from equilibrium it believes the board
is.  A model whose gain is off makes that claim wrongly where the inner validation
(:mod:`~thermogov.sim.calibration.shrink`) cannot test it: fitted on 8 minutes of a slow rise, the
AGX Orin powergui model forecasts a further +1 °C that the board, already nearly settled, never
shows.  The last minutes of the training part already say something about that: over them the
fitted trajectory rose by some amount, and the readings rose by less.

The rule regresses the readings on the fitted trajectory over the last
:data:`~thermogov.sim.calibration.select.INNER_SHARE`-complement of the training part (the same
window the inner validation forecasts), ``y = c + k·m + e``: ``k = 1`` is a model that moves as the
board does, ``k = 0`` a board that stays put while the model moves.  This is the slope of the
Mincer–Zarnowitz regression of outcomes on forecasts (J. Mincer and V. Zarnowitz, "The
evaluation of economic forecasts", NBER 1969), here on the training part, not on the tail.  The
noise is the data's: the regression's residual variance, at least the readings' own
sample-to-sample scatter (:func:`~thermogov.sim.calibration.state.measurement_noise`), inflated for
the residuals' lag-1 autocorrelation (``(1 + ρ)/(1 − ρ)``, the AR(1) variance factor of a mean).
With a prior ``k ~ N(1, PRIOR_SD²)`` (the model as fitted) the posterior mean is

    k̂ = (1/PRIOR_SD² + Sxy/s²) / (1/PRIOR_SD² + Sxx/s²),

``Sxx`` the spread of the fitted trajectory in the window, ``Sxy`` its co-movement with the
readings.  A model that barely moved in the window (``Sxx`` small against the noise) keeps
``k̂ ≈ 1``: there is no evidence, and the model stands.  The model is shrunk only where the
readings reject ``k = 1`` by :data:`Z` standard errors (a slope within noise of the model's is no
reason to move off it); then ``k̂`` is clipped to [0, 1] (a shrink only) and used as the
forecast's level share (``shrink.toward_level``).

It applies only where the deviation *is* a trend claim: when the held-out tail's mean dynamic
power is within :data:`~thermogov.sim.calibration.shrink.FLAT_SHARE` of the training part's
range of the window's mean (the logged inputs after the split are known to the forecast).
Ahead of a load change the deviation is mostly the response to it, which the end of the
training part cannot test (shrinking a cool-down toward the level at the split would throw away
what the model knows and persistence does not).  Fewer than
:data:`~thermogov.sim.calibration.select.MIN_INNER_READINGS` readings in the window: no evidence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from thermogov.sim.calibration.select import INNER_SHARE, MIN_INNER_READINGS
from thermogov.sim.calibration.shrink import FLAT_SHARE
from thermogov.sim.calibration.state import measurement_noise

PRIOR_SD = 0.5  # prior sd of the factor k around 1 (the model as fitted); 0.25 and 1 gave the same counts
Z = 2.0  # the readings must reject k = 1 by this many standard errors before the model is shrunk
MAX_RHO = 0.95  # lag-1 autocorrelation beyond this is treated as this (the inflation stays finite)


@dataclass(frozen=True)
class TrendEvidence:
    """The level share the training part's end supports, and what it was computed from."""

    share: float  # clipped posterior mean of k, in [0, 1]; 1 when there is no evidence
    raw: float | None = None  # the least-squares slope Sxy/Sxx (None when not computed)
    se: float | None = None  # its standard error, noise from the data
    why: str = ""  # why the rule did not apply ("" when it did)


def window(train: np.ndarray) -> np.ndarray:
    """The sample indices of the training part's last ``1 - INNER_SHARE`` (the inner validation's tail)."""
    idx = np.flatnonzero(train)
    if not len(idx):
        return idx
    return idx[int(len(idx) * INNER_SHARE) :]


def lag1(e: np.ndarray) -> float:
    """Lag-1 autocorrelation of residuals, clipped to [0, MAX_RHO] (negative would shrink the noise)."""
    if len(e) < 4:
        return 0.0
    e = e - e.mean()
    d = float(e @ e)
    if d <= 0.0:
        return 0.0
    return float(np.clip(float(e[1:] @ e[:-1]) / d, 0.0, MAX_RHO))


def holds_load(dyn: np.ndarray, win: np.ndarray, tail: np.ndarray, training: np.ndarray) -> bool:
    """Whether the held-out tail's mean dynamic power is the window's, within ``FLAT_SHARE`` of the training range."""
    span = float(np.ptp(dyn[training])) if training.any() else 0.0
    if span <= 0.0 or not len(win) or not tail.any():
        return False
    return abs(float(dyn[tail].mean()) - float(dyn[win].mean())) <= FLAT_SHARE * span


def trend_evidence(obs: np.ndarray, fitted: np.ndarray, train: np.ndarray, dyn: np.ndarray) -> TrendEvidence:
    """The level share from the readings' co-movement with the fitted trajectory at the training part's end.

    ``obs`` and ``fitted`` are one sensor's readings and the fit's trajectory per sample, ``train``
    the training mask (the tail after it is never read here, only its logged load ``dyn``)."""
    win = window(train)
    win = win[np.isfinite(obs[win]) & np.isfinite(fitted[win])]
    if len(win) < MIN_INNER_READINGS:
        return TrendEvidence(1.0, why=f"fewer than {MIN_INNER_READINGS} readings at the training part's end")
    tail = ~train
    if not holds_load(dyn, win, tail, train):
        return TrendEvidence(1.0, why="the held-out tail's load differs from the training part's end")
    y, m = obs[win], fitted[win]
    x = m - m.mean()
    sxx = float(x @ x)
    if sxx <= 0.0:
        return TrendEvidence(1.0, why="the fitted trajectory does not move at the training part's end")
    raw = float(x @ (y - y.mean())) / sxx
    e = y - y.mean() - raw * x
    rho = lag1(e)
    seen = obs[: int(np.flatnonzero(train)[-1]) + 1]
    s2 = max(float(e @ e) / max(len(e) - 2, 1), measurement_noise(seen)) * (1.0 + rho) / (1.0 - rho)
    se = float(np.sqrt(s2 / sxx))
    if raw >= 1.0 - Z * se:
        return TrendEvidence(
            1.0, raw, se, why=f"the readings moved {raw:.2f} ± {se:.2f} times as much: k = 1 stands"
        )
    prior = 1.0 / PRIOR_SD**2
    k = (prior + raw * sxx / s2) / (prior + sxx / s2)
    return TrendEvidence(float(np.clip(k, 0.0, 1.0)), raw, se)
