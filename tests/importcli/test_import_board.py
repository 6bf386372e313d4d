"""`thermogov import` sets the board the log names, says which profile it used, and speaks
the common options (`--board NAME|FILE`, `--json`) through the installed script."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from thermogov.board import builtin_board_names
from thermogov.importers import stressberry
from thermogov.importers.models import board_from_model, profile_for

DATA = Path(__file__).resolve().parents[1] / "data" / "logs"
BOARDS = Path(__file__).resolve().parents[2] / "thermogov" / "boards"


def _stressberry(name: str) -> str:
    return (
        "# This file was created by stressberry v0.3.1 on 2020-06-19 12:55:06\n"
        f"name: {name}\n"
        "time: [0.0, 2.0, 4.0, 6.0]\n"
        "temperature: [40.0, 45.0, 50.0, 52.0]\n"
        "cpu frequency: [600.0, 1500.0, 1500.0, 1500.0]\n"
    )


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("Raspberry Pi 4 Model B Rev 1.4", "rpi4"),
        ("Raspberry Pi 5 Model B Rev 1.0", "rpi5"),
        ("Raspberry Pi 400 Rev 1.0", "rpi400"),
        ("Raspberry Pi Compute Module 5 Rev 1.0", "rpi-cm5"),
        ("RPi 4 Model B Rev 1.4 / BCM2711 rev B0", "rpi4"),  # sbc-bench >= 0.9 title
        ("RPi 400 Rev 1.0 / BCM2711 rev C0", "rpi400"),
        ("RPi Compute Module 4 Rev 1.0 / BCM2711 rev C0", "rpi-cm4"),
        ("my test rig", None),
    ],
)
def test_model_names_map_to_families(text: str, family: str | None) -> None:
    assert board_from_model(text) == family


def test_families_map_to_a_builtin_profile_or_say_why_not() -> None:
    names = builtin_board_names()
    assert profile_for("rpi5", names) == ("rpi5", "named by the log")
    name, why = profile_for("rpi400", names)
    assert name == "rpi4" and "rpi400" in why and "same SoC" in why
    name, why = profile_for("rock5b", names)
    assert name is None and "rock5b" in why and "--board" in why
    name, why = profile_for(None, names)
    assert name is None and "--board" in why


def test_stressberry_run_name_sets_the_board_hint() -> None:
    assert stressberry.parse_text(_stressberry("Raspberry Pi 4 Model B, no case")).board_hint == "rpi4"
    assert stressberry.parse_text(_stressberry("no case")).board_hint is None


def test_import_of_a_named_pi_log_uses_its_profile(tmp_path: Path) -> None:
    log = tmp_path / "run.dat"
    log.write_text(_stressberry("Raspberry Pi 5 in the official case"))
    p = thermogov("import", str(log), "--out", str(tmp_path / "runs"), "--json")
    assert p.returncode == 0, p.stderr
    info = json.loads(p.stdout)
    assert info["board"] == "rpi5" and info["board_profile"] == "rpi5"
    assert json.loads((Path(info["run_dir"]) / "summary.json").read_text())["board"] == "rpi5"


def test_import_of_an_sbcbench_pi5_report_sets_rpi5(tmp_path: Path) -> None:
    p = thermogov("import", str(DATA / "sbcbench_rpi5_8-NK_excerpt.txt"), "--out", str(tmp_path), "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["board_profile"] == "rpi5"


def test_import_table_says_which_profile_was_used(tmp_path: Path) -> None:
    log = tmp_path / "run.dat"
    log.write_text(_stressberry("Raspberry Pi 400 on the desk"))
    p = thermogov("import", str(log), "--out", str(tmp_path / "runs"))
    assert p.returncode == 0, p.stderr
    board_line = next(ln for ln in p.stdout.splitlines() if ln.startswith("board"))
    assert "rpi4" in board_line and "rpi400" in board_line and "same SoC" in board_line
    log.write_text(_stressberry("bench rig"))
    p = thermogov("import", str(log), "--out", str(tmp_path / "runs"))
    board_line = next(ln for ln in p.stdout.splitlines() if ln.startswith("board"))
    assert "unknown" in board_line and "--board" in board_line


def test_import_board_file_and_deprecated_alias(tmp_path: Path) -> None:
    log = tmp_path / "run.dat"
    log.write_text(_stressberry("bench rig"))
    for flag in ("--board", "--board-file"):
        p = thermogov("import", str(log), flag, str(BOARDS / "rpi4.toml"), "--out", str(tmp_path), "--json")
        assert p.returncode == 0, p.stderr
        assert json.loads(p.stdout)["board_profile"] == "rpi4"
    assert "deprecated" in p.stderr


def test_import_refuses_a_board_file_that_is_not_toml(tmp_path: Path) -> None:
    log = tmp_path / "run.dat"
    log.write_text(_stressberry("bench rig"))
    p = thermogov("import", str(log), "--board", str(log), "--out", str(tmp_path / "runs"))
    one_line_error(p, "--board")
    assert not (tmp_path / "runs").exists()
