"""Model size chosen inside the training part: ties go to the smaller model, a short log gets one."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from thermogov.board import load_board
from thermogov.importers.runfolder import write_run_folder
from thermogov.sim.calibration.calibrate import calibrate, load_log_data
from thermogov.sim.calibration.model import param_specs
from thermogov.sim.calibration.select import LADDER, choose, head, reduced
from thermogov.sim.calibration.steptest import step_log


def test_ties_go_to_the_smaller_model() -> None:
    assert choose({"full": 0.50, "gains": 0.51, "levels": 0.52}) == "levels"


def test_a_larger_model_wins_only_by_the_margin() -> None:
    assert choose({"full": 0.30, "gains": 0.80, "levels": 0.90}) == "full"
    assert choose({"full": 0.30, "gains": 0.31, "levels": 0.90}) == "gains"
    assert choose({"full": np.nan, "gains": 0.6, "levels": 0.9}) == "gains"
    assert choose({}) == LADDER[0][0]


def test_each_rung_holds_its_kinds_at_the_profile() -> None:
    specs = param_specs(load_board("rpi4"), ("cpu",), True, 25.0)
    free = {rung: {s.kind for s in reduced(specs, rung) if not s.fixed} for rung, _ in LADDER}
    assert {"capacitance", "link", "ambient_link", "dyn_scale"} <= free["full"]
    assert "capacitance" not in free["gains"] and "ambient_link" in free["gains"]
    assert free["levels"] == {"static_scale", "ambient", "offset"}


def test_head_keeps_only_the_first_rows(tmp_path) -> None:
    data = load_log_data(
        write_run_folder(step_log(load_board("rpi4"), idle_s=30, load_s=30, cool_s=30), tmp_path).run_dir
    )
    part = head(data, 40)
    assert len(part.t_s) == 40 and all(len(v) == 40 for v in part.temps_c.values())
    assert np.array_equal(part.t_s, data.t_s[:40])


@pytest.fixture(scope="module")
def short_log_fit(tmp_path_factory: pytest.TempPathFactory):
    """A short step on a board the profile describes exactly: more parameters cannot forecast better."""
    board = load_board("rpi4")
    run = write_run_folder(
        step_log(board, idle_s=100, load_s=120, cool_s=200, seed=7), tmp_path_factory.mktemp("r")
    )
    return calibrate(load_log_data(run.run_dir), board, holdout=0.3)


def test_a_short_log_of_the_profiles_own_board_gets_a_smaller_model(short_log_fit) -> None:
    note = next(n for n in short_log_fit.notes if n.startswith("model size"))
    assert "'full' chosen" not in note
    fitted_caps = [p for p in short_log_fit.params if p.name.startswith("C[") and p.value != p.prior]
    assert fitted_caps == []  # the smaller model keeps the capacitances at the profile's values
    assert short_log_fit.rmse_holdout_c is not None and short_log_fit.rmse_holdout_c < 0.5


def test_a_training_part_without_a_load_change_fits_only_the_idle_level(tmp_path) -> None:
    """The load starts after the split: the forecast is the profile's, said in a note, never refused."""
    board = load_board("rpi4")
    run = write_run_folder(step_log(board, idle_s=300, load_s=300, cool_s=150, seed=2), tmp_path)
    r = calibrate(load_log_data(run.run_dir), board, holdout=0.6)
    assert any(n.startswith("no load change in the training part") for n in r.notes)
    moved = {p.name for p in r.params if p.value != p.prior}
    assert moved <= {"static_scale", "ambient", "initial_offset"}
    assert r.skill is not None and r.skill > 0.5  # the profile is this board: its forecast of the step holds


def test_a_sparse_log_gives_one_reason_for_the_kept_capacitances(tmp_path) -> None:
    """Every 20th reading of a step: the note names sparsity, not unseen fast modes, as the reason."""
    board = load_board("rpi4")
    log = step_log(board, idle_s=300, load_s=900, cool_s=600, seed=4)
    sparse = replace(log, samples=log.samples[::20])
    r = calibrate(load_log_data(write_run_folder(sparse, tmp_path).run_dir), board, holdout=0.4)
    assert any(n.startswith("only ") and "readings in the training part" in n for n in r.notes)
    assert not any("faster than a quarter of the sample interval" in n for n in r.notes)
    assert all(p.value == p.prior for p in r.params if p.name.startswith("C["))
