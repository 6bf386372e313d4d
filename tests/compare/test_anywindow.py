"""The anticipation-free bound: no schedule's worst window beats it, and it cannot bank heat.

A policy is scored by its least completions over every window as long as the steady window
that starts between the run's start and the steady window's start; the any-window programme
maximises that least window.  It must hold for every trip-keeping policy on the suite and on
random worlds (improving conditions included), stay under the free bound, and above the best
fixed cap (which runs every window alike).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tests.compare.randomscen import random_scenario
from tests.compare.short import short
from tests.compare.solved import shared_anywindow_bound, shared_oracle
from thermogov.config import Config
from thermogov.interfaces import ConfigError
from thermogov.sim.compare.anywindow import (
    anywindow_bound,
    extended,
    open_factor,
    slowest_time_constant_s,
    window_starts,
    worst_window_ips,
)
from thermogov.sim.compare.compare import run_grid
from thermogov.sim.compare.oracle import OracleResult, grid_step_s, oracle, steady_window
from thermogov.sim.scenarios import load_scenario

POLICIES = ["stepped", "hysteresis", "step_wise", "power_allocator"]
KEEPING = {
    "step_wise": {"trips": [{"temp_c": 80.0, "hyst_c": 2.0}]},
    "power_allocator": {"control_c": 82.0, "switch_on_c": 67.0},
}


def _check(cfg: Config, tmp_path: Path) -> int:
    """Assert the bound on every trip-keeping row's worst window; returns how many it applied to."""
    return _check_bound(cfg, tmp_path)[0]


def _check_bound(cfg: Config, tmp_path: Path) -> tuple[int, OracleResult]:
    """:func:`_check`, and the bound it computed (one linear programme less for a caller that
    asserts more about the same bound: on a continued world it is the costliest step)."""
    bound = shared_anywindow_bound(cfg)
    assert bound is not None
    free = shared_oracle(cfg).throughput_ips
    rows, _ = run_grid([(cfg.sim.scenario, cfg)], POLICIES, tmp_path, with_oracle=False)
    kept = [r for r in rows if r.above_trip_s == 0 and r.hard_limit_s == 0 and r.sustained_ips is not None]
    for r in kept:
        worst = worst_window_ips(cfg, Path(r.run_dir))
        assert worst is not None and bound.throughput_ips is not None, (r.policy, worst)
        assert worst <= bound.throughput_ips * (1 + 1e-9), (cfg.sim.scenario, r.policy, worst, bound)
        assert (
            worst <= r.sustained_ips + 1e-3
        )  # the steady window is one of them (summary rounds to 4 places)
    if bound.throughput_ips is not None:
        assert free is not None and bound.throughput_ips <= free * (1 + 1e-9)
        assert bound.best_fixed_ips is None or bound.best_fixed_ips <= bound.throughput_ips * (1 + 1e-9)
    return len(kept), bound


@pytest.mark.parametrize("name", ["orin-steady-25", "orin-ambient-step", "rpi5-steady-25"])
def test_no_policy_worst_window_beats_the_bound_on_the_suite(name: str, tmp_path: Path) -> None:
    cfg = dataclasses.replace(short(name, 600.0), policies=KEEPING)
    assert _check(cfg, tmp_path) >= 2


#: Seeded random worlds with a saturating load (the bound claims nothing for an open load).
SATURATING_SEEDS = [s for s in range(11, 40) if random_scenario(s).sim.workload.kind == "saturating"][:6]


@pytest.mark.parametrize("seed", SATURATING_SEEDS)
def test_no_policy_worst_window_beats_the_bound_on_random_worlds(seed: int, tmp_path: Path) -> None:
    _check(dataclasses.replace(random_scenario(seed), policies=KEEPING), tmp_path)


def test_the_random_worlds_cover_both_kinds_of_board_and_a_hot_start() -> None:
    cfgs = [random_scenario(s) for s in SATURATING_SEEDS]
    assert len(SATURATING_SEEDS) == 6
    assert {c.board for c in cfgs} == {"jetson-orin-nano", "rpi5", "rpi4"}
    assert any(c.sim.initial_temp_c is not None for c in cfgs)


def test_an_open_load_gets_no_any_window_bound() -> None:
    cfg = random_scenario(11)
    poisson = dataclasses.replace(
        cfg, sim=dataclasses.replace(cfg.sim, workload=dataclasses.replace(cfg.sim.workload, kind="poisson"))
    )
    assert anywindow_bound(poisson) is None
    with pytest.raises(ConfigError, match="any_window"):
        oracle(poisson, any_window=True)


def test_the_bound_cannot_bank_heat_for_one_window() -> None:
    """On the Orin Nano the free bound idles the first half and bursts in the window; judged on
    every window that burst is paid for in an earlier window, so the bound falls well below it,
    and it idles before the window much less (its first half does most of its window's work)."""
    cfg = dataclasses.replace(short("orin-steady-25", 600.0), policies=KEEPING)  # the suite test's world
    free, anyw = shared_oracle(cfg), shared_anywindow_bound(cfg)
    assert anyw is not None and free.throughput_ips is not None and anyw.throughput_ips is not None
    assert anyw.throughput_ips < 0.95 * free.throughput_ips
    assert anyw.best_fixed_ips is not None and anyw.throughput_ips > anyw.best_fixed_ips


def _trace(path: Path, rates: list[tuple[float, float]], step_s: float = 1.0) -> None:
    """A trace.csv whose count rises at ``rate`` inf/s until each ``until`` second."""
    path.mkdir(parents=True, exist_ok=True)
    lines = ["t_s,inferences_total"]
    t, count = 0.0, 0.0
    lines.append("0.000,0")
    for until, rate in rates:
        while t < until - 1e-9:
            t += step_s
            count += rate * step_s
            lines.append(f"{t:.3f},{int(count)}")
    (path / "trace.csv").write_text("\n".join(lines) + "\n")


def test_the_worst_window_is_the_least_of_every_window(tmp_path: Path) -> None:
    cfg = short("orin-steady-25", 600.0)
    starts, length = window_starts(cfg)
    assert starts[0] == 0.0 and starts[-1] + length == pytest.approx(600.0) and length == pytest.approx(300.0)
    # 100 inf/s for the first 100 s, 50 inf/s after: the last window (all at 50) is the worst
    _trace(tmp_path / "a", [(100.0, 100.0), (600.0, 50.0)])
    assert worst_window_ips(cfg, tmp_path / "a") == pytest.approx(50.0)
    # a slump in the middle is caught though the steady window does not hold it all
    _trace(tmp_path / "b", [(200.0, 100.0), (300.0, 10.0), (600.0, 100.0)])
    assert worst_window_ips(cfg, tmp_path / "b") == pytest.approx((200.0 * 100.0 + 100.0 * 10.0) / 300.0)
    # a run that stopped early has no last window
    _trace(tmp_path / "c", [(400.0, 100.0)])
    assert worst_window_ips(cfg, tmp_path / "c") is None


def test_a_run_whose_length_is_not_a_whole_number_of_grid_steps_has_a_worst_window(tmp_path: Path) -> None:
    # 603 s on the 2-s grid: 301.5 steps round to 302, so the last window ends at 604 s, past the
    # run's end; the run is whole, so its worst window exists (it was n/a, and the tuned-baseline
    # search read every probe as breaking the bound).
    cfg = short("orin-steady-25", 603.0)
    starts, length = window_starts(cfg)
    assert starts[-1] + length > 603.0
    _trace(tmp_path / "a", [(603.0, 100.0)])
    worst = worst_window_ips(cfg, tmp_path / "a")
    assert worst is not None and 100.0 * (length - 1.0) / length <= worst <= 100.0
    _trace(tmp_path / "b", [(500.0, 100.0)])
    assert worst_window_ips(cfg, tmp_path / "b") is None


def test_any_window_takes_no_history_or_sustained_rule() -> None:
    cfg = short("orin-steady-25", 600.0)
    with pytest.raises(ConfigError, match="any_window"):
        oracle(cfg, any_window=True, sustained=True)


# -- open-ended: the world continued past the run's end at its final conditions -----------------
#: Every row the Pi tests judge: the kernel baselines keeping the trip, the firmware alone, and
#: fixed caps (the firmware still throttles them), each run on the continued world.
PI_ROWS = ["stepped", "hysteresis", "stock", "step_wise", "power_allocator"]
PI_FIXED = {
    "rpi5": ["fixed:2400", "fixed:2000", "fixed:1800", "fixed:1500"],
    "rpi4": ["fixed:1500", "fixed:1200"],
}


def _check_open(cfg: Config, tmp_path: Path) -> tuple[float, float]:
    """Every Pi row's worst window on the continued world is under the open-ended bound.

    The firmware's own throttle is full at 85 °C, so ``stock`` and the fixed caps are judged too
    even when a noisy reading touches the trip.  Returns (run's-end bound, open-ended bound).
    """
    old = shared_anywindow_bound(cfg)
    ext = extended(cfg, 2.0)
    new = anywindow_bound(ext)
    assert old is not None and new is not None
    assert old.throughput_ips is not None and new.throughput_ips is not None
    rows, _ = run_grid([(cfg.sim.scenario, ext)], PI_ROWS + PI_FIXED[cfg.board], tmp_path, with_oracle=False)
    judged = 0
    for r in rows:
        assert r.hard_limit_s == 0, (r.policy, r.hard_limit_s)
        worst = worst_window_ips(ext, Path(r.run_dir))
        assert worst is not None
        assert worst <= new.throughput_ips * (1 + 1e-9), (
            cfg.sim.scenario,
            r.policy,
            worst,
            new.throughput_ips,
        )
        judged += 1
    assert judged == len(PI_ROWS) + len(PI_FIXED[cfg.board])
    # same grid (both runs <= 30 min): more windows and constraints, none removed
    assert grid_step_s(ext) == grid_step_s(cfg)
    assert new.throughput_ips <= old.throughput_ips * (1 + 1e-9)
    assert new.best_fixed_ips is None or new.best_fixed_ips <= new.throughput_ips * (1 + 1e-9)
    return old.throughput_ips, new.throughput_ips


def test_open_ended_bound_holds_on_the_pi_and_stops_banking_for_the_runs_end(tmp_path: Path) -> None:
    """rpi5-steady-25 (shortened): the run's-end bound cools before its last window (the end is
    known); continued at its final conditions it cannot, and no row, the firmware alone and fixed
    caps included, beats it."""
    cfg = dataclasses.replace(short("rpi5-steady-25", 600.0), policies=KEEPING)
    old, new = _check_open(cfg, tmp_path)
    assert new < 0.95 * old


#: Seeded random Pi worlds with a saturating load (hot starts, ambient up and down, link changes).
PI_SEEDS = [
    s
    for s in range(11, 40)
    if random_scenario(s).sim.workload.kind == "saturating" and random_scenario(s).board != "jetson-orin-nano"
][:3]


@pytest.mark.parametrize("seed", PI_SEEDS)
def test_open_ended_bound_holds_on_random_pi_worlds(seed: int, tmp_path: Path) -> None:
    _check_open(dataclasses.replace(random_scenario(seed), policies=KEEPING), tmp_path)


@pytest.mark.parametrize("name", ["orin-fan-failure", "orin-ambient-step"])
def test_open_ended_bound_holds_where_the_world_changes_mid_run(name: str, tmp_path: Path) -> None:
    """The Orin scenarios whose worst window was the run's last: continued at the changed
    conditions, every trip-keeping row's worst window is still under the bound, which is under
    the run's-end bound."""
    cfg = dataclasses.replace(short(name, 600.0), policies=KEEPING)
    ext = extended(cfg, 2.0)
    kept, new = _check_bound(ext, tmp_path)
    assert kept >= 2
    old = shared_anywindow_bound(cfg)
    assert new is not None and old is not None and new.throughput_ips is not None
    assert old.throughput_ips is not None and new.throughput_ips <= old.throughput_ips * (1 + 1e-9)


def test_the_random_pi_worlds_cover_both_pis() -> None:
    assert {random_scenario(s).board for s in PI_SEEDS} == {"rpi5", "rpi4"}


def test_extended_keeps_the_world_and_the_window() -> None:
    cfg = load_scenario("orin-fan-failure")
    ext = extended(cfg, 2.0)
    assert ext.sim.duration_s == 2 * cfg.sim.duration_s
    assert ext.sim.events == cfg.sim.events and ext.board == cfg.board and ext.seed == cfg.seed
    assert ext.sim.workload == cfg.sim.workload and ext.sim.ambient_c == cfg.sim.ambient_c
    length = cfg.sim.duration_s - steady_window(cfg)[0]
    assert steady_window(ext) == (ext.sim.duration_s - length, ext.sim.duration_s)
    assert window_starts(ext)[1] == pytest.approx(length)
    # the default horizon: as long again, and 3 slowest time constants past the end at least
    tau = slowest_time_constant_s(cfg)
    assert 1000.0 < tau < 3000.0  # the Orin's battery and carrier
    auto = extended(cfg)
    assert auto.sim.duration_s >= cfg.sim.duration_s + max(cfg.sim.duration_s, 3.0 * tau) - 1e-6
    assert open_factor(cfg) == pytest.approx(auto.sim.duration_s / cfg.sim.duration_s)
    # on a coarser grid, whose whole intervals it fills: its last window ends with the run
    starts, length = window_starts(auto)
    assert grid_step_s(auto) > grid_step_s(cfg)
    assert starts[-1] + length == pytest.approx(auto.sim.duration_s)
    assert abs(length - (cfg.sim.duration_s - steady_window(cfg)[0])) <= grid_step_s(auto)


@pytest.mark.parametrize("factor", [0.5, float("nan"), float("inf")])
def test_extended_refuses_a_horizon_shorter_than_the_run(factor: float) -> None:
    with pytest.raises(ConfigError, match="open-ended horizon: factor"):
        extended(short("orin-steady-25", 600.0), factor)
