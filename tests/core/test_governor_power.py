"""The governor's power hooks: the latest PowerStatus is kept, limiters only lower caps."""

from __future__ import annotations

from collections.abc import Mapping

from tests.core.fakes import FnSensor, RecordingActuator
from thermogov.board import load_board
from thermogov.fusion import SensorSpec
from thermogov.governor import Governor, Telemetry, TickRecord
from thermogov.interfaces import PowerStatus
from thermogov.policies import PolicyContext, make_policy
from thermogov.tomlcheck import Table

TABLE = (500, 1000, 1500, 2000)
SPECS = (SensorSpec("cpu", 1.0, 100, 95.0),)


class Supply(Telemetry):
    def __init__(self) -> None:
        self.status: PowerStatus | None = None

    def power_status(self) -> PowerStatus | None:
        return self.status


class Halve:
    """A limiter asking for the second OPP and one above the policy's (which must be ignored)."""

    def __init__(self) -> None:
        self.seen: list[tuple[float | None, PowerStatus | None]] = []

    def limit(
        self, now_s: float, caps_hz: Mapping[str, int], power_w: float | None, status: PowerStatus | None
    ) -> tuple[dict[str, int], list[str]]:
        self.seen.append((power_w, status))
        return {"cpu": 1000, "other": 10**9}, ["halved"]


def make(temp: float, **kw: object) -> tuple[Governor, RecordingActuator]:
    board = load_board("rpi5")
    act = RecordingActuator("cpu", TABLE)
    policy = make_policy("hysteresis", Table({}, "p"), PolicyContext(board, {"cpu": TABLE}, 0.1))
    return Governor(SPECS, {"cpu": FnSensor("cpu", lambda: temp)}, [act], policy, **kw), act  # type: ignore[arg-type]


def tick(gov: Governor, t: float) -> TickRecord:
    gov.sample("cpu", t)
    return gov.tick(t)


def test_latest_power_status_is_kept_and_a_state_change_is_an_event() -> None:
    sup = Supply()
    gov, _ = make(50.0, telemetry=sup)
    assert gov.power_status is None
    assert "power:" not in tick(gov, 0.0).event
    sup.status = PowerStatus("discharging", 80.0, 5.0, 30.0, 0.1)
    assert "power:discharging" in tick(gov, 0.1).event
    assert gov.power_status == sup.status
    sup.status = PowerStatus("discharging", 79.9, 5.1, 30.0, 0.2)
    assert "power:" not in tick(gov, 0.2).event  # same state: no event, newer values kept
    assert gov.power_status.capacity_pct == 79.9
    sup.status = PowerStatus("charging", 80.0, 5.0, 30.0, 0.3)
    assert "power:charging" in tick(gov, 0.3).event
    sup.status = None  # a failed report keeps the last good one
    tick(gov, 0.4)
    assert gov.power_status.state == "charging"


def test_a_limiter_lowers_caps_but_never_raises_them() -> None:
    lim = Halve()
    gov, act = make(50.0, limiters=[lim])
    rec = tick(gov, 0.0)
    assert rec.caps_hz == (1000,)
    assert "halved" in rec.event
    assert act.writes == [1000]
    hot, _ = make(90.0, limiters=[lim])  # the policy wants the lowest cap: the limiter cannot raise it
    assert tick(hot, 0.0).caps_hz == (500,)


def test_sim_world_reports_its_supply() -> None:
    from thermogov.config import Config
    from thermogov.sim.model.world import SimWorld

    bat_board = load_board("jetson-orin-nano")
    w = SimWorld(bat_board, Config(board="jetson-orin-nano"))
    st = w.power_status()
    assert st.state == "discharging" and st.capacity_pct == 100.0 and st.battery_temp_c is not None
    assert w.battery is not None
    w.battery.plug()
    assert w.power_status().state == "full"
    w.soc = 0.5
    w.battery.plug()
    assert w.power_status().state == "charging"
    mains = SimWorld(load_board("rpi5"), Config(board="rpi5"))
    assert mains.power_status().state == "mains"


def test_the_policy_is_told_the_supplys_state() -> None:
    """A battery guard needs to know whether the board's current passes through the pack: the
    telemetry's state reaches the policy (None until the world reports one)."""
    sup = Supply()
    gov, _ = make(50.0, telemetry=sup)
    seen: list[str | None] = []
    decide = gov.policy.decide
    gov.policy.decide = lambda inp: (seen.append(inp.power_state), decide(inp))[1]  # type: ignore[method-assign]
    tick(gov, 0.0)
    sup.status = PowerStatus("full", 100.0, 5.0, 30.0, 0.1)
    tick(gov, 0.1)
    sup.status = PowerStatus("discharging", 99.9, 5.0, 30.0, 0.2)
    tick(gov, 0.2)
    assert seen == [None, "full", "discharging"]
