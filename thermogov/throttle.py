"""Throttling that is not ours, named and counted: the vocabulary both worlds share.

Throughput dips that no thermal sensor explains are mostly the board protecting itself: the
Raspberry Pi firmware (under-voltage, frequency capping, its own thermal throttle), the Jetson
BPMP (under-voltage and over-current events) or a kernel trip point crossed.  The board reader
(``thermogov.hw.throttle``) and the simulated board's protections (``thermogov.sim``) both turn
what they see into the same trace tags, so a run explains its own dips the same way wherever it
ran, and the summary is computed from those tags alone (a trace rebuilt or imported reads alike):

* ``throttle:<kind>``: one event of ``kind`` began at this tick (a *level* kind, such as the
  Pi's "currently throttled" bit, stays active until ``throttle_end:<kind>``);
* ``throttle_end:<kind>``: the level kind ended;
* ``throttle:<kind>=<n>``: ``n`` events of a *counted* kind (the Jetson ``oc*_event_cnt``
  counters) happened since the previous tag; a count has no duration.

Kinds are lower-case words: ``under-voltage``, ``freq-capped``, ``throttled``,
``soft-temp-limit``, ``over-current-average``, ``over-current-instant``, and the kernel's trip
points as ``trip-<type>@<zone>`` (``trip-passive@cpu-thermal``).

The Raspberry Pi ``get_throttled`` bits (bits 0-3 "now", 16-19 "has occurred") are those of the
Raspberry Pi documentation, <https://www.raspberrypi.com/documentation/computers/os.html#get_throttled>.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from thermogov.interfaces import SensorError

START = "throttle:"
END = "throttle_end:"

UNDER_VOLTAGE = "under-voltage"
FREQ_CAPPED = "freq-capped"
THROTTLED = "throttled"
SOFT_TEMP_LIMIT = "soft-temp-limit"
OVER_CURRENT_AVERAGE = "over-current-average"
OVER_CURRENT_INSTANT = "over-current-instant"

# get_throttled: bit -> kind for the "now" bits; the "has occurred" bit of each is bit + 16.
PI_NOW_BITS: tuple[tuple[int, str], ...] = (
    (0, UNDER_VOLTAGE),
    (1, FREQ_CAPPED),
    (2, THROTTLED),
    (3, SOFT_TEMP_LIMIT),
)
PI_STICKY_SHIFT = 16
PI_KNOWN_MASK = sum(1 << b for b, _ in PI_NOW_BITS) * (1 + (1 << PI_STICKY_SHIFT))


def trip_kind(trip_type: str, zone: str) -> str:
    """``trip-passive@cpu-thermal``: a kernel trip of one type on one zone (spaces made safe)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in zone) or "zone"
    ttype = "".join(c if c.isalnum() else "_" for c in trip_type.lower()) or "unknown"
    return f"trip-{ttype}@{safe}"


def parse_get_throttled(text: str, where: str) -> int:
    """The bit field from the sysfs file (``50005``, the driver's ``%x``) or vcgencmd (``throttled=0x50005``).

    Raises ``SensorError`` naming ``where`` for anything else: garbage is never a number.
    """
    s = text.strip()
    if s.startswith("throttled="):
        s = s[len("throttled=") :]
    if s[:2].lower() == "0x":
        s = s[2:]
    if not s or len(s) > 8 or any(c not in "0123456789abcdefABCDEF" for c in s):
        shown = text.strip()[:40]
        raise SensorError(
            f"{where}: {shown!r} is not a get_throttled value (hex like 50005 or throttled=0x50005); "
            "the firmware driver gave no value"
        )
    return int(s, 16)


def pi_kinds(value: int) -> tuple[frozenset[str], frozenset[str]]:
    """(kinds active now, kinds that have occurred) from a ``get_throttled`` value."""
    now = frozenset(k for b, k in PI_NOW_BITS if value >> b & 1)
    seen = frozenset(k for b, k in PI_NOW_BITS if value >> (b + PI_STICKY_SHIFT) & 1)
    return now, seen


def start_tag(kind: str) -> str:
    return f"{START}{kind}"


def end_tag(kind: str) -> str:
    return f"{END}{kind}"


def count_tag(kind: str, n: int) -> str:
    """Always with ``=n``: a bare ``throttle:<kind>`` opens a level, a count never does."""
    return f"{START}{kind}={n}"


def parse_tags(event: str) -> Iterator[tuple[str, str, int]]:
    """``(op, kind, n)`` for each throttle tag of a trace ``event`` cell; op is start/end/count."""
    if "throttle" not in event:
        return
    for tag in event.split():
        if tag.startswith(START):
            kind, eq, n = tag[len(START) :].partition("=")
            if not kind:
                continue
            if eq:
                if n.isdigit() and int(n) > 0:
                    yield "count", kind, int(n)
            else:
                yield "start", kind, 1
        elif tag.startswith(END) and len(tag) > len(END):
            yield "end", tag[len(END) :], 0


@dataclass(frozen=True, slots=True)
class ThrottleCounters:
    """One typed snapshot of the throttling seen so far, for the state file and the metrics.

    ``counts`` is kind -> events since the start of the run, ``seconds`` kind -> time active
    (level kinds only), ``active`` the kinds active now and ``errors`` source -> why it could not
    be read (a source the board lacks is simply absent).
    """

    counts: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    seconds: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    active: frozenset[str] = frozenset()
    errors: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def total(self) -> int:
        return sum(self.counts.values())


class ThrottleTally:
    """Counts and times the throttle tags of a run, O(1) per tick (the recorder feeds every row)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.seconds: dict[str, float] = {}
        self._since: dict[str, float] = {}  # level kind -> when it became active

    def observe(self, t_s: float, event: str) -> None:
        for op, kind, n in parse_tags(event):
            if op == "end":
                began = self._since.pop(kind, None)
                if began is not None:
                    self.seconds[kind] = self.seconds.get(kind, 0.0) + max(t_s - began, 0.0)
                continue
            self.counts[kind] = self.counts.get(kind, 0) + n
            if op == "start":
                self._since.setdefault(kind, t_s)
                self.seconds.setdefault(kind, 0.0)

    def snapshot(self, t_s: float) -> ThrottleCounters:
        """The tally at ``t_s``, with kinds still active counted up to ``t_s``."""
        seconds = dict(self.seconds)
        for kind, began in self._since.items():
            seconds[kind] = seconds.get(kind, 0.0) + max(t_s - began, 0.0)
        return ThrottleCounters(
            MappingProxyType(dict(self.counts)),
            MappingProxyType({k: _round(v) for k, v in seconds.items()}),
            frozenset(self._since),
        )

    def summary(self, t_end: float) -> dict[str, object]:
        snap = self.snapshot(t_end)
        return {
            "throttle_events": dict(sorted(snap.counts.items())),
            "throttle_time_s": dict(sorted(snap.seconds.items())),
        }


def _round(v: float) -> float:
    return round(v, 3) if math.isfinite(v) else 0.0
