"""``stepped``'s ``trip_lag`` (off, prototype): a trip reached from the band lowers the set point by the lag it showed.

Session 26s's TX2 fan failure (draw 2026, world 23): the heat sink warms for minutes after the
fan fails, the PI's integral trails that slow ramp with the level a constant error over the set
point, a coded reading reaches the trip, and the trip's one rung is not enough: the same lag
brings a second trip seconds later, where ``hysteresis`` trips once.  The plant here is that
shape and nothing more: a die a few seconds behind a base that ramps up by a few degrees and
then holds, plus so much per rung; read through the TX2 profile's two sensors (their noise and
0.5 °C codes), fused by their weights.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from tests.policies.diewalk import walk
from tests.policies.helpers import ctx_for, inp, policy
from thermogov.board import builtin_board_names, load_board
from thermogov.interfaces import ConfigError
from thermogov.policies.stepped import Stepped, slowest_tau_s

BOARD = "jetson-tx2"


def _ramp_run(
    params: dict[str, object], rate_c_per_s: float, seed: int, start_s: float = 0.0
) -> tuple[list[float], float]:
    """The trip instants and the mean rung on a slow ramp: full clocks settled at 83 °C, the base
    rising ``rate_c_per_s`` for 3 °C from ``start_s`` (the sink warming), then held for 10
    minutes.  An infinite rate is a step (a load switch).  ``sink_ramp`` (on since session 31)
    is held off: these tests judge ``trip_lag`` against the PI it was built beside."""
    p = policy("stepped", {"sink_ramp": False, **params}, board=BOARD)
    assert isinstance(p, Stepped)
    ramp_s = 3.0 / rate_c_per_s
    end_s = start_s + ramp_s

    def rise(t: float) -> float:
        return 3.0 if t >= end_s else (rate_c_per_s * (t - start_s) if start_s < t < end_s else 0.0)

    trips: list[float] = []
    rungs = 0
    k = 0
    for t, _die, event, rung in walk(p, BOARD, rise, end_s + 600.0, seed):
        if event == "trip":
            trips.append(t)
        rungs += rung
        k += 1
    return trips, rungs / k


@pytest.mark.parametrize("rate", [0.01, 0.02])
def test_a_trip_on_a_slow_ramp_is_not_followed_by_another(rate: float) -> None:
    default = {seed: _ramp_run({}, rate, seed) for seed in (1, 2, 3)}
    rule = {seed: _ramp_run({"trip_lag": True}, rate, seed) for seed in (1, 2, 3)}
    # The case: the default's lag behind the ramp reads the trip again after its first trip.
    assert any(len(trips) >= 2 for trips, _ in default.values())
    for seed in (1, 2, 3):
        d_trips, d_rung = default[seed]
        r_trips, r_rung = rule[seed]
        # Up to the first trip the rule has not acted: the same first trip, if any.
        assert r_trips[:1] == d_trips[:1]
        assert len(r_trips) <= len(d_trips)
        if len(d_trips) >= 2:
            assert len(r_trips) < len(d_trips), seed
            assert r_rung <= d_rung  # what it costs: the clocks held lower meanwhile
    assert sum(len(r) for r, _ in rule.values()) < sum(len(d) for d, _ in default.values())


def test_a_fast_rise_to_the_trip_lowers_nothing() -> None:
    """A step (the level crosses the set point seconds before the trip) is no lag behind a ramp:
    the least the level sat over the set point through the last horizon is not over it, and
    every decision is the default's."""
    for seed in (1, 2, 3):
        default = _ramp_run({}, math.inf, seed, start_s=100.0)
        assert default[0], seed  # the case: the step does read the trip
        assert _ramp_run({"trip_lag": True}, math.inf, seed, start_s=100.0) == default


def test_a_trip_from_under_the_set_point_lowers_nothing() -> None:
    """A reading at the trip with the level held under the set point (one noisy tick, no lag)
    changes no decision: there is no lag to lower the set point by."""
    ctx = ctx_for(BOARD)
    runs = []
    for params in ({}, {"trip_lag": True}):
        p = policy("stepped", params, board=BOARD)
        assert isinstance(p, Stepped)
        rnd = random.Random(7)
        seen = []
        for k in range(6000):
            t = k * 0.1
            level = 82.0 + 0.1 * rnd.random()
            fused = 85.0 if k == 3000 else level
            seen.append((p.decide(inp(t, fused, ctx)).state, p.rung))
        runs.append((seen, p))
    (default, _), (rule, p) = runs
    assert ("TRIP", default[3000][1]) == default[3000]  # the case: the tick did trip
    assert rule == default
    assert p._lag_c == 0.0


def test_the_slowest_time_constant_is_the_network_s_eigenvalue() -> None:
    for name in builtin_board_names():
        th = load_board(name).thermal
        names = th.node_names()
        idx = {n: i for i, n in enumerate(names)}
        cap = np.diag([n.capacitance_j_per_k for n in th.nodes])
        g = np.diag([n.to_ambient_w_per_k for n in th.nodes]).astype(float)
        for lk in th.links:
            a, b, c = idx[lk.a], idx[lk.b], lk.conductance_w_per_k
            g[a, a] += c
            g[b, b] += c
            g[a, b] -= c
            g[b, a] -= c
        want = 1.0 / float(np.min(np.linalg.eigvals(np.linalg.solve(cap, g)).real))
        assert slowest_tau_s(load_board(name)) == pytest.approx(want, rel=1e-6), name


def test_trip_lag_is_a_boolean_and_off_by_default() -> None:
    with pytest.raises(ConfigError, match="trip_lag"):
        policy("stepped", {"trip_lag": "yes"}, board=BOARD)
    p = policy("stepped", {}, board=BOARD)
    assert isinstance(p, Stepped) and p.lag_tau_s == 0.0
