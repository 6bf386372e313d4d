"""Command-line arguments that point the board commands at a test's own tmp folder.

Every subprocess test of ``run``/``doctor``/``restore`` must keep the fake tree, the journal and
the lock inside its tmp folder, so they share one spelling of those paths (and the daemon's :class:`RunOptions` for tests that
call :func:`thermogov.hw.daemon.run` directly).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from thermogov.config import Config
from thermogov.hw.daemon import RunOptions


def board_paths(tmp: Path, lock_name: str = "run.lock") -> list[str]:
    """``--sysfs-root``, ``--state-dir`` and ``--lock-file`` under ``tmp``."""
    return [
        "--sysfs-root",
        str(tmp / "root"),
        "--state-dir",
        str(tmp / "state"),
        "--lock-file",
        str(tmp / lock_name),
    ]


def run_args(tmp: Path, *extra: str) -> list[str]:
    """The options of a short ``run`` (0.3 s) recording under ``tmp/out``."""
    return [*board_paths(tmp), "--out", str(tmp / "out"), "--duration", "0.3s", *extra]


def run_options(tmp: Path, duration_s: float = 0.5, **kw: Any) -> RunOptions:
    """The daemon's options for a short run of the spec's hysteresis under ``tmp``.

    Hysteresis, because "hot" then means exactly the lowest caps, which the checks rely on.
    """
    base = RunOptions(
        config=Config(policy="hysteresis"),
        sysfs_root=tmp / "root",
        duration_s=duration_s,
        out=tmp / "out",
        state_dir=tmp / "state",
        lock_file=tmp / "run" / "thermogov.lock",
    )
    return dataclasses.replace(base, **kw)
