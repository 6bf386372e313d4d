"""A log whose setup name says a passive cooler sits on the SoC starts the fit in the profile's
``passive-heatsink`` housing, which no pre-fit ranks (docs/calibration.md, thirteenth session)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from thermogov.board import load_board
from thermogov.sim.calibration.data import LogData, load_log_data
from thermogov.sim.calibration.enclosure import candidates, housing_of_setup, says_passive_cooler
from thermogov.sim.calibration.fit import _housing

HOUSING = "passive-heatsink"

DOCUMENT = """# This file was created by stressberry v0.2.2 on 2019-12-17 15:44:35.871284
name: {name}
time: [1576590000.0, 1576590002.0, 1576590004.0, 1576590006.0]
temperature: [31.0, 31.5, 32.0, 32.5]
cpu frequency: [600.0, 1500.0, 1500.0, 1500.0]
ambient: []
"""


@pytest.mark.parametrize(
    "setup",
    [
        "Ice Tower (fan off)",
        "Armor Case",
        "black armour case, fans switched off",
        "FLIRC case",
        "passive heatsink",
        "fanless aluminium heat-sink case",
        "tower cooler, fan unplugged",
        "Pi 4 in a case with its fan at 0%",
    ],
)
def test_names_that_say_a_passive_cooler(setup: str) -> None:
    assert says_passive_cooler(setup)


@pytest.mark.parametrize(
    "setup",
    [
        "Ice Tower (fan on)",
        "Argon One case, fan 100%",
        "Armour case with dual fan",  # an armour case sold with fans, running
        "Joy-It alu case with PiFan",
        "no case",
        "no case, no fan",  # nothing on the SoC: no fan is no cooler
        "naked",
        "acrylic case",
        "heatsink",  # a stick-on heatsink is no heavy body
        "KKSB aluminium case",  # an aluminium case by itself may not touch the SoC
        "fan offset test",
        "armored cable",
        "",
    ],
)
def test_names_that_do_not(setup: str) -> None:
    assert not says_passive_cooler(setup)


def test_the_setup_reaches_a_housing_no_pre_fit_ranks_and_only_where_the_profile_has_it() -> None:
    rpi4 = load_board("rpi4")
    assert HOUSING not in candidates(rpi4)
    assert housing_of_setup(rpi4, "Ice Tower (fan off)") == HOUSING
    assert housing_of_setup(rpi4, "Ice Tower (fan on)") is None
    # the Pi 3 profile has no such housing: its Flirc run is left to the pre-fit
    assert housing_of_setup(load_board("rpi3"), "FLIRC case") is None


def _log(setup: str) -> LogData:
    t = np.arange(4.0)
    return LogData(t, {"cpu": t + 40.0}, {}, {}, None, "synthetic", setup=setup)


def test_the_fit_starts_in_the_housing_the_setup_says_unless_one_is_declared() -> None:
    board = load_board("rpi4")

    def no_pre_fit(_: object) -> object:
        raise AssertionError("the setup name decides: no pre-fit")

    housed, note = _housing(_log("Armor Case"), board, None, no_pre_fit, lambda _: None)
    assert "sink" in housed.thermal.node_names()
    assert note is not None and "'Armor Case'" in note and HOUSING in note
    declared, note = _housing(_log("Armor Case"), board, "case", lambda b: b, lambda _: None)
    assert "sink" not in declared.thermal.node_names()
    assert note == "enclosure case (declared)"


def test_the_setup_name_reaches_the_calibration_raw_and_imported(tmp_path: Path) -> None:
    from thermogov.importers import parse_log
    from thermogov.importers.runfolder import write_run_folder

    log = tmp_path / "run.dat"
    log.write_text(DOCUMENT.format(name="Ice Tower (fan off)"), encoding="utf-8")
    imported = parse_log(log)
    assert imported.setup == "Ice Tower (fan off)"
    assert imported.model == ""  # a setup is not a product name
    assert load_log_data(log).setup == "Ice Tower (fan off)"
    run = write_run_folder(imported, tmp_path / "runs")
    assert load_log_data(run.run_dir).setup == "Ice Tower (fan off)"
