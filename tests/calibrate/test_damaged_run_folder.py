"""A damaged run folder or a fit that runs away, through the installed ``thermogov calibrate``:
found by the fuzz campaign (docs/importing.md, "Adversarial inputs")."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from tests.cliutil import run_cli_completed
from thermogov.sim.calibration.cli import _runs_away
from thermogov.sim.calibration.steady import SteadyState

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    p = thermogov("import", str(LOGS / "sbcbench_rpi5_8-NK_excerpt.txt"), "--out", str(out))
    assert p.returncode == 0, p.stderr
    (run,) = [d for d in out.iterdir() if d.is_dir()]
    return run


@pytest.mark.parametrize("summary", ["{", "", "\x00\x01"], ids=["cut", "empty", "binary"])
def test_a_summary_that_is_no_json_is_bad_input_not_an_internal_error(
    imported: Path, tmp_path: Path, summary: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    shutil.copytree(imported, run)
    (run / "summary.json").write_text(summary, encoding="utf-8")
    args = ["calibrate", str(run), "--out", str(tmp_path / "out")]
    # the cut file through the installed script (the exit-status contract), the others in-process
    p = thermogov(*args) if summary == "{" else run_cli_completed(args, capsys)
    assert "--board" in one_line_error(p, "summary.json")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("predicted", "runs_away"),
    [(1.03e23, True), (math.inf, True), (math.nan, True), (301.0, True), (80.0, False)],
)
def test_a_steady_state_past_runaway_is_reported_as_runaway_not_as_a_number(
    predicted: float, runs_away: bool
) -> None:
    """A 2-minute log fitted the paths to ambient at their floor and printed 1.03e23 °C."""
    steady = SteadyState((0.0, 60.0), (30.0, 60.0), predicted, None, "")
    assert _runs_away(steady) is runs_away
