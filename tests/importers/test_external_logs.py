"""Every log in tests/data/logs/external stays usable by the fidelity bench.

The folder holds whole third-party logs (permissive licences, SOURCES.md beside them) that
``python bench/fidelity.py --data tests/data/logs/external`` calibrates.  A log that stopped
importing, lost its temperature or its provenance entry would silently drop out of the bench's
table, so each is checked here: it imports, the calibration's reader takes it, its temperature
changes (a flat log drives nothing), and SOURCES.md names it.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from thermogov.importers import parse_log
from thermogov.sim.calibration.calibrate import load_log_data

EXTERNAL = Path(__file__).resolve().parents[2] / "tests" / "data" / "logs" / "external"
LOGS = sorted(p for p in EXTERNAL.iterdir() if p.is_file() and p.suffix != ".md")
MIN_SWING_C = 2.0  # far above the 0.1-1 °C quantisation of the sensors these loggers read
# The rule the logs were chosen by (docs/real-logs.md): an sbc-bench monitor of at least 20 rows;
# older reports sample every 20-120 s, so 20 rows already span 12-15 minutes.
MIN_ROWS = 20


def test_the_folder_has_logs() -> None:
    assert LOGS, f"{EXTERNAL}: no logs"


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_imports_with_a_changing_temperature(path: Path) -> None:
    log = parse_log(path)
    temps = [v for s in log.samples for v in s.temps_c.values() if math.isfinite(v)]
    assert len(log.samples) >= MIN_ROWS and len(temps) >= MIN_ROWS
    assert max(temps) - min(temps) >= MIN_SWING_C
    times = [s.t_s for s in log.samples]
    assert times == sorted(times) and times[-1] - times[0] >= 300.0  # minutes, not a snapshot
    data = load_log_data(path)
    assert len(data.t_s) == len(log.samples)


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_listed_in_sources(path: Path) -> None:
    assert f"## {path.name}" in (EXTERNAL / "SOURCES.md").read_text(encoding="utf-8")
