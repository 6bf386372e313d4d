"""A constant derived from the logs is scored on a log it was not chosen on (sim/calibration/factorloo.py,
bench/activityloo.py): each log's value comes from the other logs, never from itself."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from thermogov.sim.calibration.factorloo import leave_one_out

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "activityloo.py"
EXTERNAL = REPO / "tests" / "data" / "logs" / "external"


def test_each_log_is_scored_at_the_value_the_others_choose() -> None:
    grid = {0.5: {"a": 0.2, "b": 3.0, "c": 2.0}, 1.0: {"a": 2.0, "b": 1.0, "c": 1.0}}
    rows = {r.log: r for r in leave_one_out(grid, 1.0)}
    # a left out: b + c sum 5.0 at 0.5 and 2.0 at 1.0, so a is scored at 1.0, not at its own best 0.2
    assert (rows["a"].chosen, rows["a"].rmse_c) == (1.0, 2.0)
    assert (rows["b"].chosen, rows["b"].rmse_c) == (0.5, 3.0)  # a + c: 2.2 at 0.5, 3.0 at 1.0
    assert (rows["c"].chosen, rows["c"].rmse_c) == (1.0, 1.0)  # a + b: 3.2 at 0.5, 3.0 at 1.0
    assert all(r.rmse_profile_c == grid[1.0][r.log] for r in rows.values())


def test_a_failed_fit_makes_its_value_ineligible_and_ties_go_to_the_profile() -> None:
    grid = {0.5: {"a": 0.1, "b": math.nan}, 0.8: {"a": 1.0, "b": 1.0}, 1.0: {"a": 1.0, "b": 1.0}}
    rows = leave_one_out(grid, 1.0)
    assert [r.chosen for r in rows] == [1.0, 1.0]  # 0.5 failed on b; 0.8 and 1.0 tie
    with pytest.raises(ValueError, match="profile"):
        leave_one_out({0.5: {"a": 1.0}}, 1.0)


def test_the_bench_scores_each_report_at_the_factor_of_the_others(tmp_path: Path) -> None:
    for name in ("sbcbench_rpi4_3InF.txt", "sbcbench_rpi4_3EgS.txt"):
        shutil.copy(EXTERNAL / name, tmp_path / name)
    cmd = [sys.executable, str(BENCH), "--data", str(tmp_path), "--board", "rpi4"]
    cmd += ["--workload", "tinymembench latency", "--factors", "0.7", "--json"]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["profile_factor"] == 1.0 and set(out["grid"]) == {"0.7", "1"}
    grid = {float(k): v for k, v in out["grid"].items()}
    for row in out["rows"]:
        other = next(n for n in grid[1.0] if n != row["log"])
        best = min(grid, key=lambda f, o=other: (grid[f][o], abs(f - 1.0)))
        assert row["chosen"] == best
        assert row["rmse_c"] == grid[best][row["log"]]
    total = out["totals"]
    assert total["loo_sum_c"] == pytest.approx(sum(r["rmse_c"] for r in out["rows"]))


def test_bad_factors_are_a_one_line_error(tmp_path: Path) -> None:
    cmd = [sys.executable, str(BENCH), "--data", str(tmp_path), "--board", "rpi4", "--workload", "x"]
    res = subprocess.run([*cmd, "--factors", "0.5,nan"], capture_output=True, text=True, check=False)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "--factors" in res.stderr
