"""The profile of the fit's cost along one pinned parameter (sim/calibration/ridge.py).

A stressberry-shaped synthetic log (150 s idle, 300 s of load, 150 s of cool-down, rpi4 plant
with a slower, weaker path to air than the prior's) fitted on its first 40 %: the training part
ends 90 s into the rise, the case the ninth session diagnosed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import OptimizeResult

from thermogov.board import load_board
from thermogov.importers.runfolder import write_run_folder
from thermogov.interfaces import ConfigError
from thermogov.sim.calibration.calibrate import load_log_data
from thermogov.sim.calibration.data import LogData
from thermogov.sim.calibration.fit import FitProblem, _fit
from thermogov.sim.calibration.ridge import pinned, profile
from thermogov.sim.calibration.steptest import step_log, with_thermal

SLOW_GAIN = "G[board-ambient]"


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> LogData:
    truth = with_thermal(load_board("rpi4"), {"board": 150.0}, {}, {"board": 0.25})
    run = write_run_folder(step_log(truth, idle_s=150, load_s=300, cool_s=150), tmp_path_factory.mktemp("r"))
    return load_log_data(Path(run.run_dir))


def fitted(data: LogData, holdout: float) -> tuple[FitProblem, OptimizeResult]:
    prob = FitProblem.build(data, load_board("rpi4"), holdout=holdout, ambient_c=25.0)
    return prob, _fit(prob, lambda _m: None)[0]


@pytest.fixture(scope="module")
def mid_rise(log: LogData) -> tuple[FitProblem, OptimizeResult]:
    return fitted(log, 0.6)


def test_pinned_at_the_optimum_is_the_optimum(mid_rise: tuple[FitProblem, OptimizeResult]) -> None:
    prob, res = mid_rise
    optimum = profile(prob, res, SLOW_GAIN, [1.0])[0]
    own = prob.forecast_parts(prob.expand(res.x), drift=False).full[0]
    assert abs(optimum.cost_rise) < 1e-3
    np.testing.assert_allclose(optimum.forecast_c, own, atol=0.01)


def test_the_cost_rises_away_from_the_optimum_and_the_pinned_value_is_used(
    mid_rise: tuple[FitProblem, OptimizeResult],
) -> None:
    prob, res = mid_rise
    near, far = profile(prob, res, SLOW_GAIN, [1.4, 2.0])
    assert -1e-6 < near.cost_rise < far.cost_rise
    assert far.values[SLOW_GAIN] == pytest.approx(2.0 * near.values[SLOW_GAIN] / 1.4)
    assert not np.allclose(near.forecast_c, far.forecast_c)  # the pinned gain reaches the forecast


def test_a_training_part_that_ends_mid_rise_says_less_about_the_slow_gain(
    log: LogData, mid_rise: tuple[FitProblem, OptimizeResult]
) -> None:
    """The same log fitted on 90 % (the whole rise and most of the cool-down) pins the path to air
    much more firmly than its first 40 % does."""
    short = profile(*mid_rise, SLOW_GAIN, [2.0])[0].cost_rise
    long = profile(*fitted(log, 0.1), SLOW_GAIN, [2.0])[0].cost_rise
    assert long > 2.0 * short


def test_refusals_name_the_parameter(mid_rise: tuple[FitProblem, OptimizeResult]) -> None:
    prob, res = mid_rise
    with pytest.raises(ConfigError, match=r"'G\[nowhere\]' is not in this fit.*G\[board-ambient\]"):
        pinned(prob, res, "G[nowhere]", 1.0)
    held = next(s.name for s in prob.specs if s.fixed)
    with pytest.raises(ConfigError, match="held at the profile's value"):
        pinned(prob, res, held, 1.0)
    with pytest.raises(ConfigError, match=r"G\[board-ambient\]: must be a finite number above 0"):
        pinned(prob, res, SLOW_GAIN, -0.1)


@pytest.mark.parametrize("factors", ["x", "0.5,-2", ""])
def test_the_bench_refuses_bad_factors_in_one_line(factors: str) -> None:
    bench = Path(__file__).resolve().parents[2] / "bench" / "ridge.py"
    got = subprocess.run(
        [sys.executable, str(bench), "--factors", factors], capture_output=True, text=True, check=False
    )
    assert got.returncode == 2
    assert got.stderr.startswith("--factors:") and got.stderr.count("\n") == 1
