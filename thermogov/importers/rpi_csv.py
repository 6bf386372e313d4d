"""Home-made Raspberry Pi CSV logs: temperature (and load, clock) written by shell/Python loops.

Two families exist in the wild and in our reference data:

* counter logs ``time,usage,temperature[,frequency]`` (header optional): ``time`` is the
  logger's loop counter, one per ``sleep 1``, so it is taken as seconds;
* wall-clock logs ``YYYY-MM-DD HH:MM:SS,temp[,fan,cpu_load,<label>,<label>,<label>]`` from
  psutil loggers, whose columns changed mid-file and whose clock steps back after reboots
  (no RTC on a Pi: fake-hwclock restores an older time until NTP syncs).

Rows whose time goes backwards cannot be placed on a monotonic axis, so they are skipped and
counted instead of silently reordering the series.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from thermogov.importers.common import (
    ImportedLog,
    ImportedSample,
    fraction,
    mhz_to_hz,
    no_samples_error,
    read_text,
    rebase,
)

FMT = "rpi-csv"

_NUM = r"-?\d+(?:\.\d+)?"
_COUNTER_RE = re.compile(rf"^\d+,(?:{_NUM})?,{_NUM}(?:,(?:{_NUM})?)?$")
_WALL_RE = re.compile(rf"^\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d,{_NUM}(?:,.*)?$")
_HEADER_WORDS = {"time", "usage", "temperature", "temp", "frequency", "freq", "load", "cpu"}
_DEFAULT_COLUMNS = ("time", "usage", "temperature", "frequency")  # order temp_test.sh writes


def looks_like(text: str) -> bool:
    """Most of the first lines are counter or wall-clock rows (a header line is allowed)."""
    lines = [ln.strip() for ln in text.splitlines()[:50] if ln.strip()]
    if not lines:
        return False
    if _is_header(lines[0]):
        lines = lines[1:]
    hits = sum(1 for ln in lines if _COUNTER_RE.match(ln) or _WALL_RE.match(ln))
    return bool(lines) and hits >= max(1, (len(lines) * 3) // 4)


def _is_header(line: str) -> bool:
    cells = [c.strip().lower() for c in line.split(",")]
    return "time" in cells and bool(_HEADER_WORDS.intersection(cells[1:]))


def _column_name(cell: str) -> str:
    c = cell.strip().lower()
    return {"temp": "temperature", "freq": "frequency", "load": "usage"}.get(c, c)


def _float(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None


def parse(path: str | Path) -> ImportedLog:
    """Parse a Raspberry Pi CSV temperature/clock log."""
    return parse_text(read_text(path), str(path))


def parse_text(text: str, source: str = "<text>") -> ImportedLog:
    """Parse either family; the family is decided per row, so mixed files still import."""
    columns: tuple[str, ...] = _DEFAULT_COLUMNS
    samples_t: list[float] = []
    rows: list[tuple[dict[str, float], dict[str, int], dict[str, float]]] = []
    skipped = backwards = same_stamp = 0
    seen_header = False
    families: set[str] = set()
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if not rows and not seen_header and _is_header(line):
            columns = tuple(_column_name(c) for c in line.split(","))
            seen_header = True
            continue
        if _WALL_RE.match(line):
            parsed = _wall_row(line)
            family = "wall7" if line.count(",") == 6 else "wall"
        elif _COUNTER_RE.match(line):
            parsed = _counter_row(line, columns)
            family = "counter"
        else:
            parsed = None
            family = ""
        if parsed is None:
            skipped += 1
            continue
        t, temps, freqs, loads = parsed
        if samples_t and t < samples_t[-1]:
            backwards += 1
            skipped += 1
            continue
        if samples_t and t == samples_t[-1]:
            same_stamp += 1
        families.add(family)
        samples_t.append(t)
        rows.append((temps, freqs, loads))
    if not rows:
        raise no_samples_error(source, "Raspberry Pi CSV rows (time,temperature)")
    notes: list[str] = []
    if "counter" in families:
        notes.append("time column is the logger's loop counter (one per 1 s sleep), taken as seconds")
    if families & {"wall", "wall7"}:
        notes.append("wall-clock timestamps (local time, 1 s resolution)")
    if "wall7" in families:
        notes.append("7-field rows: fan on/off column not imported (no field for it)")
    if backwards:
        notes.append(f"{backwards} row(s) earlier than the previous row skipped (clock stepped back)")
    if same_stamp:
        notes.append(f"{same_stamp} row(s) share the previous row's timestamp (sub-second logging)")
    missing_load = sum(1 for r in rows if not r[2])
    if "counter" in families and missing_load:
        notes.append(f"{missing_load} row(s) with an empty usage field: no cpu load for them")
    samples = tuple(
        ImportedSample(t_s=t, temps_c=temps, freqs_hz=freqs, loads=loads, power_w=None, rails_w={})
        for t, (temps, freqs, loads) in zip(rebase(samples_t), rows, strict=True)
    )
    return ImportedLog(FMT, source, None, samples, skipped, tuple(notes))


def _counter_row(
    line: str, columns: tuple[str, ...]
) -> tuple[float, dict[str, float], dict[str, int], dict[str, float]] | None:
    cells = line.split(",")
    if len(cells) > len(columns):
        return None
    named = dict(zip(columns, cells, strict=False))
    t = _float(named.get("time", ""))
    temp = _float(named.get("temperature", ""))
    if t is None or temp is None:
        return None
    loads: dict[str, float] = {}
    usage = _float(named.get("usage", "") or "x")
    if usage is not None:
        if not 0.0 <= usage <= 100.0:
            return None
        loads["cpu"] = fraction(usage)
    freqs: dict[str, int] = {}
    mhz = _float(named.get("frequency", "") or "x")
    if mhz is not None:
        freqs["cpu"] = mhz_to_hz(mhz)
    return t, {"cpu": temp}, freqs, loads


def _wall_row(line: str) -> tuple[float, dict[str, float], dict[str, int], dict[str, float]] | None:
    cells = line.split(",")
    # 2 fields (timestamp,temp) or 7 (… ,fan,load,label,label,label); any other count is
    # several records run together on one line and cannot be split back reliably.
    if len(cells) not in (2, 7):
        return None
    try:
        stamp = datetime.strptime(cells[0], "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    temp = _float(cells[1])
    if temp is None:
        return None
    loads: dict[str, float] = {}
    if len(cells) == 7:
        load = _float(cells[3])
        if load is None or not 0.0 <= load <= 100.0:
            return None
        loads["cpu"] = fraction(load)
    t = (stamp - datetime(1970, 1, 1)).total_seconds()
    return t, {"cpu": temp}, {}, loads
