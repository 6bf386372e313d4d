"""A tiny sweep for the run tests: 8 points of 60 simulated seconds each (well under a second apiece)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

TINY = """\
[sweep]
scenario = "orin-steady-25"
duration = 60
objective = "sustained_ips"
require = ["time_above_trip_s <= 1"]

[grid]
ambient = [25.0, 40.0]
heatsink = [1.0, 0.5]
policy = ["stepped"]
'board.thermal.links.package.lid' = [2.0, 1.0]
"""


@pytest.fixture
def tiny_sweep(tmp_path: Path) -> Path:
    p = tmp_path / "tiny-sweep.toml"
    p.write_text(TINY, encoding="utf-8")
    return p


def read_table(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def ledger_rows(out: Path) -> list[dict[str, str]]:
    path = out / "runs" / "runs.csv"
    return read_table(path) if path.exists() else []
