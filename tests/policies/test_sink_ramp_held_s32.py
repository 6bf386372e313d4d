"""``stepped``'s ``sink_ramp_held`` (off): ``sink_ramp`` counts only ticks whose level is held over the set point.

With ``sink_ramp`` and ``sink_ramp_persist`` on (the default since session 31), a cold start's
first climb fed the integral's fall forward on every Orin Nano row: the die crosses the set point
still rising fast, the *predicted* rise keeps the PI's error negative for the window and the wait,
and the fall the PI makes to meet the climb was taken for a warming sink.  With the key on, a
tick on which the level does not stand over the set point by at least its predicted rise
(:func:`level_held`) ends the stretch, so only a trail (the level held, the rung falling) is fed.
The plants are :mod:`tests.policies.diewalk`'s die on a moving base, read by the TX2's sensors.
"""

from __future__ import annotations

import math

import pytest

from tests.policies.diewalk import walk
from tests.policies.helpers import policy
from tests.policies.test_sink_ramp_s30 import OFF, _fan_failure
from thermogov.interfaces import ConfigError
from thermogov.policies.sinkramp import SinkRamp, level_held
from thermogov.policies.stepped import Stepped

BOARD = "jetson-tx2"
HELD: dict[str, object] = {"sink_ramp_held": True}  # on top of the default sink_ramp + persist


def _climb_base(t: float) -> float:
    """A cold start: the base 8 °C under its settled value for 30 s, then a first-order climb
    (40 s) to 2 °C over it: the die crosses the set point at ~0.2 °C/s and keeps rising slowly."""
    return -8.0 if t < 30.0 else -8.0 + 10.0 * (1.0 - math.exp(-(t - 30.0) / 40.0))


def _fed_unheld(params: dict[str, object], seed: int) -> tuple[int, int, float]:
    """Ticks fed with the level not held, ticks fed in all, and when the first feed came."""
    p = policy("stepped", params, board=BOARD)
    assert isinstance(p, Stepped) and p.sink is not None
    sink = p.sink
    seen: list[bool] = []
    rate = sink.rate

    def spy(t: float, error: float, board_holds: bool = False, held: bool = True) -> float:
        seen.append(held)
        return rate(t, error, board_holds, held)

    sink.rate = spy  # type: ignore[method-assign]
    unheld = fed = 0
    first = math.inf
    for t, _, _, _ in walk(p, BOARD, _climb_base, 240.0, seed):
        if sink.feed < 0.0 and seen:  # fed on this tick
            fed += 1
            unheld += not seen[-1]
            first = min(first, t)
    return unheld, fed, first


def test_the_key_is_a_boolean_off_by_default() -> None:
    d = policy("stepped", board=BOARD)
    assert isinstance(d, Stepped) and d.p.sink_ramp_held is False and d.sink is not None
    assert not d.sink.held_only
    on = policy("stepped", HELD, board=BOARD)
    assert isinstance(on, Stepped) and on.sink is not None and on.sink.held_only
    with pytest.raises(ConfigError, match="sink_ramp_held"):
        policy("stepped", {"sink_ramp_held": "yes"}, board=BOARD)


def test_held_means_the_level_itself_stands_over_the_set_point_by_its_rise() -> None:
    assert level_held(84.7, 84.5, 0.03)  # a trail: 0.2 over, barely rising
    assert level_held(84.7, 84.5, -0.1)  # over and falling back
    assert not level_held(83.3, 83.0, 1.07)  # a climb: over, but rising 1 °C a horizon
    assert not level_held(82.0, 83.0, 2.0)  # under the set point: only the prediction is over
    assert not level_held(83.0, 83.0, 0.0)


def test_an_unheld_tick_ends_the_stretch_and_the_wait_starts_again() -> None:
    def fed(ramp: SinkRamp, unheld_at: int) -> list[float]:
        out = []
        for k in range(500):
            r = ramp.rate(k * 0.1, -0.2, False, k != unheld_at)
            out.append(r)
            ramp.moved((-0.1 + r) * 0.1)
        return out

    on = fed(SinkRamp(10.0, 15.0, held_only=True), 100)
    assert all(r == 0.0 for r in on[:351])  # the wait restarted at tick 101: 25 s to go
    assert on[351] == pytest.approx(-0.1)
    off = fed(SinkRamp(10.0, 15.0), 100)
    assert off[250] == pytest.approx(-0.1)  # without the key ``held`` is not asked


@pytest.mark.parametrize("seed", [1, 2])
def test_a_first_climb_is_not_fed_until_the_level_holds(seed: int) -> None:
    unheld, fed, first = _fed_unheld({}, seed)
    assert unheld > 0 and fed > 0  # the default feeds the climb's own fall
    h_unheld, _, h_first = _fed_unheld(HELD, seed)
    assert h_unheld == 0  # never on a tick the level was not held
    assert h_first > first


def test_a_fan_failure_is_still_followed() -> None:
    for seed in (1, 2):
        trips, expected, held = _fan_failure(OFF, seed)
        h_trips, h_expected, h_held = _fan_failure(HELD, seed)
        assert trips >= 1 and h_trips < trips
        assert h_expected < 0.1 * expected  # 0.007-0.008 against 0.086-0.163 s on seeds 1-2
        assert abs(h_held - held) < 0.5
