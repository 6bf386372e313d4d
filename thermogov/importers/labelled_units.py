"""``Label: value`` logs whose readings lose their unit midway (session 32w).

A home-made logger edited in place, or two scripts appending to one file, prints ``Temperature:
48.3'C`` for a while and then ``Temperature: 48300`` (a bare ``cat`` of the thermal zone, in m°C:
kernel Documentation/ABI/testing/sysfs-class-thermal), or ``CPU freq: 1500 MHz`` and then
``CPU freq: 1500000`` (cpufreq's ``scaling_cur_freq``, in kHz: Documentation/admin-guide/pm/
cpufreq.rst).  Such lines gave no reading: a run of them was refused as a change of format, and a
run broken by the records' date lines was dropped without a word (half a log gone).

Here a label whose readings state a temperature or clock unit elsewhere in the file is the same
quantity in its bare lines.  Each run of bare values under it (``MIN_RUN`` or more, no stated
reading between) is read in the unit its own median fits (``quantities.detect_unit``, as session
31w did for a headerless table's pieces), but only when that puts the run within a factor of
``MAX_RATIO`` of the label's stated readings; a run no unit fits so is left unread and said.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from thermogov.importers.quantities import detect_unit

MIN_RUN = 3  # as segments.MIN_SEGMENT_ROWS: fewer values are a glitch, not a part in another unit
MAX_RATIO = 10.0  # a run read in its unit must sit within a decade of the label's stated readings
_KEEP_STATED = 1000  # stated values kept per label for its median (a long log holds no list of all)
_QUANTITY = {"temp": "temp", "clock": "freq"}
# The units a bare number is written in: a raw sysfs read (m°C, kHz, Hz) or a logger's own
# division (°C, MHz).  No source prints a bare clock in GHz: a small bare number under a clock
# label (`CPU freq: 3`, a governor's index?) is not read as one.
_BARE_UNITS = {"temp": frozenset({"°C", "m°C"}), "clock": frozenset({"MHz", "kHz", "Hz"})}
_SHOWN = {"temp": ("°C", 1.0), "clock": ("MHz", 1e6)}


@dataclass
class _Label:
    kind: str | None = None  # the kind of the label's stated readings ("temp", "clock")
    stated: list[float] = field(default_factory=list)
    runs: list[list[tuple[int, float]]] = field(default_factory=list)  # (line, bare value) runs
    open_run: bool = False


class BareRuns:
    """Collects each label's stated readings and its runs of bare numbers, in file order."""

    def __init__(self) -> None:
        self._labels: dict[str, _Label] = {}

    def stated(self, label: str, kind: str, value: float) -> None:
        entry = self._labels.setdefault(label, _Label())
        if kind not in _QUANTITY or entry.kind not in (None, kind):
            return
        entry.kind = kind
        if len(entry.stated) < _KEEP_STATED:
            entry.stated.append(value)
        entry.open_run = False

    def bare(self, number: int, label: str, value: float) -> None:
        entry = self._labels.setdefault(label, _Label())
        if not entry.open_run:
            entry.runs.append([])
            entry.open_run = True
        entry.runs[-1].append((number, value))

    def resolve(self) -> tuple[dict[tuple[int, str], tuple[str, float]], list[str]]:
        """The bare lines read in their own unit, keyed by (line, label), and a note per run."""
        read: dict[tuple[int, str], tuple[str, float]] = {}
        notes: list[str] = []
        for label, entry in self._labels.items():
            if entry.kind is None or not entry.stated:
                continue
            ref = statistics.median(entry.stated)
            shown, scale = _SHOWN[entry.kind]
            for run in entry.runs:
                values = [v for _, v in run]
                unit = detect_unit(_QUANTITY[entry.kind], values) if len(run) >= MIN_RUN else None
                med = statistics.median(values)
                span = f"line {run[0][0]}" if len(run) == 1 else f"lines {run[0][0]}-{run[-1][0]}"
                if (
                    unit is None
                    or unit.name not in _BARE_UNITS[entry.kind]
                    or not _near(unit.to_stored(med), ref)
                ):
                    notes.append(
                        f"{span}: {len(run)} bare number(s) under {label!r} (median {med:g}), whose other "
                        f"lines state their unit (median {ref / scale:g} {shown}): no unit puts them beside "
                        "those, not read"
                    )
                    continue
                for number, v in run:
                    read[(number, label)] = (entry.kind, unit.to_stored(v))
                notes.append(
                    f"{span}: {label!r} without a unit, in {unit.name} by its values (median {med:g}) where "
                    f"its other lines state their unit (median {ref / scale:g} {shown}): read in its own unit"
                )
        return read, notes


def _near(value: float, ref: float) -> bool:
    if value <= 0.0 or ref <= 0.0:
        return abs(value - ref) <= 10.0  # temperatures near or below 0 °C: within 10 degrees
    return 1.0 / MAX_RATIO <= value / ref <= MAX_RATIO
