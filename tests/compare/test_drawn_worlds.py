"""``bench/drawn_worlds.py``: worlds drawn fresh from the families, for a held-out audit.

Session 16c raced the default on them.  A draw that moved with the machine, repeated a world, put
a time-path family back on the boards the defaults were cross-validated on, or placed a world
where no policy has to govern (full clocks never reach the trip) or none can (the lowest caps
do not hold it) would make that audit say nothing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from thermogov.config import Config
from thermogov.sim.scenarios.families import TRIP_C, holdable_ambient_c
from thermogov.steadystate import fused_c, steady_state_c

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import drawn_worlds as dw  # noqa: E402

INDICES = list(range(1, 17))  # two cycles of the families


@pytest.fixture(scope="module")
def worlds() -> list[dw.Drawn]:
    return dw.drawn_worlds(5, INDICES)


def test_a_world_is_fixed_by_its_seed_and_index_alone(worlds: list[dw.Drawn]) -> None:
    again = {w.index: w for w in dw.drawn_worlds(5, [11, 3])}
    assert again[3].config == worlds[2].config and again[11].config == worlds[10].config
    other = dw.drawn_worlds(6, [3])[0]
    assert other.config != worlds[2].config
    assert len({w.name for w in worlds}) == len(worlds)


def test_every_family_of_the_cycle_is_drawn_as_often_as_the_cycle_says(worlds: list[dw.Drawn]) -> None:
    counts = {f: sum(1 for w in worlds if w.family == f) for f in dw.CYCLE}
    assert counts == {f: 2 * dw.CYCLE.count(f) for f in dw.CYCLE}


def test_time_path_families_avoid_the_cross_validated_boards_and_modelled_fans(
    worlds: list[dw.Drawn],
) -> None:
    for w in worlds:
        board = w.config.load_board()
        if w.family in ("ambient-ramp-up", "ambient-ramp-down", "day-night", "load-switch"):
            assert w.config.board not in dw.CROSSVAL_BOARDS, w.name
        if w.family != "fan-failure":
            assert board.fan is None, w.name


def _warmest_ambient(w: dw.Drawn) -> float:
    return max([w.config.sim.ambient_c, *(e.value for e in w.config.sim.events if e.kind == "ambient")])


def test_every_world_is_one_the_lowest_caps_can_hold(worlds: list[dw.Drawn]) -> None:
    for w in worlds:
        board = w.config.load_board()
        if w.family == "fan-failure" and board.fan is None:
            (ev,) = w.config.sim.events
            board = dw._still_air(board, ev.value)
        hold = holdable_ambient_c(board, Config())
        assert hold is not None and _warmest_ambient(w) <= hold + 0.05, w.name


@pytest.mark.parametrize("family", ["board-at-trip", "ambient-ramp-up", "day-night"])
def test_saturated_worlds_reach_the_trip_at_full_clocks_where_warmest(
    worlds: list[dw.Drawn], family: str
) -> None:
    for w in (w for w in worlds if w.family == family):
        board = w.config.load_board()
        top = {d.name: d.opp_hz[-1] for d in board.domains}
        hot = fused_c(
            board, w.config.sensor_specs(board), steady_state_c(board, top, 1.0, _warmest_ambient(w))
        )
        assert hot >= TRIP_C, w.name


def test_a_bad_world_list_is_one_line_and_exit_2() -> None:
    res = subprocess.run(
        [sys.executable, str(REPO / "bench" / "control_quality.py"), "--no-suite", "--drawn", "3-1"],
        capture_output=True,
        text=True,
        check=False,
    )
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and "--drawn" in lines[0] and "Traceback" not in res.stderr


def test_every_world_passes_the_simulators_own_event_check(worlds: list[dw.Drawn]) -> None:
    """A ramp's last step at a fractional second past a rounded end was refused mid-race once."""
    from thermogov.sim.model.runner import validate_events

    for w in worlds:
        validate_events(w.config, w.config.load_board())


def test_a_board_added_later_can_be_left_out_to_draw_an_older_draw_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A board profile added after a draw joins every family's shuffled list and moves the boards
    # of that draw's worlds; ``exclude`` draws them again as they were.
    names = dw.builtin_board_names()
    added = "jetson-orin-nano-super"
    assert added in names
    now = {w.index: w for w in dw.drawn_worlds(2026, [23], time_scale=0.5)}
    monkeypatch.setattr(dw, "builtin_board_names", lambda: [n for n in names if n != added])
    before = {w.index: w for w in dw.drawn_worlds(2026, [23], time_scale=0.5)}
    monkeypatch.undo()
    again = {w.index: w for w in dw.drawn_worlds(2026, [23], time_scale=0.5, exclude={added})}
    assert again[23].config == before[23].config and again[23].name == before[23].name
    assert now[23].config != before[23].config  # the case: the added board did move this world


def test_an_unknown_board_to_leave_out_is_refused() -> None:
    with pytest.raises(ValueError, match="--draw-exclude: unknown board no-such-board"):
        dw.drawn_worlds(2026, [1], exclude={"no-such-board"})


def test_the_benches_refuse_an_unknown_board_to_leave_out_with_exit_2() -> None:
    for bench, extra in (("control_quality.py", ["--no-suite"]), ("stepped_seeds.py", [])):
        r = subprocess.run(
            [sys.executable, str(REPO / "bench" / bench), "--drawn", "1", "--draw-exclude", "nope", *extra],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert r.returncode == 2, (bench, r.stderr)
        assert "--draw-exclude: unknown board nope" in r.stderr and "Traceback" not in r.stderr
