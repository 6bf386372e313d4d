"""Home-made Raspberry Pi CSV logs: temperature (and load, clock) written by shell/Python loops.

Two families exist in the wild and in our reference data:

* counter logs ``time,usage,temperature[,frequency]`` (header optional) and their free-form
  cousins (``sec,tmp,clk,thr``, ``epoch,temp,MHz``): read as named-column tables by
  :mod:`thermogov.importers.table` (columns by name, headerless ones by value, units by value);
* wall-clock logs ``YYYY-MM-DD HH:MM:SS,temp[,fan,cpu_load,<label>,<label>,<label>]`` from
  psutil loggers, whose columns changed mid-file and whose clock steps back after reboots
  (no RTC on a Pi: fake-hwclock restores an older time until NTP syncs).

Rows whose time goes backwards cannot be placed on a monotonic axis, so they are skipped and
counted instead of silently reordering the series.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from thermogov.importers import table
from thermogov.importers.cells import head_lines, lines_of
from thermogov.importers.clocksteps import mend_steps
from thermogov.importers.columns import from_header
from thermogov.importers.common import (
    NEWEST_FIRST_NOTE,
    ImportedLog,
    ImportedSample,
    Mark,
    fraction,
    newest_first,
    no_samples_error,
    read_text,
    rebase,
)
from thermogov.interfaces import LogFormatError

FMT = "rpi-csv"

_NUM = r"-?\d+(?:\.\d+)?"
_COUNTER_RE = re.compile(rf"^\d+,(?:{_NUM})?,{_NUM}(?:,(?:{_NUM})?)?$")
_WALL_RE = re.compile(rf"^\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d,{_NUM}(?:,.*)?$")
# The same wall-clock rows re-saved under a locale with decimal commas: `;` between the fields,
# `68,653` (session 31w; refused before). Every comma there sits between digits.
_WALL_SEMI_RE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d;-?\d+(?:,\d+)?(?:;[^,]*(?:\d,\d[^,]*)*)?$")
_DECIMAL_COMMA_RE = re.compile(r"(?<=\d),(?=\d)")
_HEADER_WORDS = {"time", "usage", "temperature", "temp", "frequency", "freq", "load", "cpu"}


def detect(text: str) -> Mark | None:
    """Most of the first lines are counter or wall-clock rows (a header line is allowed)."""
    lines = [ln.strip() for ln in head_lines(text, 50) if ln.strip()]
    if not lines:
        return None
    if _is_header(lines[0]):
        lines = lines[1:]
    hits = sum(1 for ln in lines if _COUNTER_RE.match(ln) or _WALL_RE.match(ln))
    if bool(lines) and hits >= max(1, (len(lines) * 3) // 4):
        return Mark(FMT, f"{hits} of {len(lines)} head lines counter or wall-clock rows")
    if _semicolon_wall(lines):
        return Mark(FMT, "wall-clock rows with ';' and decimal commas")
    return None


def _semicolon_wall(lines: list[str]) -> bool:
    """Most of ``lines`` are wall-clock rows written with `;` and decimal commas."""
    hits = sum(1 for ln in lines if _WALL_SEMI_RE.match(ln) and ln.count(";") in (1, 6))
    return bool(lines) and hits >= max(1, (len(lines) * 3) // 4)


def _from_semicolons(text: str) -> str:
    """`2021-04-11 10:41:16;68,653` -> `2021-04-11 10:41:16,68.653`: decimal commas to points,
    then `;` to the layout's commas (only called when every row's comma sits between digits)."""
    return "\n".join(_DECIMAL_COMMA_RE.sub(".", ln).replace(";", ",") for ln in lines_of(text))


def looks_like(text: str) -> bool:
    """Whether :func:`detect` recognises ``text``."""
    return detect(text) is not None


def _is_header(line: str) -> bool:
    cells = [c.strip().lower() for c in line.split(",")]
    return "time" in cells and bool(_HEADER_WORDS.intersection(cells[1:]))


def _float(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None


def parse(path: str | Path) -> ImportedLog:
    """Parse a Raspberry Pi CSV temperature/clock log."""
    return parse_text(read_text(path), str(path))


def parse_text(text: str, source: str = "<text>", *, columns: str | None = None) -> ImportedLog:
    """Wall-clock psutil logs by their fixed layout; every other Pi CSV as a named-column table.

    Counter logs with or without a header go through :mod:`thermogov.importers.table`, which
    identifies columns by name or, headerless, by value -- never by position (a ``sec,tmp,clk,thr``
    header read as time,usage,temperature,frequency put 600-2000 °C into runs).
    """
    # The first 200 lines that are not blank decide (session 26m: no list of every line held
    # while the table is read); `_named_columns` reads the lines before the first wall-clock row,
    # which is among them whenever it is asked.
    lines = list(itertools.islice((cut for ln in lines_of(text) if (cut := ln.strip())), 200))
    semicolons = columns is None and _semicolon_wall(lines)
    if semicolons:
        text = _from_semicolons(text)
        lines = [_DECIMAL_COMMA_RE.sub(".", ln).replace(";", ",") for ln in lines]
    # the fixed layout has 2 or 7 fields; a wall-clock row of any other width is some other
    # logger's table (`date,temp,volts,4 clocks,°F,governor,MB`: refused before)
    wall = sum(1 for ln in lines if _WALL_RE.match(ln) and ln.count(",") in (1, 6))
    if columns is None and wall * 2 > len(lines) and not _named_columns(lines):
        try:
            log = _parse_wall(text, source)
        except LogFormatError:
            pass  # 2 or 7 columns by chance (Glances' records): not the psutil layout, a table
        else:
            if semicolons:
                note = "';' between fields and decimal commas (a locale's re-save): read as points"
                log = replace(log, notes=(note, *log.notes))
            return log
    box = [text]  # handed over to the table reader, which frees it once its rows are packed
    del text
    return table.parse_text(box.pop(), source, columns=columns, fmt=FMT)


def _named_columns(lines: list[str]) -> bool:
    """Whether a header names the wall-clock rows' columns as something the psutil layout's
    positions do not hold: then they are read by name (rule 1).

    The layout's second field is the cpu temperature in °C and its fourth the cpu load; a
    `timestamp,cpu_load`, `timestamp,temp_f` or `time,power_w` table has the same shape, and by
    position its load, °F or watts were stored as the cpu temperature in °C."""
    first = next((i for i, ln in enumerate(lines) if _WALL_RE.match(ln)), None)
    if first is None:
        return False
    width = lines[first].count(",")
    for ln in lines[:first]:
        cells = ln.split(",")
        if ln.count(",") != width or not all(re.search(r"[A-Za-z]", c) for c in cells):
            continue
        temp = from_header(cells[1])
        load = from_header(cells[3]) if len(cells) == 7 else None
        return not (
            temp.role == "temp"
            and temp.unit in (None, "°C")
            and (load is None or load.role in ("load", "load?"))
        )
    return False


def _parse_wall(text: str, source: str) -> ImportedLog:
    """The psutil logger's ``timestamp,temp[,fan,load,label,label,label]`` rows."""
    samples_t: list[float] = []
    rows: list[tuple[dict[str, float], dict[str, int], dict[str, float]]] = []
    skipped = backwards = same_stamp = 0
    seven = False
    lines = [raw.strip() for raw in text.splitlines() if raw.strip()]
    parsed_rows = [(line, _wall_row(line) if _WALL_RE.match(line) else None) for line in lines]
    reverse = newest_first([p[0] if p else None for _, p in parsed_rows])
    if reverse:
        parsed_rows.reverse()
    mended, step_notes = mend_steps([p[0] if p else None for _, p in parsed_rows])
    parsed_rows = [
        (line, (t, *p[1:]) if p and t is not None else p)
        for (line, p), t in zip(parsed_rows, mended, strict=True)
    ]
    for line, parsed in parsed_rows:
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
        seven = seven or line.count(",") == 6
        samples_t.append(t)
        rows.append((temps, freqs, loads))
    if not rows:
        raise no_samples_error(source, "Raspberry Pi CSV rows (time,temperature)")
    notes = ["wall-clock timestamps (local time, 1 s resolution)"] + ([NEWEST_FIRST_NOTE] if reverse else [])
    if seven:
        notes.append("7-field rows: fan on/off column not imported (no field for it)")
    notes.extend(step_notes)
    if backwards:
        notes.append(f"{backwards} row(s) earlier than the previous row skipped (clock stepped back)")
    if same_stamp:
        notes.append(f"{same_stamp} row(s) share the previous row's timestamp (sub-second logging)")
    samples = tuple(
        ImportedSample(t_s=t, temps_c=temps, freqs_hz=freqs, loads=loads, power_w=None, rails_w={})
        for t, (temps, freqs, loads) in zip(rebase(samples_t), rows, strict=True)
    )
    return ImportedLog(FMT, source, None, samples, skipped, tuple(notes))


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
