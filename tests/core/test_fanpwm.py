"""A PWM fan a daemon drives (``kind = "pwm"``): the interpolated duty, hysteresis on the way
down, a bounded step per poll, and conductance and power in between the table's levels."""

from __future__ import annotations

import itertools

import pytest

from thermogov.fanpwm import PwmCurve, interp_in_duty, interp_points

DUTY = (0, 64, 128, 255)
G = (0.0, 0.4, 0.7, 1.0)


def test_at_a_levels_own_duty_the_tables_value_and_in_between_between_its_neighbours() -> None:
    assert [interp_in_duty(DUTY, G, d) for d in DUTY] == list(G)
    for (d0, g0), (d1, g1) in itertools.pairwise(zip(DUTY, G, strict=True)):
        inside = [interp_in_duty(DUTY, G, d) for d in range(d0, d1 + 1)]
        assert inside == sorted(inside) and inside[0] == g0 and inside[-1] == g1
        assert g0 < interp_in_duty(DUTY, G, (d0 + d1) / 2) < g1


def test_the_duty_is_the_curve_interpolated_and_held_outside_its_points() -> None:
    pts, pwm = (35.0, 74.0, 94.0, 95.0), (0, 187, 187, 255)
    assert interp_points(pts, pwm, 20.0) == 0.0 and interp_points(pts, pwm, 120.0) == 255.0
    assert interp_points(pts, pwm, 54.5) == pytest.approx(187 / 2)
    assert interp_points(pts, pwm, 80.0) == 187.0


def test_the_duty_moves_at_most_its_step_per_poll_and_reaches_the_curve() -> None:
    curve = PwmCurve((40.0, 80.0), (0, 255), 0.0, 10)
    duty, seen = 0, []
    for _ in range(40):  # hot: the curve asks for full duty
        nxt = curve.target(90.0, duty)
        assert 0 <= nxt - duty <= 10
        duty = nxt
        seen.append(duty)
    assert seen[-1] == 255 and seen[:3] == [10, 20, 30]
    assert curve.target(60.0, 255) == 245  # and down as slowly
    assert PwmCurve((40.0, 80.0), (0, 255), 0.0, 0).target(90.0, 0) == 255  # no step: at once


def test_hysteresis_holds_the_duty_until_the_temperature_has_fallen_that_far() -> None:
    curve = PwmCurve((40.0, 80.0), (0, 255), 4.0, 0)
    at_60 = curve.target(60.0, 0)
    assert at_60 == round(255 / 2)
    assert curve.target(57.0, at_60) == at_60  # 3 K cooler: inside the hysteresis
    assert curve.target(55.0, at_60) == round(interp_points((40.0, 80.0), (0, 255), 59.0))
    assert curve.target(61.0, at_60) > at_60  # up at once
