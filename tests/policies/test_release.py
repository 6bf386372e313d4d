"""``release_frontier`` (:mod:`thermogov.policies.release`): the release to the frontier's
fastest point when every domain's maximum is no faster by the board's model."""

from __future__ import annotations

import pytest

from tests.policies.helpers import ctx_for, inp, policy
from thermogov.board import load_board
from thermogov.interfaces import ConfigError
from thermogov.policies.ladder import build_ladder, rung_rate
from thermogov.policies.release import frontier_release
from thermogov.policies.stepped import HIGH, Stepped


def _ladder(name: str) -> list[dict[str, int]]:
    b = load_board(name)
    return build_ladder(b, {d.name: d.opp_hz for d in b.domains})


def test_the_nanos_all_maximum_rung_is_dropped_for_the_cpu_it_does_not_need() -> None:
    """The Nano's model is GPU-bound: CPU 1479 MHz gives the rate of CPU 204 MHz at more power."""
    b = load_board("jetson-nano")
    ladder = _ladder("jetson-nano")
    assert ladder[-1] == {"cpu": 1479000000, "gpu": 921600000}
    kept = frontier_release(b, ladder)
    assert kept == ladder[:-1] and kept[-1] == {"cpu": 204000000, "gpu": 921600000}
    assert rung_rate(b, {"cpu", "gpu"}, kept[-1]) >= rung_rate(b, {"cpu", "gpu"}, ladder[-1])


@pytest.mark.parametrize("board", ["rpi4", "rpi5"])
def test_a_board_whose_top_rung_is_its_fastest_keeps_it(board: str) -> None:
    assert frontier_release(load_board(board), _ladder(board)) == _ladder(board)


def _released(params: dict[str, object]) -> dict[str, int]:
    ctx = ctx_for("jetson-nano")
    p = policy("stepped", params, board="jetson-nano")
    assert isinstance(p, Stepped)
    d = p.decide(inp(0.0, 60.0, ctx))  # far under the trip: released
    assert d.state == HIGH
    return d.caps_hz


def test_stepped_releases_to_the_frontiers_top_only_when_asked() -> None:
    # Off by default (session 20a's note): a release at the profile's estimate of the pipeline
    # would cap a real CPU-bound pipeline whenever the board is cool.
    assert _released({}) == {"cpu": 1479000000, "gpu": 921600000}  # as shipped
    assert _released({"release_frontier": True}) == {"cpu": 204000000, "gpu": 921600000}


@pytest.mark.parametrize("value", ["yes", 1])
def test_a_release_frontier_that_is_not_a_boolean_is_one_line_naming_the_key(value: object) -> None:
    with pytest.raises(ConfigError, match="release_frontier"):
        policy("stepped", {"release_frontier": value}, board="jetson-nano")
