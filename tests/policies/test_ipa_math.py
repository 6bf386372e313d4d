"""gov_power_allocator.c's integer arithmetic, each case worked out by hand in FRAC_BITS = 10."""

from __future__ import annotations

import pytest

from thermogov.policies.ipa_math import (
    Actor,
    PidConstants,
    PidState,
    div_s64,
    divvy_up_power,
    estimate_pid_constants,
    pid_controller,
)


@pytest.mark.parametrize(
    ("sustainable", "switch_on", "control", "expected"),
    [
        # dT = 15000 m°C: k_po = 2500*1024 // 15000 = 170, k_pu = 5000*1024 // 15000 = 341, k_i = 34
        (2500, 70_000, 85_000, (170, 341, 34)),
        # no switch-on trip: dT = control temperature, 85000
        (2500, None, 85_000, (30, 60, 6)),
        # k_pu / 10 == 0 -> k_i = 1
        (10, 70_000, 85_000, (0, 1, 1)),
    ],
)
def test_default_constants(
    sustainable: int, switch_on: int | None, control: int, expected: tuple[int, int, int]
) -> None:
    k = PidConstants()
    estimate_pid_constants(k, sustainable, switch_on, control)
    assert (k.k_po, k.k_pu, k.k_i, k.k_d, k.integral_cutoff) == (*expected, 0, 0)


def test_equal_trips_leave_the_constants_alone() -> None:
    k = PidConstants(k_po=7, k_pu=8, k_i=9)
    estimate_pid_constants(k, 2500, 85_000, 85_000)
    assert (k.k_po, k.k_pu, k.k_i) == (7, 8, 9)


def test_pid_steps_by_hand() -> None:
    k = PidConstants(k_po=170, k_pu=341, k_i=34)
    s = PidState()
    # 5 °C below control: err = 5000 << 10; p = 341 * 5120000 >> 10 = 1705000; no integration
    # (err is not below the cutoff 0); budget = 2500 + (1705000 >> 10) = 2500 + 1665.
    step = pid_controller(s, k, 80_000, 85_000, 2500, 10_000, 100)
    assert (step.p, step.i, step.d, step.power_range) == (1_705_000, 0, 0, 4165)
    assert (s.err_integral, s.prev_err) == (0, 5_120_000)
    # 1 °C above: err = -1024000; p = 170 * err >> 10 = -170000; i = 34 * err >> 10 = -34000,
    # accepted (|i| < 10000 << 10); budget = 2500 + (-204000 >> 10) = 2500 - 200 (floor).
    step = pid_controller(s, k, 86_000, 85_000, 2500, 10_000, 100)
    assert (step.p, step.i, step.power_range) == (-170_000, -34_000, 2300)
    assert s.err_integral == -1_024_000
    # Again: the integral doubles; budget = 2500 + (-238000 >> 10) = 2500 - 233.
    step = pid_controller(s, k, 86_000, 85_000, 2500, 10_000, 100)
    assert (step.i, step.power_range) == (-68_000, 2267)


def test_budget_is_clamped_and_the_integral_is_capped_by_max_power() -> None:
    k = PidConstants(k_po=10_000, k_pu=10_000, k_i=1024)  # k_i = 1.0: i grows by err each step
    s = PidState()
    step = pid_controller(s, k, 95_000, 85_000, 2500, 5000, 100)  # 10 °C over: hugely negative
    assert step.power_range == 0
    assert s.err_integral == 0  # i_next = -10240000 is not below 5000 << 10 in size: refused
    assert pid_controller(PidState(), k, 60_000, 85_000, 2500, 5000, 100).power_range == 5000


def test_derivative_term_divides_by_the_passive_delay() -> None:
    k = PidConstants(k_d=1024)  # 1.0
    s = PidState(prev_err=0)
    step = pid_controller(s, k, 84_000, 85_000, 0, 10_000, 100)
    # d = (1024 * 1024000 >> 10) = 1024000, then (1024000 << 10) / 100 = 10485760 (truncated)
    assert step.d == 10_485_760
    assert step.power_range == 10_000  # 10485760 >> 10 = 10240 mW, clamped to the 10000 maximum


def test_c_division_truncates_toward_zero() -> None:
    assert (div_s64(7, 2), div_s64(-7, 2), div_s64(7, -2), div_s64(-7, -2)) == (3, -3, -3, 3)


def test_divvy_gives_the_capped_surplus_to_the_actors_with_headroom() -> None:
    a = Actor(req_power=1000, max_power=3000)
    b = Actor(req_power=3000, max_power=2000)
    divvy_up_power([a, b], 4000)
    # first pass 1000 / 3000; b keeps its 2000 max, the 1000 surplus goes to a (all headroom)
    assert (a.granted_power, b.granted_power) == (2000, 2000)
    assert (a.extra_actor_power, b.extra_actor_power) == (2000, 0)


def test_divvy_surplus_is_shared_by_headroom_and_limited_to_it() -> None:
    a = Actor(req_power=1000, max_power=1500)
    b = Actor(req_power=1000, max_power=3500)
    c = Actor(req_power=4000, max_power=1000)
    divvy_up_power([a, b, c], 6000)
    # first pass 1000 / 1000 / 4000 -> c capped at 1000: surplus 3000; headroom 500 + 2500;
    # a += round(500 * 3000 / 3000) = 500, b += 2500: everyone at max, total 6000.
    assert [x.granted_power for x in (a, b, c)] == [1500, 3500, 1000]


def test_weights_act_on_the_numerator_since_the_2025_fix() -> None:
    def actors() -> list[Actor]:
        return [Actor(1000, 10_000, weight=2048), Actor(1000, 10_000, weight=512)]  # wreq 2000 / 500

    fixed = actors()
    divvy_up_power(fixed, 2500)
    assert [x.granted_power for x in fixed] == [2000, 500]
    buggy = actors()
    divvy_up_power(buggy, 2500, fixed=False)
    # the 6.8-era numerator used the unweighted request: 1000 * 2500 / 2500 each, total 2000
    assert [x.granted_power for x in buggy] == [1000, 1000]


def test_nobody_requesting_gets_nothing() -> None:
    xs = [Actor(0, 1000), Actor(0, 2000)]
    divvy_up_power(xs, 1500)
    assert [x.granted_power for x in xs] == [0, 0]
