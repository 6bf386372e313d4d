"""Scenario families: generated worlds the default policy was not written against.

The TOML suite (``sim/scenarios/*.toml``) is a dozen hand-written worlds, and a policy whose
defaults were picked on them can be fit to them (issue 13: ``stepped``'s battery guard lost
5 points of the oracle on a two-hour ambient ramp that was not in the suite).  A *family* is a
kind of world generated over every board it applies to, so that defaults can be chosen by
cross-validation over families (``bench/cross_validate.py``: choose on all families but one,
judge on the one left out) and judged on worlds nobody looked at while tuning:

* ``ambient-ramp-up`` / ``ambient-ramp-down``: the ambient moves linearly between 20 and 35 °C
  (a shed warming through the afternoon, a room cooling at night) over the run, in 0.25 °C steps;
* ``day-night``: one sinusoidal ambient cycle between 18 and 34 °C (night to noon to night);
* ``load-switch``: the load switches every few minutes between saturating (arrivals at several
  times what the board can serve) and Poisson at a fraction of it; the simulator's ``bursty``
  arrivals with a period of minutes are exactly that switch, so no new workload kind is needed;
* ``fan-failure``: on every board whose profile has a fan, the fan stops a fifth of the way in:
  a profile that models its fan (a ``[fan]`` table) gets the simulator's ``fan_stall`` (the fan
  moves no air but reads back its level); one whose fan is folded into a node's conductance to
  air has that conductance fall to its natural-convection share;
* ``board-at-trip``: every board profile, saturated, at 25 °C or, when full clocks do not settle
  :data:`OVER_TRIP_C` above the trip there, the lowest whole-degree ambient up to 70 °C at which
  they do (a board that never does, such as the AGX Orin on its big fan-cooled heatsink, is
  left to ``fan-failure``).

Every generated world is on a board at an ambient where full clocks reach the trip (the ramps
and cycles are shifted up per board when their range would not), because a world a policy never
has to govern says nothing about it; and no warmer than the lowest caps can still hold the trip
(shifted down when it would be: a Pi 5 at its 1.5 GHz floor reaches 85 °C near 29 °C ambient),
because there every policy is at the floor and the world measures the board.  ``time_scale`` shrinks durations for quick runs (tests,
reduced benches); the hour-scale defaults are the issue's.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from thermogov.board import BoardProfile, builtin_board_names, load_board
from thermogov.config import Config, SimEvent, WorkloadConfig
from thermogov.steadystate import fused_c, steady_state_c

FAMILIES = (
    "ambient-ramp-up",
    "ambient-ramp-down",
    "day-night",
    "load-switch",
    "fan-failure",
    "board-at-trip",
)
TRIP_C = 85.0
#: A world's ambient unless the board needs a warmer one to reach the trip, and the warmest
#: ambient considered (°C; the Jetson modules' operating range reaches 85 °C at the thermal
#: transfer plate, so 70 °C air in an enclosure is extreme but not absurd).
NOMINAL_AMBIENT_C = 25.0
MAX_AMBIENT_C = 70.0
#: How far under the trip the lowest caps must settle for a world to be holdable at all (°C).
HOLD_MARGIN_C = 3.0
#: ``board-at-trip``: how far above the trip full clocks must settle (°C).
OVER_TRIP_C = 5.0
#: The ramps' and the cycle's span (°C) and default lengths (s).
RAMP_LOW_C, RAMP_HIGH_C = 20.0, 35.0
RAMP_S = 7200.0
DAY_LOW_C, DAY_HIGH_C = 18.0, 34.0
DAY_S = 4 * 3600.0
STEADY_S = 1800.0
#: Ambient changes as steps of at most this much (°C): far below a sensor's noise per step.
AMBIENT_STEP_C = 0.25
#: ``fan-failure``: a heatsink in still air keeps about a third of its fan-blown conductance
#: (E: typical convection coefficients of gases are 2-25 W/m²K free and 25-250 W/m²K forced,
#: Incropera & DeWitt, Fundamentals of Heat and Mass Transfer, table 1.1; a small fan over
#: small fins sits at the low end of forced, still air in a case at the high end of free).
FAN_OFF_FACTOR = 0.35
#: ``load-switch``: one period of saturating then Poisson load; the Poisson phase's share of
#: the board's full-clock capacity, and the saturating phase's multiple of it.
SWITCH_PERIOD_S = 600.0
POISSON_SHARE = 0.4
SATURATE_MULT = 5.0


@dataclass(frozen=True, slots=True)
class Generated:
    family: str
    name: str
    config: Config


def has_fan(board: BoardProfile) -> bool:
    """The profile says the board is fan-cooled ("heatsink + fan"), not "no fan" / "without ... fan"."""
    text = board.description.lower()
    return bool(re.search(r"\bfan\b", text)) and not re.search(r"\b(no|without)\b[^,;.]*\bfan\b", text)


def fan_node(board: BoardProfile) -> str:
    """The node the fan blows over: the one with the largest conductance to air."""
    return max(board.thermal.nodes, key=lambda n: n.to_ambient_w_per_k).name


def full_clocks_fused_c(board: BoardProfile, config: Config, ambient_c: float) -> float:
    """The fused temperature where the board settles at its top OPPs, saturated."""
    top = {d.name: d.opp_hz[-1] for d in board.domains}
    nodes = steady_state_c(board, top, 1.0, ambient_c)
    return fused_c(board, config.sensor_specs(board), nodes)


def trip_ambient_c(board: BoardProfile, config: Config, over_c: float = OVER_TRIP_C) -> float | None:
    """The ambient for a world on ``board`` that must be governed: :data:`NOMINAL_AMBIENT_C` when
    full clocks settle ``over_c`` above the trip there, else the lowest whole degree up to
    :data:`MAX_AMBIENT_C` that does; None when even that does not (a big fan-cooled heatsink)."""
    for amb in (NOMINAL_AMBIENT_C, *range(int(NOMINAL_AMBIENT_C) + 1, int(MAX_AMBIENT_C) + 1)):
        if full_clocks_fused_c(board, config, float(amb)) >= TRIP_C + over_c:
            return float(amb)
    return None


def lowest_clocks_fused_c(board: BoardProfile, config: Config, ambient_c: float) -> float:
    """The fused temperature where the board settles at its lowest OPPs, saturated."""
    low = {d.name: d.opp_hz[0] for d in board.domains}
    return fused_c(board, config.sensor_specs(board), steady_state_c(board, low, 1.0, ambient_c))


def holdable_ambient_c(board: BoardProfile, config: Config) -> float | None:
    """The warmest whole-degree ambient (up to :data:`MAX_AMBIENT_C`) at which the lowest caps
    still settle :data:`HOLD_MARGIN_C` under the trip; None if not even -10 °C.  Above it no
    policy can hold the trip (a Pi 5 cannot go below 1.5 GHz), so a world that goes there
    measures the board, not the policy."""
    best = None
    for amb in range(-10, int(MAX_AMBIENT_C) + 1):
        if lowest_clocks_fused_c(board, config, float(amb)) > TRIP_C - HOLD_MARGIN_C:
            break
        best = float(amb)
    return best


def _ambient_for(board: BoardProfile, config: Config, over_c: float = OVER_TRIP_C) -> float:
    """An ambient where full clocks reach the trip and the lowest caps still hold it (if one exists)."""
    need = trip_ambient_c(board, config, over_c)
    hold = holdable_ambient_c(board, config)
    need = MAX_AMBIENT_C if need is None else need
    return need if hold is None else min(need, hold)


def _place(board: BoardProfile, config: Config, low_c: float, high_c: float) -> tuple[float, float]:
    """An ambient path's ends: raised until its warmest point reaches the trip at full clocks,
    lowered until the lowest caps hold the trip there; the span is kept."""
    need = trip_ambient_c(board, config)
    top = max(high_c, MAX_AMBIENT_C if need is None else need)
    hold = holdable_ambient_c(board, config)
    if hold is not None:
        top = min(top, hold)
    return top - (high_c - low_c), top


def without_fan(board: BoardProfile) -> BoardProfile:
    """``board`` with its fan stopped: the fan node keeps :data:`FAN_OFF_FACTOR` of its conductance to air."""
    node = fan_node(board)
    th = board.thermal
    nodes = tuple(
        dataclasses.replace(n, to_ambient_w_per_k=n.to_ambient_w_per_k * FAN_OFF_FACTOR)
        if n.name == node
        else n
        for n in th.nodes
    )
    return dataclasses.replace(board, thermal=dataclasses.replace(th, nodes=nodes))


def fan_stopped(board: BoardProfile) -> BoardProfile:
    """``board`` once its fan has failed: the profile itself when it models its fan (``[fan]``:
    the nodes' conductances are the still-air ones and the fan only adds), else :func:`without_fan`."""
    return board if board.fan is not None else without_fan(board)


def _ambient_path(start_c: float, values: Sequence[tuple[float, float]]) -> tuple[SimEvent, ...]:
    """``ambient`` events for a path given as (time, °C) samples, one per AMBIENT_STEP_C of change."""
    events = []
    last = start_c
    for t, v in values:
        if abs(v - last) >= AMBIENT_STEP_C - 1e-9:
            events.append(SimEvent(at_s=round(t, 3), kind="ambient", value=round(v, 3)))
            last = v
    return tuple(events)


def _world(base: Config, board: str, duration_s: float, ambient_c: float, **sim: Any) -> Config:
    cfg = dataclasses.replace(base, board=board, board_file="")
    return dataclasses.replace(
        cfg, sim=dataclasses.replace(cfg.sim, duration_s=duration_s, ambient_c=ambient_c, **sim)
    )


def _ramp(base: Config, board: BoardProfile, up: bool, scale: float) -> Config:
    dur = RAMP_S * scale
    lo, hi = _place(board, base, RAMP_LOW_C, RAMP_HIGH_C)
    a, b = (lo, hi) if up else (hi, lo)
    n = max(int(abs(b - a) / AMBIENT_STEP_C), 1)
    path = [(dur * k / n, a + (b - a) * k / n) for k in range(1, n + 1)]
    return _world(base, board.name, dur, a, events=_ambient_path(a, path))


def _day_night(base: Config, board: BoardProfile, scale: float) -> Config:
    dur = DAY_S * scale
    lo, hi = _place(board, base, DAY_LOW_C, DAY_HIGH_C)
    mid, amp = (lo + hi) / 2.0, (hi - lo) / 2.0

    def amb(t: float) -> float:  # night (lo) at 0 and at the end, noon (hi) halfway
        return mid - amp * math.cos(2.0 * math.pi * t / dur)

    n = 4000  # samples: each moves < AMBIENT_STEP_C / 10, so an event overshoots the step by < 10 %
    path = [(dur * k / n, amb(dur * k / n)) for k in range(1, n)]
    return _world(base, board.name, dur, lo, events=_ambient_path(lo, path))


def _load_switch(base: Config, board: BoardProfile, scale: float) -> Config:
    from thermogov import costmodel

    top = {d.name: d.opp_hz[-1] for d in board.domains}
    capacity = 1.0 / costmodel.inference_time_s(board.model, top)
    load = WorkloadConfig(
        kind="bursty",
        rate_ips=round(capacity * POISSON_SHARE, 3),
        burst_factor=SATURATE_MULT / POISSON_SHARE,
        burst_period_s=SWITCH_PERIOD_S * max(scale, 0.05),
        burst_duty=0.5,
    )
    # Where full clocks reach the trip and the lowest caps still hold it, as every other family:
    # a cased Pi 5 at its 1.5 GHz floor settles above the trip at 25 °C (rpi5.toml), and a world
    # no policy can hold measures the board, not the policy.
    return _world(base, board.name, STEADY_S * 2 * scale, _ambient_for(board, base), workload=load)


def _fan_failure(base: Config, board: BoardProfile, scale: float) -> Config:
    dur = STEADY_S * scale
    at = round(dur / 5.0, 3)
    if board.fan is not None:
        # The profile models its fan ([fan]: conductance added per level, sim/model/fan.py): it
        # stalls, moving no air while it still reads back its level, and the nodes keep their
        # own (still-air) conductances, so the board with its fan stopped is the profile itself.
        ev = SimEvent(at_s=at, kind="fan_stall")
    else:
        # The fan is part of the fan node's conductance to air: that falls to its still-air share.
        ev = SimEvent(at_s=at, kind="ambient_link", target=fan_node(board), value=FAN_OFF_FACTOR)
    # An ambient where the board reaches the trip once its fan has stopped.
    return _world(base, board.name, dur, _ambient_for(fan_stopped(board), base, 0.0), events=(ev,))


def _at_trip(base: Config, board: BoardProfile, scale: float) -> Config:
    return _world(base, board.name, STEADY_S * scale, _ambient_for(board, base))


def _boards(family: str, boards: Sequence[str] | None) -> list[BoardProfile]:
    profiles = [load_board(n) for n in (boards or builtin_board_names())]
    if family == "fan-failure":
        return [b for b in profiles if has_fan(b)]
    if family == "board-at-trip":
        return [b for b in profiles if trip_ambient_c(b, Config()) is not None]
    if boards:
        return profiles
    # The time-path families on one Jetson and one Pi: the two kinds of throttling.
    return [b for b in profiles if b.name in ("jetson-orin-nano", "rpi5")]


def family_scenarios(
    family: str,
    base: Config | None = None,
    *,
    time_scale: float = 1.0,
    boards: Sequence[str] | None = None,
) -> list[Generated]:
    """The worlds of ``family`` (one of :data:`FAMILIES`), on ``boards`` (default: see the docstring)."""
    if family not in FAMILIES:
        from thermogov.interfaces import ConfigError

        raise ConfigError(f"family: unknown scenario family {family!r}; choose one of {', '.join(FAMILIES)}")
    if not (math.isfinite(time_scale) and time_scale > 0):
        from thermogov.interfaces import ConfigError

        raise ConfigError(f"time_scale: {time_scale!r} is not a positive number; use e.g. 0.1")
    base = base or Config()
    make = {
        "ambient-ramp-up": lambda b: _ramp(base, b, True, time_scale),
        "ambient-ramp-down": lambda b: _ramp(base, b, False, time_scale),
        "day-night": lambda b: _day_night(base, b, time_scale),
        "load-switch": lambda b: _load_switch(base, b, time_scale),
        "fan-failure": lambda b: _fan_failure(base, b, time_scale),
        "board-at-trip": lambda b: _at_trip(base, b, time_scale),
    }[family]
    out = []
    for b in _boards(family, boards):
        cfg = make(b)
        name = f"{family}-{b.name}"
        out.append(
            Generated(family, name, dataclasses.replace(cfg, sim=dataclasses.replace(cfg.sim, scenario=name)))
        )
    return out


def all_family_scenarios(
    base: Config | None = None, *, time_scale: float = 1.0, families: Sequence[str] = FAMILIES
) -> list[Generated]:
    return [g for f in families for g in family_scenarios(f, base, time_scale=time_scale)]


__all__ = [
    "FAMILIES",
    "Generated",
    "all_family_scenarios",
    "family_scenarios",
    "fan_node",
    "fan_stopped",
    "full_clocks_fused_c",
    "has_fan",
    "trip_ambient_c",
]
