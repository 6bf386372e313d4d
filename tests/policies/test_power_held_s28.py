"""``stepped``'s ``power_held`` (off, session 28c): ``power_settled`` only on a power rise at a held rung.

``power_settled`` (session 27s) steps down on any rise of the measured power still to come, so it
also answered a bursty load's bursts and the dither's own rung rises (orin-bursty −0.40 %,
orin-long-1h −0.25 %).  ``power_held`` lets it act only where the recent power rose at a rung held
for a horizon by more than ``noise_k`` of its own standard deviations there.  Fails on main, which
has neither the key (``ConfigError``) nor :meth:`PowerSettle.held_rise`.
"""

from __future__ import annotations

import pytest

from tests.policies.helpers import ctx_for, inp, policy
from thermogov.board import load_board
from thermogov.interfaces import ConfigError
from thermogov.policies.ladder import build_ladder
from thermogov.policies.powerrise import Network, PowerSettle, ladder_rises_c, ladder_split
from thermogov.policies.stepped import Stepped

BOARD = "jetson-nano"


def _settle() -> PowerSettle:
    board = load_board(BOARD)
    ladder = build_ladder(board, {d.name: d.opp_hz for d in board.domains})
    fused = tuple(s.name for s in board.sensors)
    rises, c_per_w = ladder_rises_c(board, ladder, fused)
    return PowerSettle(rises, c_per_w, 10.0, Network(board, fused), ladder_split(board, ladder))


def _bursty_w(t: float) -> float:
    """2 W with a 3.7-W burst the first 6 s of every 20 s (orin-bursty's shape)."""
    return 3.7 if t % 20.0 < 6.0 else 2.0


def test_a_rise_beyond_the_held_rungs_spread_is_a_load_rise_and_a_burst_within_it_is_not() -> None:
    ps = _settle()
    rises = []
    for k in range(3000):  # bursts at a held rung for 300 s
        t = k * 0.1
        ps.observe(0.1, _bursty_w(t), 5, t)
        if t >= 100.0:
            rises.append(ps.held_rise(3.0, 30.0, t))
    assert not any(rises)  # every burst after the first few is within the rung's own spread
    fired = []
    for k in range(3000, 3300):  # the load switches: 3.7 W base with its bursts on top
        t = k * 0.1
        ps.observe(0.1, _bursty_w(t) + 1.7, 5, t)
        fired.append(ps.held_rise(3.0, 30.0, t))
    assert any(fired)


def test_a_rise_with_a_new_rung_is_the_policys_own_until_the_rung_is_held() -> None:
    ps = _settle()
    for k in range(1000):
        ps.observe(0.1, 2.0, 5, k * 0.1)
    assert not ps.held_rise(3.0, 30.0, 100.0)
    # The policy raises a rung: its power is higher; no new rung has its statistics yet.
    seen = []
    for k in range(1000, 1250):
        t = k * 0.1
        ps.observe(0.1, 2.4, 6, t)
        seen.append(ps.held_rise(3.0, 30.0, t))
    assert not any(seen)
    # The same rise at the rung that was held is a load rise.
    ps2 = _settle()
    for k in range(1000):
        ps2.observe(0.1, 2.0, 5, k * 0.1)
    fired = []
    for k in range(1000, 1250):
        t = k * 0.1
        ps2.observe(0.1, 2.4, 5, t)
        fired.append(ps2.held_rise(3.0, 30.0, t))
    assert any(fired)


def _bursty_run(params: dict[str, object]) -> int:
    """Ticks under full clocks over the last 900 s of a 1500-s bursty load at 83.5 °C."""
    p = policy("stepped", params, board=BOARD)
    assert isinstance(p, Stepped)
    ctx = ctx_for(BOARD)
    below = 0
    for k in range(15000):
        t = k * 0.1
        p.decide(inp(t, 83.5, ctx, caps=ctx.highest_caps())._replace(power_w=_bursty_w(t)))
        if t >= 600.0:
            below += p.rung < p.top
    return below


def test_held_power_leaves_a_bursty_load_at_full_clocks_where_power_settled_alone_steps_down() -> None:
    assert _bursty_run({"power_settled": True}) > 0  # the case: the bare rule answers the bursts
    assert _bursty_run({"power_settled": True, "power_held": True}) == 0
    assert _bursty_run({}) == 0


def _switch_run(params: dict[str, object]) -> list[int]:
    """Full clocks at 82.5 °C under a steady 2 W; then a load switch to 3.7 W, the level creeping."""
    p = policy("stepped", params, board=BOARD)
    assert isinstance(p, Stepped)
    ctx = ctx_for(BOARD)
    rungs = []
    for k in range(3000):
        t = k * 0.1
        level, watts = 82.5, 2.0
        if t >= 200.0:
            watts, level = 3.7, 82.5 + min(t - 200.0, 10.0) * 0.05
        d = p.decide(inp(t, level, ctx, caps=ctx.highest_caps())._replace(power_w=watts))
        rungs.append(max(i for i, r in enumerate(p.ladder) if r == dict(d.caps_hz)))
    return rungs


def test_a_load_switch_at_held_full_clocks_is_still_met_before_the_level_shows_it() -> None:
    held = _switch_run({"power_settled": True, "power_held": True})
    walk = _switch_run({})
    top = max(walk)
    assert held[1999] == top and min(walk[2000:2100]) == top
    assert min(held[2000:2100]) <= top - 2


def test_power_held_is_a_boolean_and_off_by_default() -> None:
    with pytest.raises(ConfigError, match="power_held"):
        policy("stepped", {"power_held": "yes"}, board=BOARD)
    p = policy("stepped", {}, board=BOARD)
    assert isinstance(p, Stepped) and not p.p.power_held
