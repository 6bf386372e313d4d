"""The pack bound holds for every run a battery world ends early, and only applies there.

Every row that keeps the limits (no second at or above the trip, none at a hard limit) must
complete no more inferences before its pack empties than the bound allows: every policy,
``stock`` and fixed caps included, on the suite's battery scenario (shortened, a smaller pack
so it still empties) and on seeded random battery worlds (start hot or cool, docked or not, the
motors' draw, ambient steps).  The best fixed cap's estimate must sit under the bound too.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from tests.compare.short import short, with_sim
from thermogov.config import Config, SimConfig, SimEvent
from thermogov.sim.compare.compare import RunRow, run_grid
from thermogov.sim.compare.packbound import pack_bound

#: Every kind of row, kernel trips below 85 °C so they keep the trip on their own.
POLICIES = ["stock", "stepped", "hysteresis", "power_allocator", "step_wise", "fixed:50%", "fixed:100%"]
KEEPING = {
    "step_wise": {"trips": [{"temp_c": 80.0, "hyst_c": 2.0}]},
    "power_allocator": {"control_c": 82.0, "switch_on_c": 67.0},
}


def _keeping(cfg: Config) -> Config:
    return dataclasses.replace(cfg, policies={**cfg.policies, **KEEPING})


def _check(cfg: Config, tmp_path: Path) -> list[RunRow]:
    """Assert the bound on every limit-keeping row; returns the rows whose pack emptied."""
    bound = pack_bound(cfg)
    assert bound is not None, cfg.sim.scenario
    rows, _ = run_grid([(cfg.sim.scenario, _keeping(cfg))], POLICIES, tmp_path, with_oracle=False)
    kept = [r for r in rows if r.above_trip_s == 0 and r.hard_limit_s == 0]
    assert len(kept) >= 2, [(r.policy, r.above_trip_s) for r in rows]  # the bound was judged
    assert bound.count is not None  # a row kept the limits, so some schedule does
    for r in rows:
        assert r.inferences_total is not None
    for r in kept:
        assert r.inferences_total is not None
        assert r.inferences_total <= bound.count, (cfg.sim.scenario, r.policy, r.inferences_total, bound)
        if r.empty_at_s is not None:
            assert r.empty_at_s >= bound.earliest_empty_s - 1e-6, (r.policy, r.empty_at_s, bound)
    if bound.best_fixed_count is not None:
        assert bound.best_fixed_count <= bound.count
    return [r for r in rows if r.empty_at_s is not None]


def _robot(duration_s: float, soc: float) -> Config:
    cfg = short("orin-battery-robot", duration_s)
    return with_sim(cfg, initial_soc=soc)


def test_the_robot_scenario_shortened(tmp_path: Path) -> None:
    emptied = _check(_robot(480.0, 0.06), tmp_path)
    assert len(emptied) == len(POLICIES)  # the bound was judged on runs the pack ended


def _random_battery_world(seed: int, duration_s: float = 420.0) -> Config:
    """A battery world from ``seed``: ambient, start temperature, docked stretch, motors, a step."""
    rng = np.random.default_rng(seed)
    ambient = float(rng.uniform(20.0, 40.0))
    events = []
    if rng.random() < 0.5:
        events.append(SimEvent(at_s=0.0, kind="plugged", value=0.0))
    motors = float(rng.choice([0.0, 4.0, 8.0, 12.0]))
    events.append(SimEvent(at_s=float(round(rng.uniform(20.0, 80.0))), kind="on_the_move", value=motors))
    events.append(
        SimEvent(
            at_s=float(round(rng.uniform(100.0, 300.0))),
            kind="ambient",
            value=round(ambient + rng.normal(0, 6), 1),
        )
    )
    initial = None if rng.random() < 0.5 else round(ambient + float(rng.uniform(10.0, 40.0)), 1)
    # A pack that empties around two-thirds of the run at a middling draw (~8 W board).
    soc = (8.0 / 0.9 + motors) * duration_s * 0.6 / (3.35 * 7.2 * 3600.0)
    sim = SimConfig(
        duration_s=duration_s,
        ambient_c=round(ambient, 2),
        scenario=f"battery-{seed}",
        initial_temp_c=initial,
        initial_soc=round(soc, 4),
        events=tuple(sorted(events, key=lambda e: e.at_s)),
    )
    return dataclasses.replace(Config(), board="jetson-orin-nano", seed=seed, sim=sim)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_bound_holds_on_random_battery_worlds(seed: int, tmp_path: Path) -> None:
    emptied = _check(_random_battery_world(seed), tmp_path)
    assert emptied  # some run in every world is ended by its pack


def test_a_world_no_schedule_can_hold_has_no_count() -> None:
    # Random world 9 starts the pack at 75 °C, above its hard limit: every row runs the whole
    # 420 s under the hard-limit override, and the programme has no feasible point.
    bound = pack_bound(_random_battery_world(9))
    assert bound is not None and bound.count is None


def test_a_pack_that_cannot_empty_gets_no_pack_bound() -> None:
    assert pack_bound(short("orin-steady-25", 300.0)) is None  # a full pack outlasts the run
    assert pack_bound(short("rpi5-steady-25", 300.0)) is None  # no battery at all


def test_more_charge_never_lowers_the_bound() -> None:
    small = pack_bound(_robot(480.0, 0.05))
    large = pack_bound(_robot(480.0, 0.07))
    assert small is not None and large is not None and small.count is not None and large.count is not None
    assert large.count >= small.count
    assert large.earliest_empty_s > small.earliest_empty_s
