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

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "allcore.py"
REPORT = REPO / "tests" / "data" / "logs" / "external" / "sbcbench_jetson-nano_1I4j.txt"


def test_each_section_gets_its_steps_and_the_all_core_ones_are_held_out(jetson_run: str) -> None:
    out = json.loads(jetson_run)
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


def _run(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH), "--data", str(folder), "--json", *extra],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="module")
def jetson_run(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The bench's JSON on a folder holding only the Jetson report: one subprocess shared by the
    tests that each check a part of that same output (the bench is deterministic on one file)."""
    folder = tmp_path_factory.mktemp("jetson")
    shutil.copy(REPORT, folder / REPORT.name)
    res = _run(folder)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_a_forced_housing_refits_only_the_forecast(tmp_path: Path) -> None:
    """``--enclosure`` swaps the housing of the fit: the measured steps stay, the label and forecast follow it."""
    pi4 = REPO / "tests" / "data" / "logs" / "external" / "sbcbench_rpi4_3EgS.txt"
    shutil.copy(pi4, tmp_path / pi4.name)
    shutil.copy(REPORT, tmp_path / REPORT.name)  # a Jetson: its profile has neither Pi housing
    picked = _run(tmp_path)
    assert picked.returncode == 0, picked.stderr
    rows_picked = [r for r in json.loads(picked.stdout)["rows"] if r["log"] == pi4.name]
    # force the one of two rpi4 housings the pre-fit did not pick, whichever the profile favours
    other = "metal-case" if rows_picked[0]["board"] == "rpi4 (bare)" else "bare"
    forced = _run(tmp_path, "--enclosure", other)
    assert forced.returncode == 0, forced.stderr
    assert f"has no housing '{other}'; skipped" in forced.stderr
    rows_forced = json.loads(forced.stdout)["rows"]
    assert {r["log"] for r in rows_forced} == {pi4.name}
    assert all(r["board"] == f"rpi4 ({other})" for r in rows_forced)
    assert [r["section"] for r in rows_forced] == [r["section"] for r in rows_picked]
    for a, b in zip(rows_picked, rows_forced, strict=True):
        assert a["measured_rise_k"] == b["measured_rise_k"]
        assert a["early_measured_k"] == b["early_measured_k"]
        assert a["early_after_s"] is not None and a["early_after_s"] > 0
    # another housing is another fit, so some forecast must differ
    assert any(
        a["forecast_rise_k"] != b["forecast_rise_k"] for a, b in zip(rows_picked, rows_forced, strict=True)
    )


def test_the_model_power_of_a_section_follows_its_busy_cores(jetson_run: str) -> None:
    rows = {r["section"]: r for r in json.loads(jetson_run)["rows"]}
    single, multi = rows["7-zip single core benchmark"], rows["7-zip multi core benchmark"]
    assert single["dyn_power_w"] > 0
    # the same clocks, more busy cores: more dynamic power; only the Arm cores' load is logged, so the
    # power is the proxy times one constant (C_dyn · cores · the fitted scale) in both sections
    ratio_w = multi["dyn_power_w"] / single["dyn_power_w"]
    ratio_proxy = multi["proxy"] / single["proxy"]
    assert ratio_w > 2 and abs(ratio_w / ratio_proxy - 1) < 0.01


def test_the_residuals_split_the_held_out_error_over_the_phases(tmp_path: Path) -> None:
    """``--residuals``: every held-out reading in one phase, so the shares of squared error add to one
    and the phases run in the report's order, the first one included."""
    pi4 = REPO / "tests" / "data" / "logs" / "external" / "sbcbench_rpi4_3EgS.txt"
    shutil.copy(pi4, tmp_path / pi4.name)
    res = _run(tmp_path, "--residuals")
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)["residuals"]
    assert rows and {r["log"] for r in rows} == {pi4.name}
    assert abs(sum(r["sq_share"] for r in rows) - 1.0) < 1e-9
    assert rows[0]["section"] == "tinymembench"  # the first phase has no step, but it has residuals
    assert rows[-1]["section"] == "7-zip multi core benchmark"
    for r in rows:
        assert r["rows"] >= 1 and 0.0 <= r["sq_share"] <= 1.0
        if r["rows"] == 1:  # one reading: its error is the phase's mean, first and last
            assert r["first_error_k"] == r["mean_error_k"] == r["last_error_k"]
