"""A forecast combined with persistence, by a weight the fit's own inner validation chooses.

The held-out check scores a model against persistence (the last training reading held).  Where a
log's tail is flat, both forecasts are nearly constants and the model's constant is the filtered
level at the split (:mod:`~thermogov.sim.calibration.shrink`, level share 0), not the last reading:
two estimates of the same level with errors of their own.  A combination of two forecasts whose
errors are not perfectly correlated can beat both (J. M. Bates and C. W. J. Granger, "The
combination of forecasts", Operational Research Quarterly 20, 1969); the weight is chosen the way
the drift weight and level share are: on the validation inside the training part (fit on its first
70 %, forecast the rest), from the grid :data:`~thermogov.sim.calibration.shrink.WEIGHTS`, and kept
below 1 only when it beats the model alone by :data:`~thermogov.sim.calibration.shrink.MARGIN`.

The forecast kept is ``last + p * (forecast - last)`` after the split, per sensor, ``last`` being
that sensor's last finite training reading.  Like the shrinks, it belongs to the held-out forecast
from a state at the split, not to the plant the calibrated profile describes.
"""

from __future__ import annotations

import numpy as np


def last_readings(obs: np.ndarray, train: np.ndarray) -> np.ndarray:
    """Each sensor's last finite reading in the training part (NaN where it has none).

    ``obs`` is sensors x samples, ``train`` the training mask over the samples."""
    out = np.full(obs.shape[0], np.nan)
    for i, row in enumerate(obs):
        seen = np.flatnonzero(np.isfinite(row) & train)
        if len(seen):
            out[i] = row[seen[-1]]
    return out


def toward_last(forecast: np.ndarray, last: np.ndarray, train: np.ndarray, share: float) -> np.ndarray:
    """``forecast`` (sensors x samples) after the split moved to ``last + share * (forecast - last)``.

    A sensor without a last reading (NaN) keeps its forecast; the training part is the fit's and stays."""
    out = forecast.copy()
    tail = ~train
    for i, level in enumerate(last):
        if np.isfinite(level):
            out[i, tail] = level + share * (forecast[i, tail] - level)
    return out
