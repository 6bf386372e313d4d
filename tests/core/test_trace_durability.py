"""Trace durability: what a ``kill -9`` at any instant can lose.

What is on disk after ``flush`` is what survives ``kill -9`` (the page cache is the kernel's),
so the tests read the file after every row and measure the missing tail, under a clock the
test drives: a daemon ticking at 10 Hz in wall time, and a simulator that runs simulated
hours in a frozen wall second.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from thermogov import trace
from thermogov.governor import TickRecord
from thermogov.trace import TraceSchema, TraceWriter


class FakeWall:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _rec(t_s: float) -> TickRecord:
    return TickRecord(t_s, 50.0, (50.0,), "cpu", "normal", (1_000_000,), (1_000_000,), 1.0, 0, "")


def _on_disk(path: Path) -> int:
    return path.read_text().count("\n") - 1  # minus the header


@pytest.fixture
def wall(monkeypatch: pytest.MonkeyPatch) -> FakeWall:
    clock = FakeWall()
    monkeypatch.setattr(trace.time, "monotonic", clock)
    return clock


def test_a_crashed_run_loses_at_most_one_second(tmp_path: Path, wall: FakeWall) -> None:
    w = TraceWriter(tmp_path / "trace.csv", TraceSchema(("cpu",), ("cpu",)))
    worst_s = 0.0
    for k in range(1, 3001):  # 5 minutes at 10 Hz
        wall.t += 0.1
        w.tick(_rec(k * 0.1))
        lost_rows = k - _on_disk(w.path)
        worst_s = max(worst_s, lost_rows * 0.1)
    assert worst_s <= 1.0 + 1e-9
    assert worst_s >= 0.5  # it does buffer (no write per row)


@pytest.mark.parametrize("period_s,rows", [(0.1, 36_000), (0.02, 20_000), (1.0, 3_000)])
def test_a_killed_sim_loses_at_most_1_percent_or_10_simulated_seconds(
    tmp_path: Path, wall: FakeWall, period_s: float, rows: int
) -> None:
    w = TraceWriter(tmp_path / "trace.csv", TraceSchema(("cpu",), ("cpu",)))
    written = 0
    for k in range(1, rows + 1):  # the wall clock never moves: only run time bounds the loss
        w.tick(_rec(k * period_s))
        if k % 97 == 0 or k == rows:  # reading the file after every row would be quadratic
            written = _on_disk(w.path)
            lost = k - written
            allowed = max(0.01 * k, 10.0 / period_s)
            assert lost <= allowed + 1, (k, lost, allowed)
    assert written < rows  # the tail is still buffered: flushes are not per row
    w.close()
    assert _on_disk(w.path) == rows
