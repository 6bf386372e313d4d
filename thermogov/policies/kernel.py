"""Pieces of the Linux thermal core that the kernel-governor re-implementations share.

A kernel governor does not see frequencies: it sees *cooling devices* with integer states
(0 = no cooling) bound to *trips* through *instances*, a temperature in millidegrees read once
per zone update, and a polling delay.  Re-creating those pieces, rather than approximating
them with frequencies, is what makes the baselines faithful:

* cooling device: ``drivers/thermal/cpufreq_cooling.c`` and ``devfreq_cooling.c`` map state ``s``
  to the ``s``-th frequency counted down from the top of the table; a state is applied as a
  frequency cap (freq-QoS MAX request), which is exactly our cap.
* arbitration: ``drivers/thermal/thermal_helpers.c`` ``__thermal_cdev_update`` sets a cooling
  device to the highest target of its instances, ignoring ``THERMAL_NO_TARGET`` (0 if none).
* trend: ``get_tz_trend`` compares the zone temperature with the previous update's.
* trip crossing (>= 6.10, ``drivers/thermal/thermal_core.c`` ``handle_thermal_trip``): a trip is
  crossed on the way up at ``T >= temp`` and its threshold then drops to ``temp - hyst`` until
  ``T`` falls below that, when it is crossed on the way down.  Passive trips count in
  ``tz->passive``, which selects the passive polling delay.
* polling: the zone is updated every ``polling-delay`` ms, or ``polling-delay-passive`` ms while
  ``tz->passive > 0`` (``monitor_thermal_zone``).  The governor core calls a policy every
  control tick (100 ms), so these policies act only when their own poll is due and otherwise
  repeat their last caps: that is the kernel's sampling, not ours.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from thermogov.interfaces import ConfigError
from thermogov.policies.base import Decision, PolicyContext, PolicyInput
from thermogov.tomlcheck import Table

NO_TARGET = -1  # THERMAL_NO_TARGET
TEMP_INVALID = -274_000  # THERMAL_TEMP_INVALID: what last_temperature starts at

RAISING = "raising"
DROPPING = "dropping"
STABLE = "stable"


def millicelsius(temp_c: float) -> int:
    """What a thermal zone's ``get_temp`` returns: an integer in m°C."""
    return round(temp_c * 1000.0)


def trend(temp_mc: int, last_mc: int) -> str:
    """``get_tz_trend`` without a driver ``get_trend``: the sign of the last change."""
    if temp_mc > last_mc:
        return RAISING
    if temp_mc < last_mc:
        return DROPPING
    return STABLE


@dataclass
class CoolingDevice:
    """A cpufreq/devfreq cooling device over one domain's OPP table (ascending Hz)."""

    domain: str
    table_hz: tuple[int, ...]
    state: int = 0

    @property
    def max_state(self) -> int:
        return len(self.table_hz) - 1

    def cap_hz(self, state: int | None = None) -> int:
        s = self.state if state is None else state
        return self.table_hz[self.max_state - s]

    def state_of(self, freq_hz: int) -> int:
        return self.max_state - self.table_hz.index(freq_hz)


@dataclass
class Instance:
    """A binding of a cooling device to a trip, with its state limits and weight."""

    cdev: CoolingDevice
    trip: int
    lower: int
    upper: int
    weight: int = 0  # cdevN_weight; 0 = THERMAL_WEIGHT_DEFAULT
    target: int = NO_TARGET
    initialized: bool = False


def cdev_update(cdev: CoolingDevice, instances: list[Instance]) -> None:
    """``__thermal_cdev_update``: the deepest requested state wins."""
    targets = [i.target for i in instances if i.cdev is cdev and i.target != NO_TARGET]
    cdev.state = max(targets, default=0)


@dataclass
class Trip:
    """A passive trip in m°C with its hysteresis and the >= 6.10 crossing state."""

    temp_mc: int
    hyst_mc: int
    reached: bool = False

    @property
    def threshold_mc(self) -> int:
        return self.temp_mc - self.hyst_mc if self.reached else self.temp_mc

    def update(self, temp_mc: int) -> str:
        """``handle_thermal_trip``: ``"up"``/``"down"`` on a crossing, ``""`` otherwise."""
        if self.reached:
            if temp_mc < self.temp_mc - self.hyst_mc:
                self.reached = False
                return "down"
            return ""
        if temp_mc >= self.temp_mc:
            self.reached = True
            return "up"
        return ""


@dataclass
class ZonePoller:
    """When the next zone update is due, from ``polling-delay`` and ``polling-delay-passive``."""

    polling_ms: int
    passive_ms: int
    next_ms: int | None = None  # None: update at the first call (zone registration)
    passive: int = 0  # tz->passive

    def due(self, t_s: float) -> bool:
        return self.next_ms is None or round(t_s * 1000.0) >= self.next_ms

    def schedule(self, t_s: float) -> None:
        delay = self.passive_ms if (self.passive > 0 and self.passive_ms) else self.polling_ms
        self.next_ms = round(t_s * 1000.0) + delay


@dataclass
class Binding:
    """The zone as a governor sees it: trips, cooling devices and instances."""

    trips: list[Trip]
    cdevs: list[CoolingDevice]
    instances: list[Instance] = field(default_factory=list)

    def caps(self) -> dict[str, int]:
        return {c.domain: c.cap_hz() for c in self.cdevs}

    def states_label(self) -> str:
        return "/".join(str(c.state) for c in self.cdevs)


# -- parameters ---------------------------------------------------------------------------------
def read_trips(params: Table, default: list[tuple[float, float]]) -> list[Trip]:
    """``trips = [{ temp_c = 85.0, hyst_c = 2.0 }, ...]`` (passive trips, ascending)."""
    trips = []
    raw = params.list("trips", [{"temp_c": t, "hyst_c": h} for t, h in default])
    for i, item in enumerate(raw):
        t = Table(item, f"{params.where}.trips[{i}]")
        temp = t.number("temp_c", minimum=-40.0, maximum=150.0)
        hyst = t.number("hyst_c", 0.0, minimum=0.0, maximum=50.0)
        t.done()
        trips.append(Trip(millicelsius(temp), millicelsius(hyst)))
    if not trips:
        raise ConfigError(f"{params.where}.trips: give at least one trip")
    if any(b.temp_mc < a.temp_mc for a, b in itertools.pairwise(trips)):
        raise ConfigError(f"{params.where}.trips: list trips in ascending temperature")
    return trips


def read_poller(params: Table, polling_ms: int, passive_ms: int) -> ZonePoller:
    return ZonePoller(
        polling_ms=params.integer("polling_ms", polling_ms, minimum=1, maximum=60_000),
        passive_ms=params.integer("passive_polling_ms", passive_ms, minimum=0, maximum=60_000),
    )


def read_cdevs(params: Table, ctx: PolicyContext) -> list[CoolingDevice]:
    """The domains bound as cooling devices (``domains = ["cpu", "gpu"]``; default: all)."""
    names = params.strings("domains", list(ctx.tables_hz))
    for n in names:
        if n not in ctx.tables_hz:
            raise ConfigError(
                f"{params.where}.domains: unknown domain {n!r}; domains are {', '.join(ctx.tables_hz)}"
            )
    if not names:
        raise ConfigError(f"{params.where}.domains: bind at least one domain")
    return [CoolingDevice(n, ctx.tables_hz[n]) for n in names]


def caps_with_unbound(binding: Binding, ctx: PolicyContext) -> dict[str, int]:
    """Caps for every domain: bound ones from their cooling device, the others uncapped."""
    caps = ctx.highest_caps()
    caps.update(binding.caps())
    return caps


class PolledZoneGovernor:
    """What step_wise and bang_bang share: act only when the zone's poll is due.

    Between polls a kernel governor does nothing, so the caps of the last update stay in
    force; subclasses implement ``update`` (one zone update at an integer m°C temperature,
    returning the trace event) and keep ``binding``, ``poller``, ``ctx``, ``state``, ``_caps``.
    """

    binding: Binding
    poller: ZonePoller
    ctx: PolicyContext
    state: str
    _caps: dict[str, int]

    def update(self, temp_mc: int) -> str:
        raise NotImplementedError

    def decide(self, inp: PolicyInput) -> Decision:
        if not self.poller.due(inp.t_s):
            return Decision(dict(self._caps), self.state)
        event = self.update(millicelsius(inp.fused_c))
        self.poller.schedule(inp.t_s)
        self._caps = caps_with_unbound(self.binding, self.ctx)
        self.state = "s" + self.binding.states_label()
        return Decision(dict(self._caps), self.state, event)
