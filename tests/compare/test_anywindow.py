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
from thermogov.config import Config
from thermogov.interfaces import ConfigError
from thermogov.sim.compare.anywindow import anywindow_bound, window_starts, worst_window_ips
from thermogov.sim.compare.compare import run_grid
from thermogov.sim.compare.oracle import oracle

POLICIES = ["stepped", "hysteresis", "step_wise", "power_allocator"]
KEEPING = {
    "step_wise": {"trips": [{"temp_c": 80.0, "hyst_c": 2.0}]},
    "power_allocator": {"control_c": 82.0, "switch_on_c": 67.0},
}


def _check(cfg: Config, tmp_path: Path) -> int:
    """Assert the bound on every trip-keeping row's worst window; returns how many it applied to."""
    bound = anywindow_bound(cfg)
    assert bound is not None
    free = oracle(cfg).throughput_ips
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
    return len(kept)


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
    cfg = short("orin-steady-25", 600.0)
    free, anyw = oracle(cfg), anywindow_bound(cfg)
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


def test_any_window_takes_no_history_or_sustained_rule() -> None:
    cfg = short("orin-steady-25", 600.0)
    with pytest.raises(ConfigError, match="any_window"):
        oracle(cfg, any_window=True, sustained=True)
