"""Where a real board's power comes from: ``/sys/class/power_supply`` -> :class:`PowerStatus`.

The attributes and units are the kernel's ABI (Documentation/ABI/testing/sysfs-class-power):

* ``type``: Battery, Mains, USB, UPS, Wireless ...; ``online`` (Mains/USB): 1 when external
  power is connected;
* battery ``status``: Unknown, Charging, Discharging, Not charging, Full;
* ``capacity``: 0..100 %; ``temp``: tenths of a degree Celsius;
* ``power_now``: µW; ``voltage_now`` µV and ``current_now`` µA (their product when a fuel gauge
  has no power attribute).  Drivers disagree on the sign of ``current_now`` while discharging,
  so its magnitude is used.

Each attribute is read fresh and checked like the temperature sensors are (:mod:`.devices`): an
unreadable, non-numeric or out-of-range value is no value (``None``), never a guess.  Only an
unreadable battery ``status`` with no external supply to tell the state from makes the whole
report fail (``None``); the governor then keeps the last good one.

Session 25c: the chargers are not only the ones found at start.  With ``rescan`` (the daemon),
each read first lists ``/sys/class/power_supply`` (one ``getdents``, once per poll period, on
the period's own gate; never per tick): when the listing is the one of the last look nothing
more is read; a new entry whose ``type`` is external (Mains, USB, UPS, Wireless) and whose
``online`` reads 0, 1 or 2 is added (its ``online`` kept open like the start's), one that
went away is forgotten (its descriptor closed).  Each is said once on stderr.  A USB-C port's
supply (``tcpm-source-psy-<port>``, drivers/usb/typec/tcpm/tcpm.c; ``ucsi-source-psy-<dev><n>``,
drivers/usb/typec/ucsi/psy.c) is registered with its port driver, which may probe after the
daemon started and go and come back with the driver (a module reloaded, a controller reset);
its ``online`` says whether a partner supplies power.  A charger that went away counts as
offline: with the battery's ``status`` Unknown and no charger left online the state is
"discharging", not unknown (the last state, "mains", kept).  When that is wrong (a port driver
unbound with the cable in) the discharging budget applies on mains until it comes back.
An entry that is no charger or does not read like one (``type`` unreadable, ``online`` not a
number the ABI names, a FIFO, a link loop) is looked at again at the next two looks, then
skipped with one line, no traceback, and looked at again only if it goes and comes back.
Session 25l: a new ``type`` Battery entry is read too when no battery is (the first one only,
said once): its ``status`` is the power state from that read on.  Before, only a battery the
profile names was added after start (hw/latezones.py), and a pack the profile does not name,
plugged in after boot, left the state "mains" for the run.
Session 27r: this reader is the one owner of a late pack (:meth:`PowerSupplyReader._late_battery`;
hw/latezones.py only fuses a late pack's temperature), and a battery that goes away is forgotten
like a charger (its kept files closed, said once): the next Battery to appear is read in its
place, and until one does the chargers' ``online`` tell the state (None with no charger: the
governor keeps the last state).  Before, the gone pack stayed the one read for the run.
Session 28r: which pack is "the battery" when there are several (a board with two, two new in
one listing) is one rule, at start and mid-run alike (:func:`battery_order`): the one the
profile's battery sensor names best (its ``sysfs_names``, as hw/mapping.py matches names), then
one with a ``temp`` (the one the sensor fuses when it names none), then the first by name.
Before, the first Battery in the listing was read whatever the profile named, so the state could
come from a pack other than the one whose temperature was fused.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence

from thermogov.board import BoardProfile
from thermogov.hw.devices import to_celsius
from thermogov.hw.discovery import POWER_SUPPLY, Supply
from thermogov.hw.mapping import name_match
from thermogov.hw.polled import SLOW_PERIOD_S, Every
from thermogov.hw.sysfs import SysfsTree, natural_key
from thermogov.interfaces import PowerStatus, SensorError

# Linux power_supply ``status`` strings (sysfs-class-power) -> our states.  "Not charging"
# means external power is there but the charger holds off (full enough, or too hot/cold).
_STATUS = {"charging": "charging", "discharging": "discharging", "full": "full", "not charging": "mains"}
EXTERNAL_TYPES = ("mains", "usb", "ups", "wireless")  # supplies with an ``online`` attribute
MAX_POWER_W = 1000.0  # a battery-powered edge board draws tens of watts; more is a garbled file
# ``online`` of an external supply (sysfs-class-power): 0 Offline, 1 Online Fixed, 2 Online
# Programmable (a USB PD PPS source: tcpm's and ucsi's supplies report it while negotiating PPS).
ONLINE_VALUES = (0, 1, 2)
MAX_NEW_PER_LOOK = 16  # new entries examined at one look; a real board has a handful of supplies
SKIP_AFTER_LOOKS = 3  # a new entry not reading like a charger at this many looks is skipped
MAX_SAID = 1024  # supply lines said in a run: past it (a folder churning names) the rest are quiet
MAX_EXTERNAL = 32  # chargers tracked at once: past it, a new one is skipped (a tree flooded with them)


def is_battery(s: Supply) -> bool:
    return s.type.strip().lower() == "battery"


def battery_order(prefer: Sequence[str], name: str, has_temp: bool) -> tuple[int, bool, tuple[object, ...]]:
    """Sort key of a pack for "the battery" (module doc, session 28r): the best match of the
    profile's battery ``sysfs_names``, then one with a ``temp``, then by name."""
    level = max((name_match(w, name) for w in prefer), default=0)
    return (-level, not has_temp, natural_key(name))


def battery_names(board: BoardProfile) -> tuple[str, ...]:
    """The ``sysfs_names`` of the profile's battery sensors (:func:`battery_order`'s ``prefer``)."""
    return tuple(n for s in board.sensors if s.kind == "battery" for n in s.sysfs_names)


def is_external(s: Supply) -> bool:
    t = s.type.strip().lower()
    return t in EXTERNAL_TYPES or t.startswith("usb")


# What read() looks at on the battery each poll (Documentation/ABI/testing/sysfs-class-power).
PER_TICK_BATTERY_ATTRS = ("status", "capacity", "power_now", "voltage_now", "current_now", "temp")


class PowerSupplyReader:
    """Reads the board's supplies: the first battery, and whether any charger is online.

    :meth:`read` reads them now (``doctor``); :meth:`poll` is what the daemon calls every tick:
    it reads once per ``period_s`` of the clock and returns the last report in between
    (:mod:`~thermogov.hw.polled`: a fuel gauge refreshes every few seconds, a plugged or pulled
    charger is seen within one period).
    """

    def __init__(
        self,
        tree: SysfsTree,
        supplies: Sequence[Supply],
        clock: Callable[[], float] = time.monotonic,
        period_s: float = SLOW_PERIOD_S,
        rescan: bool = False,
        log: Callable[[str], None] | None = None,
        prefer: Sequence[str] = (),
    ) -> None:
        self._tree = tree
        self._period_s = period_s
        self._gate = Every(period_s)
        self._last: PowerStatus | None = None
        # the profile's battery sysfs_names: which pack is "the battery" (:func:`battery_order`)
        self._prefer = tuple(prefer)
        packs = sorted(
            (s for s in supplies if is_battery(s)), key=lambda s: battery_order(prefer, s.name, s.has_temp)
        )
        self.battery = packs[0] if packs else None
        self.external = tuple(s for s in supplies if is_external(s))
        self._clock = clock
        # The daemon reads these every poll: through descriptors kept open (pread, re-validated
        # on every read by SysfsTree), not an exists() and an open/read/close each.  A kept
        # file that vanishes (a USB supply unplugged) reads as an error, i.e. unknown, as a
        # missing one did; a file that appears later is read the plain way.
        self._kept: set[str] = set()
        per_tick = [f"{s.rel}/online" for s in self.external]
        if self.battery is not None:
            per_tick += [f"{self.battery.rel}/{a}" for a in PER_TICK_BATTERY_ATTRS]
        self._keep(per_tick)
        # Session 25c (module doc): the folder's listing at the last look, when rescanned.
        self._rescan = rescan
        self._log = log if log is not None else (lambda _msg: None)
        self._seen: frozenset[str] = frozenset(tree.listdir(POWER_SUPPLY)) if rescan else frozenset()
        self._online_read: list[int | None] = []  # each charger's ``online`` at the last read
        self._went = False  # a charger went away mid-run: none online then means off external power
        self._battery_went = False  # the battery read went away mid-run (:meth:`_forget_battery`)
        self._said: set[tuple[str, str]] = set()  # (name, what) said once on stderr
        self._tries: dict[str, int] = {}  # looks at a new entry that did not read like a charger
        # The folder's listing at the last look and when (the clock's value): hw/latezones.py uses
        # it for a battery it waits for at the same instant instead of listing the folder again.
        self.listed: tuple[float, tuple[str, ...]] | None = None

    def _keep(self, rels: Sequence[str]) -> None:
        for rel in rels:
            if self._tree.exists(rel):
                self._tree.keep_open(rel)
                self._kept.add(rel)

    def _add_battery(self, rel: str) -> None:
        """A battery that joined after start: its ``status`` is the power state from this read on
        (:meth:`_late_battery`, the only place a late pack is added: session 27r, module doc)."""
        self.battery = Supply(rel.rsplit("/", 1)[-1], rel, "Battery", self._tree.exists(f"{rel}/temp"))
        self._keep([f"{rel}/{a}" for a in PER_TICK_BATTERY_ATTRS])

    def _forget_battery(self, b: Supply, names: frozenset[str]) -> None:
        """The battery read went away (a pack pulled, its fuel gauge's driver unbound): its kept
        files closed, and another pack still there (``names``: the listing now) is read in its
        place, the one the start's rule prefers (:func:`battery_order`, session 30r: before, the
        chargers told the state with a second pack present, so a board on its other pack ran
        the mains budget while a charger was plugged but not charging it).  With no other pack,
        the next ``type`` Battery to appear is read (session 27r); until one does, the chargers'
        ``online`` tell the state, as for a status that reads Unknown (:meth:`read`): never
        "mains" on the word of no file."""
        self.battery = None
        self._battery_went = True
        self._release(b)
        nxt = self._next_pack(names - {b.name})
        if nxt is None:
            self._say(
                b.name, "left", f"power supply {b.name} (Battery) went away; the chargers tell the state now"
            )
            return
        self._add_battery(nxt.rel)
        self._say(
            b.name,
            "left",
            f"power supply {b.name} (Battery) went away; {nxt.name}, the pack the profile's rule "
            "prefers of those left (its battery sysfs_names, then a temp, then the name), is the "
            "power state now",
        )

    def _next_pack(self, names: frozenset[str]) -> Supply | None:
        """The pack the start's rule prefers among the listing's ``type`` Battery entries (one
        ``type`` read each, in the rule's order until one is a pack; only when a pack went away).
        One skipped before as not reading like a supply is not taken here either."""
        order = sorted(
            (n for n in names if n not in self._tries),
            key=lambda n: battery_order(self._prefer, n, self._tree.exists(f"{POWER_SUPPLY}/{n}/temp")),
        )
        for name in order:
            rel = f"{POWER_SUPPLY}/{name}"
            try:
                kind = self._tree.read_text(f"{rel}/type")
            except SensorError:
                continue
            s = Supply(name, rel, kind, self._tree.exists(f"{rel}/temp"))
            if is_battery(s):
                return s
        return None

    def _release(self, b: Supply) -> None:
        """The kept files of a pack no longer read closed (gone, or another pack preferred)."""
        for a in PER_TICK_BATTERY_ATTRS:
            rel = f"{b.rel}/{a}"
            if rel in self._kept:
                self._kept.discard(rel)
                self._tree.release_member(rel)

    def rescan(self) -> bool:
        """Chargers that appeared since the last look added, those that went away forgotten
        (module doc).  One listing; more reads only when it changed.  True when the set changed."""
        listing = tuple(self._tree.listdir(POWER_SUPPLY))
        self.listed = (self._clock(), listing)
        names = frozenset(listing)
        if names == self._seen:
            return False
        before = self._seen
        changed = False
        again: set[str] = set()  # entries that did not read like a charger yet: looked at next time
        for s in [s for s in self.external if s.name not in names]:
            self._forget(s)
            changed = True
        # gone from the listing and its folder gone too (a listing that failed lists as empty)
        if (
            self.battery is not None
            and self.battery.name not in names
            and not self._tree.exists(self.battery.rel)
        ):
            self._forget_battery(self.battery, names)
            changed = True
        # new entries in "the battery" order (module doc): of two packs new in one listing, the
        # one the rule prefers is the one :meth:`_late_battery` takes (chargers: any order)
        new = sorted(
            names - before,
            key=lambda n: battery_order(self._prefer, n, self._tree.exists(f"{POWER_SUPPLY}/{n}/temp")),
        )
        for name in new[:MAX_NEW_PER_LOOK]:
            changed = self._consider(name, again) or changed
        for name in [n for n in self._tries if n not in names]:
            del self._tries[name]
        self._seen = names - again
        if len(new) > MAX_NEW_PER_LOOK:
            self._say(
                "",
                "many",
                f"power supplies: {len(new)} new entries in /{POWER_SUPPLY} at once; "
                f"only {MAX_NEW_PER_LOOK} looked at (check the tree or the driver)",
            )
        return changed

    def _forget(self, s: Supply) -> None:
        self.external = tuple(x for x in self.external if x is not s)
        rel = f"{s.rel}/online"
        self._kept.discard(rel)
        self._tree.release_member(rel)
        self._went = True
        self._say(s.name, "left", f"power supply {s.name} ({s.type}) went away; it counts as offline now")

    def _consider(self, name: str, again: set[str]) -> bool:
        """One new entry of the folder: added when it is a charger reading like one.  One that
        does not read like one is looked at again at the next :data:`SKIP_AFTER_LOOKS` - 1
        looks (the kernel links a device into its class folder before it makes its attributes,
        drivers/base/core.c ``device_add``), then skipped with one line (module doc)."""
        rel = f"{POWER_SUPPLY}/{name}"
        try:
            kind = self._tree.read_text(f"{rel}/type")
        except SensorError as e:
            return self._skip(name, again, f"power supply {name} appeared but is skipped: {e}")
        s = Supply(name, rel, kind, False)
        kind = kind[:40]  # as said: a type is one word; a longer file is shown cut, never whole
        if is_battery(s):
            return self._late_battery(name, rel)
        if not is_external(s):
            return False  # neither a charger nor a battery (type Unknown, or a kind added to sysfs-class-power later)
        if any(x.rel == rel for x in self.external):
            return False
        if len(self.external) >= MAX_EXTERNAL:
            self._say(
                name,
                "skip",
                f"power supply {name} appeared but is skipped: {MAX_EXTERNAL} chargers tracked already",
            )
            return False
        try:
            online = self._tree.read_int(f"{rel}/online")
        except SensorError as e:
            return self._skip(name, again, f"power supply {name} ({kind}) appeared but is skipped: {e}")
        if online not in ONLINE_VALUES:
            return self._skip(
                name,
                again,
                f"power supply {name} ({kind}) appeared but is skipped: "
                f"{self._tree.show(rel + '/online')} reads {online}, not 0, 1 or 2 (sysfs-class-power)",
            )
        self._tries.pop(name, None)
        self.external = (*self.external, s)
        self._keep([f"{rel}/online"])
        what = "online" if online else "offline"
        self._say(
            name, "joined", f"power supply {name} ({kind}) appeared, {what}; it counts in the power state"
        )
        return True

    def _late_battery(self, name: str, rel: str) -> bool:
        """Session 25l: a ``type`` Battery that appeared after start is read when none is (the
        first one only): before, one the profile does not name left the state "mains" for the
        run.  Session 27r: this is the one owner of a late pack.  hw/latezones.py also added the
        one a profile names (its temperature joining the fusion) through a hook, whichever of
        the two saw it first: which one did decided whether this line was said, and the two
        could pick different packs of one listing.  The zone's join now only fuses its
        temperature; the power state's pack is chosen here, by one rule, and always said."""
        cur = self.battery
        if cur is not None:
            # Session 29r: the start's rule (battery_order) decides between the pack read and the
            # new one too; before, the pack read kept the state even when the profile names the
            # new one (whose temperature hw/latezones.py fuses), so the two came from two packs.
            has_temp = self._tree.exists(f"{rel}/temp")
            if battery_order(self._prefer, name, has_temp) >= battery_order(
                self._prefer, cur.name, cur.has_temp
            ):
                return False
            self._release(cur)
            self._add_battery(rel)
            self._say(
                name,
                "joined",
                f"power supply {name} (Battery) appeared; it is the pack the profile's rule prefers to "
                f"{cur.name} (its battery sysfs_names, then a temp, then the name): its status is the "
                f"power state now, {cur.name}'s no longer read",
            )
            return True
        self._add_battery(rel)
        self._say(
            name, "joined", f"power supply {name} (Battery) appeared; its status is the power state now"
        )
        return True

    def _skip(self, name: str, again: set[str], line: str) -> bool:
        tries = self._tries.get(name, 0) + 1
        if tries < SKIP_AFTER_LOOKS:
            self._tries[name] = tries
            again.add(name)
        else:
            self._tries.pop(name, None)
            self._say(name, "skip", line)
        return False

    def _say(self, name: str, what: str, line: str) -> None:
        """Each supply's appearance, departure or skip said once on stderr (later ones: quiet)."""
        if (name, what) not in self._said and len(self._said) < MAX_SAID:
            self._said.add((name, what))
            self._log(line)

    def supplies_now(self) -> list[dict[str, object]]:
        """The chargers of the last read, each with the ``online`` it read (``None``: no value):
        what ``status`` shows (published by the daemon) and ``doctor`` prints; no read of its own."""
        return [
            {"name": s.name, "type": s.type, "online": v}
            for s, v in zip(self.external, self._online_read, strict=False)
        ]

    def _int(self, rel: str) -> int | None:
        if rel not in self._kept and not self._tree.exists(rel):
            return None
        try:
            return self._tree.read_int(rel)
        except SensorError:
            return None

    def online(self) -> bool | None:
        """Any external supply online; ``None`` when none reports it."""
        vals = [self._int(f"{s.rel}/online") for s in self.external]
        vals = [v if v in ONLINE_VALUES else None for v in vals]
        self._online_read = vals
        known = [v for v in vals if v is not None]
        if known:
            return any(known)
        return False if self._went and not self.external else None

    def capacity_pct(self, rel: str) -> float | None:
        c = self._int(f"{rel}/capacity")
        return float(c) if c is not None and 0 <= c <= 100 else None

    def power_w(self, rel: str) -> float | None:
        p = self._int(f"{rel}/power_now")
        if p is not None:
            w = abs(p) / 1e6
        else:
            v, i = self._int(f"{rel}/voltage_now"), self._int(f"{rel}/current_now")
            if v is None or i is None or v < 0:
                return None
            w = v * abs(i) / 1e12
        return w if w <= MAX_POWER_W else None

    def temp_c(self, rel: str) -> float | None:
        raw = self._int(f"{rel}/temp")
        if raw is None:
            return None
        try:
            return to_celsius(raw, 10.0, self._tree.show(f"{rel}/temp"))
        except SensorError:
            return None

    def poll(self) -> PowerStatus | None:
        """The supplies' state, read again only when a period has passed since the last read."""
        now, gate = self._clock(), self._gate
        if now >= gate.ready_s and gate.due(now):  # ready_s: most ticks, without a call
            self._last = self.read()
        return self._last

    def read(self) -> PowerStatus | None:
        now = self._clock()
        if self._rescan:
            self.rescan()
        online = self.online()
        b = self.battery
        if b is None and self._battery_went:  # a pack went away: the chargers tell (as Unknown)
            return None if online is None else PowerStatus("mains" if online else "discharging", t_s=now)
        if b is None:
            return PowerStatus("mains", t_s=now)
        state = None
        with contextlib.suppress(SensorError):
            state = _STATUS.get(self._tree.read_text(f"{b.rel}/status").strip().lower())
        if state is None:  # Unknown / garbled: the chargers' ``online`` tells mains from battery
            if online is None:
                return None
            state = "mains" if online else "discharging"
        return PowerStatus(state, self.capacity_pct(b.rel), self.power_w(b.rel), self.temp_c(b.rel), now)


def status_line(st: PowerStatus | None) -> str:
    """One line for ``doctor``: the state and whatever the supply reports."""
    if st is None:
        return "power state: unknown (battery status unreadable and no charger reports online)"
    parts = [st.state]
    if st.capacity_pct is not None:
        parts.append(f"{st.capacity_pct:g} %")
    if st.power_w is not None:
        parts.append(f"{st.power_w:.2f} W")
    if st.battery_temp_c is not None:
        parts.append(f"battery {st.battery_temp_c:.1f} °C")
    return "power state: " + ", ".join(parts)
