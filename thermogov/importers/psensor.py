"""psensor's sensor log (``~/.psensor/sensors.log``, written when its "log sensor values" option
is on).

The layout, read from psensor's ``src/lib/slog.c`` and the sensor type bits of ``psensor.h``
(chinf/psensor, GPL-2.0; read, not copied): every start of psensor appends a session line
``I,<epoch s>,<version>``, then one ``S,<sensor id>,<type in hex>`` line per sensor in column
order, then rows ``<seconds since the session line>,<v1>,<v2>,...`` with ``%.1f`` values; a cell
is left empty when the sensor's value did not change since the row before (run-length), so an
empty cell holds the previous value of its session.  Type bits: 0x1 a temperature (°C), 0x2 a
fan's rpm, 0x4 a percentage; 0x8000 the CPU (0x8004 is CPU usage), 0x4000 a disk.

A temperature is named by its lm-sensors chip as elsewhere (``lmsensor cpu_thermal-virtual-0
temp1`` -> ``cpu``), CPU usage is the cpu load, fans and other percentages are not imported.
"""

from __future__ import annotations

import re

from thermogov.importers.common import (
    ImportedLog,
    ImportedSample,
    Mark,
    keep_forward,
    no_samples_error,
    rebase,
)
from thermogov.importers.labelled import chip_name, sensor_names
from thermogov.interfaces import LogFormatError

FMT = "psensor"
_SESSION_RE = re.compile(r"^I,(\d+),([\w.+~-]+)$")
_SENSOR_RE = re.compile(r"^S,(.+),([0-9a-fA-F]+)$")
_ROW_RE = re.compile(r"^(\d+)((?:,(?:-?\d+(?:\.\d+)?)?)+)$")
TYPE_TEMP, TYPE_PERCENT, TYPE_CPU = 0x1, 0x4, 0x8000


def detect(text: str) -> Mark | None:
    """A session line followed by sensor declarations."""
    lines = [ln.strip() for ln in text.split("\n", 50)[:50] if ln.strip()]
    found = (
        bool(lines) and bool(_SESSION_RE.match(lines[0])) and any(_SENSOR_RE.match(ln) for ln in lines[1:3])
    )
    return Mark(FMT, "session line and sensor declarations") if found else None


def looks_like(text: str) -> bool:
    """Whether :func:`detect` recognises ``text``."""
    return detect(text) is not None


def _label(sensor_id: str) -> str:
    """``lmsensor cpu_thermal-virtual-0 temp1`` -> ``cpu_thermal/temp1`` (chip/feature)."""
    parts = sensor_id.split()
    if len(parts) >= 3 and parts[0].lower() == "lmsensor":
        return f"{chip_name(parts[1])}/{' '.join(parts[2:])}"
    return sensor_id.strip()


def parse_text(text: str, source: str = "<text>") -> ImportedLog:
    """Every data row of every session is one sample (see module doc)."""
    rows: list[tuple[dict[str, float], dict[str, float]]] = []
    stamps: list[float | None] = []
    sensors: list[tuple[str, int]] = []
    start: float | None = None
    last: list[float | None] = []
    skipped = sessions = 0
    wide: str | None = None  # the first row with more cells than its session has sensors
    for no, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line:
            continue
        if m := _SESSION_RE.match(line):
            start, sensors, last, sessions = float(m.group(1)), [], [], sessions + 1
            continue
        if m := _SENSOR_RE.match(line):
            sensors.append((_label(m.group(1)), int(m.group(2), 16)))
            last.append(None)
            continue
        m = _ROW_RE.match(line)
        cells = m.group(2).split(",")[1:] if m else []
        if start is None or m is None or len(cells) != len(sensors):
            if wide is None and sensors and len(cells) > len(sensors):
                wide = f"line {no}: {len(cells)} cells where its session declares {len(sensors)} sensor(s)"
            skipped += 1
            continue
        temps: dict[str, float] = {}
        loads: dict[str, float] = {}
        for i, ((label, kind), cell) in enumerate(zip(sensors, cells, strict=True)):
            value = float(cell) if cell else last[i]
            last[i] = value
            if value is None:
                continue
            if kind & TYPE_TEMP:
                temps[label] = value
            elif kind & TYPE_PERCENT and kind & TYPE_CPU:
                loads["cpu"] = value / 100.0
        if not (temps or loads):
            skipped += 1
            continue
        rows.append((temps, loads))
        stamps.append(start + float(m.group(1)))
    if not rows and wide is not None:
        # psensor writes `%.1f` under the desktop's locale: with decimal commas each value adds a
        # cell, and a left-out (unchanged) value none, so the cells cannot be told apart (31w)
        raise LogFormatError(
            f"{source}: {wide} (psensor under a locale with decimal commas writes 45,2 as two cells), "
            "so its values cannot be told apart; rerun psensor with LC_NUMERIC=C and import the new log"
        )
    if not rows:
        raise no_samples_error(source, "psensor session (I,...) with sensor (S,...) and value rows")
    rows, axis, back = keep_forward(rows, stamps)
    skipped += back
    names = sensor_names(sorted({label for temps, _ in rows for label in temps}))
    notes = [
        f"psensor log, {sessions} session(s); an empty cell repeats its sensor's previous value",
        "temperatures: " + ", ".join(f"{k!r} as {v}" for k, v in names.items()),
    ]
    if back:
        notes.append(
            f"{back} row(s) earlier than the previous row skipped (a session started before the last)"
        )
    samples = tuple(
        ImportedSample(
            t_s=t,
            temps_c={names[label]: v for label, v in temps.items()},
            freqs_hz={},
            loads=loads,
            power_w=None,
            rails_w={},
        )
        for t, (temps, loads) in zip(rebase(axis), rows, strict=True)
    )
    return ImportedLog(FMT, source, None, samples, skipped, tuple(notes))


__all__ = ["FMT", "detect", "looks_like", "parse_text"]
