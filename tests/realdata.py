"""Where the tests find real board logs that may not be copied into the repository.

Most public logs carry no licence (or GPL/AGPL), so they stay outside the clone.  The tests
read them from ``$THERMOGOV_REAL_DATA`` (point it at your own logs; docs/real-logs.md) or, by
default, from the development team's data folder beside the clone, and skip with the reason
when neither exists.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REAL_DATA_ENV = "THERMOGOV_REAL_DATA"


def real_data_dir() -> Path:
    """The folder of real logs: the environment variable wins over the default beside the clone."""
    configured = os.environ.get(REAL_DATA_ENV)
    return Path(configured) if configured else REPO.parent / "shared" / "data" / "real"


REAL_DATA = real_data_dir()


def absent(path: Path) -> str:
    """The skip reason for a real log that is not there: what is missing and how to supply it."""
    return (
        f"{path} absent (set {REAL_DATA_ENV} to a folder of the real logs, docs/real-logs.md): "
        "licence forbids copying it into the repo"
    )
