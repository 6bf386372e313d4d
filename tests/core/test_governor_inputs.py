"""What the policy is handed: the governor keeps its inputs between ticks, never mutating a given one.

``Governor`` keeps each sensor's latest good value and time as it reads them, and hands the
caps and clocks as mappings replaced only when they change (``thermogov/governor.py``).  A
policy may keep an input: a later tick must not change what it was given.
"""

from __future__ import annotations

from tests.core.fakes import FnSensor, RecordingActuator
from thermogov.board import load_board
from thermogov.fusion import SensorSpec
from thermogov.governor import Governor
from thermogov.policies import PolicyContext, make_policy
from thermogov.policies.base import Decision, PolicyInput
from thermogov.tomlcheck import Table

TABLE = (500, 1000, 1500, 2000)
SPECS = (SensorSpec("cpu", 0.6, 100, 95.0), SensorSpec("gpu", 0.3, 150, 95.0))


class Keeping:
    """The hysteresis policy, keeping every input it is handed."""

    name = "keeping"

    def __init__(self) -> None:
        ctx = PolicyContext(load_board("rpi5"), {"cpu": TABLE}, 0.1)
        self.inner = make_policy("hysteresis", Table({}, "p"), ctx)
        self.inputs: list[PolicyInput] = []

    def decide(self, inp: PolicyInput) -> Decision:
        self.inputs.append(inp)
        return self.inner.decide(inp)


def test_a_kept_input_still_shows_the_tick_it_was_given() -> None:
    temps = {"cpu": 60.0, "gpu": 61.0}
    gpu_ok = {"v": True}
    policy = Keeping()
    sensors = {
        "cpu": FnSensor("cpu", lambda: temps["cpu"]),
        "gpu": FnSensor("gpu", lambda: temps["gpu"] if gpu_ok["v"] else None),
    }
    gov = Governor(SPECS, sensors, [RecordingActuator("cpu", TABLE)], policy)  # type: ignore[list-item]
    gov.sample("cpu", 0.0)
    gov.sample("gpu", 0.0)
    gov.tick(0.0)
    temps["cpu"], gpu_ok["v"] = 99.0, False  # hot: the caps drop; the gpu read fails
    gov.sample("cpu", 0.1)
    gov.sample("gpu", 0.1)
    assert gov.tick(0.1).caps_hz == (500,)
    first, second = policy.inputs
    assert first.readings_c == {"cpu": 60.0, "gpu": 61.0}
    assert first.readings_t_s == {"cpu": 0.0, "gpu": 0.0}
    assert first.caps_hz == {"cpu": 2000} and first.freqs_hz == {"cpu": 2000}
    # The failed gpu read keeps its last good value and time; the cpu's are the new ones.
    assert second.readings_c == {"cpu": 99.0, "gpu": 61.0}
    assert second.readings_t_s == {"cpu": 0.1, "gpu": 0.0}
    gov.tick(0.2)
    third = policy.inputs[-1]
    assert third.caps_hz == {"cpu": 500} and third.freqs_hz == {"cpu": 500}
    assert second.caps_hz == {"cpu": 2000}  # what the second tick was handed, unchanged
