"""The anticipation-free bound: judged on every window, a schedule cannot bank heat for one.

The oracle (:mod:`.oracle`) bounds the completions in the steady window, and its optimum idles
before that window to bank the slow nodes' heat capacity, then bursts inside it (on
orin-steady-25 the lowest rung for the whole first half).  A governor that does not know where
a benchmark's window starts cannot do that, so most of its gap to that bound is not control.

Here a schedule is judged on its *worst* window: every window as long as the steady window
whose start lies on the oracle's grid between the run's start and the steady window's start
(the last window is the steady window itself).  The programme maximises the least completions
over those windows (an epigraph variable ``z <= completions(s, s + L)`` for every start ``s``),
so heat banked before one window is spent inside an earlier one.  It is a bound on every
schedule's worst window by the oracle's own argument: any schedule that holds the limits is a
feasible point of the programme with its own least window as ``z``; the luck and batch terms are
those of the steady-window bound, applied to the window where the schedule's fluid work is
least.  It is no bound on the steady window alone (a schedule may trade an early window for the
last), so a policy is scored by :func:`worst_window_ips` beside it, not by its steady-window
throughput.  For a policy that never gets faster as the board warms, the worst window is the
last one, so both scores agree.

*Open-ended* (:func:`extended`): the windows above still end with the run, and the bound knows
when it ends, so it runs cooler just before the last window and bursts in it (the free bound's
banking, moved to the run's end: on rpi5-steady-25 its schedule repeats with the window's
period, cooling from 450 s to 900 s for the window that starts there).  A governor no more knows
when a benchmark stops than where its window starts.  So the world may also be continued past
its end with its final conditions (every event keeps its time, so the ambient, the links, the
fan and the load stay as they ended), every window of the same length up to the new end is
scored, and the policy is judged on that same longer run.  It is the same programme on a longer
scenario, so it is a bound by the same argument; for a schedule run on the longer world, its
worst window there is at most its worst over the original windows, and the bound can only fall
as the horizon grows (on the same grid, a longer horizon adds windows and constraints and
removes none).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np

from thermogov.board import BoardProfile
from thermogov.config import Config
from thermogov.interfaces import ConfigError
from thermogov.sim.compare.oracle import OracleResult, _grid, grid_step_s, oracle, steady_window
from thermogov.sim.compare.samehistory import read_counts

#: The open-ended horizon lasts past the run's end for as long again as the run, and at least this
#: many time constants of the plant's slowest mode (e^-3: within 5 % of its final state).
SETTLE_TAUS = 3.0


def slowest_time_constant_s(config: Config, board: BoardProfile | None = None) -> float:
    """The slowest thermal mode's time constant (s) at the run's start and at its end conditions.

    From the eigenvalues of the plant's exact step over the oracle's grid interval (``Phi``),
    whose links and fan the scenario's events change.
    """
    board = board or config.load_board()
    step = grid_step_s(config)
    grid = _grid(config, board, step)
    taus = [0.0]
    for phi in (grid.phi[0], grid.phi[-1]):
        lam = np.abs(np.linalg.eigvals(phi))
        lam = lam[(lam > 0.0) & (lam < 1.0)]
        taus.extend((-step / np.log(lam)).tolist())
    return float(max(taus))


def _step_for(config: Config, duration_s: float) -> float:
    return grid_step_s(
        dataclasses.replace(config, sim=dataclasses.replace(config.sim, duration_s=duration_s))
    )


def open_factor(config: Config, board: BoardProfile | None = None) -> float:
    """How many times the run the open-ended horizon lasts (see :data:`SETTLE_TAUS`)."""
    d = config.sim.duration_s
    total = float(math.ceil(d + max(d, SETTLE_TAUS * slowest_time_constant_s(config, board))))
    # A whole number of the longer run's grid intervals, so its last window ends with the run.
    while total % (step := _step_for(config, total)):
        total = math.ceil(total / step) * step
    return total / d


def extended(config: Config, factor: float | None = None, board: BoardProfile | None = None) -> Config:
    """``config``'s world run ``factor`` times as long, the final conditions held, same window length.

    Events keep their times (all before the old end), so whatever they set holds to the new end;
    the steady fraction shrinks so the window (and so every scored window) keeps its length, to
    within the longer run's grid step.  ``factor`` None: :func:`open_factor`.
    """
    if factor is None:
        factor = open_factor(config, board)
    if not (math.isfinite(factor) and factor >= 1.0):
        raise ConfigError(f"open-ended horizon: factor must be a finite number >= 1, got {factor!r}")
    sim = config.sim
    length = sim.duration_s - steady_window(config)[0]
    duration = round(sim.duration_s * factor, 6)
    # A hair under the exact fraction, so the recorder's floor lands on the same whole second.
    fraction = (length - 1e-6) / duration
    return dataclasses.replace(
        config, sim=dataclasses.replace(sim, duration_s=duration, steady_fraction=fraction)
    )


def window_starts(config: Config) -> tuple[np.ndarray, float]:
    """The grid instants a window may start at (s) and the windows' length (s)."""
    step = grid_step_s(config)
    n = round(config.sim.duration_s / step)
    first = round(steady_window(config)[0] / step)
    return np.arange(first + 1) * step, (n - first) * step


def worst_window_ips(config: Config, run_dir: Path) -> float | None:
    """A run's least completions per second over the windows of :func:`window_starts`.

    Counted from ``trace.csv``'s cumulative inferences at each window's two edges (the last
    record at or before the edge), so a window holds the whole inferences completed inside it.
    """
    times, totals = read_counts(run_dir)
    if not times:
        return None
    starts, length = window_starts(config)
    t = np.asarray(times)
    c = np.asarray(totals)
    # A run that stopped early (a stopped probe) lacks its last windows.  A run that reached its
    # length may still end up to half a grid step before the last window does (the grid's count
    # of steps is rounded, as the oracle's is): that window then counts the run's last total, a
    # few inferences short over the same length, which can only lower the figure (session 16c).
    if t[-1] < min(starts[-1] + length, config.sim.duration_s) - 1e-6:
        return None

    def count_at(x: np.ndarray) -> np.ndarray:
        return c[np.searchsorted(t, x + 1e-9, side="right") - 1]

    done = count_at(starts + length) - count_at(starts)
    return float(done.min() / length)


def anywindow_bound(config: Config, board: BoardProfile | None = None) -> OracleResult | None:
    """The oracle with ``any_window``: its ``throughput_ips`` bounds :func:`worst_window_ips`.

    None for an open (Poisson, bursty) load: there a stretch of light requests can beat the
    programme's fluid count, and dropped frames break the luck bound's contiguous run, so no
    bound is claimed (as for the same-history bound).
    """
    if config.sim.workload.kind != "saturating":
        return None
    return oracle(config, board, any_window=True)
