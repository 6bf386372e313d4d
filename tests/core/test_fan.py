"""The governor-owned fan: the fan rises before any clock falls, and hysteresis + dwell bound its switches."""

from __future__ import annotations

import math

import pytest

from tests.core.fakes import FnSensor, RecordingActuator
from thermogov.fan import FanController, FanCurve, spread_curve
from thermogov.fusion import SensorSpec
from thermogov.governor import Governor
from thermogov.interfaces import ActuatorError, ConfigError
from thermogov.policies.base import Decision, PolicyInput

TABLE = (1_000_000, 1_500_000, 2_000_000)


class FakeFan:
    def __init__(self, levels: int = 5, fail: bool = False) -> None:
        self.name = "fan"
        self.levels = levels
        self.level = 0
        self.writes: list[int] = []
        self.fail = fail

    def apply(self, level: int) -> int:
        if self.fail:
            raise ActuatorError("fan: EIO")
        self.writes.append(level)
        self.level = level
        return level

    def restore(self) -> None:
        self.level = 0


class CutAbove:
    """Lowest cap at or above ``trip_c``, the top below: the cut a thermal policy asks for."""

    name = "cut"

    def __init__(self, trip_c: float) -> None:
        self.trip_c = trip_c

    def decide(self, inp: PolicyInput) -> Decision:
        cap = TABLE[0] if inp.fused_c >= self.trip_c else TABLE[-1]
        return Decision({"cpu": cap}, "hot" if cap == TABLE[0] else "normal")


def _governor(temp: list[float], fan: FakeFan, *, dwell_s: float = 10.0, trip_c: float = 80.0):
    act = RecordingActuator("cpu", TABLE)
    ctl = FanController(fan, spread_curve(fan.levels, 60.0, 75.0, 3.0), dwell_s)
    gov = Governor(
        [SensorSpec("cpu", 1.0, 100, 120.0)],
        {"cpu": FnSensor("cpu", lambda: temp[0])},
        [act],
        CutAbove(trip_c),
        fan=ctl,
    )
    return gov, act, ctl


def _tick(gov: Governor, t: float):
    gov.sample("cpu", t)
    return gov.tick(t)


def test_the_fan_reaches_its_top_before_any_clock_is_lowered() -> None:
    temp = [50.0]
    fan = FakeFan()
    gov, act, _ = _governor(temp, fan)
    _tick(gov, 0.0)
    temp[0] = 90.0  # hot at once: the policy wants the lowest cap, the curve wants the top level
    rows = [_tick(gov, 0.1 * k) for k in range(1, 30)]
    first_cut = next(i for i, r in enumerate(rows) if r.caps_hz[0] < TABLE[-1])
    assert all(r.fan_level == fan.levels - 1 for r in rows[first_cut:])
    assert rows[first_cut - 1].fan_level == fan.levels - 1  # raised on an earlier tick
    assert act.writes and act.writes[0] == TABLE[0]


def test_a_cut_is_held_only_while_raising_the_fan_helps() -> None:
    """A policy cut arriving below the curve's steps: the fan jumps to its top, the cut waits one tick."""
    temp = [50.0]
    fan = FakeFan()
    gov, _, _ = _governor(temp, fan, trip_c=55.0)  # the policy cuts before the curve would raise the fan
    _tick(gov, 0.0)
    temp[0] = 56.0
    r1 = _tick(gov, 0.1)
    assert r1.fan_level == fan.levels - 1 and r1.caps_hz == (TABLE[-1],)
    assert "fan_before_clocks" in r1.event
    r2 = _tick(gov, 0.2)
    assert r2.caps_hz == (TABLE[0],)


def test_a_fan_that_cannot_be_written_never_holds_the_clocks_up() -> None:
    temp = [90.0]
    fan = FakeFan(fail=True)
    gov, _, ctl = _governor(temp, fan)
    r = _tick(gov, 0.0)
    assert r.caps_hz == (TABLE[0],)  # cut at once: the fan write failed
    assert "fan_write_failed:fan" in r.event and ctl.failures >= 1


def test_the_fan_steps_down_only_once_every_clock_is_back_at_its_top() -> None:
    temp = [90.0]
    fan = FakeFan()
    gov, _, _ = _governor(temp, fan, dwell_s=1.0)
    rows = [_tick(gov, 0.1 * k) for k in range(20)]
    assert rows[-1].caps_hz == (TABLE[0],) and rows[-1].fan_level == 4
    temp[0] = 40.0
    rows = [_tick(gov, 2.0 + 0.1 * k) for k in range(300)]
    for r in rows:
        if r.fan_level is not None and r.fan_level < 4:
            assert r.caps_hz == (TABLE[-1],)
    assert rows[-1].fan_level == 0


@pytest.mark.parametrize("noise_c", [0.5, 2.0, 6.0])
def test_switches_are_bounded_under_a_temperature_oscillating_around_a_step(noise_c: float) -> None:
    """1 h at 10 Hz hovering on the 65 °C step: hysteresis and dwell keep the fan from flapping."""
    dwell_s = 15.0
    fan = FakeFan()
    ctl = FanController(fan, FanCurve((60.0, 65.0, 70.0, 75.0), 3.0), dwell_s)
    switches = 0
    for k in range(36_000):
        t = k * 0.1
        temp = 65.0 + noise_c * math.sin(2 * math.pi * t / 7.0) * (1 if k % 3 else -1)
        was = fan.level
        ctl.step(t, temp, wants_cut=False, clocks_at_top=True)
        switches += fan.level != was
    # Never more than one change per dwell, whatever the noise (here 240 an hour at most) ...
    assert switches <= 3600 / dwell_s
    # ... and a swing narrower than the hysteresis does not switch at all after settling.
    if 2 * noise_c < 3.0:
        assert switches <= 1


def test_without_hysteresis_or_dwell_the_same_signal_flaps() -> None:
    """The control experiment: the bound above is the rules' doing, not the signal's."""
    fan = FakeFan()
    ctl = FanController(fan, FanCurve((60.0, 65.0, 70.0, 75.0), 0.0), 0.0)
    switches = 0
    for k in range(36_000):
        t = k * 0.1
        temp = 65.0 + 2.0 * math.sin(2 * math.pi * t / 7.0) * (1 if k % 3 else -1)
        was = fan.level
        ctl.step(t, temp, wants_cut=False, clocks_at_top=True)
        switches += fan.level != was
    assert switches > 1000


def test_curve_hysteresis_and_spread() -> None:
    c = FanCurve((50.0, 60.0, 67.5, 75.0), 5.0)
    assert c.target(49.9, 0) == 0 and c.target(50.0, 0) == 1 and c.target(80.0, 0) == 4
    assert c.target(46.0, 1) == 1 and c.target(44.9, 1) == 0  # off only below 50 - 5
    assert c.target(56.0, 2) == 2 and c.target(54.0, 2) == 1
    assert spread_curve(5, 60.0, 75.0, 3.0).on_c == (60.0, 65.0, 70.0, 75.0)
    with pytest.raises(ConfigError):
        FanCurve((60.0, 50.0), 1.0)
    with pytest.raises(ConfigError):
        FanController(FakeFan(levels=3), c, 1.0)


def test_failsafe_puts_the_fan_at_its_top() -> None:
    temp: list[float | None] = [50.0]
    fan = FakeFan()
    act = RecordingActuator("cpu", TABLE)
    gov = Governor(
        [SensorSpec("cpu", 1.0, 100, 120.0)],
        {"cpu": FnSensor("cpu", lambda: temp[0])},
        [act],
        CutAbove(80.0),
        fan=FanController(fan, spread_curve(5, 60.0, 75.0, 3.0), 10.0),
    )
    _tick(gov, 0.0)
    assert fan.level == 0
    temp[0] = None  # every read fails: temperature unknown, failsafe (grace 0)
    r = _tick(gov, 1.0)
    assert r.policy_state == "FAILSAFE" and r.fan_level == 4


def test_a_tachometer_at_zero_with_the_fan_on_is_reported_once_as_stalled() -> None:
    fan = FakeFan()
    rpm = [3000]
    fan.rpm = lambda: rpm[0]  # type: ignore[attr-defined]
    ctl = FanController(fan, spread_curve(5, 60.0, 75.0, 3.0), 5.0)
    events: list[str] = []
    for k in range(200):
        t = 0.1 * k
        if k == 50:
            rpm[0] = 0  # seized at its top level
        if k == 150:
            rpm[0] = 2500
        events += ctl.step(t, 90.0, wants_cut=False, clocks_at_top=True)[1]
    assert events.count("fan_stalled:fan") == 1 and events.count("fan_running:fan") == 1
    assert events.index("fan_stalled:fan") < events.index("fan_running:fan")
