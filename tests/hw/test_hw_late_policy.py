"""Session 24a: a sensor that joins late reaches ``stepped`` (hw/latepolicy.py, policies/widen.py).

Main built the running policy from a context naming every sensor the config fuses, those waited
for included (session 23b had narrowed only the start's check of the ``[policies.*]`` table), and
never told it of a join: a GPU zone that might never appear had its hard limit, period, codes and
weight counted from the start.  Now the policy's context names the sensors there at start, and a
sensor that joins is given to the running policy as if it had been there from the start.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from tests.hw import fakesys
from tests.hw.test_hw_late_zones import GpuZone
from tests.hw.test_hw_late_zones import _run as late_zones_run
from thermogov.config import parse_config
from thermogov.governor import Governor
from thermogov.hw import daemon
from thermogov.policies import PolicyContext, PolicyInput
from thermogov.policies.stepped import Stepped
from thermogov.policies.widen import adopt_sensors

JOIN_S = 20.0


def _terms(p: Stepped) -> tuple[Any, ...]:
    """Every term ``stepped`` derives from its context's sensors."""
    tail = p.tail
    return (
        dict(p.hard_limits_c),
        tuple(p._limit_trends),
        p.trip_k,
        p.code_edge_c,
        p.code_once,
        p.board_limits,
        p.board_ramps,
        p.p,
        p.trip_step,
        p.tail_terms,
        None if tail is None else (tail.trip_edge_c, tail.step_c, tail.budget_p),
        None if p.ripple is None else p.ripple.share,
    )


def _contexts(root: Path) -> tuple[PolicyContext, PolicyContext]:
    """The context of the sensors bound without the GPU zone, and the one naming it too."""
    prep = daemon.prepare(daemon.RunOptions(parse_config({}), root, dry_run=True))
    start = daemon.policy_context(prep)
    assert start.sensor_names == ("cpu", "battery")
    return start, dataclasses.replace(start, sensor_names=("cpu", "gpu", "battery"))


def test_a_gpu_zone_that_joins_late_is_given_to_the_running_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Main: the running policy counted the gpu from the start (before it appeared: wrong), and
    # nothing changed at the join.
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=70000, gpu_mc=75000, battery_decic=300)
    gpu = GpuZone(t, tmp_path)
    gpu.leave()
    start, full = _contexts(t.root)
    config = parse_config({})
    govs: list[Governor] = []

    class Kept(Governor):
        def __init__(self, *a: Any, **k: Any) -> None:
            super().__init__(*a, **k)
            govs.append(self)

    monkeypatch.setattr(daemon, "Governor", Kept)
    before: list[tuple[Any, ...]] = []

    def script(el: float) -> None:
        if el >= JOIN_S and not gpu.link.is_symlink():
            gpu.back()
        if el >= 10.0 and not before:
            assert isinstance(govs[0].policy, Stepped)
            before.append(_terms(govs[0].policy))

    rows, _err = late_zones_run(tmp_path, monkeypatch, 40.0, script)
    assert any("sensor_joined:gpu" in r["event"] for r in rows)
    policy = govs[0].policy
    assert isinstance(policy, Stepped)
    assert before[0] == _terms(config.make_policy(start)), "before the join: the sensors there"
    assert "gpu" not in before[0][0]
    assert _terms(policy) == _terms(config.make_policy(full)), "after it: as if there from the start"
    assert "gpu" in policy.hard_limits_c


def _inputs(t: float, with_gpu: bool) -> PolicyInput:
    """The same temperatures for both policies: a CPU holding near the trip, a GPU that climbs
    towards its own hard limit (95 °C) from 120 s, a cool pack."""
    cpu = 84.0 + 1.5 * math.sin(t / 7.0)
    gpu = 70.0 + (min(max(t - 120.0, 0.0), 180.0) / 180.0) * 25.0
    readings = {"cpu": cpu, "battery": 30.0, **({"gpu": gpu} if with_gpu else {})}
    fused = (0.6 * cpu + 0.3 * gpu + 0.1 * 30.0) / 1.0
    return PolicyInput(
        t_s=t,
        fused_c=fused,
        readings_c=readings,
        caps_hz={},
        freqs_hz={},
        readings_t_s={k: t for k in readings},
    )


def test_after_the_join_stepped_decides_as_with_the_sensor_there_from_the_start(tmp_path: Path) -> None:
    # Main (no adopt_sensors): without the gpu's limit the late policy stays at its rung while
    # the gpu nears 95 °C; the policy built with it steps down.
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, battery_decic=300)
    GpuZone(t, tmp_path).leave()
    start, full = _contexts(t.root)
    config = parse_config({})
    there, late = config.make_policy(full), config.make_policy(start)
    assert isinstance(there, Stepped) and isinstance(late, Stepped)
    caps = {d: tbl[-1] for d, tbl in full.tables_hz.items()}
    differ, same = [], 0
    join = round(JOIN_S / full.control_period_s)
    for i in range(round(400 / full.control_period_s)):
        now = i * full.control_period_s
        if i == join:
            adopt_sensors(late, config.make_policy(full))
        a = there.decide(_inputs(now, True)._replace(caps_hz=caps, freqs_hz=caps))
        b = late.decide(_inputs(now, i >= join)._replace(caps_hz=caps, freqs_hz=caps))
        if i >= join:
            if dict(a.caps_hz) != dict(b.caps_hz) or a.state != b.state:
                differ.append(now)
            else:
                same += 1
        caps = dict(a.caps_hz)
    assert not differ, f"decisions differ from the join at {differ[:5]}"
    assert same > 0
