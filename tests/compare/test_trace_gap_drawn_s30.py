"""``bench/trace_gap.py --drawn``: two policies traced on a world drawn fresh, not only the suite's.

Session 29c traced draw 2026's world 19 with a throwaway script because the bench took suite
scenarios only; session 30c added ``--drawn`` with the draw's own options.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "trace_gap.py"
WORLD = [
    "--drawn",
    "19",
    "--draw-seed",
    "2026",
    "--draw-exclude",
    "jetson-orin-nano-super",
    "--family-scale",
    "0.5",
]


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BENCH), *args], capture_output=True, text=True, check=False)


def test_a_drawn_world_is_traced_with_its_drawn_parameters() -> None:
    r = _bench(*WORLD, "--policy", "hysteresis,stepped", "--duration", "600")
    assert r.returncode == 0, r.stderr
    assert "draw 2026 world 19: d2026-19-fan-failure-jetson-orin-nano-devkit" in r.stdout
    assert "fan stall at 521.8 s" in r.stdout  # the drawn parameters, as control_quality prints them
    assert "expected >trip s: hysteresis" in r.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--drawn", "0"], "--drawn counts worlds from 1"),
        (["--drawn", "3", "--scenario", "orin-fan-failure"], "give one of them"),
        ([*WORLD[:2], "--draw-exclude", "no-such-board"], "--draw-exclude: unknown board"),
        ([*WORLD, "--duration", "300"], "after the end of the run"),  # a traceback before 30c
        ([], "give --scenario NAME or --drawn N"),
    ],
)
def test_bad_worlds_are_one_line_and_exit_2(args: list[str], says: str) -> None:
    r = _bench(*args, "--policy", "hysteresis,stepped")
    assert r.returncode == 2
    assert says in r.stderr and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
