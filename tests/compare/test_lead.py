"""The lead over the best tuned baseline, and the room the bound leaves for any lead.

``bench/control_quality.py`` printed the margin over the better of step_wise@iso and
power_allocator@iso only, and never said whether a short margin was the candidate's or the
bound's: the lead table names the best of all three tuned baselines and the bound's own lead
over it, so "below 5 %" reads as a gap or as out of reach.
"""

from __future__ import annotations

import runpy
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from thermogov.sim.compare.compare import RunRow, write_csv
from thermogov.sim.compare.lead import lead_lines, leads, rows_from_csv

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "control_quality.py"


def _row(policy: str, ips: float, *, bound: float = 110.0, fused: float = 85.1, **kw: object) -> RunRow:
    base = RunRow(
        scenario="w",
        board="jetson-orin-nano",
        policy=policy,
        seed=1,
        ambient_c=25.0,
        sustained_ips=ips,
        oracle_ips=bound,
        max_fused_c=fused,
        max_sensor_c={},
        above_trip_s=0.0,
        hard_limit_s=0.0,
        energy_per_inference_j=None,
        p99_ms=None,
        cap_changes=0,
        run_dir="",
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def test_bang_bang_counts_and_a_baseline_that_broke_its_bound_does_not() -> None:
    rows = [
        _row("hysteresis", 90.0),
        _row("step_wise@iso", 95.0, iso_bound_s=0.1, tuned_trip_c=80.0),
        _row("bang_bang@iso", 100.0, iso_bound_s=0.1, tuned_trip_c=81.0),
        # Faster, but its search found no trip that held the bound: no yardstick.
        _row("power_allocator@iso", 104.0, iso_bound_s=0.1, above_trip_s=3.0, tuned_trip_c=60.0),
        _row("stepped", 103.0),
    ]
    (lead,) = leads(rows)
    assert lead.best == "bang_bang@iso"
    assert lead.lead_pct == pytest.approx(3.0)
    assert lead.room_pct == pytest.approx(10.0)
    assert lead.verdict.startswith("short")


def test_a_bound_within_the_aim_says_no_policy_can_lead_by_it() -> None:
    rows = [_row("step_wise@iso", 100.0, iso_bound_s=0.1, bound=103.0), _row("stepped", 102.0, bound=103.0)]
    (lead,) = leads(rows)
    assert lead.room_pct == pytest.approx(3.0)
    assert "no policy can lead" in lead.verdict
    assert "out of reach (room < 5%) 1" in lead_lines(rows)[-1]


def test_a_scenario_below_the_trip_is_listed_not_judged() -> None:
    rows = [_row("step_wise", 100.0, fused=70.0), _row("stepped", 101.0, fused=70.0)]
    line = lead_lines(rows)[2]
    assert "not judged" in line
    assert "aim met 0; short where the bound allows it 0; out of reach" in lead_lines(rows)[-1]


def test_the_report_prints_the_lead_table() -> None:
    report = runpy.run_path(str(BENCH), run_name="control_quality_under_test")["report"]
    rows = [_row("bang_bang@iso", 100.0, iso_bound_s=0.1), _row("stepped", 106.0)]
    text = "\n".join(report(rows, "stepped"))
    assert "lead over the best tuned baseline" in text
    assert "bang_bang@iso" in text.split("lead over the best tuned baseline")[1]


def test_lead_from_a_csv_reprints_the_table_and_a_bad_file_is_exit_2(tmp_path: Path) -> None:
    rows = [_row("power_allocator@iso", 100.0, iso_bound_s=0.1), _row("stepped", 106.0)]
    path = tmp_path / "rows.csv"
    write_csv(rows, path)
    assert [(r.policy, r.sustained_ips, r.iso_bound_s) for r in rows_from_csv(path)] == [
        ("power_allocator@iso", 100.0, 0.1),
        ("stepped", 106.0, None),
    ]
    done = subprocess.run(
        [sys.executable, str(BENCH), "--lead-from", str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "+6.0%" in done.stdout and "aim met" in done.stdout
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(BENCH), "--lead-from", str(bad)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "--lead-from" in done.stderr and "Traceback" not in done.stderr
