"""The bound's tightness beside a missed target (session 30b): fixed schedules held to a trip count.

Fails on main: there is no fractional-rung schedule (sim/compare/levelsearch.py), no trip-read
limit in the whole-rung search, no ``--schedule-search`` in the bench.  On a Jetson world the
witness found reads the trip no more often than allowed, replays to its score, and never beats
the any-window bound; the schedule policy mixes its two rungs tick by tick; bad input is one
line and exit 2.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.compare.short import short
from thermogov.interfaces import ConfigError
from thermogov.policies.base import PolicyInput
from thermogov.sim.compare.levelsearch import LevelSchedule, level_search, score_levels, uniform_start
from thermogov.sim.compare.oracle import oracle
from thermogov.sim.compare.schedsearch import ScheduleScore, safe_start, search
from thermogov.sim.compare.schedtight import Witness, misses, reads_of, witness_lines

REPO = Path(__file__).resolve().parents[2]
PTS = [{"cpu": 3}, {"cpu": 2}, {"cpu": 1}]


def _inp(t: float) -> PolicyInput:
    return PolicyInput(t_s=t, fused_c=50.0, readings_c={}, caps_hz={}, freqs_hz={})


def test_a_level_mixes_its_two_rungs_by_its_fraction() -> None:
    pol = LevelSchedule(10.0, PTS, [1.25, 0.0, 2.0])
    first = [pol.decide(_inp(0.1 * i)).caps_hz["cpu"] for i in range(100)]
    assert first.count(1) == 25 and first.count(2) == 75  # a quarter of the ticks at the slower rung
    assert {pol.decide(_inp(t)).caps_hz["cpu"] for t in (10.0, 15.0, 19.9)} == {3}
    assert {pol.decide(_inp(t)).caps_hz["cpu"] for t in (20.0, 500.0)} == {1}  # the last holds on


@pytest.mark.parametrize(
    ("segment_s", "levels", "match"),
    [
        (0.0, [0.0], "segment_s"),
        (5.0, [], "at least one"),
        (5.0, [2.5], r"\[0, 2\]"),
        (5.0, [float("nan")], "level"),
    ],
)
def test_a_bad_level_schedule_is_a_config_error(segment_s: float, levels: list[float], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        LevelSchedule(segment_s, PTS, levels)


def _fake(reads_at: dict[float, int]):
    def uniform(u: float) -> ScheduleScore:
        reads = next(r for lim, r in sorted(reads_at.items()) if u <= lim)
        return ScheduleScore(100.0 - u, 100.0 - u, reads)

    return uniform


def test_the_uniform_start_is_the_fastest_level_within_the_readings() -> None:
    uniform = _fake({1.3: 5, 10.0: 0})  # reads 5 at levels up to 1.3, none slower
    u, sc = uniform_start(4.0, uniform, 0, 12)
    assert 1.3 < u < 1.31 and sc.trip_reads == 0
    u, sc = uniform_start(4.0, uniform, 5, 12)  # the allowance covers the fastest
    assert u == 0.0 and sc.trip_reads == 5
    u, sc = uniform_start(4.0, _fake({10.0: 9}), 0, 3)  # nothing keeps it: the slowest, said so
    assert u == 4.0 and sc.trip_reads == 9


def test_the_whole_rung_safe_start_is_the_fastest_uniform_point_within_the_readings() -> None:
    reads = [30, 4, 0, 0]
    k, sc = safe_start(4, lambda k: ScheduleScore(10.0 - k, 10.0 - k, reads[k]), 0)
    assert (k, sc.trip_reads) == (2, 0)
    k, sc = safe_start(4, lambda k: ScheduleScore(10.0 - k, 10.0 - k, 7), 0)
    assert k == 3 and sc.trip_reads == 7


@pytest.fixture(scope="module")
def orin() -> object:
    return short("orin-fan-failure", 240.0)


def test_the_level_witness_keeps_the_readings_replays_and_never_beats_the_bound(orin) -> None:
    board = orin.load_board()
    bound = oracle(orin, board, any_window=True).throughput_ips
    assert bound is not None
    res = level_search(orin, 120.0, 0, board=board, sweeps=1)
    full = score_levels(orin, board, 120.0, res.points, [0.0, 0.0])
    assert full.trip_reads > 0  # full clocks read the trip here: the limit is what binds
    assert res.best.trip_reads == 0 and res.start.trip_reads == 0
    assert res.best.worst_ips >= res.start.worst_ips
    assert score_levels(orin, board, 120.0, res.points, res.levels) == res.best
    assert res.best.worst_ips <= bound


def test_the_whole_rung_search_keeps_a_trip_limit(orin) -> None:
    res = search(orin, 120.0, sweeps=1, trip_reads_max=0)
    assert res.start.trip_reads == 0 and res.best.trip_reads == 0
    assert res.schedule[0] > 0 or res.start.worst_ips == res.best.worst_ips  # not the all-fastest start


def test_level_search_refuses_an_open_load_and_a_negative_limit(orin) -> None:
    with pytest.raises(ConfigError, match="saturating"):
        level_search(short("rpi5-hot-40", 60.0), 30.0, 0)
    with pytest.raises(ConfigError, match="trip_reads_max"):
        level_search(orin, 30.0, -1)


def test_the_witness_block_reads_the_candidate_share_of_bound_and_schedule(orin) -> None:
    assert reads_of(0.2, orin) == 2 and reads_of(0.0, orin) == 0
    assert misses({"a": (95.0, 100.0), "b": (99.0, 100.0), "c": (None, 100.0), "d": (1.0, None)}, 98.0) == [
        "a"
    ]
    res = level_search(orin, 240.0, 0, sweeps=1)
    w = Witness("orin-fan-failure", res.best.worst_ips * 1.02, res.best.worst_ips * 0.97, 0, res)
    text = "\n".join(witness_lines([w], "stepped", 98.0, 240.0))
    assert "98.0%" in text and "95.1%" in text and "97.0%" in text and " 0/0 " in text


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "bench" / script), *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )


@pytest.mark.parametrize(
    ("script", "args"),
    [
        ("control_quality.py", ("--scenario", "orin-fan-failure", "--schedule-search", "0")),
        ("control_quality.py", ("--scenario", "orin-fan-failure", "--schedule-search", "nan")),
        ("fixed_schedule.py", ("--scenario", "orin-fan-failure", "--levels")),
        ("fixed_schedule.py", ("--scenario", "orin-fan-failure", "--trip-reads-max", "-1")),
    ],
)
def test_bench_bad_input_is_one_line_and_exit_2(script: str, args: tuple[str, ...]) -> None:
    p = _run(script, *args)
    assert p.returncode == 2, (args, p.stderr)
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr, p.stderr
    assert p.stdout == ""
