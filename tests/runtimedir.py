"""The runtime folder of every thermogov a test or a bench starts: never the real /run/thermogov.

The daemon keeps its per-board locks, its caps record, ``state.json`` and the ``inferences``
counter in ``$THERMOGOV_LOCK_DIR`` (else ``/run/thermogov``, thermogov/client.py).  The tests'
autouse fixture (tests/conftest.py) sets it for every test, but a bench is no test, and a child
started with an environment built from scratch (or before the fixture ran) had none: session 29i
found ``board-*.lock``, ``caps-*`` and ``inferences`` of benches' fake trees in the real folder.
Every subprocess helper (tests/hw/procutil.py, tests/cli/script.py, tests/hw/faultshim.py) passes
:func:`child_env`, and every bench that starts a daemon calls :func:`isolated_runtime_dir` first.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

RUNTIME_ENV = "THERMOGOV_LOCK_DIR"
REAL_RUNTIME_DIR = Path("/run/thermogov")
_made: list[Path] = []  # this process's own folder, made once


def _is_real(value: str) -> bool:
    return not value or os.path.realpath(value) == os.path.realpath(REAL_RUNTIME_DIR)


def isolated_runtime_dir() -> Path:
    """``$THERMOGOV_LOCK_DIR`` when it names a folder other than /run/thermogov; else a fresh
    temporary folder, put in this process's environment (so in-process runs use it too)."""
    value = os.environ.get(RUNTIME_ENV, "")
    if not _is_real(value):
        return Path(value)
    if not _made:
        _made.append(Path(tempfile.mkdtemp(prefix="thermogov-runtime-")))
    os.environ[RUNTIME_ENV] = str(_made[0])
    return _made[0]


def child_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's) with ``THERMOGOV_LOCK_DIR`` set to a folder that is not
    /run/thermogov: the environment every helper gives a thermogov it starts."""
    base = dict(os.environ if env is None else env)
    if _is_real(base.get(RUNTIME_ENV, "")):
        base[RUNTIME_ENV] = str(isolated_runtime_dir())
    return base
