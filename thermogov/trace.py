"""The run record shared by every world: trace and sample schemas, writers and loaders.

A trace row is one governor tick; a sample row is one sensor read.  Columns and units are
fixed here and documented in docs/trace-format.md, because notebooks and the importers rely
on them.  The writers are stdlib ``csv`` (no pandas on a board), append-only and flushed at
most every second (and, in fast simulated time, every 1 % of rows or 10 simulated seconds),
so a process killed with SIGKILL leaves a readable trace with at most that much missing and
possibly a truncated last line, which the loader tolerates.
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from thermogov.exitstatus import writing
from thermogov.governor import SampleRecord, TickRecord
from thermogov.interfaces import LogFormatError

TRACE_FILE = "trace.csv"
SAMPLES_FILE = "samples.csv"
SAMPLE_COLUMNS = ("t_s", "sensor", "value_c", "ok")


@dataclass(frozen=True, slots=True)
class TraceSchema:
    sensors: tuple[str, ...]
    domains: tuple[str, ...]
    fan: bool = False  # a fan_level column (the run records a fan's level)

    @property
    def columns(self) -> tuple[str, ...]:
        return (
            "t_s",
            "fused_c",
            *(f"{s}_c" for s in self.sensors),
            "sensors_used",
            "policy_state",
            *(c for d in self.domains for c in (f"{d}_cap_hz", f"{d}_freq_hz")),
            "power_w",
            "inferences_total",
            "mode",
            "load_level",
            "event",
            *(("fan_level",) if self.fan else ()),
        )

    @classmethod
    def from_columns(cls, columns: Sequence[str]) -> TraceSchema:
        sensors = tuple(c[:-2] for c in columns if c.endswith("_c") and c != "fused_c")
        domains = tuple(c[: -len("_cap_hz")] for c in columns if c.endswith("_cap_hz"))
        return cls(sensors, domains, "fan_level" in columns)


def _num(v: float | int | None, fmt: str = "{:.3f}") -> str:
    if v is None:
        return ""
    return fmt.format(v)


_QUOTED: dict[str, str] = {}


def _text(v: str) -> str:
    """A CSV field: our own tags never need quoting, but a sensor name from a profile might.

    Results are memoised: the same few state names and tags recur on every row.
    """
    q = _QUOTED.get(v)
    if q is None:
        q = '"' + v.replace('"', '""') + '"' if ("," in v or '"' in v or "\n" in v) else v
        if len(_QUOTED) < 10_000:
            _QUOTED[v] = q
    return q


def format_tick(rec: TickRecord) -> str:
    """One trace line.  Hand-formatted: ~2x cheaper than csv.writer on the simulator's hot path."""
    parts = [f"{rec.t_s:.3f}", "" if rec.fused_c is None else f"{rec.fused_c:.3f}"]
    parts.extend("" if v is None else f"{v:.3f}" for v in rec.readings_c)
    parts.append(_text(rec.sensors_used))
    parts.append(_text(rec.policy_state))
    for cap, freq in zip(rec.caps_hz, rec.freqs_hz, strict=True):
        parts.append(str(cap))
        parts.append("" if freq is None else str(freq))
    parts.append("" if rec.power_w is None else f"{rec.power_w:.4f}")
    parts.append("" if rec.inferences_total is None else str(rec.inferences_total))
    parts.append(_text(rec.mode))
    parts.append("" if rec.load_level is None else str(rec.load_level))
    parts.append(_text(rec.event))
    if rec.fan_level is not None:
        parts.append(str(rec.fan_level))
    return ",".join(parts) + "\n"


class _CsvAppender:
    """Append-only CSV with a header; a process killed at any instant loses only a bounded tail.

    Lines are buffered in memory and handed to the OS in blocks (``flush``; the page cache
    survives ``kill -9``).  Two bounds, both checked on every row (a clock read and two
    comparisons, a few percent of formatting the row):

    * wall time: a buffered line is at most ``flush_every_s`` (1 s) old, so a crashed
      ``thermogov run`` loses at most one second of trace;
    * run time (``t_s``, simulated seconds in ``sim``, which runs far faster than the wall
      clock): the buffer never grows past both ``span_s`` (10 s) of run time and ``share``
      (1 %) of the lines so far, so a killed ``sim`` loses at most 1 % of its rows or 10
      simulated seconds, whichever is more.

    Regular rows (every number present, nearly all of them) are not formatted one by one:
    their cells are appended to one flat list (``_add_cells``) and a whole block is formatted
    by one ``%`` of the row template repeated, at the next flush or irregular line.  That is
    the same text, byte for byte (``%.3f`` and ``f"{v:.3f}"`` format alike), at a fraction of
    the per-row cost of building a string in Python.
    """

    _MAX_ROWS = 4096  # buffered rows that force a flush whatever the clocks say

    def __init__(
        self,
        path: Path,
        header: Sequence[str],
        flush_every_s: float = 1.0,
        span_s: float = 10.0,
        share: float = 0.01,
        row_format: str = "",
    ) -> None:
        self.path = path
        self._fh = path.open("w", encoding="utf-8", newline="")
        with writing(path):
            self._fh.write(",".join(_text(h) for h in header) + "\n")
            self._fh.flush()
        self._every = flush_every_s
        self._span = span_s
        self._share = share
        self._due = time.monotonic() + flush_every_s  # wall time of the next forced flush
        self._buf: list[str] = []
        self._row_format = row_format  # the %-template of one regular row
        self._cells: list[Any] = []  # regular rows' cells, row after row, not yet formatted
        self._pending = 0  # rows in _cells
        self._buffered = 0  # rows in _buf and _cells
        self._first_t = 0.0  # run time of the oldest buffered line
        self._lines = 0

    def write_line(self, line: str, t_s: float | None = None) -> None:
        """An irregular line, formatted by the caller; it keeps its place after pending rows."""
        if self._pending:
            self._settle()
        self._buf.append(line)
        self._row_added(t_s)

    def _add_cells(self, cells: Sequence[Any], t_s: float) -> None:
        """A regular row's cells, in the order of ``row_format``; formatted with their block."""
        self._cells += cells
        self._pending += 1
        self._row_added(t_s)

    def _row_added(self, t_s: float | None) -> None:
        if not self._buffered and t_s is not None:
            self._first_t = t_s
        self._buffered = n = self._buffered + 1
        self._lines += 1
        if (
            n >= self._MAX_ROWS
            or time.monotonic() >= self._due
            or (t_s is not None and t_s - self._first_t >= self._span and n >= self._share * self._lines)
        ):
            self.flush()

    def _rows_added(self, count: int, first_t: float, last_t: float) -> None:
        """``count`` rows added at once (a block, ``first_t`` .. ``last_t``): one bounds check.

        The file's bytes do not depend on where flushes fall, only how much a crash can lose:
        a block handed over at least every few run seconds keeps both bounds above.
        """
        if not self._buffered:
            self._first_t = first_t
        self._buffered = n = self._buffered + count
        self._lines += count
        if (
            n >= self._MAX_ROWS
            or time.monotonic() >= self._due
            or (last_t - self._first_t >= self._span and n >= self._share * self._lines)
        ):
            self.flush()

    def _settle(self) -> None:
        """Format the pending regular rows as one block, in their place in the buffer."""
        cells = self._cells
        self._buf.append((self._row_format * self._pending) % tuple(cells))
        cells.clear()
        self._pending = 0

    def flush(self) -> None:
        if self._pending:
            self._settle()
        with writing(self.path):
            if self._buf:
                self._fh.write("".join(self._buf))
                self._buf.clear()
            self._buffered = 0
            self._fh.flush()
        self._due = time.monotonic() + self._every

    def close(self) -> None:
        if not self._fh.closed:
            self.flush()
            with writing(self.path):
                self._fh.close()

    def abandon(self) -> None:
        """Give up on the file (its disk failed): drop what is buffered, close without raising."""
        self._buf.clear()
        self._cells.clear()
        self._pending = self._buffered = 0
        with contextlib.suppress(OSError, ValueError):
            self._fh.close()


class TraceWriter(_CsvAppender):
    """Trace rows: the numbers that move every tick as cells, the rest remembered as text.

    Of a row's fields only the time, the temperatures, power and the inference count change
    from tick to tick; sensors used, state, caps and clocks, mode, level and event repeat for
    long runs of rows.  Those two runs of columns are formatted once per distinct value and
    looked up after (the same text, byte for byte, as :func:`format_tick`); the moving numbers
    go to the block formatter of :class:`_CsvAppender`.
    """

    _CACHE_MAX = 4096  # distinct (state, caps, clocks) or (mode, level, event) texts kept

    def __init__(self, path: Path, schema: TraceSchema, flush_every_s: float = 1.0) -> None:
        # t, fused, each sensor, then the remembered middle, power, inferences, the remembered end.
        # The count goes through %s (str of an int, as format_tick writes it), so a run that
        # counts nothing (a daemon with no application writing the counter file: None on every
        # row) still formats its rows as blocks, with an empty cell.
        row = "%.3f,%.3f," + "%.3f," * len(schema.sensors) + "%s%.4f,%s,%s"
        super().__init__(path, schema.columns, flush_every_s, row_format=row)
        self.schema = schema
        self._mid: dict[tuple[Any, ...], str] = {}
        self._end: dict[tuple[Any, ...], str] = {}
        self._last_mid_key: tuple[Any, ...] = ()
        self._last_mid = ""

    def tick(self, rec: TickRecord) -> None:
        self.ticks((rec,))

    def ticks(self, recs: Sequence[TickRecord]) -> None:
        """Rows in time order (one tick, or a block the simulator hands over), one loop.

        A row missing a temperature or power is formatted on its own (:func:`format_tick`) after
        the regular rows before it; a regular row's moving numbers become cells of the block
        format (a missing inference count is an empty cell there).
        """
        cells, ends, fan_on = self._cells, self._end, self.schema.fan
        last_key, last_mid = self._last_mid_key, self._last_mid
        start = 0  # index in recs of the first regular row not yet counted
        for i, rec in enumerate(recs):
            t, fused, readings, used, state, caps, freqs, power, inferences, event, mode, level, fan = rec
            if fused is None or power is None or None in readings:
                if i > start:
                    self._pending += i - start
                    self._rows_added(i - start, recs[start][0], recs[i - 1][0])
                self.write_line(format_tick(rec), t)
                start = i + 1
                continue
            key = (used, state, caps, freqs)
            if key != last_key:  # the common case: nothing in the middle moved
                last_key, last_mid = key, self._mid_text(key)
            end_key = (mode, level, event, fan if fan_on else None)
            end = ends.get(end_key)
            if end is None:
                end = self._end_text(end_key)
            cells += (t, fused, *readings, last_mid, power, "" if inferences is None else inferences, end)
        self._last_mid_key, self._last_mid = last_key, last_mid
        if len(recs) > start:
            self._pending += len(recs) - start
            self._rows_added(len(recs) - start, recs[start][0], recs[-1][0])

    def _mid_text(self, key: tuple[Any, ...]) -> str:
        """Sensors used, state, caps and clocks as text: formatted once per distinct value."""
        mid = self._mid.get(key)
        if mid is None:
            used, state, caps, freqs = key
            parts = [_text(used), _text(state)]
            for cap, freq in zip(caps, freqs, strict=True):
                parts.append(str(cap))
                parts.append("" if freq is None else str(freq))
            mid = ",".join(parts) + ","
            if len(self._mid) >= self._CACHE_MAX:
                self._mid.clear()
            self._mid[key] = mid
        return mid

    def _end_text(self, key: tuple[Any, ...]) -> str:
        """Mode, load level, event and fan level as the end of a line, remembered."""
        mode, level, event, fan = key
        parts = [_text(mode), "" if level is None else str(level), _text(event)]
        if fan is not None:
            parts.append(str(fan))
        end = ",".join(parts) + "\n"
        if len(self._end) >= self._CACHE_MAX:
            self._end.clear()
        self._end[key] = end
        return end


class SampleWriter(_CsvAppender):
    def __init__(self, path: Path, flush_every_s: float = 1.0) -> None:
        super().__init__(path, SAMPLE_COLUMNS, flush_every_s, row_format="%.3f,%s,%.3f,1\n")

    def sample(self, rec: SampleRecord) -> None:
        t, v = rec.t_s, rec.value_c
        name = _QUOTED.get(rec.sensor) or _text(rec.sensor)
        if v is None or not rec.ok:
            self.write_line(f"{t:.3f},{name},{'' if v is None else f'{v:.3f}'},{'1' if rec.ok else '0'}\n", t)
            return
        self._add_cells((t, name, v), t)

    def samples(self, recs: Sequence[SampleRecord]) -> None:
        """A block of samples in time order: the same lines as :meth:`sample` one by one.

        The simulator hands its samples over in blocks (78,000 reads per simulated hour):
        one loop with its lookups in locals and one bounds check per regular run of rows,
        instead of three calls per read.
        """
        cells, quoted = self._cells, _QUOTED
        start = 0  # index in recs of the first regular row not yet counted
        for i, (t, name, v, ok) in enumerate(recs):
            if v is None or not ok:
                if i > start:
                    self._pending += i - start
                    self._rows_added(i - start, recs[start][0], recs[i - 1][0])
                self.sample(recs[i])  # formatted on its own, after the regular rows before it
                start = i + 1
                continue
            cells += (t, quoted.get(name) or _text(name), v)
        if len(recs) > start:
            self._pending += len(recs) - start
            self._rows_added(len(recs) - start, recs[start][0], recs[-1][0])


# Columns that hold words (states, tags, names); every other column of a trace or samples file
# holds numbers (docs/trace-format.md), so a word there, or one that reads as a float that is not
# finite ("nan", "inf", "1e309"), is a corrupt cell, while here it stays the word it is (a mode
# may be called "inf").
TEXT_COLUMNS = frozenset({"sensors_used", "policy_state", "mode", "event", "sensor"})
TIME_COLUMN = "t_s"


def _parse_cell(v: str) -> Any:
    if v == "":
        return None
    try:
        return int(v)
    except ValueError:
        pass
    try:
        return float(v)
    except ValueError:
        return v


def _parse_text_cell(v: str) -> Any:
    """A cell of a text column: numbers as numbers (a rung, a count), words kept as written."""
    x = _parse_cell(v)
    return v if isinstance(x, float) and not math.isfinite(x) else x


def read_csv_columns(path: Path) -> dict[str, list[Any]]:
    """Column -> values, numbers parsed, empty cells as None.

    A last line cut short by a crash (fewer cells than the header) is dropped; any other
    ragged line means the file is not a thermogov CSV and is reported as such.  Our writers
    (and every importer) never write a non-finite number and write time forwards, so a NaN,
    an inf or a time that goes back is a corrupt or hand-edited file: refused here, naming the
    line and column, rather than drawn as a gap, fitted as a temperature or crashing a plot.
    """
    try:
        # utf-8-sig: a trace saved again by a spreadsheet starts with a byte-order mark
        text = path.read_text(encoding="utf-8-sig")
    except OSError as e:
        raise LogFormatError(f"{path}: cannot read ({e.strerror}); check the path") from e
    except UnicodeDecodeError:
        raise LogFormatError(f"{path}: not UTF-8 text; not a thermogov trace") from None
    return csv_columns(text, path)


def is_thermogov_csv(text: str) -> bool:
    """Whether ``text`` is a thermogov trace (header ``t_s,fused_c,...``, the schema's first two
    columns) or samples file (:data:`SAMPLE_COLUMNS`); someone's own table with a ``t_s`` time
    column is neither."""
    first = text.removeprefix("\ufeff").split("\n", 1)[0].rstrip("\r")
    header = tuple(c.strip() for c in first.split(","))
    return header[:2] == (TIME_COLUMN, "fused_c") or header == SAMPLE_COLUMNS


def csv_columns(text: str, path: Path | str) -> dict[str, list[Any]]:
    """:func:`read_csv_columns` of text already read (a decompressed trace); ``path`` names it."""
    text = text.removeprefix("\ufeff")
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as e:  # a 1 GB file of NULs: one cell over the csv module's field limit
        raise LogFormatError(f"{path}: not CSV text ({e}); not a thermogov trace") from None
    if not rows:
        raise LogFormatError(f"{path}: empty file; expected a header line")
    header = rows[0]
    body = rows[1:]
    if body and len(body[-1]) != len(header) and not text.endswith("\n"):
        body = body[:-1]
    # Only a thermogov trace or samples file (a t_s column) has its number columns checked; for
    # any other CSV the caller's "not a thermogov trace" is the line that helps.
    checked = TIME_COLUMN in header
    parsers = [_parse_text_cell if h in TEXT_COLUMNS or not checked else _parse_cell for h in header]
    cols: dict[str, list[Any]] = {h: [] for h in header}
    lists = [cols[h] for h in header]
    last_t: float | None = None
    for i, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise LogFormatError(f"{path}:{i}: {len(row)} cells for {len(header)} columns; file is corrupt")
        for h, v, parse, values in zip(header, row, parsers, lists, strict=True):
            x = parse(v)
            if (
                checked
                and parse is _parse_cell
                and (isinstance(x, str) or (isinstance(x, float) and not math.isfinite(x)))
            ):
                raise LogFormatError(
                    f"{path}:{i}: {h} is {v[:40]!r}, not a finite number; the file is corrupt"
                    " (delete the line or re-record the run)"
                )
            values.append(x)
        last_t = _check_time(cols, path, i, last_t)
    return cols


def _check_time(
    cols: dict[str, list[Any]], path: Path | str, line: int, last_t: float | None
) -> float | None:
    """The time of the row just read: a number, not before the row above (samples share one t)."""
    times = cols.get(TIME_COLUMN)
    if times is None:
        return None
    t = times[-1]
    if t is None:  # a word or a non-finite number was refused with the cell already
        raise LogFormatError(
            f"{path}:{line}: {TIME_COLUMN} is empty, not a time in seconds; the file is corrupt"
            " (delete the line or re-record the run)"
        )
    if last_t is not None and t < last_t:
        raise LogFormatError(
            f"{path}:{line}: {TIME_COLUMN} {t:g} goes back from {last_t:g}; rows out of order or"
            " two files joined (keep one run per file, in time order)"
        )
    return t


def load_trace(path_or_run: Path | str) -> dict[str, list[Any]]:
    p = Path(path_or_run)
    return read_csv_columns(p / TRACE_FILE if p.is_dir() else p)


def load_samples(run_dir: Path | str) -> dict[str, list[Any]]:
    return read_csv_columns(Path(run_dir) / SAMPLES_FILE)


def to_pandas(columns: dict[str, list[Any]]) -> Any:
    """A DataFrame for notebooks; pandas is imported here only, never on the daemon path."""
    import pandas as pd

    return pd.DataFrame(columns)


def iter_rows(columns: dict[str, list[Any]]) -> Iterable[dict[str, Any]]:
    names = list(columns)
    for values in zip(*(columns[n] for n in names), strict=True):
        yield dict(zip(names, values, strict=True))
