"""How much of a policy's gap to the bound is its control, and how much its own past.

The oracle (:mod:`.oracle`) may idle before the steady window and bank the slow nodes' heat
capacity (a carrier board, a battery: time constants of 20-40 minutes), then burst inside it.
A governor that does not know where a benchmark's window starts cannot do that, and should
not: it would give up work it could have done.  The *same-history* bound takes a policy's run,
makes the programme complete at least the work that policy had completed by every instant
before the window, and leaves the window free.  The policy's window throughput over it is the
share of the best any schedule with that past could do: its control, with its history held
equal.  The rest of the gap to the bound is the heat its past left in the board.
"""

from __future__ import annotations

import csv
from pathlib import Path

from thermogov.board import BoardProfile
from thermogov.config import Config
from thermogov.sim.compare.oracle import grid_step_s, interval_rates, oracle


def read_counts(run_dir: Path) -> tuple[list[float], list[float]]:
    """``(t_s, inferences_total)`` from a run folder's ``trace.csv``."""
    times: list[float] = []
    totals: list[float] = []
    with (Path(run_dir) / "trace.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            times.append(float(row["t_s"]))
            totals.append(float(row["inferences_total"]))
    return times, totals


def same_history_ips(config: Config, run_dir: Path, board: BoardProfile | None = None) -> float | None:
    """The same-history bound for the run in ``run_dir`` (None for an open load or no schedule).

    ``None`` also when the policy's own past breaks a constraint the programme keeps (it spent
    time above the trip or at a hard limit), so no schedule holding them has that past.
    """
    if config.sim.workload.kind != "saturating":
        return None
    step = grid_step_s(config)
    n = round(config.sim.duration_s / step)
    times, totals = read_counts(run_dir)
    res = oracle(config, board, history_ips=interval_rates(times, totals, step, n))
    return res.throughput_ips
