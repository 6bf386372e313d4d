"""bang_bang against gov_bang_bang.c (6.12+): on at the trip, off below trip - hysteresis."""

from __future__ import annotations

import pytest

from tests.policies.helpers import ctx_for, inp, policy
from thermogov.interfaces import ConfigError


def _run(temps: list[float], params: dict[str, object] | None = None) -> list[dict[str, int]]:
    ctx = ctx_for()
    p = policy("bang_bang", params)
    return [p.decide(inp(float(i), t, ctx)).caps_hz for i, t in enumerate(temps)]


def test_trip_crossings_switch_between_state_0_and_1() -> None:
    ctx = ctx_for()
    top = ctx.highest_caps()
    one_down = {d: t[-2] for d, t in ctx.tables_hz.items()}  # state 1: one OPP below the top
    caps = _run([80.0, 85.0, 90.0, 83.5, 82.9, 84.9])
    assert caps == [top, one_down, one_down, one_down, top, top]


def test_first_update_above_the_trip_initialises_to_on() -> None:
    ctx = ctx_for()
    assert _run([88.0])[0] == {d: t[-2] for d, t in ctx.tables_hz.items()}


def test_on_state_max_is_the_deepest_state_of_each_device() -> None:
    ctx = ctx_for()
    caps = _run([86.0, 70.0], {"on_state": "max", "trips": [{"temp_c": 85.0, "hyst_c": 15.0}]})
    assert caps[0] == ctx.lowest_caps()
    assert caps[1] == ctx.lowest_caps()  # 70 is not below 85 - 15: still on
    assert _run([86.0, 69.9], {"on_state": "max", "trips": [{"temp_c": 85.0, "hyst_c": 15.0}]})[1] == (
        ctx.highest_caps()
    )


@pytest.mark.parametrize("value", [0, -1, "min", 1.5, True])
def test_on_state_must_be_a_deeper_state(value: object) -> None:
    with pytest.raises(ConfigError, match="on_state"):
        policy("bang_bang", {"on_state": value})
