"""The network observer of ``limit_settled`` (``policies/settled.py``): what it infers and what it allows."""

from __future__ import annotations

import math

from tests.policies.helpers import ctx_for, inp
from thermogov.board import load_board
from thermogov.policies.base import PolicyInput
from thermogov.policies.ladder import build_ladder
from thermogov.policies.settled import SettledObserver
from thermogov.policies.stepped import Stepped, make_stepped
from thermogov.steadystate import steady_state_c
from thermogov.tomlcheck import Table

BOARD = load_board("jetson-orin-nano")
LADDER = build_ladder(BOARD, {d.name: d.opp_hz for d in BOARD.domains})
PACK_LIMIT = next(s.hard_limit_c for s in BOARD.sensors if s.name == "battery")
MARGIN = 1.5


def _observer() -> SettledObserver:
    names = tuple(s.name for s in BOARD.sensors)
    return SettledObserver(BOARD, LADDER, names, {"battery": PACK_LIMIT - MARGIN}, 10.0)


def _settle(
    obs: SettledObserver, ambient_c: float, rung: int, seconds: float, supply: str | None = None
) -> dict[str, float]:
    """Feed the readings of the board settled at ``rung`` (saturating load, on its pack) at ``ambient_c``."""
    node = steady_state_c(BOARD, LADDER[rung], 1.0, ambient_c)
    readings = {s.name: node[s.node] for s in BOARD.sensors}
    for i in range(int(seconds * 10)):
        t = i * 0.1
        obs.update(t, readings, {s: t for s in readings}, LADDER[rung], None, supply=supply)
    return node


def test_the_ambient_no_sensor_reads_is_inferred_from_the_readings() -> None:
    obs = _observer()
    _settle(obs, 31.0, 0, 1200.0)
    assert obs.ambient_c is not None and abs(obs.ambient_c - 31.0) < 0.5


def test_a_cool_room_leaves_every_rung_and_a_hot_one_only_the_lowest() -> None:
    """The lowest rung's settled pack is under the margin at 25 °C (nothing to cap), and above it
    at 38 °C (the profile's steady state), where only the lowest rung is left."""
    cool, hot = _observer(), _observer()
    assert _settle(cool, 25.0, 0, 600.0)["battery"] < PACK_LIMIT - MARGIN
    assert cool.u_max == math.inf
    assert steady_state_c(BOARD, LADDER[0], 1.0, 38.0)["battery"] > PACK_LIMIT - MARGIN
    _settle(hot, 38.0, 0, 600.0)
    assert hot.u_max == 0.0


def test_every_rung_may_run_a_while_as_long_as_the_lowest_can_still_hold_the_pack() -> None:
    """At 36 °C the lowest rung settles the pack under its margin and the next does not.  From the
    lowest rung's steady state a short stretch at any rung leaves the fall-back able to hold the
    pack, so nothing is capped yet; from the second rung's (the pack over its margin) only the
    lowest is left."""
    assert steady_state_c(BOARD, LADDER[0], 1.0, 36.0)["battery"] < PACK_LIMIT - MARGIN
    assert steady_state_c(BOARD, LADDER[1], 1.0, 36.0)["battery"] > PACK_LIMIT - MARGIN
    low, second = _observer(), _observer()
    _settle(low, 36.0, 0, 1200.0)
    _settle(second, 36.0, 1, 1200.0)
    assert low.u_max == math.inf
    assert second.u_max == 0.0


def _stepped(on: bool) -> Stepped:
    t = Table({"limit_settled": on}, "policies.stepped")
    p = make_stepped(t, ctx_for(), "")
    t.done()
    return p


def test_stepped_keeps_under_the_observers_ceiling_in_the_band_and_at_release() -> None:
    """A pack settled 1 °C under its limit at the lowest rung: with ``limit_settled`` the lowest
    rung from the first ticks on, release (fused under 70 °C) included; without it, full clocks."""
    ctx = ctx_for()
    node = steady_state_c(BOARD, LADDER[0], 1.0, 38.0)
    readings = {s.name: node[s.node] for s in BOARD.sensors}
    for on in (False, True):
        p = _stepped(on)
        rungs = []
        for fused in (65.0, 78.0):  # at release, then in the band
            for i in range(300):
                t = (i + (300 if fused > 70 else 0)) * 0.1
                d = p.decide(inp(t, fused, ctx, caps=LADDER[p.rung], readings=readings))
                rungs.append(p.ladder.index(dict(d.caps_hz)))
        if on:
            assert max(rungs[-100:]) == 0 and max(rungs[200:300]) == 0
        else:
            assert min(rungs[:300][-10:]) == p.top


def test_off_builds_no_observer() -> None:
    assert _stepped(False).settled is None
    assert _stepped(True).settled is not None


def test_the_daemons_inputs_are_enough() -> None:
    """What a board gives: no clock read back, no power, no reading times, and only a CPU domain
    (a Jetson whose GPU devfreq is missing): the observer still runs and still caps a hot room."""
    ctx = ctx_for()
    ctx = type(ctx)(ctx.board, {"cpu": ctx.tables_hz["cpu"]}, 0.1, ctx.sensor_names, {"backend": "hw"})
    t = Table({"limit_settled": True}, "policies.stepped")
    p = make_stepped(t, ctx, "")
    node = steady_state_c(BOARD, LADDER[1], 1.0, 40.0)
    readings: dict[str, float | None] = {s.name: node[s.node] for s in BOARD.sensors}
    for i in range(600):
        caps = p.ladder[p.rung]
        p.decide(PolicyInput(i * 0.1, 78.0, readings, caps, dict.fromkeys(caps)))
    assert p.settled is not None and p.settled.u_max == 0.0 and p.rung == 0


def test_a_bounded_horizon_admits_what_the_pack_cannot_reach_within_it() -> None:
    """The board settled at the lowest rung at 36 °C, then the room taken 4 °C hotter (the
    estimate's ambient raised, the nodes as they are): the lowest rung's settled pack is now over
    the margin, so the settled peak admits no rung over the lowest; the pack (10³ s) cannot get
    there within a minute, so a 60-s bound admits every rung, and a bound of hours none again."""
    obs = _observer()
    _settle(obs, 36.0, 0, 1200.0)
    assert obs.u_max == math.inf
    assert obs.z is not None
    obs.z[obs.n] += 4.0
    lim = PACK_LIMIT - MARGIN
    assert obs.peaks()[0]["battery"] > lim  # bound_s is inf: the settled peak
    obs.bound_s = 60.0
    assert all(pk["battery"] < lim for pk in obs.peaks())
    obs.bound_s = 4 * 3600.0
    assert obs.peaks()[0]["battery"] > lim


def test_on_the_charger_the_boards_draw_does_not_heat_the_pack() -> None:
    """The same readings, on the pack and on a charger that stopped (``full``): on the charger the
    top rung's extra current is not charged to the pack, so the pack settles lower there (the
    profile's I²R at full clocks is worth ~2 °C); at the rung read both agree."""
    on_pack, docked = _observer(), _observer()
    _settle(on_pack, 30.0, 0, 600.0, "discharging")
    _settle(docked, 30.0, 0, 600.0, "full")
    top = len(LADDER) - 1
    pack = {o: o._settled(top, o.z[: o.n])[o.bat_node] for o in (on_pack, docked) if o.z is not None}
    low = {o: o._settled(0, o.z[: o.n])[o.bat_node] for o in (on_pack, docked) if o.z is not None}
    assert pack[docked] < pack[on_pack] - 1.0
    assert abs(low[docked] - low[on_pack]) < 0.1


def test_a_change_of_supply_restarts_the_learnt_pack_heat() -> None:
    obs = _observer()
    _settle(obs, 30.0, 0, 600.0, "full")
    assert obs.z is not None and obs.z[-1] != 0.0  # the pack's reading explained without the board's I²R
    node = steady_state_c(BOARD, LADDER[0], 1.0, 30.0)
    readings = {s.name: node[s.node] for s in BOARD.sensors}
    obs.update(600.0, readings, None, LADDER[0], None, supply="discharging")
    assert obs.on_pack
    assert abs(obs.z[-1]) < 0.05  # restarted at zero, then one correction


def test_the_bound_is_the_stated_horizon_and_the_rest_of_a_stated_run() -> None:
    ctx = ctx_for()
    cases = [({}, math.inf), ({"limit_settled_horizon_s": 600.0}, 600.0), ({"run_s": 300.0}, 200.0)]
    cases.append(({"run_s": 300.0, "limit_settled_horizon_s": 150.0}, 150.0))
    for extra, want in cases:
        t = Table({"limit_settled": True, **extra}, "policies.stepped")
        p = make_stepped(t, ctx, "")
        p.decide(inp(0.0, 60.0, ctx))
        assert p._settled_bound_s(100.0) == want, extra
