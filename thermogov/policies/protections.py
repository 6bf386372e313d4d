"""When a board's own throttle would step in, from its profile: the temperature per cap set.

A board protection of kind ``throttle`` (RPi VideoCore firmware from 80 °C, Jetson sw-throttle
at 99 °C) caps its domains progressively from ``start_c`` to ``floor`` at ``full_c``
(:class:`thermogov.board.Protection`; simulated in ``sim/model/domains.py``).  Inverting that ramp
gives, for a set of caps, the highest temperature of the protected node at which the
protection still lets those caps run.  A policy that keeps the node below it never has its
clocks taken away behind its back; the oracle uses the same number as a constraint.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from thermogov.board import BoardProfile, Protection


def throttle_allows_c(p: Protection, board: BoardProfile, caps: Mapping[str, int]) -> float:
    """Highest protected-node temperature at which throttle ``p`` still lets ``caps`` run.

    ``inf`` when every capped domain is at or below the protection's floor (it cannot take
    anything away); ``start_c`` for a step trip (``full_c == start_c``).
    """
    theta = math.inf
    for dom_name, floor in zip(p.domains, p.floor_hz, strict=True):
        if dom_name not in caps:
            continue
        table = board.domain(dom_name).opp_hz
        f, top = caps[dom_name], table[-1]
        if f <= floor:
            continue
        if p.full_c <= p.start_c or top == floor:
            theta = min(theta, p.start_c)
        else:
            theta = min(theta, p.start_c + (p.full_c - p.start_c) * (top - f) / (top - floor))
    return theta
