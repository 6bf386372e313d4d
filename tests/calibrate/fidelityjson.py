"""One row of ``bench/fidelity.py --json`` on a committed external log, as a user runs it.

Tests of the figures the bench prints beside each log (tie band, tail parts) read them from
the bench's own JSON, so the script's wiring is tested with the module, on a log in
``tests/data`` (always present, unlike the real logs).
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
EXTERNAL = REPO / "tests" / "data" / "logs" / "external"


def bench_row(only: str) -> dict[str, Any]:
    """The single JSON row ``bench/fidelity.py --data EXTERNAL --only ONLY --json`` prints."""
    (row,) = json.loads(_bench_json(only))["rows"]
    return dict(row)


@functools.cache
def _bench_json(only: str) -> str:
    """The bench's output for ``only``, run once per test process: it is a pure function of the
    committed log and the code under test, and each caller parses its own copy (a fresh dict, so
    no test sees another's changes).  Two test files ask for the same log (3Lpf)."""
    cmd = [
        sys.executable,
        str(REPO / "bench" / "fidelity.py"),
        "--data",
        str(EXTERNAL),
        "--only",
        only,
        "--json",
    ]
    return subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=REPO).stdout
