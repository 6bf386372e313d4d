"""``first_arrival`` (:mod:`thermogov.policies.arrival`): the integral's first approach from full clocks."""

from __future__ import annotations

import math

import pytest

from tests.policies.helpers import ctx_for, inp, policy
from thermogov.interfaces import ConfigError
from thermogov.policies.arrival import FirstArrival
from thermogov.policies.stepped import TRIP, Stepped


def test_an_error_under_zero_on_a_level_not_falling_uses_the_horizon() -> None:
    a = FirstArrival(horizon_s=10.0, t_i_s=60.0)
    assert a.integral_time_s(0.5, 0.01) == 60.0  # the climb: under the set point
    assert a.integral_time_s(-0.2, 0.0) == 10.0  # over it, not falling
    assert a.integral_time_s(-0.2, -0.01) == 60.0  # over it and already falling: the PI's pace
    assert a.active


def test_the_arrival_ends_only_once_the_level_was_over_the_set_point_and_turned_down() -> None:
    a = FirstArrival(horizon_s=10.0, t_i_s=60.0)
    a.integral_time_s(0.5, -0.02)  # a noisy falling slope on the climb does not end it
    assert a.active
    a.integral_time_s(-0.1, 0.01)
    a.integral_time_s(0.1, -0.01)  # under the set point again and falling: the rung has turned it
    assert not a.active
    assert a.integral_time_s(-0.3, 0.02) == 60.0
    a.restart()  # a release to full clocks
    assert a.active and a.integral_time_s(-0.3, 0.02) == 10.0
    a.end()  # the trip rule stepped
    assert a.integral_time_s(-0.3, 0.02) == 60.0


def test_a_horizon_longer_than_the_integral_time_never_slows_the_integral() -> None:
    assert FirstArrival(horizon_s=120.0, t_i_s=60.0).integral_time_s(-0.1, 0.0) == 60.0


def _creeping_arrival(params: dict[str, object]) -> tuple[Stepped, list[int]]:
    """Full clocks settling 0.3 °C over the set point (84.5 °C with no noise), as a board whose
    full clocks settle just over the trip: the rung applied each second over 400 s."""
    ctx = ctx_for()
    # the PI alone: ``sink_ramp`` (on since session 31) feeds this creeping fall forward too
    p = policy("stepped", {"sink_ramp": False, **params})
    assert isinstance(p, Stepped)
    rungs = []
    for i in range(4000):
        t = i * 0.1
        d = p.decide(inp(t, 84.8 - 6.0 * math.exp(-t / 60.0), ctx))
        assert d.state != TRIP
        if i % 10 == 0:
            rungs.append(p.ladder.index(d.caps_hz))
    return p, rungs


def test_the_first_arrival_comes_down_from_the_top_faster_than_the_pi_alone() -> None:
    """The default integral falls ``down_gain * k_p * e / t_i_s``: a few tenths of a degree over
    the set point take minutes a rung; with the rule the horizon is the integral time."""
    off_p, off = _creeping_arrival({})
    on_p, on = _creeping_arrival({"first_arrival": True})
    assert off_p.arrival is None  # off by default
    top = len(on_p.ladder) - 1
    first_over = next(i for i, r in enumerate(off) if r < top)
    assert on[:first_over] == off[:first_over]  # the climb is the same
    assert on[-1] <= off[-1] - 2  # two rungs or more nearer the rung the set point holds
    assert on_p.integral < off_p.integral - 2.0


@pytest.mark.parametrize("value", ["yes", 1])
def test_a_first_arrival_that_is_not_a_boolean_is_one_line_naming_the_key(value: object) -> None:
    with pytest.raises(ConfigError, match="first_arrival"):
        policy("stepped", {"first_arrival": value})
