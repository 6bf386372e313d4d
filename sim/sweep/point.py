"""One sweep point, run as a normal simulated run: its own run folder and ledger row.

:func:`run_point` is what an executor ships to a worker process (local or on a Dask cluster),
so its argument and result are small plain dataclasses of built-in types, and it never raises:
a point that fails comes back as an error row, and the other points carry on.  A run folder
is complete once its ``summary.json`` exists (the recorder writes it atomically, last), which
is what ``--resume`` trusts; an incomplete folder (a worker killed mid-run) is removed and the
point runs again from scratch.
"""

from __future__ import annotations

import dataclasses
import shutil
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from thermogov.runs import load_summary
from thermogov.sim.sweep.figures import from_summary

BOARD_FILE = "board.toml"


@dataclass(frozen=True, slots=True)
class PointTask:
    point_id: str
    config: dict[str, Any]  # Config.to_dict() of the resolved point
    board: dict[str, Any] | None  # edited board tables, when the sweep varies the board
    runs_dir: str  # the folder that holds every point's run folder and the ledger
    resume: bool = False


@dataclass(frozen=True, slots=True)
class PointResult:
    point_id: str
    ok: bool
    figures: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    reused: bool = False
    wall_s: float = 0.0
    cpu_s: float = 0.0  # this thread's CPU time: what the point cost, whatever else the machine ran


def is_complete(run_dir: Path, point_id: str) -> bool:
    try:
        return load_summary(run_dir).get("run_id") == point_id
    except (OSError, ValueError):
        return False


def run_point(task: PointTask) -> PointResult:
    """Run (or, resuming, reuse) one point; every failure is returned, none raised."""
    started, cpu0 = time.monotonic(), time.thread_time()
    run_dir = Path(task.runs_dir) / task.point_id
    try:
        if task.resume and is_complete(run_dir, task.point_id):
            summary = load_summary(run_dir)
            return PointResult(task.point_id, True, from_summary(summary), reused=True)
        summary = _simulate(task, run_dir)
        return PointResult(
            task.point_id,
            True,
            from_summary(summary),
            wall_s=time.monotonic() - started,
            cpu_s=time.thread_time() - cpu0,
        )
    except Exception as e:
        where = traceback.extract_tb(e.__traceback__)[-1] if e.__traceback__ else None
        at = f" (at {Path(where.filename).name}:{where.lineno})" if where else ""
        msg = f"{type(e).__name__}: {e}{at}".replace("\n", " ")
        return PointResult(task.point_id, False, error=msg, wall_s=time.monotonic() - started)


def _simulate(task: PointTask, run_dir: Path) -> dict[str, Any]:
    from thermogov.board import parse_board
    from thermogov.config import parse_config
    from thermogov.sim.model.runner import simulate
    from thermogov.tomlwrite import dumps

    if run_dir.exists():  # a previous attempt's partial folder, or a run replaced without --resume
        shutil.rmtree(run_dir)
    cfg = parse_config(task.config, task.point_id)
    board = None
    if task.board is not None:
        run_dir.mkdir(parents=True)
        path = run_dir / BOARD_FILE
        path.write_text(dumps(task.board), encoding="utf-8")
        board = parse_board(task.board, str(path))
        # The run's config.toml then names this profile, so it reproduces the point on its own.
        cfg = dataclasses.replace(cfg, board_file=str(path))
    return simulate(cfg, board, run_dir.parent, run_id=task.point_id).summary


__all__ = ["PointResult", "PointTask", "is_complete", "run_point"]
