"""Bounds a policy that cannot see the future is held to: the causal-history and open-ended ones.

The any-window bound (:mod:`.anywindow`) cannot bank heat for a window it does not know, but it
still knows the world's whole future: when the fan fails or the ambient steps (its schedule
runs cooler from the first second, so the heatsink enters the failure cool: 1.9 % of
orin-fan-failure's bound, session 20b) and when the run ends (it cools before the last window
and bursts in it: 3.3 % of rpi5-steady-25's).  Two tighter bounds take that knowledge away,
each by adding constraints to the same programme, so each is a bound by the oracle's own
argument on the class of schedules it names:

* **causal history** (:func:`causal_bound`): up to the *event instant* ``E``
  (:func:`event_instant_s`, the first event that changes the programme's world: ambient, a
  link, the fan, the supply) the world is indistinguishable from its twin without the event,
  so what a policy did before ``E`` it did without knowing the event.  The programme is made
  to complete what the candidate completed in each grid interval before ``E`` (the same-history
  rows of :mod:`.samehistory`, the cumulative work between its finished requests and the one
  in service) and is free after.  It bounds the worst window of **every schedule whose past
  before E is the candidate's**: given what the candidate did before it could know, nothing
  could have done better after.  It is not a bound on a policy with another past (a policy that
  ran cooler before ``E`` by chance is bounded by the any-window bound only); for a world with
  no such event it is the any-window bound itself.
* **open-ended** (:func:`.anywindow.extended`): the world continued past its end at its final
  conditions and every window to the new end scored, so the bound no longer knows when the run
  stops.  It bounds **every schedule's** worst window on the longer world, which a causal policy
  runs exactly as it runs the shorter one up to the old end (it cannot know where that is).
* **causal open-ended**: both at once, the candidate's past before ``E`` forced on the longer
  world.  The tightest; by the argument above it bounds every schedule on the longer world with
  the candidate's past before ``E``: no policy that did before the event what the candidate
  did, and that cannot know when the run ends, beats it.  The bench's targets check the 98 %
  against it (:func:`tightest`), the any-window bound shown beside.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from thermogov.board import BoardProfile
from thermogov.config import SUPPLY_EVENTS, Config
from thermogov.sim.compare.anywindow import anywindow_bound
from thermogov.sim.compare.oracle import grid_step_s, interval_rates, oracle
from thermogov.sim.compare.samehistory import read_counts

#: Events that change the programme's world (its plant, ambient, fan or supply).  A sensor's
#: fault changes only the readings, which the bound does not model: it is no event here.
WORLD_EVENTS = ("ambient", "ambient_link", "fan_stall", *SUPPLY_EVENTS)


def event_instant_s(config: Config) -> float | None:
    """The first instant (s) the world departs from its event-free twin, or None.

    The earliest :data:`WORLD_EVENTS` event after the start and before the run's end.  An event at
    0 s is the world's starting condition (every policy sees it from the first read): not one.
    """
    times = [
        e.at_s for e in config.sim.events if e.kind in WORLD_EVENTS and 0.0 < e.at_s < config.sim.duration_s
    ]
    return min(times) if times else None


def history_intervals(config: Config, until_s: float) -> int:
    """How many whole grid intervals of ``config``'s oracle lie before ``until_s``."""
    return max(math.floor(until_s / grid_step_s(config) + 1e-9), 0)


def causal_bound_ips(
    config: Config, history_ips: list[float] | None, board: BoardProfile | None = None
) -> float | None:
    """The any-window bound with ``history_ips`` (one rate per grid interval from the start) forced.

    None for an open load (as :func:`.anywindow.anywindow_bound`) and when no schedule with that
    past holds the limits (the past itself broke one).  An empty or None history: the any-window
    bound itself.
    """
    if config.sim.workload.kind != "saturating":
        return None
    if not history_ips:
        res = anywindow_bound(config, board)
        return None if res is None else res.throughput_ips
    return oracle(config, board, any_window=True, history_ips=history_ips).throughput_ips


def run_history(config: Config, run_dir: Path, until_s: float) -> list[float]:
    """A run's completion rate in each grid interval of ``config``'s oracle before ``until_s``."""
    times, totals = read_counts(run_dir)
    m = history_intervals(config, until_s)
    if m == 0 or not times:
        return []
    step = grid_step_s(config)
    return [float(x) for x in interval_rates(times, totals, step, m)]


def causal_bound(config: Config, run_dir: Path, board: BoardProfile | None = None) -> float | None:
    """The causal-history bound for the run in ``run_dir`` on ``config``'s world (see the module).

    The run's past before :func:`event_instant_s` is forced; with no event it is the any-window
    bound.  ``config`` may be a world continued past its end (:func:`.anywindow.extended`, whose
    events keep their times): that is the causal open-ended bound, and the run must be on it.
    """
    until = event_instant_s(config)
    history = run_history(config, run_dir, until) if until is not None else []
    return causal_bound_ips(config, history, board)


@dataclass(frozen=True, slots=True)
class Yardsticks:
    """A candidate's worst windows and the bounds beside them, one scenario (None: not computed)."""

    event_s: float | None
    worst_ips: float | None  # worst window on the run's-end world
    anywindow_ips: float | None
    causal_ips: float | None  # causal history to event_s, run's-end world
    open_worst_ips: float | None  # worst window on the longer world
    open_ips: float | None  # any-window bound on the longer world
    causal_open_ips: float | None  # causal history on the longer world

    def shares(self) -> dict[str, float | None]:
        """The candidate's % of each bound (its run's-end or open-ended worst window as fits)."""

        def pct(v: float | None, b: float | None) -> float | None:
            return None if v is None or not b else 100.0 * v / b

        return {
            "anywindow": pct(self.worst_ips, self.anywindow_ips),
            "causal": pct(self.worst_ips, self.causal_ips),
            "open": pct(self.open_worst_ips, self.open_ips),
            "causal_open": pct(self.open_worst_ips, self.causal_open_ips),
        }


#: The bounds from the tightest a causal candidate is held to, to the loosest: the targets judge
#: the first that was computed.
CAUSAL_ORDER = ("causal_open", "open", "causal", "anywindow")


def tightest(y: Yardsticks) -> tuple[str, float] | None:
    """The candidate's share of the tightest bound it is held to, and that bound's name."""
    shares = y.shares()
    for name in CAUSAL_ORDER:
        if (v := shares[name]) is not None:
            return name, v
    return None
