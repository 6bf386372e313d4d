"""Steady state under the log's main load: what a calibrated profile predicts, and whether the log shows it.

A held-out RMSE only tests the transient the log happens to contain; the temperature a board
settles at under sustained load is what a governor's limits are set against, so it is reported
on its own.  It is *measured* only when the log really got there: a short step test would
otherwise compare the prediction with a temperature that was still rising.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from thermogov.board import BoardProfile
from thermogov.sim.calibration.data import LogData
from thermogov.sim.calibration.inputs import Inputs
from thermogov.sim.calibration.model import network, node_power

STEADY_WINDOW_S = 600.0  # the measured steady state: mean of the last 10 min under load ...
STEADY_MIN_TAUS = 4.0  # ... of a load segment at least this many slow time constants long
# ... whose readings also settled: their least-squares trend moves them across the window by at most
# this share of the segment's rise.  A first-order rise has e^-3 = 5 % left three time constants in,
# more than it moves across any window that ends four time constants in.
STEADY_MAX_DRIFT_SHARE = 0.05
SMOOTH_S = 60.0  # the load level is judged over a minute: a spike or dip shorter than this is not a phase
LEVEL_QUANTILES = (0.1, 0.9)  # low and high load levels: robust to a few extreme samples


@dataclass(frozen=True)
class SteadyState:
    """Measured vs predicted steady state under the log's main load segment."""

    segment_s: tuple[float, float]
    window_s: tuple[float, float]
    predicted_c: float
    measured_c: float | None  # None when the segment is too short to reach steady state
    note: str

    @property
    def error_c(self) -> float | None:
        return None if self.measured_c is None else self.predicted_c - self.measured_c


def steady_state_c(board: BoardProfile, inputs: Inputs, rows: np.ndarray, ambient_c: float) -> np.ndarray:
    """Node temperatures where the mean input over ``rows`` settles (leakage fixed point).

    With a board fan, the level its curve climbs to: the first level whose steady state does
    not ask for a higher one (a level that would step back down at that temperature cycles
    with the one below it in the real board; the higher one is reported)."""
    names = board.thermal.node_names()
    _cap, g0 = network(board.thermal)
    fan = board.fan
    levels = range(fan.levels) if fan is not None else range(1)
    temps = np.full(len(names), ambient_c + 20.0)
    for level in levels:  # a board fan climbs its curve until the level holds (fanpath.py)
        g = g0.copy()
        if fan is not None:
            i_fan = names.index(fan.node)
            g[i_fan, i_fan] += fan.conductance_w_per_k[level]
        temps = _fixed_point(board, inputs, rows, ambient_c, g)
        if fan is None or fan.default_curve.target(float(temps[names.index(fan.curve_node)]), level) <= level:
            break
    return temps


def _fixed_point(
    board: BoardProfile, inputs: Inputs, rows: np.ndarray, ambient_c: float, g: np.ndarray
) -> np.ndarray:
    """The leakage (and unlogged throttle) fixed point of one network."""
    from thermogov.sim.calibration.throttle import damped, dyn_factors, unlogged_throttles

    names = board.thermal.node_names()
    temps: np.ndarray = np.full(len(names), ambient_c + 20.0)
    throttles = unlogged_throttles(board, inputs)
    factor = None
    for _ in range(100):
        node_temp = {n: np.full(len(rows), temps[i]) for i, n in enumerate(names)}
        if throttles:
            factor = damped(factor, dyn_factors(board, inputs, node_temp, throttles))
        p = node_power(board, inputs, rows, node_temp, factor)
        new = np.linalg.solve(g, p.mean(axis=0)) + ambient_c
        if np.max(np.abs(new - temps)) < 1e-6:
            return new
        temps = new
    return temps


def running_median(t: np.ndarray, x: np.ndarray, width_s: float) -> np.ndarray:
    """Median of ``x`` over the samples within ``width_s / 2`` of each sample (an uneven grid is fine)."""
    lo = np.searchsorted(t, t - 0.5 * width_s, side="left")
    hi = np.searchsorted(t, t + 0.5 * width_s, side="right")
    return np.array([float(np.median(x[a:b])) for a, b in zip(lo, hi, strict=True)])


def main_load_segment(t: np.ndarray, dyn: np.ndarray) -> tuple[int, int]:
    """First and last sample of the longest stretch at the log's high load level.

    The level is judged on the input smoothed over ``SMOOTH_S`` and thresholded half way between
    its 10th and 90th percentiles, so a short GPU burst neither becomes the "main load" (a raw
    max-min midpoint put the threshold above a whole inference phase and left a 6 s segment)
    nor splits a long phase in two.  Gaps shorter than ``SMOOTH_S`` inside a phase are bridged.
    """
    smooth = running_median(t, dyn, SMOOTH_S)
    lo_q, hi_q = np.quantile(smooth, LEVEL_QUANTILES)
    if hi_q <= lo_q:  # the log sits at one level most of the time: threshold on the extremes
        lo_q, hi_q = float(smooth.min()), float(smooth.max())
    high = smooth > 0.5 * (lo_q + hi_q) if hi_q > lo_q else dyn > 0.5 * (dyn.min() + dyn.max())
    runs: list[tuple[int, int]] = []
    start = None
    for i, h in enumerate([*high.tolist(), False]):
        if h and start is None:
            start = i
        elif not h and start is not None:
            if runs and t[start] - t[runs[-1][1]] < SMOOTH_S:
                runs[-1] = (runs[-1][0], i - 1)  # a short dip inside one phase
            else:
                runs.append((start, i - 1))
            start = None
    if not runs:
        return 0, len(t) - 1
    return max(runs, key=lambda r: (t[r[1]] - t[r[0]], -r[0]))


def dynamic_power(board: BoardProfile, inputs: Inputs) -> np.ndarray:
    """Dynamic power per sample, summed over domains (arbitrary unit).

    Each domain is weighed by its C_dyn and cores: a GPU phase and a CPU phase of the same
    utilisation are not the same load."""
    return np.asarray(
        sum(
            inputs.load[d.name]
            * inputs.volt_v[d.name] ** 2
            * inputs.freq_hz[d.name]
            * d.c_dyn_uw_per_mhz_v2
            * d.cores
            for d in board.domains
        ),
        dtype=float,
    )


def drift_over(t: np.ndarray, y: np.ndarray) -> float | None:
    """How far the readings' least-squares line moves over their span (K); None with < 3 readings."""
    ok = np.isfinite(y)
    if ok.sum() < 3 or np.ptp(t[ok]) <= 0:
        return None
    slope = float(np.polyfit(t[ok], y[ok], 1)[0])
    return slope * float(np.ptp(t[ok]))


def steady_state(
    board: BoardProfile,
    inputs: Inputs,
    data: LogData,
    sensors: Mapping[str, str],
    ambient: float,
    tau_slow: float,
) -> SteadyState | None:
    """Steady state of the longest high-power segment: predicted always, measured when reached.

    "Reached" means the segment lasts at least ``STEADY_MIN_TAUS`` slow time constants (then the
    slow mode has decayed below 2 %) *and* the readings over the window settled (their trend moves
    them by at most ``STEADY_MAX_DRIFT_SHARE`` of the rise from the segment's first reading to the
    window's mean): the time constant is the fitted model's, and a model
    whose slow mode came out too short would otherwise call a board that is still warming settled
    and compare its own steady state with a temperature on the way there.  The measured value is
    the mean of the sensor over the last ``STEADY_WINDOW_S`` of the segment and the prediction uses
    the mean input of that window.
    """
    t = data.t_s
    dyn = dynamic_power(board, inputs)
    if np.ptp(dyn) <= 0:
        return None
    a, b = main_load_segment(t, dyn)
    seg = (float(t[a]), float(t[b]))
    w0 = max(seg[0], seg[1] - STEADY_WINDOW_S)
    rows = np.where((t >= w0) & (t <= seg[1]))[0]
    node = next(iter(sensors.values()))
    idx = board.thermal.node_names().index(node)
    predicted = float(steady_state_c(board, inputs, rows, ambient)[idx])
    length = seg[1] - seg[0]
    if length >= STEADY_MIN_TAUS * tau_slow and length >= STEADY_WINDOW_S:
        trace = data.temps_c[next(iter(sensors))]
        obs = trace[rows]
        drift = drift_over(t[rows], obs)
        start = trace[a : rows[0] + 1]
        start = start[np.isfinite(start)]
        rise = abs(float(np.nanmean(obs)) - float(start[0])) if len(start) else 0.0
        if drift is not None and abs(drift) <= STEADY_MAX_DRIFT_SHARE * rise:
            return SteadyState(seg, (w0, seg[1]), predicted, float(np.nanmean(obs)), "")
        moved = (
            "too few readings" if drift is None else f"they still move {drift:+.1f} K of a {rise:.1f} K rise"
        )
        note = (
            f"steady state not reached in the log: the readings over the last {t[rows[-1]] - t[rows[0]]:.0f} s of "
            f"the load segment did not settle ({moved}; at most {STEADY_MAX_DRIFT_SHARE:.0%}), although the fitted "
            f"slow time constant {tau_slow:.0f} s says it should have; only the prediction is reported"
        )
        return SteadyState(seg, (w0, seg[1]), predicted, None, note)
    note = (
        f"steady state not reached in the log: the load segment lasts {length:.0f} s < "
        f"{STEADY_MIN_TAUS:g} x the slow time constant {tau_slow:.0f} s; only the prediction is reported"
    )
    return SteadyState(seg, (w0, seg[1]), predicted, None, note)
