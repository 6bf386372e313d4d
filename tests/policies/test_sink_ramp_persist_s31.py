"""``stepped``'s ``sink_ramp_persist`` (on since session 31): ``sink_ramp`` only for a trail that outlasts a step.

Session 30c's ``sink_ramp`` fed the integral's fall forward once the level had stayed over the set
point for one window (``horizon_s``).  A step in the load, a burst, or the Pi firmware taking a
rung leaves such a stretch too, which the PI works off by itself in about
``t_i_s / (k_p * down_gain)``; the feed then moved the trajectory and cost orin-bursty 0.04 % and
rpi5-steady-25 0.02 %.  With the key on, the feed waits that long past the window: a warming sink
(minutes) still gets it, a step does not.  The plant is :mod:`tests.policies.diewalk`'s die on a
moving base, read through the TX2 profile's sensors.
"""

from __future__ import annotations

import math

import pytest

from tests.policies.diewalk import walk
from tests.policies.helpers import policy
from tests.policies.test_sink_ramp_s30 import OFF, V1, _fan_failure
from thermogov.interfaces import ConfigError
from thermogov.policies.sinkramp import SinkRamp
from thermogov.policies.stepped import Stepped

BOARD = "jetson-tx2"
PERSIST = {"sink_ramp": True, "sink_ramp_persist": True}


def _step(params: dict[str, object], seed: int) -> tuple[list[int], int]:
    """The rung each tick on a load step (the base 1 °C higher from 120 s on, 300 s in all), and
    how many ticks ``sink_ramp`` fed the integral."""
    p = policy("stepped", params, board=BOARD)
    assert isinstance(p, Stepped)
    step = lambda t: 1.0 if t >= 120.0 else 0.0  # noqa: E731
    rungs, fed = [], 0
    for _, _, _, rung in walk(p, BOARD, step, 300.0, seed):
        rungs.append(rung)
        fed += p.sink is not None and p.sink.feed < 0.0
    return rungs, fed


def test_the_key_is_a_boolean_on_by_default_and_its_wait_is_the_pis_own() -> None:
    d = policy("stepped", board=BOARD)
    assert isinstance(d, Stepped) and d.p.sink_ramp_persist is True and d.sink is not None
    assert d.sink.persist_s > 0.0 and d.sink.board_ends
    p = policy("stepped", V1, board=BOARD)
    assert isinstance(p, Stepped) and p.p.sink_ramp_persist is False
    assert p.sink is not None and p.sink.persist_s == 0.0  # Session 30c's rule as it was
    on = policy("stepped", PERSIST, board=BOARD)
    assert isinstance(on, Stepped) and on.sink is not None
    assert on.sink.persist_s == pytest.approx(on.p.t_i_s / (1.0 * on.p.down_gain))  # k_p as set: 1
    slow = policy("stepped", {**PERSIST, "t_i_s": 120.0, "down_gain": 2.0}, board=BOARD)
    assert isinstance(slow, Stepped) and slow.sink is not None and slow.sink.persist_s == pytest.approx(60.0)
    still = policy("stepped", {**PERSIST, "k_p": 0.0}, board=BOARD)
    assert isinstance(still, Stepped) and still.sink is not None and still.sink.persist_s == math.inf
    with pytest.raises(ConfigError, match="sink_ramp_persist"):
        policy("stepped", {"sink_ramp": True, "sink_ramp_persist": "yes"}, board=BOARD)


def test_the_feed_waits_the_window_and_the_persistence_then_follows_the_fall() -> None:
    ramp = SinkRamp(10.0, 15.0)
    fed = []
    for k in range(400):  # 40 s over the set point, the PI moving the integral -0.01 rung a tick
        r = ramp.rate(k * 0.1, -0.2)
        fed.append(r)
        ramp.moved((-0.1 + r) * 0.1)
    assert all(r == 0.0 for r in fed[:250])  # under window + persistence: a step's to work off
    assert fed[250] == pytest.approx(-0.1)  # then the last window's fall, fed forward
    assert ramp.rate(40.0, 0.1) == 0.0 and ramp.rate(40.1, -0.2) == 0.0  # a new stretch waits again


def test_a_tick_the_boards_throttle_holds_ends_the_stretch() -> None:
    """rpi5-steady-25 seeds 1 and 4: the firmware holds the node, ``follow_board`` lifts the
    integral to its rung, and the PI gives back two rungs over 40-44 s each cycle; no ramp."""
    on = policy("stepped", PERSIST, board=BOARD)
    assert isinstance(on, Stepped) and on.sink is not None and on.sink.board_ends
    v1 = policy("stepped", V1, board=BOARD)
    assert isinstance(v1, Stepped) and v1.sink is not None and not v1.sink.board_ends

    def fed(ramp: SinkRamp, holds: bool) -> list[float]:
        out = []
        for k in range(400):
            r = ramp.rate(k * 0.1, -0.2, holds and k % 100 != 0)  # held but for one tick in ten s
            out.append(r)
            ramp.moved((-0.1 + r) * 0.1)
        return out

    assert all(r == 0.0 for r in fed(SinkRamp(10.0, 15.0, board_ends=True), True))
    assert min(fed(SinkRamp(10.0, 15.0, board_ends=True), False)) < 0.0
    assert min(fed(SinkRamp(10.0, 15.0), True)) < 0.0  # Session 30c's rule does not ask


@pytest.mark.parametrize("seed", [1, 2])
def test_a_load_step_is_left_to_the_pi(seed: int) -> None:
    default, _ = _step(OFF, seed)
    assert _step(V1, seed)[1] > 0  # Session 30c's rule takes the step for a ramp
    rungs, fed = _step(PERSIST, seed)
    assert fed == 0 and rungs == default  # this one leaves it to the PI: the decisions without the rule


def test_a_fan_failure_is_still_followed_without_the_trailing_lag() -> None:
    for seed in (1, 2):
        trips, expected, held = _fan_failure(OFF, seed)
        r_trips, r_expected, r_held = _fan_failure(PERSIST, seed)
        assert trips >= 1 and r_trips < trips
        assert r_expected < 0.1 * expected  # 0.001 against 0.086-0.163 s on seeds 1-4
        assert abs(r_held - held) < 0.5  # the same rung once the sink holds
