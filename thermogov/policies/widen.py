"""A running ``stepped`` policy given the terms of a sensor that joined after it was built.

``stepped`` derives per-sensor terms from its context's ``sensor_names`` once, at construction:
each sensor's hard limit (and that limit's own trend), the fastest period (``trip_k``), the
fused codes' edges and terms, the gain ladder's scale, the board throttles' protected sensors
and the settled observer's corrections.  The root daemon builds it from the sensors the board
has at start (a sensor waited for may never appear, hw/latezones.py); when one joins, the
daemon builds the policy the run would have had with that sensor there from the start and
hands its terms to the running one with :func:`adopt_sensors`.  What the running policy has
learned (its rung, integral, trends, tail histogram, dither, held spread) is kept: a new policy
would forget the run so far, as a reload that changes the policy does (hw/reload.py).  The
joined sensor's own limit trend starts empty, as it would from a sensor's first reading.
"""

from __future__ import annotations

from thermogov.policies.stepped import Stepped


def adopt_sensors(running: Stepped, built: Stepped) -> None:
    """Give ``running`` every sensor-derived term of ``built`` (same config, wider context)."""
    running.p = built.p  # k_p scaled by the gain ladder over the sensors now fused
    running.trip_step = built.trip_step
    running.trip_k = built.trip_k
    running.code_edge_c = built.code_edge_c
    running.code_once = built.code_once
    running.board_limits = built.board_limits
    running.board_ramps = built.board_ramps
    running.hard_limits_c = built.hard_limits_c
    running._limit_trends = {
        name: running._limit_trends.get(name, fresh) for name, fresh in built._limit_trends.items()
    }
    running._limit_list = tuple(running._limit_trends.items())
    running.tail_terms = built.tail_terms
    if running.tail is None or built.tail is None:
        running.tail = built.tail
    else:  # the wander measured so far kept; its thresholds those of the wider fusion
        running.tail.trip_edge_c = built.tail.trip_edge_c
        running.tail.step_c = built.tail.step_c
        running.tail.budget_p = built.tail.budget_p
    if running.settled is None or built.settled is None:
        running.settled = built.settled
    else:  # the node state kept; the sensors that correct it and those it watches, the wider set
        running.settled.read = built.settled.read
        running.settled.watched = built.settled.watched
    if running.ripple is None or built.ripple is None:
        running.ripple = built.ripple
    else:
        running.ripple.share = built.ripple.share
