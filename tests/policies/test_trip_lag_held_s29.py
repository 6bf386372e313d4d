"""``trip_lag`` after a trip (session 29c): a lag held a whole horizon lowers the set point at once.

Draw 2026's Orin Nano devkit fan failure (world 19): the die climbs at full clocks to the trip
with the level crossing the set point seconds before (no held lag, so the trip itself lowers
nothing), the trip rule takes its rung, and the heat sink goes on warming for minutes: the PI
trails that ramp with the level over the set point until a reading reaches the trip again.
Once a trip has shown the loop behind, a horizon of band ticks all over the set point is that
lag, and the rule lowers the set point by it then, not at the second reading.  The plant: a die
a few seconds behind a base that steps up (the fast climb to the first trip) and then ramps
slowly (the sink warming), plus so much per rung; read through the TX2 profile's two sensors
(their noise and 0.5 °C codes), fused by their weights.
"""

from __future__ import annotations

import math
import random

from tests.policies.helpers import ctx_for, inp, policy
from thermogov.board import load_board
from thermogov.policies.stepped import Stepped

BOARD = "jetson-tx2"


def _run(
    params: dict[str, object], seed: int, step_c: float = 3.2, ramp_c: float = 3.0
) -> tuple[list[float], list[float], Stepped]:
    """Trip instants and the instants the set point was lowered further: full clocks
    settled at 82 °C, at 60 s the base steps up ``step_c`` and then rises ``ramp_c`` more at
    0.01 °C/s, then holds for 10 minutes."""
    p = policy("stepped", params, board=BOARD)
    assert isinstance(p, Stepped)
    ctx = ctx_for(BOARD)
    sensors = load_board(BOARD).sensors
    weight = sum(s.weight for s in sensors)
    rnd = random.Random(seed)
    per_rung = 0.3
    base0 = 82.0 - per_rung * p.top
    die = 82.0
    start_s, rate = 60.0, 0.01
    end_s = start_s + ramp_c / rate
    trips: list[float] = []
    lowered: list[float] = []
    lag = 0.0
    k = 0
    while k * 0.1 < end_s + 600.0:
        t = k * 0.1
        base = base0 + (step_c + rate * (min(t, end_s) - start_s) if t >= start_s else 0.0)
        die += (base + per_rung * p.rung - die) * (1.0 - math.exp(-0.1 / 5.0))
        reads: dict[str, float | None] = {
            s.name: round((die + rnd.gauss(0.0, s.noise_c)) / s.quant_c) * s.quant_c for s in sensors
        }
        fused = sum(s.weight * (reads[s.name] or 0.0) for s in sensors) / weight
        if p.decide(inp(t, fused, ctx, readings=reads)).event == "trip":
            trips.append(t)
        if p._lag_c > lag:
            lowered.append(t)
        lag = p._lag_c
        k += 1
    return trips, lowered, p


def test_a_lag_held_after_a_trip_lowers_before_a_second_reading() -> None:
    seeds = range(1, 7)
    default = {s: _run({}, s)[0] for s in seeds}
    rule = {s: _run({"trip_lag": True}, s)[:2] for s in seeds}
    # The case: a fast climb to the first trip, then the ramp's lag reads it again.
    assert sum(len(d) >= 2 for d in default.values()) >= 3
    for s in seeds:
        trips, lowered = rule[s]
        # The first trip is the default's (the climb to it held no lag to lower by) ...
        assert trips[:1] == default[s][:1], s
        assert len(trips) <= len(default[s]), s
        if len(default[s]) >= 2:
            # ... and the lag held after it lowers the set point at a band tick, with no reading
            # at the trip (the trip rule alone lowers only at a reading: the second, too late).
            assert [t for t in lowered if t > trips[0] and t not in trips], s
            assert len(trips) < len(default[s]), s


def test_no_trip_no_held_lowering() -> None:
    """Without a trip the rule never lowers the set point, however long the level sits over it
    (the PI's own business): a ramp too small to reach the trip, every decision the default's.
    The rule's history since the last trip is there to be read (none on main: it fails there)."""
    for s in (1, 2):
        d_trips, _, d = _run({}, s, step_c=1.2, ramp_c=0.8)
        r_trips, lowered, r = _run({"trip_lag": True}, s, step_c=1.2, ramp_c=0.8)
        assert not d_trips and not r_trips and not lowered
        assert not r._lag_armed
        assert d.rung == r.rung and d.integral == r.integral
