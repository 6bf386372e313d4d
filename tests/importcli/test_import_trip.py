"""An imported log is judged against a trip like a governed run: time above it and its episodes.

The figures are recomputed here from the log's own rows (each value held until the next row),
independently of the run-folder writer, so a change in how the writer integrates shows.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from tests.cliutil import run_cli_completed


def _csv_log(path: Path, temps: list[float], step_s: float) -> Path:
    rows = ["time,temp"] + [f"{i * step_s:.1f},{t:.1f}" for i, t in enumerate(temps)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _expected(temps: list[float], step_s: float, trip: float) -> tuple[float, int]:
    """Seconds at or above the trip (row value held until the next row), and the stretches."""
    seconds = sum(step_s for t in temps[:-1] if t >= trip)
    stretches = sum(1 for i, t in enumerate(temps) if t >= trip and (i == 0 or temps[i - 1] < trip))
    return seconds, stretches


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_time_above_trip_and_episodes_match_the_rows(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    temps = [60.0 + 30.0 * rng.random() for _ in range(80)]
    trip, step_s = 80.0, 2.0
    log = _csv_log(tmp_path / "log.csv", temps, step_s)
    p = thermogov("import", str(log), "--out", str(tmp_path / "runs"), "--trip", str(trip), "--json")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)["summary"]
    seconds, stretches = _expected(temps, step_s, trip)
    assert s["trip_c"] == trip
    assert s["time_above_trip_s"] == pytest.approx(seconds)
    assert s["mitigation_episodes_total"] == stretches
    # An episode still open at the last row ends there: the durations add up to the time above.
    assert s["mitigation_time_s"] == pytest.approx(seconds)
    assert all(e["min_c"] >= trip for e in s["mitigation_episodes"])


def test_default_trip_is_the_spec_trip_and_the_table_says_so(tmp_path: Path) -> None:
    temps = [70.0, 84.0, 86.0, 88.0, 84.9, 70.0]
    log = _csv_log(tmp_path / "log.csv", temps, 1.0)
    p = thermogov("import", str(log), "--out", str(tmp_path / "runs"))
    assert p.returncode == 0, p.stderr
    lines = {ln[:20].strip(): ln[20:].strip() for ln in p.stdout.splitlines()}
    assert lines["time above trip"] == "2.00 s (trip 85 °C)"
    assert lines["mitigation episodes"].startswith("1, 2.00 s in all")


@pytest.mark.parametrize("bad", ["nan", "inf", "500", "-100"])
def test_a_trip_that_no_run_could_have_is_refused(
    tmp_path: Path, bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _csv_log(tmp_path / "log.csv", [60.0, 61.0, 62.0], 1.0)
    out = tmp_path / "runs"
    args = ["import", str(log), "--out", str(out), f"--trip={bad}"]
    # the first case through the installed script (the exit-status contract), the others in-process
    p = thermogov(*args) if bad == "nan" else run_cli_completed(args, capsys)
    one_line_error(p, "--trip")
    assert not out.exists() or not any(out.iterdir())
