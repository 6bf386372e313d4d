"""Plausible ranges and unit detection for every quantity an importer stores: the ONE place.

Logs rarely say their units, and the same tool writes different ones on different boards:
``/sys/class/thermal/*/temp`` is in m°C while ``vcgencmd measure_temp`` prints °C
(kernel Documentation/ABI/testing/sysfs-class-thermal); cpufreq's ``scaling_cur_freq`` is in
kHz, devfreq's ``cur_freq`` in Hz and ``vcgencmd measure_clock`` in Hz while home-made loggers
divide by 1000 or 10^6 (Documentation/admin-guide/pm/cpufreq.rst, devfreq ABI); INA3221 rails
are read in mW, hwmon ``power*_input`` in µW (Documentation/hwmon/sysfs-interface.rst).
So a column's unit is decided from its values when its name does not say it, by the median
(one bad value cannot flip a whole column), and every stored value must then fall inside the
quantity's plausible range.  A column that fits no unit is refused; single values outside the
range are dropped and counted, never stored silently.
"""

from __future__ import annotations

import math
import re
import statistics
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from thermogov.interfaces import LogFormatError

if TYPE_CHECKING:
    import numpy as np

# Plausible ranges of the stored (SI-ish) values.  Temperatures: -40 °C is the industrial
# low end of every board here, 150 °C is above any silicon junction limit (Tj max 105-125 °C);
# clocks: 1 MHz..10 GHz; whole-board power 0..1000 W; utilisation 0..1.
TEMP_RANGE_C = (-40.0, 150.0)
FREQ_RANGE_HZ = (1e6, 1e10)
POWER_RANGE_W = (0.0, 1000.0)
LOAD_RANGE = (0.0, 1.0)


@dataclass(frozen=True)
class Unit:
    """A unit a log may use: name, factor to the stored unit, and the raw median range it claims."""

    name: str
    factor: float
    lo: float
    hi: float
    offset: float = 0.0  # added after the factor: kelvin -> °C

    def to_stored(self, value: float) -> float:
        return value * self.factor + self.offset


# Candidate units per quantity, tried in order; the raw-median ranges do not overlap, so a
# median decides the unit uniquely or not at all.  A temperature median of 150..10 000 is
# neither °C nor a plausible m°C (10 °C and up); it is the clock-read-as-temperature mistake
# (600..2000 "°C"), so it is refused.
TEMP_UNITS = (Unit("°C", 1.0, -40.0, 150.0), Unit("m°C", 1e-3, 10_000.0, 150_000.0))
# Kelvin only when stated (`temp_K`, `Temp (K)`, `--columns temp=2:K`): its raw range, 233..423,
# is where a clock read as a temperature lands too, so values alone never decide it.
KELVIN = Unit("K", 1.0, 233.15, 423.15, offset=-273.15)
# Fahrenheit, also only when stated (`Temp (°F)`, `temp_f`, Glances' `--fahrenheit` unit `F`,
# `--columns temp=2:F`): 100..180 °F is also a plausible °C reading, so values never decide it.
# °C = (°F - 32) × 5/9 (NIST SP 811, B.9); the raw range is the °C range converted.
FAHRENHEIT = Unit("°F", 5.0 / 9.0, -40.0, 302.0, offset=-160.0 / 9.0)
FREQ_UNITS = (
    Unit("GHz", 1e9, 0.05, 10.0),
    Unit("MHz", 1e6, 10.0, 10_000.0),
    Unit("kHz", 1e3, 10_000.0, 10_000_000.0),
    Unit("Hz", 1.0, 10_000_000.0, 1e10),
)
# Whole-board power: below 200 a value is W (a board drawing < 0.2 W is off), above it mW;
# 10^6 and more is µW (hwmon power*_input).
POWER_UNITS = (
    Unit("W", 1.0, 0.0, 200.0),
    Unit("mW", 1e-3, 200.0, 1_000_000.0),
    Unit("µW", 1e-6, 1_000_000.0, 1e9),
)
LOAD_UNITS = (Unit("fraction", 1.0, 0.0, 1.0), Unit("%", 0.01, 0.0, 100.0))
# Time: the raw ranges only bound a stated unit; an unstated one is decided from the epoch's
# magnitude in table.py (seconds ~1.7e9, ms ~1.7e12, µs ~1.7e15, ns ~1.7e18 in 2025).
TIME_UNITS = (
    Unit("s", 1.0, 0.0, 1e11),
    Unit("ms", 1e-3, 0.0, 1e14),
    Unit("µs", 1e-6, 0.0, 1e17),
    Unit("ns", 1e-9, 0.0, 1e20),
)

# A processor core's supply voltage: DVFS tables of the supported boards span ~0.6-1.1 V and an
# overvolted Pi reaches ~1.1 V (docs/calibration.md, "overclocked boards"); the bounds leave margin
# (estimated) and keep a board's input rail (5 V, 12 V) or a battery from being read as one.  The
# raw ranges do not overlap, so one value tells V from mV.
VOLT_UNITS = (Unit("V", 1.0, 0.5, 1.5), Unit("mV", 1e-3, 500.0, 1500.0))


def core_volts(value: float) -> float | None:
    """A logged core voltage in V, its unit told by this one value (V or mV); None if neither fits."""
    for u in VOLT_UNITS:
        if u.lo <= value <= u.hi:
            return u.to_stored(value)
    return None


_RANGES = {"temp": TEMP_RANGE_C, "freq": FREQ_RANGE_HZ, "power": POWER_RANGE_W, "load": LOAD_RANGE}
_UNITS = {"temp": TEMP_UNITS, "freq": FREQ_UNITS, "power": POWER_UNITS, "load": LOAD_UNITS}
STORED_UNIT = {"temp": "°C", "freq": "Hz", "power": "W", "load": "0..1"}

# Unit spellings found in column names (`CPU Temperature (°C)`, `freq_mhz`, `power[mW]`) and in
# the ``--columns name:unit`` option.
_UNIT_WORDS: dict[str, tuple[str, str]] = {
    "c": ("temp", "°C"),
    "°c": ("temp", "°C"),
    "degc": ("temp", "°C"),
    "deg c": ("temp", "°C"),
    "celsius": ("temp", "°C"),
    "mc": ("temp", "m°C"),
    "m°c": ("temp", "m°C"),
    "millidegc": ("temp", "m°C"),
    "k": ("temp", "K"),
    "kelvin": ("temp", "K"),
    "f": ("temp", "°F"),
    "°f": ("temp", "°F"),
    "degf": ("temp", "°F"),
    "fahrenheit": ("temp", "°F"),
    "hz": ("freq", "Hz"),
    "khz": ("freq", "kHz"),
    "mhz": ("freq", "MHz"),
    "ghz": ("freq", "GHz"),
    "w": ("power", "W"),
    "mw": ("power", "mW"),
    "uw": ("power", "µW"),
    "µw": ("power", "µW"),
    "%": ("load", "%"),
    "pct": ("load", "%"),
    "percent": ("load", "%"),
    "s": ("time", "s"),
    "sec": ("time", "s"),
    "ms": ("time", "ms"),
    "us": ("time", "µs"),
    "µs": ("time", "µs"),
    "ns": ("time", "ns"),
}
_UNIT_IN_NAME = re.compile(r"[\(\[]\s*([^\)\]]+?)\s*[\)\]]|[_ ]([A-Za-z°µ%]+)$")


def unit_in_name(name: str) -> tuple[str, str] | None:
    """(quantity, unit) a column name states, e.g. ``Temp (°C)`` -> ("temp", "°C"); else None."""
    for m in _UNIT_IN_NAME.finditer(name.strip()):
        word = (m.group(1) or m.group(2) or "").strip().lower().replace("deg ", "deg")
        word = word.replace("º", "°")
        if word in _UNIT_WORDS:
            return _UNIT_WORDS[word]
    return None


def unit_named(quantity: str, word: str) -> Unit | None:
    """The Unit a user or header spelled (``mC``, ``kHz``, ``mW`` ...) for ``quantity``."""
    hit = _UNIT_WORDS.get(word.strip().lower().replace("º", "°"))
    if hit is None or hit[0] != quantity:
        return None
    units = TIME_UNITS if quantity == "time" else (*_UNITS[quantity], KELVIN, FAHRENHEIT)
    return next(u for u in units if u.name == hit[1])


def finite(values: Iterable[float | None]) -> list[float]:
    """The finite values (NaN, inf and missing cells are bad data, never a measurement)."""
    return [v for v in values if v is not None and math.isfinite(v)]


def _finite_np(values: array) -> np.ndarray:
    """The finite values of an ``array('d')`` column as one numpy copy (8 B a value)."""
    import numpy as np

    a = np.frombuffer(values, dtype=np.float64) if len(values) else np.empty(0)
    return a[np.isfinite(a)]


def median_finite(values: Sequence[float | None] | array) -> float:
    """``statistics.median`` of the finite values (at least one): an ``array('d')`` column
    without a list of float objects (session 28n)."""
    if isinstance(values, array):
        from thermogov.importers.common import median_of

        return median_of(_finite_np(values))
    return statistics.median(finite(values))


def detect_unit(quantity: str, values: Sequence[float | None] | array) -> Unit | None:
    """The unit whose raw range holds the median of ``values``; None if none does.

    Loads are special: a column whose values all lie in 0..1 and are not all 0/1 integers is a
    fraction, otherwise a percentage.  That is decided on the maximum, not the median, because an
    idle stretch would otherwise make a percentage column look like a fraction.
    """
    if isinstance(values, array):
        import numpy as np

        fv = _finite_np(values)
        if not len(fv):
            return None
        if quantity == "load":
            if float(fv.max()) <= 1.0 and bool((fv != np.trunc(fv)).any()):
                return LOAD_UNITS[0]
            return LOAD_UNITS[1] if 0.0 <= median_finite(values) <= 100.0 else None
        med = median_finite(values)
    else:
        vals = finite(values)
        if not vals:
            return None
        if quantity == "load":
            if max(vals) <= 1.0 and any(v != int(v) for v in vals):
                return LOAD_UNITS[0]
            return LOAD_UNITS[1] if 0.0 <= statistics.median(vals) <= 100.0 else None
        med = statistics.median(vals)
    for u in _UNITS[quantity]:
        if u.lo <= med < u.hi or (u is _UNITS[quantity][-1] and med == u.hi):
            return u
    return None


def in_range(quantity: str, value: float) -> bool:
    """Whether a stored value (°C, Hz, W, 0..1) is physically plausible for the quantity."""
    lo, hi = _RANGES[quantity]
    return math.isfinite(value) and lo <= value <= hi


def describe_range(quantity: str) -> str:
    lo, hi = _RANGES[quantity]
    unit = STORED_UNIT[quantity]
    if quantity == "freq":
        return f"{lo / 1e6:g} MHz..{hi / 1e9:g} GHz"
    if quantity == "load":
        return f"{lo:g}..{hi:g}"
    return f"{lo:g}..{hi:g} {unit}"


def unit_error(
    source: str, column: str, quantity: str, values: Sequence[float | None] | array
) -> LogFormatError:
    """A column read as ``quantity`` whose values fit none of its units: refuse, say how to map."""
    vals = finite(values)  # a refusal: the column's values as a list once is no matter
    span = f"{min(vals):g}..{max(vals):g}" if vals else "no numbers"
    units = ", ".join(u.name for u in _UNITS[quantity])
    med = statistics.median(vals) if vals else math.nan
    kelvin = quantity == "temp" and KELVIN.lo <= med <= KELVIN.hi
    fahrenheit = quantity == "temp" and TEMP_UNITS[0].hi <= med <= FAHRENHEIT.hi
    example = "t=...,temp=NAME:mC"
    if kelvin or fahrenheit:
        units_named = "temp=COL:K if it is in kelvin" if kelvin else ""
        units_named += (", " if kelvin and fahrenheit else "") + ("temp=COL:F if °F" if fahrenheit else "")
        example = units_named.replace("COL", column)
    return LogFormatError(
        f"{source}: column {column!r} read as {quantity} has values {span}, which fit no {quantity} unit "
        f"({units}{'; °F and K only when the header or --columns names them' if quantity == 'temp' else ''}); "
        "map the columns with --columns "
        f"(e.g. --columns {example})"
    )


class RangeCheck:
    """Counts values dropped for being outside their plausible range, per quantity and name."""

    def __init__(self) -> None:
        self.dropped: dict[tuple[str, str], list[float]] = {}

    def keep(self, quantity: str, name: str, value: float) -> bool:
        if in_range(quantity, value):
            return True
        self.dropped.setdefault((quantity, name), []).append(value)
        return False

    def notes(self) -> list[str]:
        out = []
        for (quantity, name), vals in sorted(self.dropped.items()):
            shown = [v for v in vals if math.isfinite(v)]
            what = f" (e.g. {shown[0]:g})" if shown else " (NaN/inf)"
            out.append(
                f"{name} {quantity}: {len(vals)} value(s) outside {describe_range(quantity)}{what} not imported"
            )
        return out


__all__ = [
    "FAHRENHEIT",
    "FREQ_RANGE_HZ",
    "KELVIN",
    "LOAD_RANGE",
    "POWER_RANGE_W",
    "STORED_UNIT",
    "TEMP_RANGE_C",
    "RangeCheck",
    "Unit",
    "describe_range",
    "detect_unit",
    "finite",
    "in_range",
    "unit_error",
    "unit_in_name",
    "unit_named",
]
