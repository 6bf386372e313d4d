"""A die on a moving base under ``stepped``, tick by tick, for policy tests of slow thermal paths.

Why: the trip-lag and sink-ramp tests each need a board whose heat-sink temperature (the
"base") follows a scripted path while the policy's rung adds heat on top, read by the
profile's noisy, quantised sensors.  One walk keeps the two on the same physics (0.3 °C a rung,
a 5 s die lag, full clocks settled at 83 °C) and the same draw order, so a seed means the same
noise in both.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator

from tests.policies.helpers import ctx_for, inp
from thermogov.board import load_board
from thermogov.policies.stepped import Stepped

PER_RUNG_C = 0.3  # °C a rung carries at the die
SETTLED_C = 83.0  # the die at full clocks before the base moves
DIE_TAU_S = 5.0
TICK_S = 0.1


def walk(
    p: Stepped, board: str, base_rise: Callable[[float], float], seconds: float, seed: int
) -> Iterator[tuple[float, float, str, int]]:
    """(t, die °C, the decision's event, the rung after it) each tick while ``t < seconds``;
    ``base_rise(t)``: the base's rise over its start at ``t``."""
    ctx = ctx_for(board)
    sensors = load_board(board).sensors
    weight = sum(s.weight for s in sensors)
    rnd = random.Random(seed)
    base0 = SETTLED_C - PER_RUNG_C * p.top
    die = SETTLED_C
    k = 0
    while k * TICK_S < seconds:
        t = k * TICK_S
        base = base0 + base_rise(t)
        die += (base + PER_RUNG_C * p.rung - die) * (1.0 - math.exp(-TICK_S / DIE_TAU_S))
        reads: dict[str, float | None] = {
            s.name: round((die + rnd.gauss(0.0, s.noise_c)) / s.quant_c) * s.quant_c for s in sensors
        }
        fused = sum(s.weight * (reads[s.name] or 0.0) for s in sensors) / weight
        event = p.decide(inp(t, fused, ctx, readings=reads)).event
        yield t, die, event, p.rung
        k += 1
