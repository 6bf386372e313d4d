"""Importers: real board logs -> one common in-memory form (:class:`ImportedLog`).

Detection looks at the content, not the file name, because logs get renamed when they are
copied off a board (``stats.log``, ``tegrastats.txt``, ``cpu_temp.csv`` ...).  The most
distinctive signatures are tried first so a generic table rule can never shadow them.  Every
import then goes through the same two shared steps: the text is cleaned of terminal and editor
debris first (:mod:`~thermogov.importers.textclean`), and every value is checked against its
plausible range last (:mod:`~thermogov.importers.validate`), so no dialect can put a 2000 °C
"temperature" into a run unannounced.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TypeAlias

from thermogov.importers import (
    bcmstat,
    jtop,
    labelled,
    psensor,
    rpi_csv,
    sbcbench,
    segments,
    sensorsjson,
    stressberry,
    table,
    tegrastats,
    vcgencmd,
)
from thermogov.importers.common import ImportedLog, ImportedSample, Mark, read_log
from thermogov.importers.samplestore import columnar
from thermogov.importers.textclean import clean_text
from thermogov.importers.validate import checked
from thermogov.interfaces import LogFormatError
from thermogov.trace import is_thermogov_csv

FORMATS: tuple[str, ...] = (
    "tegrastats",
    "rpi-csv",
    "stressberry",
    "sbc-bench",
    "jtop",
    "vcgencmd",
    "bcmstat",
    "labelled",
    "sensors-json",
    "psensor",
    "csv",
)

# What a detector hands over: the table it read (csv), or a mark naming what it recognised.
Found: TypeAlias = Mark | table.Table

# Detection order: strongest signature first (sbc-bench/stressberry headers), generic table last.
# Each detector returns what it found, or None (session 28m: a bool made the table's detection
# hand its table to the reader through a module-level cache).
_DETECT_ORDER: tuple[tuple[str, Callable[[str], Found | None]], ...] = (
    ("sbc-bench", sbcbench.detect),
    ("stressberry", stressberry.detect),
    ("tegrastats", tegrastats.detect),
    ("jtop", jtop.detect),
    ("sensors-json", sensorsjson.detect),
    ("psensor", psensor.detect),
    ("bcmstat", bcmstat.detect),
    ("vcgencmd", vcgencmd.detect),
    ("labelled", labelled.detect),
    ("rpi-csv", rpi_csv.detect),
    ("csv", table.detect),
)


__all__ = [
    "FORMATS",
    "Found",
    "ImportedLog",
    "ImportedSample",
    "Mark",
    "detect",
    "detect_format",
    "detect_text",
    "parse_log",
]


def _unrecognised(path: str | Path, text: str = "") -> LogFormatError:
    names = ", ".join(FORMATS)
    short = table.sniff(text) if text else None
    if short is not None and 0 < len(short.rows) < table.MIN_DETECT_ROWS:
        # a table too short to be told from other text by itself (log 10 of session 25w: a
        # `$(date)<TAB>temp` log of 2 rows was "not a recognised log", naming no fix)
        return LogFormatError(
            f"{path}: a table of only {len(short.rows)} row(s), too few to recognise a log by "
            f"itself ({table.MIN_DETECT_ROWS} are needed); to read it as a table, pass --format csv"
        )
    if text and (why := labelled.unnamed_numbers(text)) is not None:
        # dated `Label: 67.2` lines whose label names no quantity (session 27w)
        return LogFormatError(f"{path}: {why}")
    return LogFormatError(
        f"{path}: not a recognised log ({names}); pass --format explicitly or check the file"
    )


def detect(text: str) -> tuple[str, Found] | None:
    """(format name, what its detector found) for (cleaned) log content, or None when no importer
    recognises it; a table found is handed to the reader by :func:`parse_log`, not read again."""
    for name, find in _DETECT_ORDER:
        if (found := find(text)) is not None:
            return name, found
    return None


def _detect_among(text: str, names: tuple[str, ...] | None) -> str | None:
    """The format of ``text`` among ``names`` (None: all), tried in detection order."""
    for name, find in _DETECT_ORDER:
        if (names is None or name in names) and find(text) is not None:
            return name
    return None


def detect_text(text: str) -> str | None:
    """Format name for (cleaned) log content, or None when no importer recognises it."""
    found = detect(text)
    return found[0] if found is not None else None


def detect_format(path: str | Path) -> str:
    """Format of the log at ``path``, from its content; LogFormatError if unrecognisable."""
    text, _ = clean_text(read_log(path)[0], str(path))
    fmt = detect_text(text)
    if fmt is None:
        raise _unrecognised(path, text)
    return fmt


def parse_log(
    path: str | Path,
    fmt: str = "auto",
    *,
    interval_s: float | None = None,
    columns: str | None = None,
) -> ImportedLog:
    """Parse a board log into an ImportedLog.

    ``interval_s`` only matters for logs without timestamps (tegrastats, jtop, vcgencmd loops,
    tables without a time column; default 1 s); it exists because the interval is not recorded
    in the log.  ``columns`` (``t=sec,temp=tmp``) maps the columns of a table log.
    """
    if fmt != "auto" and fmt not in FORMATS:
        raise LogFormatError(f"{path}: unknown format {fmt!r}; use one of auto, {', '.join(FORMATS)}")
    source = str(path)
    raw, read_notes = read_log(path)
    if is_thermogov_csv(raw):
        raise LogFormatError(
            f"{path}: a thermogov trace or samples file (its header starts with t_s), not a board "
            "log: it needs no import; give it, or its run folder, to `thermogov calibrate` as it is"
        )
    text, clean_notes = clean_text(raw, source)
    del raw  # the decoded text, when cleaning made another (session 26m)
    clean_notes = [*read_notes, *clean_notes]
    sniffed: list[table.Table | None] = [None]  # the table detection read, handed over (session 28m)
    retry: str | None = None  # the format to read the whole file in if its split-off part fails
    if fmt == "auto":
        found = detect(text)  # once: a second detection sniffed a table again (session 27m)
        name = found[0] if found is not None else None
        if name in (*segments.LINE_FORMATS, "csv", "rpi-csv") and columns is None:
            # a log of lines with a table part, or a table with such lines: the larger part is
            # read, the other named with its lines (session 29w)
            mixed = segments.split_formats(text, _detect_among, bare=name in segments.LINE_FORMATS)
            if mixed is not None:
                if mixed[3]:  # only rows without a header split off: read whole if refused
                    retry = name
                text, name, mixed_notes, _bare = mixed
                clean_notes.extend(mixed_notes)
                found = None
            del mixed
        detected = "csv" if columns and name not in ("rpi-csv", "csv", "jtop") else name
        if detected is None:
            raise _unrecognised(path, text)
        fmt = detected
        if found is not None and fmt == "csv" and isinstance(found[1], table.Table):
            sniffed[0] = found[1]
        del found
    if columns and fmt not in ("rpi-csv", "csv", "jtop"):
        raise LogFormatError(f"{path}: --columns applies to table logs (csv, rpi-csv, jtop), not {fmt}")
    box = [text]  # handed over, not held here: the table reader frees it (session 26m)
    del text
    try:
        return _read(path, fmt, box, clean_notes, sniffed, interval_s, columns)
    except LogFormatError:
        if retry is None:
            raise
    # the part read after rows without a header were split off was refused: the file read
    # whole, as before session 30w, so the refusal names the parts as it did
    return parse_log(path, retry, interval_s=interval_s)


def _read(
    path: str | Path,
    fmt: str,
    box: list[str],
    clean_notes: list[str],
    sniffed: list[table.Table | None],
    interval_s: float | None,
    columns: str | None,
) -> ImportedLog:
    """The log of the text in ``box`` (taken out) in ``fmt``: layouts joined, read, checked."""
    source = str(path)
    text = box.pop()
    joined = False
    if fmt in ("csv", "rpi-csv") and columns is None:
        # a layout that changes midway: parts joined by column name or left out, said (session 28w)
        parts, part_notes = segments.join_layouts(text, source)
        joined = parts is not text
        if joined:
            text = parts
            sniffed[0] = None  # the table found was the unjoined text's
        del parts
        clean_notes.extend(part_notes)
    # The text is handed over, not kept here: a reader that is done with it (a table once its
    # cells are packed) frees it by dropping its own name (session 26m; from Python 3.11 a call
    # moves its arguments into the callee's frame).
    box = [text]
    del text
    if joined:  # the joined table is read by its column names, never the psutil positions
        log = table.parse_text(box.pop(), source, interval_s=interval_s, fmt=fmt)
    else:
        log = _parse(fmt, box, source, interval_s, columns, sniffed)
    log = checked(log)
    if not log.samples:
        raise LogFormatError(
            f"{path}: no value in a plausible range; check the units or map columns with --columns"
        )
    times = columnar(log.samples).times  # checked() hands back columns: no copy
    if len(times) > 1 and times.min() == times.max():  # a time column that never advances
        raise LogFormatError(
            f"{path}: all {len(log.samples)} rows share one time, so the log has no time axis; give "
            "each row its own time (a table log: map its time column with --columns t=NAME)"
        )
    if clean_notes:
        log = replace(log, notes=(*clean_notes, *log.notes))
    return log


def _parse(
    fmt: str,
    box: list[str],
    source: str,
    interval_s: float | None,
    columns: str | None,
    sniffed: list[table.Table | None],
) -> ImportedLog:
    """The reader of ``fmt`` on the one text in ``box``, taken out of it: no frame here holds it;
    a table detection found (``sniffed``) is taken out the same way and read, not sniffed again."""
    if fmt == "csv":
        return table.parse_text(
            box.pop(), source, columns=columns, interval_s=interval_s, table=sniffed.pop()
        )
    if fmt == "rpi-csv":
        return rpi_csv.parse_text(box.pop(), source, columns=columns)
    text = box.pop()
    if fmt == "tegrastats":
        return tegrastats.parse_text(text, source, interval_s=interval_s)
    if fmt == "stressberry":
        return stressberry.parse_text(text, source)
    if fmt == "jtop":
        return jtop.parse_text(text, source, interval_s=interval_s, columns=columns)
    if fmt == "vcgencmd":
        return vcgencmd.parse_text(text, source, interval_s=interval_s)
    if fmt == "bcmstat":
        return bcmstat.parse_text(text, source)
    if fmt == "labelled":
        return labelled.parse_text(text, source, interval_s=interval_s)
    if fmt == "sensors-json":
        return sensorsjson.parse_text(text, source, interval_s=interval_s)
    if fmt == "psensor":
        return psensor.parse_text(text, source)
    return sbcbench.parse_text(text, source)
