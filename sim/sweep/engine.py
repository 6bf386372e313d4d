"""Run a validated sweep on an executor and write its table.

Layout of the output folder::

    OUT/results.csv, OUT/results.parquet   the table (see table.py)
    OUT/runs/<point_id>/                   each point's ordinary run folder
    OUT/runs/runs.csv                      the ledger, one row per run

The table is rewritten whenever the sweep stops, including on Ctrl-C, so an interrupted sweep
leaves a table of what finished and ``--resume`` picks up the rest.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from thermogov.sim.sweep import table
from thermogov.sim.sweep.executors import Executor
from thermogov.sim.sweep.point import PointResult, PointTask, run_point
from thermogov.sim.sweep.spec import Sweep


@dataclass
class SweepRun:
    sweep: Sweep
    out_dir: Path
    results: dict[str, PointResult] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    best: dict[str, Any] | None = None
    paths: list[Path] = field(default_factory=list)
    wall_s: float = 0.0
    complete: bool = False

    @property
    def failed(self) -> int:
        return sum(1 for r in self.results.values() if not r.ok)

    @property
    def reused(self) -> int:
        return sum(1 for r in self.results.values() if r.reused)

    @property
    def ran(self) -> int:
        return sum(1 for r in self.results.values() if not r.reused)


def tasks(sweep: Sweep, out_dir: Path, resume: bool) -> list[PointTask]:
    runs = str((out_dir / table.RUNS_DIR).resolve())
    return [
        PointTask(p.point_id, p.world.config.to_dict(), p.world.board_data, runs, resume)
        for p in sweep.points
    ]


def run_sweep(
    sweep: Sweep,
    executor: Executor,
    out_dir: Path,
    *,
    resume: bool = False,
    on_result: Callable[[PointResult], None] | None = None,
) -> SweepRun:
    run = SweepRun(sweep, out_dir)
    items = tasks(sweep, out_dir, resume)
    started = time.monotonic()
    try:
        for i, outcome in executor.imap_unordered(run_point, items):
            pid = items[i].point_id
            res = outcome.value if outcome.ok else PointResult(pid, False, error=outcome.error)
            run.results[pid] = res
            if on_result is not None:
                on_result(res)
        run.complete = len(run.results) == len(items)
    finally:
        run.wall_s = time.monotonic() - started
        run.rows = table.rows(sweep, run.results)
        run.best = table.best(sweep, run.rows)
        run.paths = table.write(sweep, run.rows, out_dir)
    return run


def probe_s_per_sim_s(sweep: Sweep, probe_s: float = 60.0) -> tuple[float, float]:
    """Wall seconds per simulated second, from a short run of the first point (no folder).

    Returns ``(rate, probe_wall_s)``.  The rate is for one worker; a sweep's estimate is the
    sum over points of duration x rate, divided by the workers.
    """
    from thermogov.sim.model.runner import simulate

    world = sweep.points[0].world
    cfg = world.config
    d = min(cfg.sim.duration_s, probe_s)
    events = tuple(e for e in cfg.sim.events if e.at_s <= d)
    cfg = dataclasses.replace(cfg, sim=dataclasses.replace(cfg.sim, duration_s=d, events=events))
    with tempfile.TemporaryDirectory(prefix="thermogov-probe-") as tmp:  # folder writes cost too
        t0 = time.monotonic()
        simulate(cfg, world.board, Path(tmp), run_id="probe")
        wall = time.monotonic() - t0
    return wall / d, wall
