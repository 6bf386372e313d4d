"""Command-line arguments that point the board commands at a test's own tmp folder.

Every subprocess test of ``run``/``doctor``/``restore`` must keep the fake tree, the journal and
the lock inside its tmp folder, so they share one spelling of those paths.
"""

from __future__ import annotations

from pathlib import Path


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
