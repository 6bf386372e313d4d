from __future__ import annotations

from collections.abc import Callable

from tests.core.fakes import FnSensor, RecordingActuator
from thermogov.board import load_board
from thermogov.fusion import SensorSpec
from thermogov.governor import FAILSAFE, Governor, SampleRecord
from thermogov.policies import PolicyContext, make_policy
from thermogov.tomlcheck import Table

TABLE = (500, 1000, 1500, 2000)
SPECS = (SensorSpec("cpu", 0.6, 100, 95.0), SensorSpec("gpu", 0.3, 150, 95.0))


def make(values: dict[str, Callable[[], float | None]], **kw: object) -> tuple[Governor, RecordingActuator]:
    board = load_board("rpi5")
    act = RecordingActuator("cpu", TABLE)
    ctx = PolicyContext(board, {"cpu": TABLE}, 0.1)
    policy = make_policy("hysteresis", Table({}, "p"), ctx)
    sensors = {n: FnSensor(n, fn) for n, fn in values.items()}
    return Governor(SPECS, sensors, [act], policy, **kw), act  # type: ignore[arg-type]


def step(gov: Governor, t: float) -> object:
    gov.sample("cpu", t)
    gov.sample("gpu", t)
    return gov.tick(t)


def test_caps_are_written_only_when_they_change() -> None:
    temps = iter([60, 86, 88, 80, 69, 60, 60])
    cur = {"v": 0.0}

    def cpu() -> float:
        return cur["v"]

    gov, act = make({"cpu": cpu, "gpu": cpu})
    states = []
    for i, t in enumerate(temps):
        cur["v"] = float(t)
        states.append(step(gov, i * 0.1).policy_state)
    assert states == ["HIGH", "LOW", "LOW", "LOW", "HIGH", "HIGH", "HIGH"]
    assert act.writes == [500, 2000]  # one write per transition, none while holding
    assert gov.cap_changes == 2


def test_hard_limit_forces_lowest_cap_although_fused_is_cool() -> None:
    gov, _act = make({"cpu": lambda: 96.0, "gpu": lambda: 40.0})
    rec = step(gov, 0.0)
    assert rec.fused_c < 85.0
    assert "hard_limit:cpu" in rec.event
    assert rec.caps_hz == (500,)


def test_no_fresh_sensor_goes_to_failsafe_and_says_so() -> None:
    gov, _act = make({"cpu": lambda: None, "gpu": lambda: None})
    rec = step(gov, 0.0)
    assert rec.fused_c is None
    assert rec.policy_state == FAILSAFE
    assert "failsafe" in rec.event and "temp_unknown" in rec.event
    assert rec.caps_hz == (500,)
    assert rec.sensors_used == ""


def test_unknown_grace_holds_caps_then_failsafes() -> None:
    alive = {"v": True}
    gov, act = make({"cpu": lambda: 50.0 if alive["v"] else None, "gpu": lambda: None}, unknown_grace_s=1.0)
    step(gov, 0.0)
    alive["v"] = False
    t = 0.0
    states = []
    while t < 2.0:
        t = round(t + 0.1, 1)
        states.append((t, step(gov, t).policy_state))
    # cpu reading at t=0 is fresh until 0.3 s; unknown from 0.4 s; failsafe 1 s later.
    first_failsafe = next(t for t, s in states if s == FAILSAFE)
    assert first_failsafe == 1.4
    assert act.writes == [500]


def test_sensor_failures_are_recorded_not_invented() -> None:
    samples: list[SampleRecord] = []
    vals = iter([50.0, None, 52.0])
    gov, _ = make({"cpu": lambda: next(vals), "gpu": lambda: 40.0}, on_sample=samples.append)
    for t in (0.0, 0.1, 0.2):
        gov.sample("cpu", t)
    assert [(s.ok, s.value_c) for s in samples] == [(True, 50.0), (False, None), (True, 52.0)]
    assert gov.fusion.latest("cpu").value_c == 52.0


def test_repeated_write_failures_escalate_to_failsafe() -> None:
    cur = {"v": 90.0}
    gov, act = make({"cpu": lambda: cur["v"], "gpu": lambda: cur["v"]}, max_write_failures=3)
    act.fail = True
    events = [step(gov, i * 0.1).event for i in range(4)]
    assert all("write_failed:cpu" in e for e in events)
    assert "failsafe" in events[2]
    assert step(gov, 0.5).policy_state == FAILSAFE
    act.fail = False
    rec = step(gov, 0.6)
    assert rec.caps_hz == (500,)  # the lowest cap is what finally lands
