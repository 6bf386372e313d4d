"""Records built positionally on the hot path carry every field of their type.

The simulator's hot path builds ``TickRecord``, ``SampleRecord``, ``Reading``, ``Decision``,
``FusionResult``, ``TrendEstimate``, ``PolicyInput`` and ``PowerStatus`` with ``tuple.__new__`` (the NamedTuple keyword constructor
costs a Python call per tick).  A field added to one of them and forgotten there would give a
short tuple whose new attribute raises; this run catches it.
"""

from __future__ import annotations

import dataclasses

from thermogov.config import Config
from thermogov.fusion import FusionResult
from thermogov.governor import Governor, SampleRecord, TickRecord
from thermogov.interfaces import PowerStatus, Reading
from thermogov.policies.base import Decision, PolicyInput
from thermogov.policies.trend import TrendEstimate
from thermogov.sim.model.runner import simulate


def test_every_hot_path_record_has_all_its_fields() -> None:
    base = Config()
    cfg = dataclasses.replace(base, sim=dataclasses.replace(base.sim, duration_s=5.0))
    ticks: list[TickRecord] = []
    result = simulate(cfg, on_tick=ticks.append)
    gov = result.governor
    assert len(ticks) == 51
    assert all(len(t) == len(TickRecord._fields) for t in ticks)
    assert ticks[-1].fan_level is None and ticks[-1].mode == "full"
    reading = next(iter(result.world.sensors.values())).read()
    assert isinstance(reading, Reading) and len(reading) == len(Reading._fields)
    samples: list[SampleRecord] = []
    gov._on_sample = samples.append
    gov.sample(gov.specs[0].name, result.world.t)
    assert len(samples[0]) == len(SampleRecord._fields) and samples[0].ok
    fr = gov.fusion.fuse(result.world.t)
    assert isinstance(fr, FusionResult) and len(fr) == len(FusionResult._fields)
    decision = gov.policy.decide(_input(ticks[-1], gov))  # stepped, the default policy
    assert isinstance(decision, Decision) and len(decision) == len(Decision._fields)
    est = gov.policy.trend.update(6.0, 80.0)
    assert isinstance(est, TrendEstimate) and len(est) == len(TrendEstimate._fields)
    status = result.world.power_status()
    assert isinstance(status, PowerStatus) and len(status) == len(PowerStatus._fields)
    assert status.battery_temp_c is not None and status.t_s == result.world.t
    seen: list[PolicyInput] = []
    real_decide = gov.policy.decide
    gov.policy.decide = lambda inp: (seen.append(inp), real_decide(inp))[1]  # type: ignore[method-assign]
    gov.tick(result.world.t)
    assert len(seen[0]) == len(PolicyInput._fields)
    assert set(seen[0].readings_c) == set(seen[0].readings_t_s or ()) == {s.name for s in gov.specs}


def _input(tick: TickRecord, gov: Governor) -> PolicyInput:
    names = [s.name for s in gov.specs]
    return PolicyInput(
        tick.t_s + 0.2,
        80.0,
        dict(zip(names, tick.readings_c, strict=True)),
        dict(zip([a.name for a in gov.actuators], tick.caps_hz, strict=True)),
        dict(zip([a.name for a in gov.actuators], tick.freqs_hz, strict=True)),
        tick.power_w,
    )
