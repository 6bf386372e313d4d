"""The oracle is an upper bound: no policy that keeps the trip beats it, nor any fixed cap."""

from __future__ import annotations

import dataclasses

import pytest

from tests.compare.short import short, with_sim
from thermogov.config import Config, WorkloadConfig
from thermogov.sim.compare.compare import run_grid
from thermogov.sim.compare.oracle import TRIP_C, oracle

POLICIES = ["hysteresis", "stepped", "power_allocator", "step_wise", "bang_bang", "performance"]
SHORT = {
    "orin-steady-25": 300.0,
    "rpi5-steady-25": 300.0,
    "orin-fan-failure": 360.0,
    "orin-bursty": 240.0,
}


@pytest.fixture(scope="module")
def grid() -> tuple[list, dict]:  # type: ignore[type-arg]
    configs = [(name, short(name, d)) for name, d in SHORT.items()]
    return run_grid(configs, POLICIES, jobs=2)


def test_no_policy_that_keeps_the_trip_beats_the_oracle(grid: tuple[list, dict]) -> None:  # type: ignore[type-arg]
    rows, oracles = grid
    assert {r.scenario for r in rows} == set(SHORT)
    kept = 0
    for r in rows:
        bound = oracles[r.scenario].throughput_ips
        assert bound is not None and r.sustained_ips is not None
        if r.sustained_ips > bound * (1 + 1e-9):
            # only a schedule that ran above the trip (or at a hard limit) may pass the bound
            assert r.above_trip_s > 0 or r.hard_limit_s > 0, r
        if r.above_trip_s == 0 and r.hard_limit_s == 0:
            kept += 1
            assert r.sustained_ips <= bound * (1 + 1e-9), r
    assert kept >= len(SHORT) * 2  # the check had something to bite on


def test_the_oracle_trajectory_itself_keeps_the_trip(grid: tuple[list, dict]) -> None:  # type: ignore[type-arg]
    _, oracles = grid
    for res in oracles.values():
        assert res.max_fused_c is not None and res.max_fused_c <= TRIP_C + 1e-6
        # the relaxation runs at most a little hotter than its own trajectory on the exact plant
        assert res.replay_max_fused_c is not None and res.replay_max_fused_c <= TRIP_C + 1.5
        assert sum(share for _, share in res.mix) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize(("name", "duration"), [("orin-steady-25", 300.0), ("rpi5-steady-25", 300.0)])
def test_oracle_is_at_least_the_best_fixed_cap_that_holds_the_trip(name: str, duration: float) -> None:
    cfg = short(name, duration)
    board = cfg.load_board()
    res = oracle(cfg, board)
    assert res.throughput_ips is not None
    # every single-OPP schedule on the slow-domain floor (GPU boards) or the whole table (RPi)
    dom = board.domains[-1]
    floor = {d.name: d.opp_hz[0] for d in board.domains}
    specs = [
        "fixed:" + ",".join(f"{d}={f / 1e6:g}" for d, f in {**floor, dom.name: opp}.items())
        for opp in dom.opp_hz
    ]
    rows, _ = run_grid([(name, cfg)], specs, with_oracle=False)
    holding = [r for r in rows if r.above_trip_s == 0 and r.hard_limit_s == 0]
    assert holding, "at least the lowest OPPs hold the trip"
    best = max(holding, key=lambda r: r.sustained_ips or 0.0)
    assert best.sustained_ips is not None and best.sustained_ips <= res.throughput_ips * (1 + 1e-9)
    # and the oracle's own best fixed point does hold the trip in the simulator
    assert res.best_fixed_caps is not None and res.best_fixed_ips is not None
    assert res.best_fixed_ips <= res.throughput_ips * (1 + 1e-9)
    claimed = "fixed:" + ",".join(f"{d}={f / 1e6:g}" for d, f in res.best_fixed_caps.items())
    (row,) = run_grid([(name, cfg)], [claimed], with_oracle=False)[0]
    assert row.max_fused_c is not None and row.max_fused_c < TRIP_C + 0.5  # read noise only


def test_no_schedule_holds_a_trip_the_idle_board_is_already_past() -> None:
    cfg = with_sim(dataclasses.replace(Config(), board="rpi5"), ambient_c=60.0, duration_s=60.0)
    res = oracle(cfg)
    assert res.throughput_ips is None and res.mix == ()


def test_a_light_load_is_arrival_limited() -> None:
    cfg = with_sim(
        dataclasses.replace(Config(), board="rpi5"),
        duration_s=200.0,
        workload=WorkloadConfig(kind="poisson", rate_ips=5.0),
    )
    res = oracle(cfg)
    (row,), _ = run_grid([("light", cfg)], ["performance"], with_oracle=False)
    assert res.throughput_ips is not None and row.sustained_ips is not None
    assert row.sustained_ips <= res.throughput_ips
    window = res.window_s[1] - res.window_s[0]
    # the bound is the arrivals themselves plus at most a full queue, nothing thermal
    assert res.throughput_ips - row.sustained_ips <= (cfg.sim.workload.queue_limit + 1) / window + 1e-9
