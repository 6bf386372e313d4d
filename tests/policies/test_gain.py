"""``gain_ladder``: k_p scaled on a finer ladder than the suite's, the suite's boards untouched."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.policies.helpers import ctx_for, inp, policy
from thermogov.interfaces import ConfigError
from thermogov.policies.gain import (
    REFERENCE_C_PER_STEP,
    REFERENCE_LADDER_STEPS,
    gain_scale,
    ladder_c_per_step,
)
from thermogov.policies.ladder import build_ladder
from thermogov.policies.stepped import Stepped
from thermogov.sim.scenarios import load_scenario, scenario_names

SUITE_BOARDS = sorted({load_scenario(n).board for n in scenario_names()})
FINE = "jetson-agx-orin"  # 26 rungs (25 without the all-maximum one, release_frontier)


def _ladder(board: str) -> list[dict[str, int]]:
    """The ladder ``stepped`` builds by default (``release_frontier`` off)."""
    ctx = ctx_for(board)
    return build_ladder(ctx.board, ctx.tables_hz)


def _c_per_step(board: str) -> float:
    ctx = ctx_for(board)
    return ladder_c_per_step(ctx.board, _ladder(board), ctx.sensor_names)


def _stepped(board: str, params: dict[str, object]) -> Stepped:
    p = policy("stepped", params, board=board)
    assert isinstance(p, Stepped)
    return p


def test_the_suite_is_on_the_cross_validated_boards() -> None:
    assert {"jetson-orin-nano", "rpi5"} <= set(SUITE_BOARDS)


def test_the_references_are_the_suite_boards_finest() -> None:
    assert max(len(_ladder(b)) - 1 for b in SUITE_BOARDS) == REFERENCE_LADDER_STEPS
    least = min(_c_per_step(b) for b in SUITE_BOARDS)
    assert REFERENCE_C_PER_STEP <= least < REFERENCE_C_PER_STEP * 1.01


@pytest.mark.parametrize("rule", ["steps", "plant"])
@pytest.mark.parametrize("board", SUITE_BOARDS)
def test_every_suite_board_keeps_its_gain_and_trip_step_exactly(board: str, rule: str) -> None:
    ctx = ctx_for(board)
    assert gain_scale(rule, ctx.board, _ladder(board), ctx.sensor_names) == 1.0
    on = _stepped(board, {"gain_ladder": rule, "gain_ladder_trip": rule})
    assert on.p.k_p == _stepped(board, {}).p.k_p and on.trip_step == 1


def test_steps_gives_a_finer_ladder_the_reference_share_per_degree() -> None:
    steps = len(_ladder(FINE)) - 1
    assert steps > REFERENCE_LADDER_STEPS
    on = _stepped(FINE, {"gain_ladder": "steps", "k_p": 0.5})
    assert on.p.k_p / steps == pytest.approx(0.5 / REFERENCE_LADDER_STEPS)
    assert _stepped(FINE, {"k_p": 0.5, "gain_ladder": "off"}).p.k_p == 0.5  # "off" leaves k_p alone


def test_plant_gives_a_weaker_plant_the_reference_loop_gain() -> None:
    c = _c_per_step(FINE)
    assert 0.0 < c < REFERENCE_C_PER_STEP
    on = _stepped(FINE, {"gain_ladder": "plant", "gain_ladder_trip": "plant"})
    assert on.p.k_p * c == pytest.approx(1.0 * REFERENCE_C_PER_STEP)  # °C per °C, the default k_p 1
    assert on.trip_step == round(REFERENCE_C_PER_STEP / c) > 1


def test_the_default_scales_the_gain_by_the_plant_and_leaves_the_trip_step_at_one() -> None:
    c = _c_per_step(FINE)
    default = _stepped(FINE, {})
    assert default.p.k_p * c == pytest.approx(1.0 * REFERENCE_C_PER_STEP)
    assert default.trip_step == 1


def test_the_step_rise_is_the_networks_settled_rise_per_step() -> None:
    """The network is linear: every conductance doubled halves the settled rise a step makes."""
    ctx = ctx_for("rpi5")
    board = ctx.board
    ladder = _ladder("rpi5")
    c = ladder_c_per_step(board, ladder, ctx.sensor_names)
    th = board.thermal
    doubled = replace(
        th,
        nodes=tuple(replace(n, to_ambient_w_per_k=2 * n.to_ambient_w_per_k) for n in th.nodes),
        links=tuple(replace(x, conductance_w_per_k=2 * x.conductance_w_per_k) for x in th.links),
    )
    stiffer = replace(board, thermal=doubled)
    assert ladder_c_per_step(stiffer, ladder, ctx.sensor_names) == pytest.approx(c / 2)


def test_an_unknown_rule_is_a_one_line_error() -> None:
    with pytest.raises(ConfigError, match="gain_ladder"):
        _stepped(FINE, {"gain_ladder": "watts"})


@pytest.mark.parametrize("rule", ["steps", "plant"])
def test_the_scaled_controller_moves_the_ladder_that_many_times_further(rule: str) -> None:
    """Same readings over the set point: u falls scale times as many rungs (P and I both scale)."""
    ctx = ctx_for(FINE)
    falls = []
    # The all-maximum ladder (release_frontier off), whose step the scale below is computed on:
    # the mechanics of the scaling, not the release, are under test.
    for params in ({"gain_ladder": "off"}, {"gain_ladder": rule}):
        p = _stepped(FINE, {**params, "release_frontier": False})
        for k in range(6):  # 0.2 °C over the set point (84.5), flat: no slew limit binds
            p.decide(inp(k * 0.1, 84.7, ctx))
        falls.append(p.top - p.u)
    assert falls[0] > 0.1
    scale = gain_scale(rule, ctx.board, build_ladder(ctx.board, ctx.tables_hz), ctx.sensor_names)
    assert scale > 2.0
    assert falls[1] == pytest.approx(scale * falls[0])


def test_the_trip_step_walks_a_finer_ladder_that_many_rungs_a_tick() -> None:
    ctx = ctx_for(FINE)
    p = _stepped(FINE, {"gain_ladder": "plant", "gain_ladder_trip": "plant"})
    p.decide(inp(0.0, 85.0, ctx))
    assert p.rung == p.top - p.trip_step
