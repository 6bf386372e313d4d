"""The sensor's reading step, read off the log: what quantisation costs a continuous forecast.

A thermal sensor reports on a grid: the Jetson Nano's tegrastats prints 0.5 °C codes, the
AGX Orin's 0.1 °C, stressberry's Pi 4 logs whole degrees, and the Pi 4's own sensor steps by
about 0.49 °C (`vcgencmd measure_temp` and sysfs then print that step rounded to 0.1 °C or to
m°C).  Readings ``round(T)`` compared with a forecast of ``T`` carry the rounding error, which
for a true temperature spread over several steps is uniform with standard deviation ``q / √12``
(Widrow & Kollár, *Quantization Noise*, Cambridge University Press 2008, ch. 4: the classical
model, valid when the signal spans several quantisation steps).  Persistence holds a reading
that is itself on the grid, so on a flat tail it can pay none of it.

This module only *reports* the step and that floor beside the skill (``bench/fidelity.py``),
as :mod:`~thermogov.sim.calibration.baseline` reports the baseline's luck.  Rounding the
forecast to the detected grid ("predict what the sensor prints") was measured on the four
benches and is not applied: it adds up to ``q / 2`` of error wherever the model is off by more
than half a step, which is most logs (docs/calibration.md, *Seventeenth session (issue 10)*).
"""

from __future__ import annotations

import math

import numpy as np

MIN_STEP_C = 0.05  # below this, readings are continuous for any purpose here
MIN_LEVELS = 8  # distinct readings before a grid can be told from chance (a few fit any step)
PRINT_DECIMALS = 4  # the finest resolution a log prints (m°C at 0.001, with slack)


def printed_resolution(values: np.ndarray) -> float:
    """The finest decimal the readings are printed to (1, 0.1, 0.01 ... °C)."""
    for d in range(PRINT_DECIMALS + 1):
        unit = 10.0**-d
        if np.all(np.abs(values / unit - np.round(values / unit)) < 1e-6):
            return unit
    return 10.0**-PRINT_DECIMALS


def reading_step(readings: np.ndarray) -> float | None:
    """The step of the grid every finite reading lies on (an offset grid ``o + k·q``, printed
    rounded to :func:`printed_resolution`), or None where the readings show no grid coarser
    than :data:`MIN_STEP_C`.

    Where neighbouring readings differ by one printed unit, the print is the grid.  Otherwise
    the step is searched within one printed unit of the smallest difference between distinct
    readings, so a step printed rounded (the Pi 4's ~0.49 °C as 0.4 / 0.5 differences) is
    recovered; the grid is accepted when every reading lies within half the printed resolution
    of it (plus a thousandth of a step for the search's own grain)."""
    x = np.asarray(readings, dtype=float)
    u = np.unique(np.round(x[np.isfinite(x)], PRINT_DECIMALS))
    if len(u) < MIN_LEVELS:
        return None
    res = printed_resolution(u)
    q0 = float(np.diff(u).min())
    if q0 < 1.5 * res:  # neighbouring readings one printed unit apart: the print is the grid
        return res if res >= MIN_STEP_C else None
    lo = max(q0 - res, 1.5 * res, MIN_STEP_C)
    candidates = np.arange(lo, q0 + res + 1e-9, max(res / 100.0, 1e-4))
    best_q, best_dev = None, math.inf
    for q in candidates:
        dev = _grid_deviation(u, float(q))
        if dev < best_dev - 1e-12:
            best_q, best_dev = float(q), dev
    if best_q is None or best_dev > 0.5 * res + 1e-3 * best_q + 1e-9:
        return None
    return best_q


def _grid_deviation(u: np.ndarray, q: float) -> float:
    """The largest distance of a reading from the grid ``o + k·q``, at the offset ``o`` that the
    readings' circular mean phase gives."""
    phase = 2.0 * np.pi * u / q
    o = q * math.atan2(float(np.mean(np.sin(phase))), float(np.mean(np.cos(phase)))) / (2.0 * np.pi)
    r = (u - o) / q
    return float(np.max(np.abs(r - np.round(r)))) * q


def quantisation_floor(step: float | None) -> float | None:
    """The RMSE a continuous forecast pays for comparing with readings on a ``step`` grid
    (``step / √12``), or None without a grid."""
    return None if step is None else step / math.sqrt(12.0)
