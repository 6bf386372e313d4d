"""Session 33g: a cap read back below the ask is not a reason to write the ask again.

A hardware actuator returns the cap it reads back (scaling_max_freq shows policy->max, the
lowest of every max request: a kernel cooling device's freq-QoS clamp, an OPP list cut).  The
governor compared its next ask with that read-back, so while it stayed below the ask every
control tick wrote the same ask again and counted a cap change (docs/hardware.md, "Session
33g").  In process, a fake actuator with a clamp; no sleeps, no timings.
"""

from __future__ import annotations

from tests.core.fakes import FnSensor
from thermogov.board import load_board
from thermogov.fusion import SensorSpec
from thermogov.governor import Governor, TickRecord
from thermogov.policies import PolicyContext, make_policy
from thermogov.tomlcheck import Table

TABLE = (500, 1000, 1500, 2000)
SPECS = (SensorSpec("cpu", 0.6, 100, 95.0),)


class ClampedActuator:
    """A domain whose read-back is the lower of the ask and a clamp another party holds."""

    def __init__(self, clamp_hz: int) -> None:
        # At start the file holds the top and reads back the clamp: the governor's record is the
        # read-back, so its first cool decision writes the top once.
        self.name = "cpu"
        self.table_hz = TABLE
        self.clamp_hz = clamp_hz
        self.asked = TABLE[-1]
        self.writes: list[int] = []

    @property
    def cap_hz(self) -> int:
        return min(self.asked, self.clamp_hz)

    def apply(self, cap_hz: int) -> int:
        self.writes.append(cap_hz)
        self.asked = cap_hz
        return self.cap_hz

    def effective_hz(self) -> int:
        return self.cap_hz

    def restore(self) -> None:
        self.asked = TABLE[-1]


def make(temp: dict[str, float], act: ClampedActuator, **kw: object) -> Governor:
    ctx = PolicyContext(load_board("rpi5"), {"cpu": TABLE}, 0.1)
    policy = make_policy("hysteresis", Table({}, "p"), ctx)
    sensors = {"cpu": FnSensor("cpu", lambda: temp["c"])}
    return Governor(SPECS, sensors, [act], policy, **kw)  # type: ignore[list-item]


def step(gov: Governor, t: float) -> TickRecord:
    gov.sample("cpu", t)
    return gov.tick(t)


def test_a_clamped_ask_is_written_once_not_every_tick() -> None:
    act = ClampedActuator(clamp_hz=1500)
    gov = make({"c": 50.0}, act)
    rows = [step(gov, 0.1 * (i + 1)) for i in range(30)]
    assert act.writes == [2000]
    assert gov.cap_changes == 1
    assert {r.caps_hz for r in rows} == {(1500,)}  # the cap in force, as before


def test_a_clamp_that_lifts_shows_in_the_trace_without_a_write() -> None:
    act = ClampedActuator(clamp_hz=1500)
    gov = make({"c": 50.0}, act)
    assert step(gov, 0.1).caps_hz == (1500,)
    act.clamp_hz = 1000  # the clamp deepens, then lifts
    assert step(gov, 0.2).caps_hz == (1000,)
    act.clamp_hz = 2000
    assert step(gov, 0.3).caps_hz == (2000,)
    assert step(gov, 0.4).caps_hz == (2000,)
    assert act.writes == [2000]


def test_a_new_ask_equal_to_the_read_back_is_written() -> None:
    """The clamp holds the domain at 500 while 2000 is asked; the board heats and the policy
    asks 500.  That ask must reach the file: when the clamp lifts the domain stays at 500.
    Comparing with the read-back skipped it, and the lifted clamp left 2000 in force."""
    act = ClampedActuator(clamp_hz=500)
    temp = {"c": 50.0}
    gov = make(temp, act)
    step(gov, 0.1)
    temp["c"] = 90.0
    step(gov, 0.2)
    act.clamp_hz = 2000
    row = step(gov, 0.3)
    assert act.writes == [2000, 500]
    assert act.cap_hz == 500
    assert row.caps_hz == (500,)


def test_a_steady_sensor_on_a_clamped_board_is_not_called_stuck() -> None:
    """Rewrites counted as clock activity: a board at steady clocks whose sensor reads a steady
    value was tagged ``sensor_stuck`` (and the sensor left fusion) after ``stuck_after_s``."""
    act = ClampedActuator(clamp_hz=1500)
    temp = {"c": 50.0}
    gov = make(temp, act, stuck_after_s=1.0)
    events = step(gov, 0.1).event  # the start's one write (the top, read back as the clamp)
    temp["c"] = 50.5  # the die settles after that write, then reads steady
    events += " ".join(step(gov, 0.1 * (i + 2)).event for i in range(40))
    assert "sensor_stuck" not in events
    assert not gov.fusion.excluded
