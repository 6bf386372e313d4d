"""The any-window bound's optimum replayed as a real schedule (session 31b).

Fails on main: the oracle does not hand out its optimum's per-interval shares and there is no
replay (sim/compare/lpreplay.py).  The replay policy spends each interval's ticks in the
optimum's shares; on a short Jetson world the replay at the least margin keeps the trip
readings allowed, never beats the bound (it is a real schedule), and comes within a few tenths
of a per cent of it; the verdict says which misses no bound can clear.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.compare.short import short
from thermogov.config import Config
from thermogov.interfaces import ConfigError
from thermogov.policies.base import PolicyInput
from thermogov.sim.compare.lpreplay import (
    MixSchedule,
    Replay,
    ReplayResult,
    lp_replay,
    replay,
    replay_lines,
    verdict,
)
from thermogov.sim.compare.oracle import OracleResult, oracle
from thermogov.sim.compare.schedsearch import ScheduleScore

PTS = [{"cpu": 3}, {"cpu": 2}, {"cpu": 1}]


def _inp(t: float) -> PolicyInput:
    return PolicyInput(t_s=t, fused_c=50.0, readings_c={}, caps_hz={}, freqs_hz={})


def test_the_replay_spends_each_intervals_ticks_in_its_shares() -> None:
    shares = np.array([[0.5, 0.3, 0.2], [0.0, 0.0, 1.0]])
    pol = MixSchedule(10.0, PTS, shares)
    first = [pol.decide(_inp(0.1 * i)).caps_hz["cpu"] for i in range(100)]
    assert (first.count(3), first.count(2), first.count(1)) == (50, 30, 20)
    # Within one tick of the shares over every prefix, not only the interval's total.
    for n in range(1, 101):
        assert abs(first[:n].count(2) - 0.3 * n) <= 1.0 + 1e-9
    assert {pol.decide(_inp(t)).caps_hz["cpu"] for t in (10.0, 15.0, 500.0)} == {1}  # the last holds on


@pytest.mark.parametrize(
    ("step_s", "shares", "match"),
    [
        (0.0, [[1.0, 0.0, 0.0]], "step_s"),
        (1.0, [[1.0, 0.0]], "shape"),
        (1.0, [[0.5, 0.2, 0.2]], "sum to 1"),
        (1.0, [[float("nan"), 0.5, 0.5]], "finite"),
        (1.0, [[1.5, -0.5, 0.0]], "non-negative"),
    ],
)
def test_bad_shares_are_a_config_error(step_s: float, shares: list[list[float]], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        MixSchedule(step_s, PTS, np.array(shares))


@pytest.fixture(scope="module")
def orin() -> Config:
    return short("orin-fan-failure", 240.0)


@pytest.fixture(scope="module")
def found(orin: Config) -> ReplayResult:
    return lp_replay(orin, 0, margin_hi_c=1.0, bisections=1)


def test_the_oracle_hands_out_its_optimum(orin: Config) -> None:
    res = oracle(orin, any_window=True)
    assert res.shares is not None and res.shares.shape == (120, len(res.points))
    assert np.allclose(res.shares.sum(axis=1), 1.0, atol=1e-6)


def test_the_replay_keeps_the_readings_never_beats_the_bound_and_is_close(
    orin: Config, found: ReplayResult
) -> None:
    assert found.tried[0].margin_c == 0.0 and found.tried[0].score.trip_reads > 0  # at the trip it reads it
    best = found.best
    assert best is not None and best.margin_c > 0.0 and best.score.trip_reads == 0
    assert best.score.worst_ips <= found.bound_ips  # a real schedule: under every bound
    assert best.score.worst_ips >= 0.98 * found.bound_ips  # the bound is tight to the read margin
    # Replays to its score: the programme at that margin, run again, scores the same.
    board = orin.load_board()
    again = replay(orin, board, oracle(orin, board, trip_c=85.0 - best.margin_c, any_window=True))
    assert again == best.score


def test_lp_replay_refuses_an_open_load_and_a_negative_limit(orin: Config) -> None:
    with pytest.raises(ConfigError, match="saturating"):
        lp_replay(short("rpi5-hot-40", 60.0), 0)
    with pytest.raises(ConfigError, match="trip_reads_max"):
        lp_replay(orin, -1)


def test_the_verdict_tells_a_miss_no_bound_can_clear() -> None:
    assert verdict(99.0, 100.0, 99.5, 98.0) == "meets"
    assert verdict(97.0, 100.0, 99.5, 98.0) == "MISS against every bound"  # 97.5 % of a real schedule
    assert verdict(97.8, 100.0, 99.5, 98.0).startswith("MISS here")  # 98.3 % of it: a bound may clear it
    sc = ScheduleScore(99.5, 99.5, 0)
    res = ReplayResult(100.0, Replay(0.25, 99.6, sc), (Replay(0.0, 100.0, ScheduleScore(100.0, 100.0, 9)),))
    lines = replay_lines({"orin-x": res}, {"orin-x": 97.0}, {"orin-x": 0}, "stepped", 98.0)
    row = lines[-1].split()
    assert row[:4] == ["orin-x", "100.00", "99.50", "99.5%"] and "97.5%" in row
    assert lines[-1].endswith("MISS against every bound")


def test_on_a_pi_under_its_firmware_the_replay_stays_under_the_bound() -> None:
    # The Pi's bound binds through the throttle hull (a relaxation): the replay runs under the
    # real firmware, reads the trip no more than allowed, and must not beat the bound.
    pi = short("rpi5-steady-25", 240.0)
    found = lp_replay(pi, 0, bisections=1)
    assert found.best is not None and found.best.score.trip_reads == 0
    assert 0.9 * found.bound_ips <= found.best.score.worst_ips <= found.bound_ips


def test_a_world_no_schedule_cools_enough_has_no_bound_to_replay(orin: Config) -> None:
    # As on rpi5-closed-35 at full length, where even the lowest clock heats past the trip: the
    # programme is infeasible (the oracle's None), so there is nothing to replay.
    def infeasible(cfg: Config, board: object, trip_c: float) -> OracleResult:
        return OracleResult(None, (0.0, cfg.sim.duration_s), (), None, (), None, None)

    with pytest.raises(ConfigError, match="no schedule holds the trip"):
        lp_replay(orin, 0, solve=infeasible)
