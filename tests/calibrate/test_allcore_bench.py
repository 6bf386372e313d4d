"""``bench/allcore.py``: each benchmark section of an sbc-bench report gets its forecast and measured step.

Run on one report that ships with the repo (Jetson Nano 1I4j: 7-zip multi and cpuminer in the
held-out part), so the table that docs/calibration.md's ninth session quotes is what the bench
computes from the fit, section by section and in the report's order.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "allcore.py"
REPORT = REPO / "tests" / "data" / "logs" / "external" / "sbcbench_jetson-nano_1I4j.txt"


def test_each_section_gets_its_steps_and_the_all_core_ones_are_held_out(tmp_path: Path) -> None:
    shutil.copy(REPORT, tmp_path / REPORT.name)
    res = subprocess.run(
        [sys.executable, str(BENCH), "--data", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    sections = [r["section"] for r in out["rows"]]
    # the first section has no reading before it to measure a step from
    assert sections == [
        "OpenSSL benchmark",
        "7-zip single core benchmark",
        "7-zip multi core benchmark",
        "cpuminer",
    ]
    rows = {r["section"]: r for r in out["rows"]}
    for r in out["rows"]:
        assert abs(r["step_error_k"] - (r["forecast_rise_k"] - r["measured_rise_k"])) < 1e-9
    assert rows["cpuminer"]["held_out"] and rows["7-zip multi core benchmark"]["held_out"]
    assert not rows["OpenSSL benchmark"]["held_out"]
    # the all-core sections load the cores: more proxy power than the single-threaded ones
    assert rows["7-zip multi core benchmark"]["proxy"] > 2 * rows["7-zip single core benchmark"]["proxy"]
    assert set(out["summary"]) >= {"jetson 7zip-multi", "jetson cpuminer"}


def test_a_missing_folder_is_said_and_skipped(tmp_path: Path) -> None:
    res = subprocess.run(
        [sys.executable, str(BENCH), "--data", str(tmp_path / "none"), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert res.returncode == 0 and json.loads(res.stdout)["rows"] == []
    assert "no real logs here" in res.stderr
