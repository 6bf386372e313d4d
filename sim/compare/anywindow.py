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
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from thermogov.board import BoardProfile
from thermogov.config import Config
from thermogov.sim.compare.oracle import OracleResult, grid_step_s, oracle, steady_window
from thermogov.sim.compare.samehistory import read_counts


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
    if t[-1] < starts[-1] + length - 1e-6:
        return None  # the run ended early (a stopped probe): not every window exists

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
