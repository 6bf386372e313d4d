"""The benches that print the causal targets over a seed set (``sim/compare/seedcausal.py``).

Split from ``test_seedcausal.py`` (session 32k): each bench is a subprocess running a seed race,
and under ``--dist loadfile`` a file's tests share one worker, so with the in-process bound check
they made the suite's longest file.  Here they may run beside it on the other worker.
"""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: The LP is solved to HiGHS's tolerance and relinearised per round: "tighter" is judged to this.
REL = 1e-3


def _bench(args: list[str], tmp_path: Path) -> str:
    out = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_the_seed_race_prints_the_causal_block_per_seed(tmp_path: Path) -> None:
    """``control_quality.py --seeds`` end to end on a short fan failure: the block and its CSV."""
    text = _bench(
        [
            str(REPO / "bench" / "control_quality.py"),
            *("--scenario", "orin-fan-failure", "--duration", "420", "--seeds", "1-2"),
            *("--policy", "hysteresis,stepped", "--no-iso-limit", "--extend", "1.5", "--jobs", "1"),
            *("--csv", str(tmp_path / "rows.csv")),
        ],
        tmp_path,
    )
    assert "causal targets over the seeds:" in text
    line = next(x for x in text.splitlines() if x.strip().startswith("orin-fan-failure") and "tightest" in x)
    assert "[event 300 s] tightest (causal_open)" in line and "per seed 1:" in line and " 2:" in line
    rows = list(csv.DictReader((tmp_path / "rows-causal.csv").open()))
    assert [r["seed"] for r in rows] == ["1", "2"]
    assert all(r["tightest"] == "causal_open" and float(r["causal_open_ips"]) > 0 for r in rows)
    assert all(float(r["causal_ips"]) <= float(r["anywindow_ips"]) * (1 + REL) for r in rows)


def test_stepped_seeds_judges_every_row_on_its_tightest_bound(tmp_path: Path) -> None:
    """``bench/stepped_seeds.py`` on a short family fan failure: a line per stepped row."""
    text = _bench(
        [
            str(REPO / "bench" / "stepped_seeds.py"),
            *("--world", "fan-failure-jetson-xavier-nx", "--family-scale", "0.1", "--seeds", "1-2"),
            *("--candidate", "margin_c=2", "--extend", "1.5", "--jobs", "1"),
        ],
        tmp_path,
    )
    assert "causal targets over the seeds:" in text
    for row in ("default", "margin_c=2"):
        line = next(x for x in text.splitlines() if x.strip().startswith(row) and "tightest" in x)
        assert "[event 36 s] tightest (causal_open)" in line, line
    assert "causal misses:" in text
