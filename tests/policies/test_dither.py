"""``dither_hold`` (:mod:`thermogov.policies.dither`): the dither's mid-tread form (its base the
rung nearest ``u``), so a ``u`` hovering at a whole rung does not spread over three rungs."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from tests.policies.helpers import policy
from thermogov.interfaces import ConfigError
from thermogov.policies.dither import MidTread
from thermogov.policies.stepped import Stepped, SteppedParams

TOP = 8


def _hover(n: int) -> list[float]:
    """``u`` at rung 4 with a fast wander of a tenth of a rung (deterministic: the noise ``k_p``
    passes through from the held level, whose running sum stays under a rung)."""
    return [4.0 + 0.1 * math.sin(2.4 * k + 3.5) for k in range(n)]


def _floor_dither(us: list[float]) -> list[int]:
    """The default dither's rule (``Stepped._dither``): ``floor(u)``, or the rung above when the
    fractions carried reach one."""
    acc, out = 0.0, []
    for u in us:
        base = math.floor(u)
        acc += u - base
        if acc >= 1.0 and base < TOP:
            acc -= 1.0
            out.append(base + 1)
        else:
            acc = min(acc, 1.0)
            out.append(base)
    return out


def _held(us: list[float]) -> list[int]:
    h = MidTread()
    return [h.step(u, TOP) for u in us]


def test_a_u_hovering_at_a_rung_stays_on_it_where_the_floor_dither_uses_both_neighbours() -> None:
    us = _hover(740)
    floor, held = Counter(_floor_dither(us)), Counter(_held(us))
    assert floor[3] > 50 and floor[5] > 50  # the floor form: three rungs, each neighbour often
    assert held[4] == len(us)  # the wander's running sum never reaches a whole rung


@pytest.mark.parametrize("u", [0.3, 2.25, 4.7, 7.999])
def test_a_steady_u_between_two_rungs_is_the_same_two_rung_mix(u: float) -> None:
    out = _held([u] * 400)
    assert set(out) <= {math.floor(u), math.floor(u) + 1}
    assert abs(sum(out) / len(out) - u) < 1.0 / len(out) + 1e-9


def test_the_mean_is_kept_within_one_rung_period_on_any_path() -> None:
    us = [4.0 + 1.7 * math.sin(k / 23.0) + 0.3 * math.sin(k * 1.7) for k in range(3000)]
    out = _held(us)
    assert abs(sum(us) - sum(out)) <= 1.0 + 1e-9
    # At most the neighbours of the rung nearest u.
    assert all(abs(y - u) <= 1.5 for y, u in zip(out, us, strict=True))


def test_a_fall_of_most_of_a_rung_is_followed_at_the_next_instant() -> None:
    """A burst's onset: ``u`` falls from 4 to 3.2; the rung follows at once, as the floor form's."""
    h = MidTread()
    assert [h.step(4.0, TOP) for _ in range(3)] == [4, 4, 4]
    assert h.step(3.2, TOP) == 3


def test_the_ends_of_the_ladder_owe_nothing() -> None:
    h = MidTread()
    assert [h.step(TOP, TOP) for _ in range(5)] == [TOP] * 5
    assert h.step(TOP - 0.2, TOP) == TOP  # 0.2 under the top: not a rung down at once
    h.reset()
    assert h.base is None and h.error == 0.0


def test_off_by_default_and_on_when_asked() -> None:
    assert SteppedParams().dither_hold is False
    off = policy("stepped", {}, board="jetson-orin-nano")
    on = policy("stepped", {"dither_hold": True}, board="jetson-orin-nano")
    assert isinstance(off, Stepped) and isinstance(on, Stepped)
    assert off.held is None and isinstance(on.held, MidTread)


@pytest.mark.parametrize("value", ["yes", 1])
def test_a_dither_hold_that_is_not_a_boolean_is_one_line_naming_the_key(value: object) -> None:
    with pytest.raises(ConfigError, match="dither_hold"):
        policy("stepped", {"dither_hold": value}, board="jetson-orin-nano")


def test_while_a_yielded_ramp_holds_the_node_the_floor_dither_is_kept() -> None:
    """On a Pi the firmware's ramp is the clock's modulator; the mid-tread form is not used there."""
    p = policy("stepped", {"dither_hold": True}, board="rpi5")
    assert isinstance(p, Stepped) and p.held is not None
    p.u, p._holding = 3.95, True
    p._dither(0.0)
    assert p._target == 3 and p.held.base is None  # floor(3.95): the default's rule
    p._holding, p._next_dither_s = False, None
    p._dither(10.0)
    assert p._target == 4 and p.held.base == 4  # the rung nearest u
