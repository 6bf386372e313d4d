"""Housings the pre-fit cannot tell apart are chosen by a forecast inside the training part (session 31f).

The pre-fit ranks housings by their cost on the training part; within one parameter's Akaike price
(``enclosure.TIE_COST``) the cost says nothing, and the fit's own forward validation may choose.
The ranking itself is tested with a stand-in pre-fit (no fit run); the real tie-break on one real
stressberry log, skipped without ``THERMOGOV_REAL_DATA``.
"""

from __future__ import annotations

import pytest

from tests.realdata import REAL_DATA, absent
from thermogov.board import BoardProfile, load_board
from thermogov.sim.calibration.enclosure import TIE_COST, choose_enclosure

COSTS = {"bare": 10.0, "case": 10.0 + TIE_COST / 2, "metal-case": 10.0 + TIE_COST, "fan-heatsink": 30.0}


def _choose(tiebreak=None) -> tuple[BoardProfile, str | None, list[list[str]]]:
    """rpi4's housings ranked by the stand-in costs above; what the tie-break was asked, in order."""
    asked: list[list[str]] = []

    def spy(board: BoardProfile, near: list[str]) -> tuple[str, str] | None:
        asked.append(list(near))
        return None if tiebreak is None else tiebreak(board, near)

    board = load_board("rpi4")
    chosen, note = choose_enclosure(
        None,  # the stand-in pre-fit reads no data
        board,
        lambda b: b.enclosure,
        lambda name: COSTS[name],
        ranked=list(COSTS),
        tiebreak=spy,
    )
    return chosen, note, asked


def test_the_tie_break_sees_only_the_housings_within_the_tie_cost_cheapest_first() -> None:
    chosen, note, asked = _choose()
    assert asked == [["bare", "case"]]  # metal-case sits exactly at TIE_COST: not a tie
    assert chosen.enclosure == "bare"  # a tie-break that declines leaves the cheapest
    assert note is not None and "picked by a pre-fit" in note


def test_the_tie_break_choice_is_kept_and_named() -> None:
    chosen, note, _asked = _choose(lambda _b, near: (near[-1], "by the stand-in's word"))
    assert chosen.enclosure == "case"
    assert note is not None and note.startswith("enclosure case: the pre-fit cannot tell bare, case apart")
    assert "by the stand-in's word" in note


def test_no_tie_no_tie_break() -> None:
    board = load_board("rpi4")
    calls: list[list[str]] = []
    chosen, _note = choose_enclosure(
        None,
        board,
        lambda b: b.enclosure,
        lambda name: {"bare": 1.0, "case": 5.0, "metal-case": 9.0}[name],
        ranked=["bare", "case", "metal-case"],
        tiebreak=lambda _b, near: calls.append(near) or ("case", "never"),
    )
    assert calls == [] and chosen.enclosure == "bare"


def test_a_real_rise_picks_the_housing_that_forecasts_it() -> None:
    """The Argon One stressberry log (Pi 4 at 1950 MHz): the pre-fit puts four housings within 0.8
    of each other (metal-case cheapest); the gains fitted on the training part's first 70 % forecast
    the rest a third better in bare, and the held-out RMSE goes 1.145 -> 0.668 °C (docs/calibration.md,
    Session 31f)."""
    path = REAL_DATA / "rpi_4b_stressberry_argon-one-oc1950.dat"
    if not path.is_file():
        pytest.skip(absent(path))
    from thermogov.sim.calibration.calibrate import calibrate, load_log_data

    r = calibrate(load_log_data(path), load_board("rpi4"), holdout=0.6)
    note = next(n for n in r.notes if n.startswith("enclosure"))
    assert r.variant == "bare", note
    assert "forecast the rest best" in note
    assert r.rmse_holdout_c is not None and r.rmse_holdout_c < 1.0
