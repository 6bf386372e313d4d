"""step_wise against gov_step_wise.c worked by hand: target rules, 6.9 vs 6.10, polling, OPP map."""

from __future__ import annotations

import pytest

from tests.policies.helpers import ctx_for, inp, policy
from thermogov.interfaces import ConfigError
from thermogov.policies.kernel import DROPPING, NO_TARGET, RAISING, STABLE, CoolingDevice, Instance
from thermogov.policies.step_wise import StepWise, target_69, target_610


def _inst(cur: int, target: int, initialized: bool, lower: int = 0, upper: int = 5) -> Instance:
    cdev = CoolingDevice("cpu", tuple(range(1, 7)), state=cur)
    return Instance(cdev, 0, lower, upper, target=target, initialized=initialized)


# (cur, target, initialized, trend, throttle) -> (6.10 result, 6.9 result), from the C source.
CASES = [
    # not initialised: throttle -> cur+1, else no target (both versions)
    ((0, NO_TARGET, False, STABLE, True), (1, 1)),
    ((0, NO_TARGET, False, DROPPING, False), (NO_TARGET, NO_TARGET)),
    # throttle and raising: one state deeper, clamped at upper
    ((2, 2, True, RAISING, True), (3, 3)),
    ((5, 5, True, RAISING, True), (5, 5)),
    # throttle and dropping: 6.10 backs off one state but not below lower+1; 6.9 holds
    ((3, 3, True, DROPPING, True), (2, 3)),
    ((1, 1, True, DROPPING, True), (1, 1)),
    # not throttle and dropping: 6.10 goes straight to lower, 6.9 one state at a time
    ((3, 3, True, DROPPING, False), (0, 2)),
    ((0, 0, True, DROPPING, False), (NO_TARGET, NO_TARGET)),
    # anything else keeps the previous target
    ((2, 2, True, STABLE, True), (2, 2)),
    ((2, 2, True, RAISING, False), (2, 2)),
]


@pytest.mark.parametrize(("args", "expected"), CASES)
def test_target_state_rules(args: tuple[int, int, bool, str, bool], expected: tuple[int, int]) -> None:
    cur, target, initialized, trend, throttle = args
    got = (
        target_610(_inst(cur, target, initialized), trend, throttle),
        target_69(_inst(cur, target, initialized), trend, throttle),
    )
    assert got == expected


def _states(kernel: str, temps: list[float]) -> list[int]:
    """Cooling state of the CPU device after each 1 s poll at the given temperatures."""
    p = policy("step_wise", {"kernel": kernel, "trips": [{"temp_c": 85.0, "hyst_c": 2.0}]})
    assert isinstance(p, StepWise)
    ctx = ctx_for()
    out = []
    for i, temp in enumerate(temps):
        p.decide(inp(float(i), temp, ctx))
        out.append(p.binding.cdevs[0].state)
    return out


def test_hysteresis_band_separates_the_versions() -> None:
    # 84 (below), 85 (trip reached, raising), 85.5 (raising), 84 (dropping, inside the band),
    # 83.5 (dropping, still above trip - hyst = 83), 83.5 (stable), 82.9 (below the band).
    temps = [84.0, 85.0, 85.5, 84.0, 83.5, 83.5, 82.9]
    # 6.10: the band keeps throttling (at least lower+1 = 1) until 82.9 drops it to 0 at once.
    assert _states("6.10", temps) == [0, 1, 2, 1, 1, 1, 0]
    # 6.9: below 85 there is no throttling; dropping releases one state per poll.
    assert _states("6.9", temps) == [0, 1, 2, 1, 0, 0, 0]


def test_610_drops_to_lower_in_one_poll_while_69_walks_down() -> None:
    temps = [85.0, 85.2, 85.4, 85.6, 80.0, 79.0, 78.0, 77.0]
    assert _states("6.10", temps) == [1, 2, 3, 4, 0, 0, 0, 0]
    assert _states("6.9", temps) == [1, 2, 3, 4, 3, 2, 1, 0]


def test_state_maps_to_the_opp_that_many_steps_below_the_top() -> None:
    ctx = ctx_for()
    p = policy("step_wise")
    cpu, gpu = ctx.tables_hz["cpu"], ctx.tables_hz["gpu"]
    temps = [85.0 + 0.1 * i for i in range(10)]  # raising every poll: one state deeper each time
    for i, temp in enumerate(temps):
        d = p.decide(inp(float(i), temp, ctx))
        k = i + 1
        assert d.caps_hz["cpu"] == cpu[len(cpu) - 1 - k]
        assert d.caps_hz["gpu"] == gpu[max(len(gpu) - 1 - k, 0)]  # clamped at its max_state


def test_acts_only_when_its_poll_is_due() -> None:
    ctx = ctx_for()
    p = policy("step_wise", {"polling_ms": 1000, "passive_polling_ms": 300})
    changes = []
    last = None
    for tick in range(0, 30):  # 3 s of 100 ms governor ticks, temperature rising every tick
        t = tick / 10
        d = p.decide(inp(t, 85.0 + t, ctx))
        if d.caps_hz != last:
            changes.append(round(t, 1))
        last = d.caps_hz
    # First poll at once (zone registration), then the passive delay once throttling: 0.3 s.
    assert changes == [0.0, 0.3, 0.6, 0.9, 1.2, 1.5, 1.8, 2.1, 2.4, 2.7]


def test_normal_polling_while_not_throttling() -> None:
    ctx = ctx_for()
    p = policy("step_wise", {"polling_ms": 1000, "passive_polling_ms": 300})
    assert isinstance(p, StepWise)
    polls = []
    for tick in range(25):
        t = tick / 10
        before = p.poller.next_ms
        p.decide(inp(t, 60.0, ctx))
        if p.poller.next_ms != before:
            polls.append(round(t, 1))
    assert polls == [0.0, 1.0, 2.0]


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"kernel": "5.4"}, "kernel"),
        ({"trips": [{"temp_c": 90.0}, {"temp_c": 80.0}]}, "ascending"),
        ({"trips": [{"temp_c": 90.0, "hysteresis": 2}]}, "hysteresis"),
        ({"domains": ["npu"]}, "unknown domain"),
        ({"polling": 100}, "polling"),
    ],
)
def test_bad_parameters_are_one_clear_error(params: dict[str, object], fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        policy("step_wise", params)
