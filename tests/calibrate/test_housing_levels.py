"""A training part without a load change still gets its housing chosen, by the log or by a pre-fit.

Before, such a log (an sbc-bench report whose first 40 % are light single-threaded benchmarks)
kept the profile's default housing without looking: a Pi 400 (an aluminium heat spreader on
the SoC) was fitted as a bare board.  Synthetic logs from the simulator's own plant, no real
data needed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from thermogov.board import load_board, with_enclosure
from thermogov.importers.runfolder import write_run_folder
from thermogov.sim.calibration.calibrate import calibrate, load_log_data
from thermogov.sim.calibration.enclosure import housing_named
from thermogov.sim.calibration.steptest import step_log


def _idle_then_step(tmp_path: Path, housing: str):
    """Idle for the whole training part (60 % held out), then a load step: levels only."""
    truth = with_enclosure(load_board("rpi4"), housing)
    run = write_run_folder(step_log(truth, idle_s=300, load_s=300, cool_s=150, seed=5), tmp_path)
    return load_log_data(run.run_dir)


@pytest.mark.parametrize("housing", ["metal-case", "bare"])
def test_the_pre_fit_picks_the_housing_of_an_idle_training_part(tmp_path: Path, housing: str) -> None:
    board = load_board("rpi4")
    assert board.enclosure == "bare"  # the default: the pre-fit, not the default, must pick metal-case
    r = calibrate(_idle_then_step(tmp_path, housing), board, holdout=0.6)
    assert any(n.startswith("no load change in the training part") for n in r.notes)
    assert r.variant == housing
    note = next(n for n in r.notes if n.startswith("enclosure"))
    assert "picked by a pre-fit" in note
    moved = {p.name for p in r.params if p.value != p.prior}
    assert moved <= {"static_scale", "ambient", "initial_offset"}  # still only the idle level


def test_a_declared_housing_is_kept_on_an_idle_training_part(tmp_path: Path) -> None:
    r = calibrate(_idle_then_step(tmp_path, "metal-case"), load_board("rpi4"), holdout=0.6, enclosure="case")
    assert r.variant == "case"
    assert any(n == "enclosure case (declared)" for n in r.notes)


def test_a_pi_400_names_its_heat_spreader() -> None:
    board = load_board("rpi4")
    assert housing_named(board, "Raspberry Pi 400 Rev 1.0") == "metal-case"
    assert housing_named(board, "Raspberry Pi 4 Model B Rev 1.4") is None
    assert housing_named(board, "Raspberry Pi 4000") is None
