"""``gain_ladder``: k_p as a share of the ladder per °C, the cross-validated boards untouched."""

from __future__ import annotations

import pytest

from tests.policies.helpers import ctx_for, inp, policy
from thermogov.policies.gain import REFERENCE_LADDER_STEPS, ladder_gain_scale
from thermogov.policies.ladder import build_ladder
from thermogov.policies.stepped import Stepped

CROSS_VALIDATED = ("jetson-orin-nano", "rpi5")  # the boards the default k_p was chosen on


def _steps(board: str) -> int:
    ctx = ctx_for(board)
    return len(build_ladder(ctx.board, ctx.tables_hz)) - 1


def _stepped(board: str, params: dict[str, object]) -> Stepped:
    p = policy("stepped", params, board=board)
    assert isinstance(p, Stepped)
    return p


def test_the_reference_is_the_finest_cross_validated_ladder() -> None:
    assert max(_steps(b) for b in CROSS_VALIDATED) == REFERENCE_LADDER_STEPS


@pytest.mark.parametrize("board", [*CROSS_VALIDATED, "rpi5-fan", "rpi3"])
def test_a_ladder_no_finer_than_the_reference_keeps_its_gain_exactly(board: str) -> None:
    assert ladder_gain_scale(_steps(board) + 1) == 1.0
    on, off = _stepped(board, {"gain_ladder": True}), _stepped(board, {"gain_ladder": False})
    assert on.p.k_p == off.p.k_p == 1.0


def test_a_finer_ladder_gets_the_reference_share_per_degree() -> None:
    steps = _steps("jetson-agx-orin")
    assert steps > REFERENCE_LADDER_STEPS
    on = _stepped("jetson-agx-orin", {"gain_ladder": True, "k_p": 0.5})
    # the same fraction of the ladder per °C as the reference ladder at the user's k_p
    assert on.p.k_p / steps == pytest.approx(0.5 / REFERENCE_LADDER_STEPS)
    assert _stepped("jetson-agx-orin", {"k_p": 0.5}).p.k_p == 0.5  # off by default


def test_the_scaled_controller_moves_the_ladder_that_many_times_further() -> None:
    """Same readings over the set point: u falls scale times as many rungs (P and I both scale)."""
    board = "jetson-agx-orin"
    ctx = ctx_for(board)
    falls = []
    for on in (False, True):
        p = _stepped(board, {"gain_ladder": on})
        for k in range(6):  # 0.2 °C over the set point (84.5), flat: no slew limit binds
            p.decide(inp(k * 0.1, 84.7, ctx))
        falls.append(p.top - p.u)
    assert falls[0] > 0.1
    assert falls[1] == pytest.approx(ladder_gain_scale(_steps(board) + 1) * falls[0])
