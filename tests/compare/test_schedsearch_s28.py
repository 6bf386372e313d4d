"""The best fixed cap schedule by search (sim/compare/schedsearch.py), a real schedule beside the bound.

Fails on main: no module, no bench.  On Pi worlds (the suite's, shortened, and seeded random ones)
the schedule the search finds really runs, is at least the board's firmware alone and never beats
the any-window bound; the schedule policy plays its caps by segment; the bench's bad input is one
line and exit 2.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.compare.randomscen import random_scenario
from tests.compare.short import short
from thermogov.interfaces import ConfigError
from thermogov.policies.base import PolicyInput
from thermogov.sim.compare.anywindow import worst_window_ips
from thermogov.sim.compare.compare import run_policy
from thermogov.sim.compare.oracle import oracle
from thermogov.sim.compare.schedsearch import ScheduleCaps, schedule_points, score_schedule, search
from thermogov.sim.model import runner

REPO = Path(__file__).resolve().parents[2]


def _inp(t: float) -> PolicyInput:
    return PolicyInput(t_s=t, fused_c=50.0, readings_c={}, caps_hz={}, freqs_hz={})


def test_schedule_policy_plays_its_segments() -> None:
    pol = ScheduleCaps(10.0, [{"cpu": 1}, {"cpu": 2}, {"cpu": 3}])
    got = [pol.decide(_inp(t)).caps_hz["cpu"] for t in (0.0, 9.99, 10.0, 25.0, 29.9, 30.0, 500.0)]
    assert got == [1, 1, 2, 3, 3, 3, 3]  # the last segment holds past the end
    with pytest.raises(ConfigError, match="segment_s"):
        ScheduleCaps(0.0, [{"cpu": 1}])
    with pytest.raises(ConfigError, match="at least one"):
        ScheduleCaps(1.0, [])


def test_the_runner_policy_is_restored_after_a_run() -> None:
    cfg = short("rpi5-steady-25", 60.0)
    before = runner.build_policy
    score_schedule(cfg, cfg.load_board(), 30.0, schedule_points(cfg.load_board())[:1])
    assert runner.build_policy is before


def _pi_worlds() -> list:
    worlds = [short("rpi5-steady-25", 360.0)]
    seed = 0
    while len(worlds) < 3:  # the first two seeded random Pi worlds with a saturating load
        seed += 1
        cfg = random_scenario(seed, 300.0)
        if cfg.board in ("rpi5", "rpi4") and cfg.sim.workload.kind == "saturating":
            worlds.append(cfg)
    return worlds


@pytest.mark.parametrize("cfg", _pi_worlds(), ids=lambda c: c.sim.scenario)
def test_found_schedule_beats_firmware_alone_and_never_the_bound(cfg, tmp_path: Path) -> None:
    board = cfg.load_board()
    bound = oracle(cfg, board, any_window=True).throughput_ips
    assert bound is not None
    res = search(cfg, cfg.sim.duration_s / 4, board=board, sweeps=1, pairs=True)
    # The all-fastest schedule is the board's protections alone: the `performance` policy's run.
    row = run_policy(cfg, "performance", tmp_path)
    assert res.start.worst_ips == pytest.approx(worst_window_ips(cfg, Path(row.run_dir)), abs=1e-9)
    assert res.best.worst_ips >= res.start.worst_ips
    assert res.best.trip_reads <= res.start.trip_reads
    # A real schedule: its replay scores what the search said, and stays under the bound.
    again = score_schedule(cfg, board, res.segment_s, [res.points[k] for k in res.schedule])
    assert again == res.best
    assert res.best.worst_ips <= bound


def test_search_refuses_an_open_load() -> None:
    cfg = short("rpi5-hot-40", 60.0)
    with pytest.raises(ConfigError, match="saturating"):
        search(cfg, 30.0)


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "bench" / "fixed_schedule.py"), *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )


def test_bench_bad_input_is_one_line_and_exit_2() -> None:
    for args in (
        ("--scenario", "no-such-world"),
        ("--scenario", "rpi5-steady-25", "--segment-s", "0"),
        ("--scenario", "rpi5-hot-40", "--duration", "60", "--policy", ""),
    ):
        p = _bench(*args)
        assert p.returncode == 2, (args, p.stderr)
        assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr, p.stderr
        assert p.stdout == ""


def test_bench_prints_the_bound_the_start_and_the_schedule() -> None:
    p = _bench("--scenario", "rpi5-steady-25", "--duration", "120", "--segment-s", "60", "--sweeps", "1")
    assert p.returncode == 0, p.stderr
    for key in ("any-window bound", "board's protections alone", "best fixed schedule found", "stepped"):
        assert key in p.stdout, p.stdout
