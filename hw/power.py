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
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence

from thermogov.hw.devices import to_celsius
from thermogov.hw.discovery import Supply
from thermogov.hw.polled import SLOW_PERIOD_S, Every
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import PowerStatus, SensorError

# Linux power_supply ``status`` strings (sysfs-class-power) -> our states.  "Not charging"
# means external power is there but the charger holds off (full enough, or too hot/cold).
_STATUS = {"charging": "charging", "discharging": "discharging", "full": "full", "not charging": "mains"}
EXTERNAL_TYPES = ("mains", "usb", "ups", "wireless")  # supplies with an ``online`` attribute
MAX_POWER_W = 1000.0  # a battery-powered edge board draws tens of watts; more is a garbled file


def is_battery(s: Supply) -> bool:
    return s.type.strip().lower() == "battery"


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
    ) -> None:
        self._tree = tree
        self._period_s = period_s
        self._gate = Every(period_s)
        self._last: PowerStatus | None = None
        self.battery = next((s for s in supplies if is_battery(s)), None)
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

    def _keep(self, rels: Sequence[str]) -> None:
        for rel in rels:
            if self._tree.exists(rel):
                self._tree.keep_open(rel)
                self._kept.add(rel)

    def add_battery(self, rel: str) -> None:
        """A battery that joined after start (hw/latezones.py, session 24a): its ``status`` is the
        power state from the next poll on.  Before, the supplies found at start were the only
        ones for the run: a pack plugged in after boot left the state "mains" (no battery) for
        the policy, the ``[power]`` budget and ``status``.  The first battery stays the one read."""
        if self.battery is not None:
            return
        self.battery = Supply(rel.rsplit("/", 1)[-1], rel, "Battery", self._tree.exists(f"{rel}/temp"))
        self._keep([f"{rel}/{a}" for a in PER_TICK_BATTERY_ATTRS])
        self._gate = Every(self._period_s)  # read at the next poll, not up to a period later

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
        known = [v for v in vals if v in (0, 1)]
        return any(known) if known else None

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
        online = self.online()
        b = self.battery
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
