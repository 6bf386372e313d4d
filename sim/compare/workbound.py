"""Keep the oracle a bound when service times are random: the luckiest run of requests.

The oracle's programme is fluid: it completes work at the cost model's *mean* time per
inference.  The world's requests each carry a work multiplier (mean 1,
:mod:`thermogov.sim.model.servicetime`), so a policy that happens to serve a stretch of
lighter-than-average requests in the steady window completes more than the fluid count.  A
FIFO server completes a contiguous run of requests (whole batches of ``k`` in a saturating
stream), so no run can complete more than the longest contiguous run of the world's own
draws whose work fits in the fluid work: that count is the bound.  The per-batch overhead is
not random, so treating all the time as scaled by the work can only overstate the luck.
"""

from __future__ import annotations

import math

import numpy as np

from thermogov.board import BoardProfile
from thermogov.config import Config
from thermogov.sim.model.servicetime import ServiceDraws, spread_for


def work_prefix(config: Config, board: BoardProfile, n_requests: int) -> np.ndarray:
    """Prefix sums of the world's per-batch work for its first ``n_requests`` (its stream)."""
    w = config.sim.workload
    k = w.batch_size if w.kind == "saturating" else 1
    seeds = np.random.SeedSequence(config.seed).spawn(2 + len(board.sensors))
    draws = ServiceDraws(spread_for(board.model, w), np.random.default_rng(seeds[1]))
    n_batches = max(1, math.ceil(n_requests / k))
    per_batch = draws.take(n_batches * k).reshape(n_batches, k).sum(axis=1)
    return np.concatenate([[0.0], np.cumsum(per_batch)])


def lucky_completions(config: Config, board: BoardProfile, fluid_done: float, n_requests: int) -> float:
    """Most inferences any contiguous run of the world's requests completes in ``fluid_done`` of work.

    ``n_requests`` bounds how many requests the whole run can reach (at the top clocks).
    Identity when the service has no spread.
    """
    w = config.sim.workload
    if spread_for(board.model, w).deterministic or fluid_done <= 0.0:
        return fluid_done
    k = w.batch_size if w.kind == "saturating" else 1
    prefix = work_prefix(config, board, max(n_requests, math.ceil(fluid_done) + k))
    total_batches = len(prefix) - 1
    budget = fluid_done + 1e-9  # in items of mean work; a batch of k averages k

    def lightest(b: int) -> float:
        return float(np.min(prefix[b:] - prefix[:-b]))

    lo, hi = 0, total_batches  # lo fits, hi may not
    if lightest(hi) <= budget:
        return float(hi * k)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if lightest(mid) <= budget:
            lo = mid
        else:
            hi = mid
    # A batch straddling the window's edge is the oracle's own ``+ batch``, added after this.
    return max(fluid_done, float(lo * k))


def lucky_ratio(config: Config, board: BoardProfile, fluid_done: float, n_requests: int) -> float:
    """How many times the fluid count the luckiest run completes (>= 1; 1 without spread)."""
    if fluid_done <= 0.0:
        return 1.0
    return lucky_completions(config, board, fluid_done, n_requests) / fluid_done
