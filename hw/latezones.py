"""Temperature sensors that appear after start or go away mid-run, eased into and out of fusion.

On a real board a thermal zone can appear after the daemon started (the GPU zone on a Jetson once
nvgpu probes, a Pi's ``cpu-thermal`` on a slow boot, an NVMe drive's hwmon chip) or go away with
its module.  Before session 22 a profile sensor absent at start was dropped for the run, and one
that went away dropped out of the fused value at once: both are a step in the fused temperature
(a GPU zone at weight 0.3 arriving 10 K hotter than the CPU zone moves it by 3 K in one tick),
which a trend or model policy reads as heating or cooling.

Two parts, each with one job:

* :class:`EasedFusion` (the fusion the daemon hands the governor) moves each sensor's share of
  its weight at a bounded rate instead of in a step: a sensor that starts reading grows from 0 to
  its own weight over its ramp, one that stops reading keeps its last good value with a weight
  falling to 0 over the same ramp.  The ramp is the profile's ``lag_s`` (how slowly the sensor
  follows its node) and at least :data:`MIN_RAMP_S`.  The rule for the trip (session 22c):

  - a sensor coming in only ever enters as a weighted mean: the fused value during its ramp lies
    between the fusion without it and the fusion with it, so a hotter newcomer can only raise the
    value, from its first tick (never looser than before it came);
  - a sensor going out never pulls the value below the fusion of the sensors still reading
    (``max``): a colder one leaving lifts the value at once, the safe side, a hotter one eases out;
  - a held value is never held past its ramp, and only beside a fresh die sensor: with none the
    temperature is unknown and the governor's failsafe applies, as before;
  - each sensor's own hard limit counts from its first good reading, unramped (the base fusion's
    ``hot``), and a sensor judged stuck leaves at once (it is failed, not gone);
  - (session 22r) only a sensor waiting at start eases in.  One fused from the start that stops
    reading and reads again (a dropout, a module reloaded) counted in full the moment it read
    again before session 22, as it does in the simulator: the value never lies below the plain
    fusion of the fresh sensors other than the late ones still easing in.  And with no fresh die
    sensor at full share (every die sensor was gone, or the only one is late) there is no die
    fusion to ease from: the plain fusion is used, never a value made mostly of the battery,
    which lags the die by minutes (33 °C for a die at 90 °C ending the failsafe).

* :class:`LateZones` keeps each thermal-zone or hwmon sensor the profile names that is absent at
  start as *waiting* (its trace column empty, not sampled), and looks for it on the tick once a
  second, backed off after its first half minute (below): one ``getdents`` of its class folder; the folder's zones or chips are read again only
  when that listing changed, and a found file that did not read plausibly is read once a look.
  A sensor joins when its file reads a believable temperature (:class:`TempFileSensor`'s rules:
  not EIO, not text, not -256 °C, inside -40..150 °C); then its source is handed to the governor
  and :class:`EasedFusion` eases it in.  A sensor whose reads fail and whose file is gone (a
  module unloaded) goes back to waiting, its kept descriptor closed; it is looked for again.
  The trace's ``event`` column records ``sensor_joined:<name>`` and ``sensor_left:<name>``, each
  time; stderr says a sensor's first change at once and then at most one line a minute
  (:class:`ChangeLines`), so a zone coming and going every second does not fill the journal.

Session 23b: a battery the *profile* names (``kind = "battery"``, the Orin Nano's pack) is waited
for as the zones are: before, one whose ``power_supply`` was not there at start (a pack plugged in
after boot, a fuel gauge whose driver probes late) was dropped for the whole run, a sensor the
config fuses silently never fused.  A battery the profile does not name is only fused when
discovery finds one at start (:func:`thermogov.hw.mapping.with_found_battery`): most boards never
have one (a mains devkit, a USB power bank, which is not a ``Battery`` supply), and waiting for it
would give every such run an empty column and a look for the whole run.  Session 27r: a battery's
joining here fuses its temperature only; which pack's ``status`` is the power state is decided by
the supplies reader alone (hw/power.py), which sees the same listing.

Looks back off (session 23b): a sensor is looked for once a second for its first
:data:`PROMPT_S` of waiting (a GPU zone at nvgpu's probe, a slow boot), then the wait between
looks doubles to :data:`MAX_LOOK_S` while its class folder's listing stays the same; any change
of that listing (a new zone, chip or supply) brings it back to once a second.  Why a minute is
safe: a waiting sensor is not in the fused value however often it is looked for, the governor
governs on the sensors there (each with its own hard limit, the failsafe when none reads), and
the kernel's own trips on a zone act from its registration, not from thermogov's look; the look
only decides how soon after appearing a sensor starts easing in (over at least
:data:`MIN_RAMP_S`), at most a minute later than at once a second.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import NoReturn

from thermogov.board import SensorProfile
from thermogov.fusion import Fusion, FusionResult, SensorSpec
from thermogov.hw.devices import open_sensor
from thermogov.hw.discovery import (
    HWMON,
    POWER_SUPPLY,
    THERMAL,
    Hwmon,
    Inventory,
    Supply,
    _hwmons,
    _supplies,
    _zones,
)
from thermogov.hw.mapping import SensorBinding, _bind_sensor
from thermogov.hw.sysfs import SysfsTree
from thermogov.hw.waitedsince import published
from thermogov.interfaces import SensorError, SensorSource

MIN_RAMP_S = 10.0  # the shortest ease in or out: 10 control periods of 1 s trend windows
LOOK_PERIOD_S = 1.0  # how often waiting sensors are looked for and failing ones judged gone
PROMPT_S = 30.0  # a sensor waiting for less than this is looked for every LOOK_PERIOD_S
MAX_LOOK_S = 60.0  # then the wait between its looks doubles up to this (module doc: why safe)
QUIET_S = 60.0  # after a sensor's join/leave line on stderr, the next one at most this much later
WAITED_KINDS = ("thermal_zone", "hwmon", "battery")
_FOLDERS = {"thermal_zone": THERMAL, "hwmon": HWMON, "battery": POWER_SUPPLY}

_new_result = tuple.__new__


def looked_for(profile: SensorProfile) -> str:
    """What a waiting sensor is looked for as, for ``doctor`` and ``status``: ``waiting for gpu (...)``."""
    names = "/".join(profile.sysfs_names)
    if profile.kind == "thermal_zone":
        return f"a thermal zone of type {names or profile.name} in /{THERMAL}"
    if profile.kind == "hwmon":
        return f"an hwmon chip named {names or '?'} with a temp*_input in /{HWMON}"
    named = f" named {names}" if names else ""
    return f"a power_supply of type Battery{named} with a temp attribute in /{POWER_SUPPLY}"


def waiting_line(profile: SensorProfile) -> str:
    return f"waiting for {profile.name} ({looked_for(profile)})"


def ramp_s(profile: SensorProfile) -> float:
    """How long a sensor takes to come into (or leave) the fusion: its lag, at least MIN_RAMP_S."""
    return max(float(profile.lag_s), MIN_RAMP_S)


class EasedFusion(Fusion):
    """:class:`Fusion` whose members' weights move at a bounded rate (see the module doc).

    Each sensor has a share ``g`` in 0..1 of its weight: 1 for a sensor present at start, 0 for
    one waiting.  At each fuse a fresh sensor's share grows by ``dt / ramp``, a sensor that is not
    fresh loses as much.  While every share is 1 and every sensor fresh (a healthy board), the
    base fusion's result is returned as it is: one comparison more per tick.
    """

    def __init__(
        self, specs: Sequence[SensorSpec], ramps_s: Mapping[str, float], waiting: Sequence[str] = ()
    ) -> None:
        super().__init__(specs)
        self._rate = {s.name: 1.0 / max(ramps_s.get(s.name, MIN_RAMP_S), 1e-9) for s in self.specs}
        self.share = {s.name: 0.0 if s.name in waiting else 1.0 for s in self.specs}
        self._late = frozenset(waiting)  # the only sensors that ease in (session 22r)
        self._has_off_die = any(not s.on_die for s in self.specs)
        self._full = len(self.specs)
        self._steady = not waiting
        self._never = set(waiting)  # waited for and never read: not in the fusion at all
        self._t: float | None = None

    def fuse(self, now_s: float) -> FusionResult:
        fr = super().fuse(now_s)
        dt = 0.0 if self._t is None else max(now_s - self._t, 0.0)
        self._t = now_s
        if self._steady and len(fr.used) == self._full - len(self._never):
            return fr
        return self._eased(now_s, dt, fr)

    def _eased(self, now_s: float, dt: float, fr: FusionResult) -> FusionResult:
        fresh = set(fr.used)
        share = self.share
        num_f = den_f = num_h = den_h = num_b = den_b = 0.0
        die_full = False  # a fresh die sensor at full share: a die fusion to ease from
        steady = True
        for s in self.specs:
            name = s.name
            if self.excluded and name in self.excluded:
                share[name] = 0.0  # judged stuck: failed, not gone; leaves at once as before
                steady = False
                continue
            if name in fresh:
                g = share[name] = min(1.0, share[name] + dt * self._rate[name])
            else:
                g = share[name] = max(0.0, share[name] - dt * self._rate[name])
            r = self._latest[name]
            if g < 1.0 and (r is not None or name not in self._never):
                steady = False
            if r is not None and name in fresh and (g >= 1.0 or name not in self._late):
                num_b += s.weight * r.value_c  # the floor: counted in full as before session 22
                den_b += s.weight
                die_full = die_full or (g >= 1.0 and s.on_die)
            if g <= 0.0 or r is None:
                continue
            if name in fresh:
                num_f += s.weight * g * r.value_c
                den_f += s.weight * g
            else:
                num_h += s.weight * g * r.value_c
                den_h += s.weight * g
        if self._never:
            self._never.difference_update([n for n in self._never if self._latest[n] is not None])
        # Steady (the base result as it is, one comparison a tick) also while a sensor waited for
        # has never read: a battery or zone that never appears costs no eased fusion (23b).
        self._steady = steady and len(fresh) == self._full - len(self._never)
        if fr.fused_c is None or den_f <= 0.0:
            return fr  # unknown stays unknown (failsafe); no eased fresh weight: the base value
        if self._has_off_die and not die_full:
            return fr  # no die fusion to ease from: never a value made of the battery (22r)
        without_held = num_f / den_f
        fused = without_held
        if den_h > 0.0:
            fused = max(without_held, (num_f + num_h) / (den_f + den_h))
        if den_b > 0.0:
            fused = max(fused, num_b / den_b)  # a sensor fused from the start is never eased in
        return _new_result(FusionResult, (fused, fr.used, fr.hot))


@dataclass(slots=True)
class _Waiting:
    profile: SensorProfile
    seen: tuple[str, ...] | None = None  # the class folder's listing at the last scan
    found: SensorBinding | None = None  # bound at the last scan but not yet reading plausibly
    said: str = ""  # the last reason said for a found file not joining
    # when it began waiting (daemon clock): `status` shows it (hw/waitedsince.py) and the look's
    # back-off counts from it.  Session 27r: one field; a second, ``since`` (the first look's
    # time, set lazily), said the same in its comment and held the same value one look later.
    since_s: float = 0.0
    since_unix: float = 0.0  # the wall clock then
    every_s: float = LOOK_PERIOD_S  # the wait between its looks (module doc: backed off)
    next_s: float = 0.0  # its next look


class LateZones:
    """The thermal-zone and hwmon sensors of the profile that are not reading from a live file."""

    def __init__(
        self,
        tree: SysfsTree,
        profiles: Sequence[SensorProfile],
        bound: Sequence[SensorBinding],
        sources: MutableMapping[str, SensorSource],
        log: Callable[[str], None],
        clock: Callable[[], float],
        wall: Callable[[], float] = time.time,
    ) -> None:
        self._tree = tree
        self._wall = wall
        self._sources = sources  # the governor's own mapping: a joined source goes in here
        self._log = log
        self._clock = clock
        have = {b.sensor.name for b in bound}
        self._waiting = {
            p.name: self._waits(p, clock()) for p in profiles if p.kind in WAITED_KINDS and p.name not in have
        }
        # Discovery just found them absent from these listings: scanned again only once they change.
        listings: dict[str, tuple[str, ...]] = {}
        for w in self._waiting.values():
            w.seen = self._listing(w.profile, listings)
        self._bound = {b.sensor.name: b for b in bound if b.sensor.kind in WAITED_KINDS}
        self._next_look = 0.0
        self.skip: set[str] = set(self._waiting)  # not sampled: the loop's one membership test
        self.left_now: list[str] = []  # gone at the last look: their trace columns emptied
        self.joined_late: dict[str, float] = {}  # waited for at start: when each first joined
        self._left_at: dict[str, float] = {}  # gone mid-run: when each last went away
        self._lines = ChangeLines(log)
        # A class folder's listing already taken by another reader, with the clock's value then
        # (session 25l: the supplies reader's, hw/power.py): used when taken at this look's instant.
        self.listed_by: dict[str, Callable[[], tuple[float, tuple[str, ...]] | None]] = {}

    @property
    def waiting(self) -> tuple[str, ...]:
        return tuple(self._waiting)

    def waiting_for(self) -> dict[str, dict[str, object]]:
        """Each sensor waited for now, what it is looked for as and since when (``status``)."""
        now = self._clock()
        return {
            name: published(looked_for(w.profile), w.since_s, w.since_unix, now)
            for name, w in self._waiting.items()
        }

    def _waits(self, profile: SensorProfile, now_s: float) -> _Waiting:
        return _Waiting(profile, since_s=now_s, since_unix=self._wall())

    def look(self, now_s: float, fusion: Fusion) -> list[str]:
        """At most once a second: sensors gone, then sensors found. Trace tags of both."""
        if now_s < self._next_look:
            return []
        self._next_look = now_s + LOOK_PERIOD_S
        self.left_now = []
        if self._lines.held:
            self._lines.flush(now_s, self._state)
        events = self._gone(now_s, fusion)
        if self._waiting:
            events += self._found(now_s)
        return events

    def missing(self, at_start: Mapping[str, str]) -> dict[str, str]:
        """The sensors missing at the end, with why: ``at_start`` (discovery's) less those that
        joined since, and those that went away mid-run and did not come back."""
        out = {k: v for k, v in at_start.items() if k not in self._bound}
        for name, t in self._left_at.items():
            if name in self._waiting:
                out[name] = f"went away at {t:.1f} s"
        return out

    def _gone(self, now_s: float, fusion: Fusion) -> list[str]:
        """A bound sensor not fresh whose file no longer exists went away (one stat each)."""
        events = []
        stale_s = {s.name: s.stale_after_s for s in fusion.specs}
        for name, b in list(self._bound.items()):
            r = fusion.latest(name)
            if r is not None and now_s - r.t_s <= stale_s[name] + 1e-9:
                continue
            if self._tree.exists(b.rel):
                continue
            del self._bound[name]
            for rel in (b.rel, *b.twins):
                self._tree.release_member(rel)
            self._waiting[name] = self._waits(b.sensor, now_s)
            self.skip.add(name)
            self.left_now.append(name)
            self._left_at[name] = now_s
            what = f"{self._tree.show(b.rel)} went away ({b.source}); it eases out of the fused temperature"
            events.append(self._said(name, "left", f"{what} and is looked for again", now_s))
        return events

    def _said(self, name: str, tag: str, what: str, now_s: float) -> str:
        """One line on stderr for the sensor, or counted for its next minute's line; its trace tag."""
        self._lines.change(name, tag, f"sensor {name}: {what}", now_s)
        return f"sensor_{tag}:{name}"

    def flush(self) -> None:
        """At the end of the run: the changes not said yet, one line a sensor."""
        self._lines.flush(float("inf"), self._state)

    def _state(self, name: str) -> str:
        return "reading" if name in self._bound else "gone"

    def _found(self, now_s: float) -> list[str]:
        events = []
        listings: dict[str, tuple[str, ...]] = {}
        for name, w in list(self._waiting.items()):
            if now_s < w.next_s:
                continue
            listing = self._listing(w.profile, listings, now_s)
            moved = listing != w.seen
            if moved:
                w.seen = listing
                w.found = self._scan(w.profile)
            self._next(w, now_s, prompt=moved or w.found is not None)
            if w.found is None:
                continue
            source = open_sensor(self._tree, w.found, self._clock)
            try:
                reading = source.read()
            except SensorError as e:
                if str(e) != w.said:
                    w.said = str(e)
                    self._log(f"sensor {name}: {w.found.source} found but not joined: {e}")
                continue
            del self._waiting[name]
            self._bound[name] = w.found
            self._sources[name] = source
            self.skip.discard(name)
            if name not in self._left_at:
                self.joined_late.setdefault(name, round(now_s, 3))
            what = f"{w.found.source} appeared, reads {reading.value_c:g} °C"
            what = f"{what}; it eases in over {ramp_s(w.profile):g} s"
            events.append(self._said(name, "joined", what, now_s))
        return events

    @staticmethod
    def _next(w: _Waiting, now_s: float, prompt: bool) -> None:
        """When to look for ``w`` again: at once a second while it is new or its folder moves, then
        backed off by doubling to :data:`MAX_LOOK_S` (module doc)."""
        if prompt or now_s - w.since_s < PROMPT_S:
            w.every_s = LOOK_PERIOD_S
        else:
            w.every_s = min(w.every_s * 2.0, MAX_LOOK_S)
        w.next_s = now_s + w.every_s - 1e-9

    def _listing(
        self, profile: SensorProfile, looked: dict[str, tuple[str, ...]], now_s: float | None = None
    ) -> tuple[str, ...]:
        """The sensor's class folder's entries, listed once per look (``looked``), or the listing
        another reader took at this same instant (``listed_by``: one ``getdents``, not two)."""
        folder = _FOLDERS[profile.kind]
        if folder not in looked and now_s is not None and folder in self.listed_by:
            got = self.listed_by[folder]()
            if got is not None and got[0] == now_s:
                looked[folder] = got[1]
        if folder not in looked:
            looked[folder] = tuple(self._tree.listdir(folder))
        return looked[folder]

    def _scan(self, profile: SensorProfile) -> SensorBinding | None:
        """Bind one profile sensor against its class folder as discovery would at start."""
        problems: list[str] = []
        zones = tuple(_zones(self._tree, problems)) if profile.kind == "thermal_zone" else ()
        hwmons: tuple[Hwmon, ...] = (
            tuple(_hwmons(self._tree, problems, [])) if profile.kind == "hwmon" else ()
        )
        supplies: tuple[Supply, ...] = (
            tuple(_supplies(self._tree, problems)) if profile.kind == "battery" else ()
        )
        inv = Inventory("", (), zones, hwmons, supplies, (), (), tuple(problems))
        b = _bind_sensor(profile, inv)
        return None if isinstance(b, str) else b


class ChangeLines:
    """A sensor's join/leave lines on stderr: its first of each said at once, then one a minute.

    A zone on a loose connector or a module loaded and unloaded in a loop comes and goes every
    second: two lines a second in the journal.  A line for a sensor opens a quiet minute
    (:data:`QUIET_S`): its first join and its first leave in it are said at once (a zone that
    appears and then goes away is told as it happens), any later change is counted, and the
    counts are said as one line when the minute is over (or at the end of the run), which opens
    the next quiet minute.  The trace still tags every change.
    """

    def __init__(self, log: Callable[[str], None]) -> None:
        self._log = log
        self._quiet_until: dict[str, float] = {}
        self._told: dict[str, set[str]] = {}  # the tags said at once in the sensor's quiet minute
        self._since: dict[str, float] = {}  # when the sensor's quiet minute began
        self._last: dict[str, float] = {}  # when its last change was counted
        self.held: dict[str, dict[str, int]] = {}  # sensor -> tag -> changes not said yet

    def change(self, name: str, tag: str, line: str, now_s: float) -> None:
        if now_s >= self._quiet_until.get(name, float("-inf")) and name not in self.held:
            self._open(name, now_s, {tag})
            self._log(line)
        elif tag not in self._told[name] and name not in self.held:
            self._told[name].add(tag)
            self._log(line)
        else:
            counts = self.held.setdefault(name, {})
            counts[tag] = counts.get(tag, 0) + 1
            self._last[name] = now_s

    def flush(self, now_s: float, state: Callable[[str], str]) -> None:
        """Say the held changes of each sensor whose quiet minute is over at ``now_s``."""
        for name, counts in list(self.held.items()):
            if now_s < self._quiet_until[name]:
                continue
            del self.held[name]
            what = " and ".join(f"{_VERB[tag]} {n} time{'s' if n > 1 else ''}" for tag, n in counts.items())
            span = self._last[name] - self._since[name]
            self._log(
                f"sensor {name}: {what} more in {span:.0f} s ({state(name)} now;"
                f" its changes said at most once a minute, each one in the trace)"
            )
            self._open(name, now_s, set(_VERB))

    def _open(self, name: str, now_s: float, told: set[str]) -> None:
        self._since[name] = now_s
        self._quiet_until[name] = now_s + QUIET_S
        self._told[name] = told


_VERB = {"left": "went away", "joined": "appeared"}


class WaitingSource:
    """The governor's source for a sensor not there yet: never sampled (the loop skips it)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def read(self) -> NoReturn:
        raise SensorError(f"{self.name}: not there yet")
