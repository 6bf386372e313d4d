"""The forecast's drift weight: < 1 only where the inner validation shows the model's drift is wrong."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.calibrate.settled import clamped
from tests.cliutil import run_cli
from thermogov.board import load_board
from thermogov.importers.runfolder import write_run_folder
from thermogov.sim.calibration.calibrate import calibrate, load_log_data
from thermogov.sim.calibration.model import GridInputs
from thermogov.sim.calibration.shrink import (
    WEIGHTS,
    blend,
    choose_weight,
    comparable,
    exercised,
    held,
    saw_as_much,
    time_under_load,
    toward_level,
)
from thermogov.sim.calibration.steptest import step_log

# where the synthetic board stops warming: inside the inner fit's part of a 40 % training part
CLAMP_S = 500.0


def test_a_smaller_weight_must_beat_the_model_by_the_margin() -> None:
    assert choose_weight({1.0: 1.00, 0.5: 0.97, 0.0: 1.20}) == 1.0  # 3 %: not enough
    assert choose_weight({1.0: 1.00, 0.5: 0.50, 0.0: 0.90}) == 0.5
    assert choose_weight({1.0: 1.00, 0.5: 0.40, 0.0: 0.40}) == 0.5  # a tie goes to the larger weight
    assert choose_weight({1.0: np.nan, 0.0: 0.1}) == 1.0  # nothing to compare against: the model
    assert choose_weight({}) == 1.0


def test_blend_keeps_the_response_and_scales_the_drift() -> None:
    full, drift = np.array([[20.0, 21.0, 23.0]]), np.array([[0.0, 0.5, 1.0]])
    assert np.allclose(blend(full, drift, 1.0), full)
    assert np.allclose(blend(full, drift, 0.0), [[20.0, 20.5, 22.0]])
    assert np.allclose(blend(full, drift, 0.5), [[20.0, 20.75, 22.5]])


def test_held_inputs_stop_changing_at_the_split() -> None:
    pre = GridInputs({"cpu": np.arange(6.0)}, {"cpu": np.arange(6.0) * 10})
    h = held(pre, 2)
    assert h.volt["cpu"].tolist() == [0, 1, 2, 2, 2, 2] and h.dyn_unit["cpu"].tolist() == [
        0,
        10,
        20,
        20,
        20,
        20,
    ]
    assert pre.volt["cpu"].tolist() == [0, 1, 2, 3, 4, 5]  # the original is untouched


def test_the_inner_tail_must_test_what_the_held_out_tail_tests() -> None:
    training = np.array([0.0, 10.0])
    flat, step, small = np.array([5.0, 5.5]), np.array([0.0, 10.0]), np.array([0.0, 3.0])
    assert comparable(flat, step, training)  # a flat inner tail tests the drift alone
    assert comparable(flat, flat, training)
    assert comparable(step, np.array([2.0, 9.0]), training)  # like changes
    assert not comparable(step, flat, training)  # a step's score would stand for a flat tail
    assert not comparable(step, small, training)  # ranges more than RANGE_RATIO apart
    assert not comparable(np.array([]), step, training)


def test_toward_level_scales_only_the_tail() -> None:
    forecast = np.array([[20.0, 21.0, 24.0, 26.0]])
    tail = np.array([False, False, True, True])
    out = toward_level(forecast, np.array([22.0]), tail, 0.5)
    assert out.tolist() == [[20.0, 21.0, 23.0, 24.0]]  # the fit's part stays, the tail halves its deviation
    assert toward_level(forecast, np.array([22.0]), tail, 1.0).tolist() == forecast.tolist()


def test_a_share_is_tested_only_at_the_size_it_is_applied() -> None:
    assert exercised(np.array([1.0, -1.0]), np.array([1.5, 1.5]))
    assert not exercised(np.array([0.05, 0.05]), np.array([2.0, 2.0]))  # a load change the inner tail lacked
    assert not exercised(np.zeros(3), np.zeros(3))
    assert not exercised(np.array([]), np.array([1.0]))


def test_a_training_part_that_ends_mid_rise_does_not_choose() -> None:
    """Load from 10 s: an inner split at 14 s saw 4 s of it, a final split at 20 s sees 10 s."""
    t = np.arange(30.0)
    dyn = np.where(t >= 10, 5.0, 0.0)
    assert time_under_load(t, dyn, 14, 0.5) == 4.0 and time_under_load(t, dyn, 5, 0.5) == 5.0
    assert not saw_as_much(t, dyn, 14, 20, dyn[:21])  # 10 s > 2 x 4 s
    assert saw_as_much(t, dyn, 16, 20, dyn[:21])  # 10 s <= 2 x 6 s
    assert saw_as_much(t, np.ones(30), 14, 20, np.ones(21))  # one load throughout: 14 s vs 20 s


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    board = load_board("rpi4")
    log = step_log(board, idle_s=60, load_s=2000, cool_s=0, seed=5)
    return {
        "own": write_run_folder(log, tmp_path_factory.mktemp("own")).run_dir,
        "settled": write_run_folder(clamped(log, CLAMP_S), tmp_path_factory.mktemp("settled")).run_dir,
    }


def test_a_board_that_settles_early_gets_a_weight_below_one(logs: dict[str, Path]) -> None:
    """Fitted on a rise, the model keeps charging; the board stopped.  With the weight 1 the
    forecast drifts ~0.5 °C above the flat tail; the inner validation sees the same and shrinks it."""
    r = calibrate(load_log_data(logs["settled"]), load_board("rpi4"), holdout=0.6)
    assert r.drift_weight < 1.0
    assert r.rmse_holdout_c is not None and r.rmse_holdout_c < 0.2
    assert any(n.startswith(f"forecast drift weight {r.drift_weight:g} chosen") for n in r.notes)


def test_the_profiles_own_board_keeps_the_model_as_fitted(logs: dict[str, Path]) -> None:
    r = calibrate(load_log_data(logs["own"]), load_board("rpi4"), holdout=0.6)
    assert r.drift_weight == 1.0 and r.level_share == 1.0
    assert r.skill is not None and r.skill > 0.8


def test_cli_reports_the_weight_in_text_and_json(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["calibrate", str(logs["settled"]), "--board", "rpi4", "--holdout", "0.6", "--out", str(tmp_path)]
    code, stdout, _ = run_cli([*args, "--json"], capsys)
    assert code == 0
    doc = json.loads(stdout)
    assert doc["drift_weight"] in WEIGHTS and doc["drift_weight"] < 1.0
    assert (
        0.0 <= doc["level_share"] <= 1.0
    )  # the inner validation's grid, or the evidence's share (evidence.py)
    code, stdout, _ = run_cli(args, capsys)
    assert code == 0
    line = next(ln for ln in stdout.splitlines() if ln.startswith("forecast drift weight"))
    assert line.split()[3] == f"{doc['drift_weight']:g}," and line.split()[6] == f"{doc['level_share']:.2g}"
    assert "drift" not in (tmp_path / "rpi4-calibrated.toml").read_text(encoding="utf-8")  # forecast only
