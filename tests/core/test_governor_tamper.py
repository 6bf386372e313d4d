"""A tampered actuator target (hw.confine) is failsafe in the same tick, not after N failures."""

from __future__ import annotations

from tests.core.fakes import FnSensor, RecordingActuator
from thermogov.board import load_board
from thermogov.fusion import SensorSpec
from thermogov.governor import FAILSAFE, Governor
from thermogov.interfaces import ActuatorError
from thermogov.policies import PolicyContext, make_policy
from thermogov.tomlcheck import Table

TABLE = (500, 1000, 1500, 2000)
SPECS = (SensorSpec("cpu", 1.0, 100, 95.0),)


class Tampered(ActuatorError):
    immediate_failsafe = True


class SwappableActuator(RecordingActuator):
    def __init__(self, name: str, table: tuple[int, ...]) -> None:
        super().__init__(name, table)
        self.tampered = False

    def apply(self, cap_hz: int) -> int:
        if self.tampered:
            raise Tampered(f"{self.name}: became a symlink since start-up")
        return super().apply(cap_hz)


def test_a_tampered_target_forces_failsafe_at_the_first_failure() -> None:
    temp = {"v": 90.0}
    cpu = SwappableActuator("cpu", TABLE)
    gpu = RecordingActuator("gpu", TABLE)
    ctx = PolicyContext(load_board("rpi5"), {"cpu": TABLE, "gpu": TABLE}, 0.1)
    policy = make_policy("hysteresis", Table({}, "p"), ctx)
    gov = Governor(
        SPECS, {"cpu": FnSensor("cpu", lambda: temp["v"])}, [cpu, gpu], policy, max_write_failures=5
    )
    gov.sample("cpu", 0.0)
    assert gov.tick(0.0).caps_hz == (500, 500)  # hot: lowest caps
    cpu.tampered = True
    temp["v"] = 40.0  # cool: the policy releases both domains
    gov.sample("cpu", 0.1)
    rec = gov.tick(0.1)
    assert "write_failed:cpu" in rec.event and "failsafe" in rec.event
    assert rec.policy_state == FAILSAFE
    assert rec.caps_hz == (500, 500)  # gpu was raised, then put back at once
    for k in range(2, 10):  # and it stays failsafe while the target is tampered
        gov.sample("cpu", k * 0.1)
        r = gov.tick(k * 0.1)
        assert r.policy_state == FAILSAFE and r.caps_hz == (500, 500)
