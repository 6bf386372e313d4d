"""A held-out error split three ways: level, drift and the rest, to tell a drifting fit from a missed step.

Issue 10's brief for session 30 asks whether a forecast's tail error comes from a fitted ambient
or capacitance that drifts.  A wrong ambient or a wrong path to air at one load shows as a
*level* error (the forecast settles beside the readings); a wrong capacitance or a slow mode the
training part did not reach shows as a *drift* (an error that grows steadily over the tail); a
load step the power proxy gets wrong shows as neither, an error that jumps at the step.

Over the held-out readings the error ``e(t) = forecast - reading`` is split by least squares into
its mean, a straight line in time about that mean, and what is left.  The three parts are
orthogonal, so ``level² + drift² + rest² = RMSE²`` exactly, and each says how much of the
held-out RMSE it carries:

* ``level_c``: the mean error (signed; positive = forecast too warm);
* ``drift_c``: the RMS of the fitted trend about the mean, signed by the trend's slope (positive =
  the forecast grows warmer than the readings as the tail goes on);
* ``rest_c``: the RMS of what a straight line does not explain (steps, noise, curvature).

It reads the held-out tail, so like :mod:`~thermogov.sim.calibration.baseline` it is for judging a
result (``bench/fidelity.py``), never for choosing anything in a fit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MIN_READINGS = 3  # a line through fewer readings leaves nothing to call the rest


@dataclass(frozen=True)
class TailParts:
    """The held-out error's level, drift and rest (°C); the squares add up to the RMSE squared."""

    level_c: float
    drift_c: float
    rest_c: float

    @property
    def rmse_c(self) -> float:
        return math.sqrt(self.level_c**2 + self.drift_c**2 + self.rest_c**2)


def tail_parts(t_s: np.ndarray, forecast: np.ndarray, obs: np.ndarray, train: np.ndarray) -> TailParts | None:
    """The held-out error split into level, drift and rest; None with fewer than
    :data:`MIN_READINGS` finite held-out readings or all of them at one time."""
    test = np.isfinite(obs) & np.isfinite(forecast) & np.isfinite(t_s) & ~train
    if int(test.sum()) < MIN_READINGS:
        return None
    e = forecast[test] - obs[test]
    tc = t_s[test] - float(np.mean(t_s[test]))
    spread = float(np.sum(tc * tc))
    if spread <= 0.0:
        return None
    level = float(np.mean(e))
    slope = float(np.sum(tc * (e - level))) / spread
    trend = slope * tc
    drift = math.copysign(float(np.sqrt(np.mean(trend * trend))), slope)
    rest = float(np.sqrt(np.mean((e - level - trend) ** 2)))
    return TailParts(level, drift, rest)
