"""Reading throttling that is not ours from a real board: firmware bits, OC counters, kernel trips.

Every source is read through the injected :class:`~thermogov.hw.sysfs.SysfsTree` (read-only: no
attribute here is ever owned) and named with the kinds of :mod:`thermogov.throttle`:

* **Raspberry Pi firmware** ``get_throttled`` (``drivers/firmware/raspberrypi.c`` in the
  Raspberry Pi kernel: ``/sys/devices/platform/soc/soc:firmware/get_throttled``, printed ``%x``;
  ``vcgencmd get_throttled`` prints the same field as ``throttled=0x50005``).  Bits 0-3 are
  "now" (level kinds); bits 16-19 "has occurred".  The driver asks the firmware to clear the
  sticky bits on each query and the kernel polls every 2 s, so a sticky bit seen without its
  "now" bit is an event too short to be seen live: it is counted (``throttle:<kind>=1``).
* **rpi_volt hwmon** ``in0_lcrit_alarm`` (mainline ``drivers/hwmon/raspberrypi-hwmon.c``):
  under-voltage since the kernel's last poll; used only when ``get_throttled`` is absent.
* **Jetson Orin** ``soctherm_oc`` hwmon (NVIDIA's ``tegra23x_oc_event`` driver, JetPack 5/6):
  ``oc1_event_cnt`` under-voltage, ``oc2_event_cnt`` average over-current, ``oc3_event_cnt``
  instantaneous over-current, cumulative since boot (NVIDIA Jetson Linux Developer Guide,
  "Platform Power and Performance", Jetson Orin): counted kinds, increments per poll.
* **INA3221** ``currN_crit_alarm`` / ``currN_max_alarm`` (mainline ``drivers/hwmon/ina3221.c``:
  critical limit on each conversion, warning limit on the averaged value): level kinds
  ``over-current-instant`` / ``over-current-average``, used when there is no ``soctherm_oc``.
* **Kernel trip points** of every thermal zone: crossed up at ``temp >= trip_point_N_temp`` and
  down below ``temp - trip_point_N_hyst``, the thermal core's rule; ``trip-<type>@<zone type>``.

A source whose file holds garbage or fails to read is skipped for that poll and reported once
(its reason is kept in the snapshot's ``errors``); it never stops the daemon.  Jetson Nano and
Xavier kernels expose no over-current counter in sysfs (only ``soctherm: OC ALARM`` in the kernel
log), so there the trips are all that is counted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Protocol

from thermogov.governor import TickRecord
from thermogov.hw.devices import to_celsius
from thermogov.hw.discovery import ThermalZone, discover, hwmon_chips
from thermogov.hw.polled import SLOW_PERIOD_S, Every
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import SensorError
from thermogov.throttle import (
    OVER_CURRENT_AVERAGE,
    OVER_CURRENT_INSTANT,
    PI_NOW_BITS,
    PI_STICKY_SHIFT,
    UNDER_VOLTAGE,
    ThrottleCounters,
    ThrottleTally,
    count_tag,
    end_tag,
    parse_get_throttled,
    start_tag,
    trip_kind,
)

PI_FIRMWARE_PATHS = (
    "sys/devices/platform/soc/soc:firmware/get_throttled",  # Pi 1-4 (BCM283x/2711 device trees)
    "sys/devices/platform/soc:firmware/get_throttled",
)
PLATFORM = "sys/devices/platform"
OC_COUNTERS = (("oc1", UNDER_VOLTAGE), ("oc2", OVER_CURRENT_AVERAGE), ("oc3", OVER_CURRENT_INSTANT))
POLL_PERIOD_S = SLOW_PERIOD_S  # a trace tag within a second; the Pi's kernel polls every 2 s


@dataclass(frozen=True, slots=True)
class Observation:
    """One poll of one source: level kinds active now, events counted since its last poll."""

    active: frozenset[str] = frozenset()
    counts: tuple[tuple[str, int], ...] = ()


class Source(Protocol):
    name: str

    def poll(self) -> Observation: ...

    def describe(self) -> list[str]: ...

    def values(self) -> dict[str, object]: ...

    def kinds(self) -> frozenset[str]: ...

    def files(self) -> list[str]: ...


def _alarm(tree: SysfsTree, rel: str) -> bool:
    v = tree.read_int(rel)
    if v not in (0, 1):
        raise SensorError(f"{tree.show(rel)}: {v} is not an alarm flag (0 or 1); the driver gave no value")
    return v == 1


class PiFirmware:
    """``get_throttled``: now bits as levels, a sticky bit without its now bit as one short event."""

    def __init__(self, tree: SysfsTree, rel: str) -> None:
        self.tree, self.rel, self.name = tree, rel, "rpi-firmware"
        self._sticky: int | None = None  # sticky bits of the previous poll; None before the first

    def kinds(self) -> frozenset[str]:
        return frozenset(k for _, k in PI_NOW_BITS)

    def files(self) -> list[str]:
        return [self.rel]

    def read(self) -> int:
        return parse_get_throttled(self.tree.read_text(self.rel), self.tree.show(self.rel))

    def poll(self) -> Observation:
        value = self.read()
        active = frozenset(k for b, k in PI_NOW_BITS if value >> b & 1)
        sticky = value >> PI_STICKY_SHIFT
        counts = []
        if self._sticky is not None:
            for b, k in PI_NOW_BITS:
                rose = sticky >> b & 1 and not self._sticky >> b & 1
                if rose and k not in active:
                    counts.append((k, 1))
        self._sticky = sticky
        return Observation(active, tuple(counts))

    def values(self) -> dict[str, object]:
        value = self.read()
        return {
            "path": self.tree.show(self.rel),
            "value": f"{value:#x}",
            "now": [k for b, k in PI_NOW_BITS if value >> b & 1],
            "since_boot": [k for b, k in PI_NOW_BITS if value >> (b + PI_STICKY_SHIFT) & 1],
        }

    def describe(self) -> list[str]:
        value = self.read()
        now = [k for b, k in PI_NOW_BITS if value >> b & 1]
        seen = [k for b, k in PI_NOW_BITS if value >> (b + PI_STICKY_SHIFT) & 1]
        return [
            f"rpi firmware get_throttled {value:#x} ({self.tree.show(self.rel)})",
            f"  now: {', '.join(now) or 'none'}; since boot (or the kernel's last poll): "
            f"{', '.join(seen) or 'none'}",
        ]


class RpiVolt:
    def __init__(self, tree: SysfsTree, rel: str) -> None:
        self.tree, self.rel, self.name = tree, f"{rel}/in0_lcrit_alarm", "rpi_volt"

    def kinds(self) -> frozenset[str]:
        return frozenset({UNDER_VOLTAGE})

    def files(self) -> list[str]:
        return [self.rel]

    def poll(self) -> Observation:
        return Observation(frozenset({UNDER_VOLTAGE}) if _alarm(self.tree, self.rel) else frozenset())

    def values(self) -> dict[str, object]:
        on = _alarm(self.tree, self.rel)
        return {"path": self.tree.show(self.rel), "now": [UNDER_VOLTAGE] if on else []}

    def describe(self) -> list[str]:
        state = "under-voltage" if _alarm(self.tree, self.rel) else "ok"
        return [f"rpi_volt in0_lcrit_alarm: {state} ({self.tree.show(self.rel)})"]


class SocthermOc:
    """Jetson Orin OC event counters: increments since the previous poll, never a level."""

    def __init__(self, tree: SysfsTree, rel: str, names: Iterable[str]) -> None:
        self.tree, self.rel, self.name = tree, rel, "soctherm_oc"
        self.counters = [(oc, kind) for oc, kind in OC_COUNTERS if oc in set(names)]
        self._last: dict[str, int] = {}

    def kinds(self) -> frozenset[str]:
        return frozenset(k for _, k in self.counters)

    def files(self) -> list[str]:
        return [f"{self.rel}/{oc}_event_cnt" for oc, _ in self.counters]

    def _read(self) -> dict[str, int]:
        out = {}
        for oc, _ in self.counters:
            rel = f"{self.rel}/{oc}_event_cnt"
            v = self.tree.read_int(rel)
            if v < 0:
                raise SensorError(f"{self.tree.show(rel)}: {v} is negative; an event count cannot be")
            out[oc] = v
        return out

    def poll(self) -> Observation:
        now = self._read()
        counts = []
        for oc, kind in self.counters:
            prev = self._last.get(oc)
            # A counter that went down was reset (a BPMP restart): count from its new value.
            if prev is not None and now[oc] != prev:
                counts.append((kind, now[oc] - prev if now[oc] > prev else now[oc]))
        self._last = now
        return Observation(counts=tuple((k, n) for k, n in counts if n > 0))

    def values(self) -> dict[str, object]:
        now = self._read()
        return {
            "path": self.tree.show(self.rel),
            "since_boot": {f"{oc}:{kind}": now[oc] for oc, kind in self.counters},
        }

    def describe(self) -> list[str]:
        now = self._read()
        counts = ", ".join(f"{oc} {kind} {now[oc]}" for oc, kind in self.counters)
        return [f"soctherm_oc event counts since boot: {counts} ({self.tree.show(self.rel)})"]


class Ina3221Alarms:
    def __init__(self, tree: SysfsTree, rel: str, files: list[str]) -> None:
        self.tree, self.rel, self.name = tree, rel, f"ina3221 {rel.rsplit('/', 1)[-1]}"
        self.alarm_files = files

    def kinds(self) -> frozenset[str]:
        return frozenset(
            OVER_CURRENT_INSTANT if f.endswith("_crit_alarm") else OVER_CURRENT_AVERAGE
            for f in self.alarm_files
        )

    def files(self) -> list[str]:
        return [f"{self.rel}/{f}" for f in self.alarm_files]

    def _flags(self) -> list[tuple[str, str, bool]]:
        out = []
        for f in self.alarm_files:
            kind = OVER_CURRENT_INSTANT if f.endswith("_crit_alarm") else OVER_CURRENT_AVERAGE
            out.append((f, kind, _alarm(self.tree, f"{self.rel}/{f}")))
        return out

    def poll(self) -> Observation:
        return Observation(frozenset(kind for _, kind, on in self._flags() if on))

    def values(self) -> dict[str, object]:
        flags = self._flags()
        return {
            "path": self.tree.show(self.rel),
            "now": sorted({kind for _, kind, on in flags if on}),
            "alarms": [f for f, _, on in flags if on],
        }

    def describe(self) -> list[str]:
        on = [f for f, _, v in self._flags() if v]
        return [f"ina3221 alarms ({self.tree.show(self.rel)}): {', '.join(on) or 'none set'}"]


@dataclass(frozen=True, slots=True)
class _Trip:
    kind: str
    temp_c: float
    release_c: float


class KernelTrips:
    """Every zone's trip points, crossed by the zone's own temperature (the thermal core's rule)."""

    name = "kernel trips"

    def __init__(self, tree: SysfsTree, zones: Iterable[ThermalZone]) -> None:
        self.tree = tree
        zones = [z for z in zones if any(t.temp_c is not None for t in z.trips)]
        seen: dict[str, int] = {}
        for z in zones:
            seen[z.type] = seen.get(z.type, 0) + 1
        self.zones: list[tuple[ThermalZone, list[_Trip]]] = []
        for z in zones:
            label = z.type if seen[z.type] == 1 else f"{z.type}.{z.name}"
            trips = [
                _Trip(trip_kind(t.type, label), t.temp_c, t.temp_c - (t.hyst_c or 0.0))
                for t in z.trips
                if t.temp_c is not None
            ]
            self.zones.append((z, trips))
        self._kind = {(z.name, i): t.kind for z, trips in self.zones for i, t in enumerate(trips)}
        self._crossed: set[tuple[str, int]] = set()  # (zone name, trip index) crossed up
        # Every zone is read each poll: its reader (path resolved once) and its name in messages.
        self._readers = {z.name: (tree.int_reader(z.temp_rel), tree.show(z.temp_rel)) for z, _ in self.zones}

    def kinds(self) -> frozenset[str]:
        return frozenset(self._kind.values())

    def files(self) -> list[str]:
        return [z.temp_rel for z, _ in self.zones]

    def _temp(self, z: ThermalZone) -> float:
        read, shown = self._readers[z.name]
        return to_celsius(read(), 1000.0, shown)

    def poll(self) -> Observation:
        """Kinds with at least one trip crossed, and how many trips rose since the last poll."""
        errors = []
        rises: dict[str, int] = {}
        for z, trips in self.zones:
            try:
                temp = self._temp(z)
            except SensorError as e:  # one zone offline (Orin's CV zones read -256 °C) is not all
                errors.append(str(e))
                continue
            for i, t in enumerate(trips):
                key = (z.name, i)
                if key not in self._crossed and temp >= t.temp_c:
                    self._crossed.add(key)
                    rises[t.kind] = rises.get(t.kind, 0) + 1
                elif key in self._crossed and temp < t.release_c:
                    self._crossed.discard(key)
        if errors and len(errors) == len(self.zones):
            raise SensorError("; ".join(errors))
        kinds = {self._kind[k] for k in self._crossed}
        return Observation(frozenset(kinds), tuple(sorted(rises.items())))

    def values(self) -> dict[str, object]:
        zones: dict[str, object] = {}
        for z, trips in self.zones:
            try:
                temp = self._temp(z)
            except SensorError as e:
                zones[z.name] = {"type": z.type, "error": str(e)}
                continue
            zones[z.name] = {
                "type": z.type,
                "temp_c": round(temp, 3),
                "crossed": [t.kind for t in trips if temp >= t.temp_c],
            }
        return {"zones": zones}

    def describe(self) -> list[str]:
        out = []
        for z, trips in self.zones:
            try:
                temp = self._temp(z)
            except SensorError as e:
                out.append(f"  {z.name:<15} {z.type:<18} ERROR {e}")
                continue
            crossed = [f"{t.kind.split('@')[0][5:]} {t.temp_c:g}" for t in trips if temp >= t.temp_c]
            out.append(
                f"  {z.name:<15} {z.type:<18} {temp:.1f} °C  at or above: {', '.join(crossed) or 'none'}"
            )
        return ["kernel trip points (now):", *out] if out else []


def find_sources(tree: SysfsTree, zones: Iterable[ThermalZone] | None = None) -> list[Source]:
    """Every throttle source this tree has (structure only: no value is judged here)."""
    sources: list[Source] = []
    fw = next((p for p in PI_FIRMWARE_PATHS if tree.exists(p)), None)
    if fw is None:  # Pi 5 names its SoC bus soc@107c000000: look one level down the platform bus
        for bus in tree.listdir(PLATFORM, r"soc.*"):
            for dev in tree.listdir(f"{PLATFORM}/{bus}", r".*firmware"):
                if tree.exists(f"{PLATFORM}/{bus}/{dev}/get_throttled"):
                    fw = f"{PLATFORM}/{bus}/{dev}/get_throttled"
                    break
            if fw:
                break
    if fw is not None:
        sources.append(PiFirmware(tree, fw))
    chips: dict[str, list[tuple[str, list[str]]]] = {}
    for _, rel, chip in hwmon_chips(tree):
        chips.setdefault(chip, []).append((rel, tree.listdir(rel)))
    if fw is None:
        for rel, files in chips.get("rpi_volt", []):
            if "in0_lcrit_alarm" in files:
                sources.append(RpiVolt(tree, rel))
    oc = [
        (rel, [f[: -len("_event_cnt")] for f in files if f.endswith("_event_cnt")])
        for rel, files in chips.get("soctherm_oc", [])
    ]
    for rel, names in oc:
        if names:
            sources.append(SocthermOc(tree, rel, names))
    if not any(names for _, names in oc):
        for rel, files in chips.get("ina3221", []):
            alarms = [f for f in files if f.startswith("curr") and f.endswith(("_crit_alarm", "_max_alarm"))]
            if alarms:
                sources.append(Ina3221Alarms(tree, rel, alarms))
    zones = discover(tree).zones if zones is None else zones
    trips = KernelTrips(tree, zones)
    if trips.zones:
        sources.append(trips)
    return sources


class ThrottleMonitor:
    """Polls the sources (at most once per ``period_s``) and turns changes into trace tags.

    The daemon calls :meth:`annotate` after each tick and :meth:`snapshot` for its published state.
    """

    def __init__(
        self,
        sources: list[Source],
        log: Callable[[str], None] | None = None,
        period_s: float = POLL_PERIOD_S,
    ) -> None:
        self.sources = sources
        self.period_s = period_s
        self._log = log
        self._gate = Every(period_s)
        self._active: frozenset[str] = frozenset()
        self._errors: dict[str, str] = {}
        self._levels: dict[str, frozenset[str]] = {}  # source -> level kinds it last reported
        self.tally = ThrottleTally()
        self._last_t = 0.0
        self._kinds = frozenset().union(*(s.kinds() for s in sources)) if sources else frozenset()

    @classmethod
    def open(
        cls,
        tree: SysfsTree,
        log: Callable[[str], None] | None = None,
        zones: Iterable[ThermalZone] | None = None,
    ) -> ThrottleMonitor:
        """The board's sources, their files read through descriptors kept open (``pread``,
        re-validated on every read by :class:`SysfsTree`): they are read every poll.
        ``zones``: the daemon's discovery (``Prepared.inventory``); None discovers them here."""
        sources = find_sources(tree, zones)
        for src in sources:
            for rel in src.files():
                tree.keep_open(rel)
        return cls(sources, log)

    def poll(self, t_s: float) -> list[str]:
        """Read every source now; the tags of what changed since the previous poll.

        A level kind that becomes active opens with ``throttle:<kind>`` (one event); further
        rises reported in the same poll (a second trip of the same type crossed) are counted on
        top.  A source that fails keeps the levels it last reported (unknown is not "ended").
        """
        active: set[str] = set()
        counts: dict[str, int] = {}
        for src in self.sources:
            try:
                obs = src.poll()
            except SensorError as e:
                if self._errors.get(src.name) != str(e) and self._log is not None:
                    self._log(f"throttle source {src.name} skipped: {e}")
                self._errors[src.name] = str(e)
                obs = Observation(self._levels.get(src.name, frozenset()))
            else:
                self._errors.pop(src.name, None)
                self._levels[src.name] = obs.active
            active |= obs.active
            for kind, n in obs.counts:
                counts[kind] = counts.get(kind, 0) + n
        tags = []
        for k in sorted(active - self._active):
            tags.append(start_tag(k))
            extra = counts.pop(k, 1) - 1
            if extra > 0:
                tags.append(count_tag(k, extra))
        tags += [end_tag(k) for k in sorted(self._active - active)]
        tags += [count_tag(k, n) for k, n in sorted(counts.items()) if n > 0]
        self._active = frozenset(active)
        self._last_t = t_s
        if tags:
            self.tally.observe(t_s, " ".join(tags))
        return tags

    def annotate(self, rec: TickRecord) -> TickRecord:
        """``rec`` with the tags of a poll appended, when one is due at its instant."""
        t = rec.t_s
        gate = self._gate
        if t < gate.ready_s or not gate.due(t):  # ready_s: most ticks, without a call
            return rec
        tags = self.poll(t)
        if not tags:
            return rec
        return rec._replace(event=" ".join(x for x in (rec.event, *tags) if x))

    def snapshot(self) -> ThrottleCounters:
        """Counts since the start of the run, time per level kind, active kinds, source errors.

        Every kind the sources can report is listed, from 0: a Prometheus counter that appears
        only at its first event cannot be told apart from one that was never scraped.
        """
        snap = self.tally.snapshot(self._last_t)
        counts = dict.fromkeys(sorted(self._kinds), 0)
        counts.update(snap.counts)
        return ThrottleCounters(
            MappingProxyType(counts), snap.seconds, snap.active, MappingProxyType(dict(self._errors))
        )


def doctor_lines(tree: SysfsTree, zones: Iterable[ThermalZone]) -> list[str]:
    """``doctor``'s section: each source now and since boot, an unreadable one shown in place."""
    sources = find_sources(tree, zones)
    out = ["throttling not ours (firmware, over-current, kernel trips):"]
    if not any(not isinstance(s, KernelTrips) for s in sources):
        out.append(
            "  no firmware or over-current source (no get_throttled, rpi_volt, soctherm_oc or ina3221 "
            "alarms); Jetson Nano/Xavier report over-current only in the kernel log"
        )
    for s in sources:
        try:
            lines = s.describe()
        except SensorError as e:
            lines = [f"{s.name}: ERROR {e}"]
        out.extend(f"  {line}" for line in lines)
    return out


def doctor_values(tree: SysfsTree, zones: Iterable[ThermalZone]) -> list[dict[str, object]]:
    """``doctor --json``'s form of :func:`doctor_lines`: one entry per source, errors in place."""
    out: list[dict[str, object]] = []
    for s in find_sources(tree, zones):
        try:
            out.append({"source": s.name, **s.values()})
        except SensorError as e:
            out.append({"source": s.name, "error": str(e)})
    return out
