"""Sensors that leave fusion or freeze are trace events, and a frozen one counts as failed."""

from __future__ import annotations

from collections.abc import Callable

from tests.core.fakes import FnSensor, RecordingActuator
from thermogov.board import load_board
from thermogov.fusion import SensorSpec
from thermogov.governor import FAILSAFE, Governor, TickRecord
from thermogov.policies import PolicyContext, make_policy
from thermogov.tomlcheck import Table

TABLE = (500, 1000, 1500, 2000)
SPECS = (SensorSpec("cpu", 0.6, 100, 95.0), SensorSpec("gpu", 0.4, 100, 95.0))


class WanderingActuator(RecordingActuator):
    """An actuator whose effective clock moves by itself, as cpufreq's does under a load."""

    def __init__(self, name: str, table: tuple[int, ...]) -> None:
        super().__init__(name, table)
        self.clock: Callable[[], int] = lambda: self.cap_hz

    def effective_hz(self) -> int:
        return self.clock()


def make(
    values: dict[str, Callable[[], float | None]], stuck_after_s: float | None = 5.0
) -> tuple[Governor, WanderingActuator]:
    board = load_board("rpi5")
    act = WanderingActuator("cpu", TABLE)
    ctx = PolicyContext(board, {"cpu": TABLE}, 0.1)
    policy = make_policy("performance", Table({}, "p"), ctx)
    sensors = {n: FnSensor(n, fn) for n, fn in values.items()}
    gov = Governor(SPECS, sensors, [act], policy, unknown_grace_s=1.0, stuck_after_s=stuck_after_s)  # type: ignore[arg-type]
    return gov, act


def run(gov: Governor, t0: float, t1: float) -> list[TickRecord]:
    recs = []
    for i in range(round(t0 * 10), round(t1 * 10)):
        t = i / 10
        gov.sample("cpu", t)
        gov.sample("gpu", t)
        recs.append(gov.tick(t))
    return recs


def tags(recs: list[TickRecord]) -> list[tuple[float, str]]:
    return [(r.t_s, tag) for r in recs for tag in r.event.split() if tag.startswith("sensor_")]


def test_a_sensor_dropping_out_of_fusion_and_back_is_an_event() -> None:
    gpu_ok = {"v": True}
    gov, _ = make({"cpu": lambda: 50.0, "gpu": lambda: 55.0 if gpu_ok["v"] else None})
    recs = run(gov, 0.0, 1.0)
    assert tags(recs) == [] and recs[-1].sensors_used == "cpu+gpu"
    gpu_ok["v"] = False
    recs = run(gov, 1.0, 2.0)
    lost = [t for t, tag in tags(recs) if tag == "sensor_lost:gpu"]
    assert len(lost) == 1 and recs[-1].sensors_used == "cpu"
    # Lost once it is stale (3 periods), not at the first failed read.
    assert 1.0 + 0.3 - 1e-9 <= lost[0] <= 1.0 + 0.4 + 1e-9
    gpu_ok["v"] = True
    recs = run(gov, 2.0, 2.5)
    assert tags(recs) == [(2.0, "sensor_back:gpu")] and recs[-1].sensors_used == "cpu+gpu"


def test_a_sensor_missing_from_the_start_is_lost_at_the_first_tick() -> None:
    gov, _ = make({"cpu": lambda: 50.0, "gpu": lambda: None})
    recs = run(gov, 0.0, 0.5)
    assert tags(recs) == [(0.0, "sensor_lost:gpu")]


def _moving() -> Callable[[], float]:
    n = {"i": 0}

    def value() -> float:
        n["i"] += 1
        return 55.0 + (n["i"] % 7) * 0.25

    return value


def test_a_frozen_sensor_while_the_clocks_move_is_stuck_then_unstuck() -> None:
    cpu = {"v": 60.0}
    gov, act = make({"cpu": lambda: cpu["v"], "gpu": _moving()})
    step = {"i": 0}

    def wander() -> int:  # the clock follows the load, changing every tick
        step["i"] += 1
        return TABLE[step["i"] % len(TABLE)]

    act.clock = wander
    recs = run(gov, 0.0, 8.0)
    stuck = [t for t, tag in tags(recs) if tag == "sensor_stuck:cpu"]
    assert len(stuck) == 1 and abs(stuck[0] - 5.0) <= 0.1 + 1e-9
    after = [r for r in recs if r.t_s > stuck[0]]
    assert after and all(r.sensors_used == "gpu" for r in after)
    assert all(r.fused_c is not None and 55.0 <= r.fused_c <= 57.0 for r in after)  # gpu alone
    cpu["v"] = 61.0
    recs = run(gov, 8.0, 8.5)
    assert [tag for _, tag in tags(recs)] == ["sensor_unstuck:cpu", "sensor_back:cpu"]
    assert recs[-1].sensors_used == "cpu+gpu"


def test_constant_clocks_are_no_evidence_against_a_constant_temperature() -> None:
    gov, _ = make({"cpu": lambda: 60.0, "gpu": lambda: 61.0})  # idle board, fixed clocks
    recs = run(gov, 0.0, 30.0)
    assert tags(recs) == [] and recs[-1].sensors_used == "cpu+gpu"


def test_every_sensor_frozen_while_the_governor_moves_the_caps_ends_in_failsafe() -> None:
    # The emulator after its simulated shutdown: every file keeps its last value; the clocks
    # still change (here by a DVFS governor below our cap).
    gov, act = make({"cpu": lambda: 80.0, "gpu": lambda: 81.0}, stuck_after_s=5.0)
    step = {"i": 0}

    def wander() -> int:
        step["i"] += 1
        return TABLE[step["i"] % 2]

    act.clock = wander
    recs = run(gov, 0.0, 7.0)
    lowest = [r for r in recs if r.caps_hz == (TABLE[0],)]
    assert lowest and lowest[0].policy_state == FAILSAFE
    # stuck at 5 s, then the unknown-temperature grace of 1 s
    assert 6.0 - 1e-9 <= lowest[0].t_s <= 6.1 + 1e-9
    assert {"sensor_stuck:cpu", "sensor_stuck:gpu"} <= {tag for _, tag in tags(recs)}


def test_a_frozen_board_is_caught_by_the_governors_own_cap_changes() -> None:
    # Every file frozen, scaling_cur_freq included: the only change of clocks is the trip the
    # governor itself makes on the (frozen) hot reading.
    board = load_board("rpi5")
    act = RecordingActuator("cpu", TABLE)
    ctx = PolicyContext(board, {"cpu": TABLE}, 0.1)
    policy = make_policy("hysteresis", Table({}, "p"), ctx)
    sensors = {n: FnSensor(n, lambda: 88.0) for n in ("cpu", "gpu")}
    gov = Governor(SPECS, sensors, [act], policy, unknown_grace_s=1.0, stuck_after_s=5.0)  # type: ignore[arg-type]
    recs = run(gov, 0.0, 7.0)
    assert "trip" in recs[0].event
    stuck = {t for t, tag in tags(recs) if tag.startswith("sensor_stuck:")}
    assert stuck and abs(min(stuck) - 5.0) <= 0.1 + 1e-9
    assert recs[-1].policy_state == FAILSAFE and recs[-1].fused_c is None


def test_stuck_detection_is_off_when_not_configured() -> None:
    gov, act = make({"cpu": lambda: 60.0, "gpu": lambda: 61.0}, stuck_after_s=None)
    step = {"i": 0}

    def wander() -> int:
        step["i"] += 1
        return TABLE[step["i"] % 2]

    act.clock = wander
    assert tags(run(gov, 0.0, 10.0)) == []
