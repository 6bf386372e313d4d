"""The oracle is a bound on any scenario: falling ambient, hot starts, random ambient paths.

A policy that keeps the trip (no tick at or above 85 °C, no hard-limit override) must never
complete more in the window than the oracle allows, whatever the world does.  The suite's
scenarios only make conditions worse; these also make them better, where the old
"sustained" rule (throughput may not rise) let policies score 101-109 % of it.
"""

from __future__ import annotations

import dataclasses

import pytest

from tests.compare.randomscen import random_scenario
from tests.compare.short import with_sim
from thermogov.config import Config, SimEvent
from thermogov.sim.compare.compare import RunRow, run_grid
from thermogov.sim.compare.oracle import oracle

#: Baselines that keep the trip on their own: the kernel governors' trips set below 85 °C.
POLICIES = ["stepped", "hysteresis", "power_allocator", "step_wise", "bang_bang", "performance"]
KEEPING = {
    "step_wise": {"trips": [{"temp_c": 80.0, "hyst_c": 2.0}]},
    "bang_bang": {"trips": [{"temp_c": 80.0, "hyst_c": 2.0}]},
    "power_allocator": {"control_c": 82.0, "switch_on_c": 67.0},
}


def _check(rows: list[RunRow], bound: float | None) -> int:
    """Assert the bound on every trip-keeping row; returns how many rows it applied to."""
    kept = [r for r in rows if r.above_trip_s == 0 and r.hard_limit_s == 0 and r.sustained_ips is not None]
    for r in kept:
        assert bound is not None, f"{r.policy} kept the trip where the oracle found no schedule"
        assert r.sustained_ips <= bound * (1 + 1e-9), (r.scenario, r.policy, r.sustained_ips, bound)
    return len(kept)


def _falling(duration_s: float) -> Config:
    """The audit's case, shortened: the room cools from 35 to 20 °C in steps over the run."""
    steps = 6
    events = tuple(
        SimEvent(
            at_s=round(duration_s * (i + 1) / (steps + 1)),
            kind="ambient",
            value=35.0 - 15.0 * (i + 1) / steps,
        )
        for i in range(steps)
    )
    return with_sim(Config(policies=KEEPING), ambient_c=35.0, duration_s=duration_s, events=events)


def test_falling_ambient_no_policy_beats_the_bound() -> None:
    cfg = _falling(600.0)
    res = oracle(cfg)
    rows, _ = run_grid([("falling", cfg)], POLICIES, with_oracle=False, jobs=2)
    assert _check(rows, res.throughput_ips) >= 3
    # the old rule's value is still there as a reference, below the bound
    ref = oracle(cfg, sustained=True)
    assert ref.sustained_ips is not None and ref.throughput_ips is not None
    assert ref.sustained_ips <= ref.throughput_ips + 1e-9


@pytest.mark.parametrize("seed", [11, 12, 13, 14, 15, 16])
def test_random_scenarios_no_policy_beats_the_bound(seed: int) -> None:
    cfg = random_scenario(seed)
    cfg = dataclasses.replace(cfg, policies=KEEPING)
    res = oracle(cfg)
    rows, _ = run_grid([(cfg.sim.scenario, cfg)], POLICIES, with_oracle=False)
    _check(rows, res.throughput_ips)
    if res.throughput_ips is not None:
        # the tightness figure is a schedule the exact plant runs, so it is under the bound
        assert res.best_fixed_ips is None or res.best_fixed_ips <= res.throughput_ips * (1 + 1e-9)


def test_random_scenarios_are_varied() -> None:
    """The generator draws different boards, loads, improving and worsening ambient."""
    cfgs = [random_scenario(s) for s in range(11, 17)]
    assert len({c.board for c in cfgs}) >= 2
    assert len({c.sim.workload.kind for c in cfgs}) >= 2
    falls = rises = 0
    for c in cfgs:
        prev = c.sim.ambient_c
        for e in c.sim.events:
            if e.kind == "ambient":
                falls += e.value < prev
                rises += e.value > prev
                prev = e.value
    assert falls and rises
