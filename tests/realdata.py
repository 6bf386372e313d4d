"""Where the tests find real board logs that may not be copied into the repository.

Most public logs carry no licence (or GPL/AGPL), so they stay outside the clone.  The tests
read them only from ``$THERMOGOV_REAL_DATA`` (point it at your own logs; docs/real-logs.md) and
skip with the reason when it is unset or the log is not there.  No default folder: a user's
clone has nothing beside it, and a guessed path outside the repository would make a test's
outcome depend on where the clone happens to sit.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REAL_DATA_ENV = "THERMOGOV_REAL_DATA"


UNSET = Path(f"<{REAL_DATA_ENV} unset>")


def real_data_dir() -> Path:
    """The folder of real logs, or a path that names the missing variable (so every skip says it)."""
    configured = os.environ.get(REAL_DATA_ENV)
    return Path(configured) if configured else UNSET


REAL_DATA = real_data_dir()


def absent(path: Path) -> str:
    """The skip reason for a real log that is not there: what is missing and how to supply it."""
    return (
        f"{path} absent (set {REAL_DATA_ENV} to a folder of the real logs, docs/real-logs.md): "
        "licence forbids copying it into the repo"
    )
