"""``policies/powerrise.py``: the settled rise a measured power still has to bring, and the rung that holds.

``power_settled`` reads the board's measured power through the profile's RC network: held at a
new power the network settles ``c_per_w`` °C a watt over ambient, and a model run on the power
measured so far says how much of that the level already shows.  Worked on the Nano's profile,
whose dies answer in seconds and heat sink in minutes.
"""

from __future__ import annotations

import pytest

from tests.policies.helpers import ctx_for, inp, policy
from thermogov.board import load_board
from thermogov.interfaces import ConfigError
from thermogov.policies.ladder import build_ladder
from thermogov.policies.powerrise import Network, PowerSettle, ladder_rises_c, ladder_split
from thermogov.policies.stepped import Stepped


def _settle(tau_s: float = 10.0) -> PowerSettle:
    board = load_board("jetson-nano")
    ladder = build_ladder(board, {d.name: d.opp_hz for d in board.domains})
    fused = tuple(s.name for s in board.sensors)
    rises, c_per_w = ladder_rises_c(board, ladder, fused)
    return PowerSettle(rises, c_per_w, tau_s, Network(board, fused), ladder_split(board, ladder))


def test_a_steady_power_has_nothing_to_come_and_a_step_has_its_settled_rise() -> None:
    ps = _settle(tau_s=0.0)  # the recent power is the last reading
    ps.observe(0.0, 2.0)
    for _ in range(100):
        ps.observe(0.1, 2.0)
    steady = ps.to_come_c()
    assert steady is not None and abs(steady) < 1e-9
    ps.observe(0.1, 3.0)  # one watt more: almost all of its settled rise is still to come
    first = ps.to_come_c()
    assert first is not None and 0.9 * ps.c_per_w < first <= ps.c_per_w
    for _ in range(600):  # a minute on: the dies and package have shown their share, the sink not yet
        ps.observe(0.1, 3.0)
    later = ps.to_come_c()
    assert later is not None and 0.0 < later < first


def test_the_rung_that_holds_is_the_highest_whose_settled_value_is_under_the_set_point() -> None:
    ps = _settle()
    top = len(ps.rises_c) - 1
    assert ps.hold_rung(top, 84.0, 84.0) == top  # already there
    want = 84.0 + ps.rises_c[top] - ps.rises_c[7]  # settles exactly 7 rungs' rise over
    assert ps.hold_rung(top, want, 84.0) == 7
    assert ps.hold_rung(top, 84.0 + 1e3, 84.0) == 0  # none holds: the lowest


def _nano_run(params: dict[str, object]) -> list[int]:
    """Full clocks settled at 82.5 °C under 2 W; then the power jumps to 3.7 W, the level creeping."""
    p = policy("stepped", params, board="jetson-nano")
    assert isinstance(p, Stepped)
    ctx = ctx_for("jetson-nano")
    rungs, t = [], 0.0
    for k in range(3000):
        t = k * 0.1
        level, watts = 82.5, 2.0
        if t >= 200.0:  # the load switch: the measured power at once, the reading a little later
            watts, level = 3.7, 82.5 + min(t - 200.0, 10.0) * 0.05
        step = inp(t, level, ctx, caps=ctx.highest_caps())
        d = p.decide(step._replace(power_w=watts))
        rungs.append(max(i for i, r in enumerate(p.ladder) if r == dict(d.caps_hz)))
    return rungs


def test_a_load_rise_at_full_clocks_leaves_them_before_the_level_shows_it() -> None:
    board = load_board("jetson-nano")
    top = len(build_ladder(board, {d.name: d.opp_hz for d in board.domains})) - 1
    rule = _nano_run({"power_settled": True})
    walk = _nano_run({})
    assert rule[1999] == top and walk[1999] == top  # before the switch: full clocks either way
    # Within 10 s of the switch the level has crept 0.5 °C, still under the set point: the walk
    # holds full clocks, the rule has left them on the power's settled rise.
    assert min(walk[2000:2100]) == top
    assert min(rule[2000:2100]) <= top - 2


def test_power_settled_is_a_boolean() -> None:
    with pytest.raises(ConfigError, match="power_settled"):
        policy("stepped", {"power_settled": "yes"}, board="jetson-nano")
