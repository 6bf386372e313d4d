"""Where a log cannot choose between housings, the board's maker's housings decide (session 32f).

The pre-fit puts housings within one parameter's Akaike price (``enclosure.TIE_COST``) in a tie;
where the forecast check cannot judge them (a training part too short to split: an sbc-bench
report), the first of the tie the board's maker sells (``[board] maker_housings``) is chosen.  The
rule is tested with a stand-in pre-fit (no fit run); the profile field's check in-process and through
the installed script; the whole fit on one external sbc-bench report kept in the repository.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runtimedir import child_env
from thermogov import tomlread
from thermogov.board import BoardProfile, load_board, parse_board
from thermogov.interfaces import ConfigError
from thermogov.sim.calibration.enclosure import TIE_COST, choose_enclosure

REPO = Path(__file__).resolve().parents[2]
RPI4_TOML = REPO / "thermogov/boards/rpi4.toml"
# a third-party housing cheapest, a maker's housing inside the tie, another outside it
COSTS = {"metal-case": 10.0, "bare": 10.0 + TIE_COST / 2, "case": 10.0 + 2 * TIE_COST, "fan-heatsink": 40.0}


def _choose(board: BoardProfile, tiebreak=None, costs: dict[str, float] = COSTS) -> tuple[str, str]:
    chosen, note = choose_enclosure(
        None,  # the stand-in pre-fit reads no data
        board,
        lambda b: b.enclosure,
        lambda name: costs[name],
        ranked=list(costs),
        tiebreak=tiebreak,
    )
    assert note is not None
    return chosen.enclosure, note


def test_the_rpi4_profile_names_the_housings_raspberry_pi_sells() -> None:
    assert load_board("rpi4").maker_housings == ("bare", "case", "fan-heatsink")


def test_a_tie_the_log_cannot_judge_goes_to_the_makers_housing() -> None:
    name, note = _choose(load_board("rpi4"), tiebreak=lambda _b, _near: None)
    assert name == "bare"
    assert note.startswith("enclosure bare: the pre-fit cannot tell metal-case, bare apart")
    assert "the log cannot judge them" in note and "maker's housings (bare, case, fan-heatsink)" in note


def test_without_a_tie_break_the_prior_still_decides_the_tie() -> None:
    """Levels-only fits and ``select=False`` run no forecast check: the log cannot judge there either."""
    assert _choose(load_board("rpi4"))[0] == "bare"


def test_a_judged_tie_keeps_the_judgement() -> None:
    """A forecast check that kept the cheapest is a judgement the prior does not overrule."""
    name, note = _choose(load_board("rpi4"), tiebreak=lambda _b, near: (near[0], "kept"))
    assert name == "metal-case"
    assert note.startswith("enclosure metal-case picked by a pre-fit")


def test_the_prior_never_overrules_a_clear_pre_fit() -> None:
    costs = {"metal-case": 10.0, "bare": 10.0 + TIE_COST, "case": 20.0, "fan-heatsink": 40.0}
    assert _choose(load_board("rpi4"), costs=costs)[0] == "metal-case"


def test_a_profile_without_maker_housings_keeps_the_cheapest() -> None:
    board = dataclasses.replace(load_board("rpi4"), maker_housings=())
    assert _choose(board)[0] == "metal-case"


def test_a_maker_housing_the_board_lacks_is_refused_naming_the_field() -> None:
    table = tomlread.loads(RPI4_TOML.read_text(encoding="utf-8"))
    table["board"]["maker_housings"] = ["bare", "tower"]
    with pytest.raises(ConfigError, match=r"board\.maker_housings names 'tower', which is no housing"):
        parse_board(table, "rpi4.toml")


def test_the_installed_script_refuses_the_profile_with_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "pi4.toml"
    text = RPI4_TOML.read_text(encoding="utf-8")
    bad.write_text(text.replace('maker_housings = ["bare",', 'maker_housings = ["tower",', 1), encoding="utf-8")
    script = Path(sys.executable).with_name("thermogov")
    proc = subprocess.run(
        [str(script), "sim", "--board", str(bad), "--duration", "1", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "maker_housings names 'tower'" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_the_calibrated_profile_carries_the_prior() -> None:
    from thermogov.sim.calibration.profile import board_to_dict

    board = load_board("rpi4")
    assert parse_board(board_to_dict(board), "out.toml").maker_housings == board.maker_housings


def test_a_sparse_pi4_report_in_a_tie_gets_the_bare_board() -> None:
    """sbc-bench 3VME (external, a Pi 4 B, 9 training readings): the pre-fit puts metal-case 0.2 under
    bare; the report is too short to split, so bare stands and the held-out RMSE goes 2.18 -> 1.91 °C
    (docs/calibration.md, Session 32f)."""
    from thermogov.sim.calibration.calibrate import calibrate, load_log_data

    data = load_log_data(REPO / "tests/data/logs/external/sbcbench_rpi4_3VME.txt")
    r = calibrate(data, load_board("rpi4"), holdout=0.6)
    note = next(n for n in r.notes if n.startswith("enclosure"))
    assert r.variant == "bare", note
    assert "the log cannot judge them" in note
