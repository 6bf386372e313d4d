"""Any delimited or whitespace-column log: Pi loggers, tegrastats-to-CSV scripts, spreadsheets.

The table is found first (delimiter by consistency of the field count, prose and comment lines
before it skipped, decimal commas when the delimiter is not a comma), then each column is
identified: by ``--columns``, else by its header name (:mod:`thermogov.importers.columns`),
else -- headerless files only -- by its values, and the note says which.  Units are decided
per column by :mod:`thermogov.importers.quantities`.  A file whose columns cannot be identified
is refused with the columns found and the ``--columns`` option that maps them: a column is
never taken for something by its position alone.
"""

from __future__ import annotations

import csv
import itertools
import math
import re
import statistics
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

import numpy as np

from thermogov.importers import excel_days
from thermogov.importers.cells import Cells, TextLines, column, iter_column
from thermogov.importers.clocksteps import mend_steps
from thermogov.importers.columns import Column, from_header, parse_columns_option
from thermogov.importers.common import (
    _NO_VALUES,
    NEWEST_FIRST_NOTE,
    PI_THROTTLE_NOW,
    DayClock,
    ImportedLog,
    as_floats,
    board_power,
    median_of,
    newest_first,
    no_samples_error,
    plausible_times,
    rebased,
)
from thermogov.importers.headerless_units import rescale_pieces
from thermogov.importers.quantities import (
    FAHRENHEIT,
    FREQ_UNITS,
    Unit,
    detect_unit,
    finite,
    median_finite,
    unit_error,
    unit_named,
)
from thermogov.importers.samplestore import ColumnBuilder
from thermogov.importers.splitfield import refuse_split_field
from thermogov.importers.stamps import date_prefix, parse_stamp, slash_day_first
from thermogov.importers.valuegroups import group_columns
from thermogov.interfaces import LogFormatError

FMT = "csv"
DEFAULT_INTERVAL_S = 1.0

_NUM_RE = re.compile(
    r"^([-+]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][-+]?\d+)?)\s*(?:'C|°C|ºC|C|MHz|kHz|GHz|Hz|mW|W|%|V)?$"
)
# A vcgencmd reading pasted whole into a cell: "temp=48.3'C", "frequency(48)=1500345728".
_KEYVAL_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\(\d+\))?=(.+)$")
_NUM_ONLY_RE = re.compile(r"^[-+]?\d+(?:\.\d+)?$")
_AT_RE = re.compile(r"^(\d+(?:\.\d+)?)%@(\d+(?:\.\d+)?)$")
_PCT_RE = re.compile(r"^(\d+(?:\.\d+)?)%$")
_CURAVG_RE = re.compile(r"^(-?\d+(?:\.\d+)?)(?:mW)?/-?\d+(?:\.\d+)?(?:mW)?$")
# A gap in an exporter's series: netdata prints `null` where it has no value (its CSV formatter
# docs: "the default prints the string null"); an empty cell, not a damaged row.
_GAP_WORDS = {"null", "none"}
# A cell that is a bare unit is no prose: Glances writes each sensor's unit beside its value
# (`C`, `F`, `R` for rpm, `%`), on every row.
_UNIT_CELLS = {"C", "F", "°C", "°F", "R", "rpm", "RPM", "%", "V", "W", "mW", "Hz", "MHz"}
_NONFINITE = {"nan", "-nan", "inf", "-inf", "+inf", "infinity", "-infinity"}
_LEAD_STAMP_RE = re.compile(
    r"^(\d{4}[-/]\d\d[-/]\d\d[T _]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"
    r"|\d\d-\d\d-\d{4} \d\d:\d\d:\d\d|\d\d?\.\d\d?\.\d{4},? \d\d?:\d\d:\d\d(?:[.,]\d+)?"
    # `$(date)` in the C/English locale: `Sat Dec  6 10:00:01 UTC 2026`; split on spaces, its year
    # was a column of 2026 read as a 2026 MHz clock
    r"|[A-Z][a-z]{2} +[A-Z][a-z]{2} +\d\d? \d\d:\d\d:\d\d(?: [A-Z][A-Za-z0-9+-]{1,5})? \d{4}(?!\d))"
)
_DELIMS = (",", ";", "\t", "|", " ")
# A throttle column written as a yes/no flag: the Raspberry Pi blog's logger for the Pi 5 writes
# `vcgencmd.get_throttled()['breakdown']['2']` ("currently throttled") as True/False.
_FLAG_WORDS = {"true": True, "false": False, "yes": True, "no": False}
_COMMENT = ("#", "//", "%")
# Raspberry Pi `vcgencmd get_throttled` bits now active: 0x2 arm frequency capped,
# 0x4 currently throttled, 0x8 soft temperature limit (Raspberry Pi documentation, vcgencmd).


@dataclass
class Table:
    """The delimited rows of a file, with what it took to find them."""

    header: list[str] | None
    rows: Cells  # every data row padded to the table's width, packed (importers/cells.py)
    delimiter: str
    decimal_comma: bool
    preamble: int = 0
    malformed: int = 0
    repeated_headers: int = 0
    notes: list[str] = field(default_factory=list)
    grouped: list[int] = field(default_factory=list)  # columns whose thousands separators were removed
    last_preamble: list[str] = field(default_factory=list)  # the line just before the rows, split
    # the first and the last date line around the rows (`date` before and after a loop), if any
    date_before: float | None = None
    date_after: float | None = None
    # the first run of OTHER_PART_LINES or more consecutive non-row data lines of one shape
    # (another format in the same file): (its first and last lines' texts, its line count)
    other_part: tuple[str, str, int] | None = None


def _split(line: str, delim: str) -> list[str]:
    if delim == " ":
        m = _LEAD_STAMP_RE.match(line.strip())
        stamp = [m.group(1)] if m else []
        rest = line.strip()[m.end() :] if m else line.strip()
        if not m and rest[:1].isalpha() and (n := date_prefix(words := rest.split())):
            stamp, rest = [" ".join(words[:n])], " ".join(words[n:])
        # "stamp, 45.2, 1500000" (a comma and a space): the commas are no part of the cells, so
        # the whitespace split never beats the comma split with extra "," cells
        return stamp + [tok for tok in (w.strip(",;") for w in rest.split()) if tok]
    if line and len(line) < _PLAIN_SPLIT_MAX and _CSV_SPECIAL_RE.search(line) is None:
        # no quote, line break or NUL: the csv module would split on the delimiter alone
        return [c.strip() for c in line.split(delim)]
    return [c.strip() for c in next(csv.reader([line], delimiter=delim, skipinitialspace=True), [])]


# what makes the csv module do more than split a line on its delimiter (a field is also limited
# to csv.field_size_limit(), 131 072 characters by default: a longer line takes the csv module)
_CSV_SPECIAL_RE = re.compile('["\r\n\x00]')
_PLAIN_SPLIT_MAX = 100_000


_JOINING_COMMA_RE = re.compile(r"[^\d\s,;],|,[^\d\s,;]")


_GROUPED_RE = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d*)?")


def _comma_joined(line: str) -> bool:
    """Whether a token of ``line``'s whitespace split holds a comma beside a non-digit, or two
    commas that are no thousands groups (`10:00:00,50.5,1500`: a decimal comma is one a number),
    so a delimiter, not a decimal or thousands mark; bracketed tegrastats lists do not count."""
    return any(
        _JOINING_COMMA_RE.search(tok) or (tok.count(",") >= 2 and not _GROUPED_RE.fullmatch(tok))
        for tok in _split(line, " ")
        if "," in tok and tok[:1] not in "[("
    )


def _candidate_lines(text: str) -> Sequence[str]:
    # offsets into the text, not a copy of its lines (session 27m)
    return TextLines(text, lambda ln: bool(ln.strip()) and not ln.lstrip().startswith(_COMMENT))


def _is_number(cell: str, decimal_comma: bool) -> bool:
    return number(cell, decimal_comma) is not None or cell.strip().lower() in _NONFINITE


def tegra_cell(cell: str) -> tuple[float, float | None] | None:
    """(value, clock MHz or None) of a tegrastats field copied into a CSV cell, else None.

    Home-made tegrastats-to-CSV scripts keep tegrastats' own notation: ``45%@1300`` (load and
    clock), ``[12%@1510,off,3%@1510]`` (per-core list: mean load of the online cores, top
    clock), ``5120mW/4980mW`` (current/average power: the current one).
    """
    c = cell.strip()
    if m := _AT_RE.match(c):
        return float(m.group(1)), float(m.group(2))
    if m := _CURAVG_RE.match(c):
        return float(m.group(1)), None
    if c.startswith("[") and c.endswith("]"):
        parts = [p.strip() for p in c[1:-1].split(",") if p.strip() and p.strip().lower() != "off"]
        hits = [_AT_RE.match(p) or _PCT_RE.match(p) for p in parts]
        if not parts or not all(hits):
            return None
        loads = [float(h.group(1)) for h in hits if h]
        clocks = [float(h.group(2)) for h in hits if h and h.re is _AT_RE]
        return sum(loads) / len(loads), (max(clocks) if clocks else None)
    return None


# A plain decimal (``45.5``, ``-3``, ``1510``, ``.5``): every test below would end in float(c), so
# the table's commonest cell skips them (the same \d as _NUM_RE: any Unicode digit, as float reads)
_PLAIN_NUM_RE = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)")


def number(cell: str, decimal_comma: bool) -> float | None:
    """A cell as a float (unit suffix allowed: ``48.3'C``, ``1500MHz``); NaN for nan/inf; else None."""
    c = cell.strip()
    if _PLAIN_NUM_RE.fullmatch(c):
        return float(c)
    if c.lower() in _NONFINITE:
        return float("nan")
    if (tc := tegra_cell(c)) is not None:
        return tc[0]
    if kv := _KEYVAL_RE.match(c):
        c = kv.group(1).strip()
    m = _NUM_RE.match(c)
    if m is None:
        return None
    text = m.group(1)
    if "," in text:
        if not decimal_comma:
            return None
        text = text.replace(",", ".")
    return float(text)


def _is_data(cells: list[str], decimal_comma: bool) -> bool:
    """Mostly numbers or timestamps: a data row rather than a header or prose."""
    filled = [c for c in cells if c]
    good = sum(
        1
        for c in filled
        if _is_number(c, decimal_comma)
        or parse_stamp(c)
        or c.lower().startswith("0x")
        or c.lower() in _GAP_WORDS
        or c in _UNIT_CELLS
    )
    return bool(filled) and good * 2 > len(filled)


_COMMA_NOT_BETWEEN_DIGITS_RE = re.compile(r"(?<!\d),|,(?!\d)")


def _semicolons_with_decimal_commas(probe: Sequence[str], comma_score: tuple[int, int, int]) -> bool:
    """Whether a table the comma split scored ``comma_score`` on is a `;` table with one decimal
    comma per row (session 31w): `2021-04-11 10:41:16;68,653` splits into two columns at either
    delimiter, and the comma, first in the order, cut each temperature in two (the file was
    refused).  Taken so only when `;` splits every probe line into as many columns and every
    comma there sits between digits, as a decimal comma does."""
    counts = [len(_split(ln, ";")) for ln in probe]
    return (
        all(c == comma_score[1] for c in counts)
        and sum(1 for c in counts if c == comma_score[1]) >= comma_score[0]
        and not any(_COMMA_NOT_BETWEEN_DIGITS_RE.search(ln) for ln in probe)
    )


def sniff(text: str) -> Table | None:
    """The table in ``text`` (None when no delimiter gives >= 2 consistent columns)."""
    lines = _candidate_lines(text)
    if not lines:
        return None
    if (series := _stamped_series(lines)) is not None:
        return series
    probe = lines[:400]
    best: tuple[int, int, int] | None = None
    choice = ""
    for order, delim in enumerate(_DELIMS):
        # a line whose whitespace split leaves a comma joining two cells (`38.5°C,0.09`) is no
        # whitespace-table line: the comma is its delimiter (a CSV with a text cell that holds
        # spaces, /proc/loadavg's `0.09 0.23 0.22 1/85 517`, was read as a whitespace table with
        # decimal commas: the temperature dropped, the last PID taken for a clock in MHz)
        counts = [0 if delim == " " and _comma_joined(ln) else len(_split(ln, delim)) for ln in probe]
        mode = statistics.mode(counts)
        if mode < 2:
            continue
        score = (sum(1 for c in counts if c == mode), mode, -order)
        if best is None or score > best:
            best, choice = score, delim
    if best is None or best[0] < max(2, len(probe) // 2):
        return _one_column(lines)
    if choice == "," and _semicolons_with_decimal_commas(probe, best):
        choice = ";"
    delim, width = choice, best[1]
    if delim == ",":  # a spreadsheet export quotes decimal-comma numbers: "48,3"
        decimal_comma = any(re.fullmatch(r"-?\d+,\d+", c) for ln in probe[:50] for c in _split(ln, delim))
    else:
        decimal_comma = any(re.search(r"(?<![\d,])\d+,\d+(?![\d,])", ln) for ln in probe)
    header: list[str] | None = None
    rows = Cells(width)
    table = Table(None, rows, delim, decimal_comma)

    # Passes over the lines, each splitting one line at a time: the thousands separators are
    # decided on every full-width row before any row is classified, and no split row is held.
    def full_rows() -> Iterator[list[str]]:
        return (c for c in (_split(ln, delim) for ln in lines) if len(c) == width)

    grouping = _digit_grouping(full_rows, width, delim, decimal_comma)
    table.grouped = sorted(grouping)
    after: float | None = None
    run: list = [None, "", 0, ""]  # shape, first text, count, last text of a run of non-row data lines
    for cells in (_split(ln, delim) for ln in lines):
        if grouping and len(cells) == width:
            cells = _ungrouped(cells, grouping)
        if header is None and not rows:
            if len(cells) != width:
                table.preamble += 1
                table.last_preamble = cells
                if table.date_before is None:
                    table.date_before = _date_line(cells)
                _other_run(run, table, delim.join(cells))
                continue
            if not _is_data(cells, decimal_comma):
                header = cells
                table.header = header
                continue
        if header is not None and cells == header:
            table.repeated_headers += 1
            continue
        if len(cells) > width or len(cells) < 2 or not _is_data(cells, decimal_comma):
            table.malformed += 1
            if after is None:  # the first line after the latest row
                after = _date_line(cells)
            if table.other_part is None or run[0] is not None:
                _other_run(run, table, delim.join(cells))
            continue
        after = None
        run[0] = None
        rows.append(cells if len(cells) == width else cells + [""] * (width - len(cells)))
    if not rows:
        return None
    table.date_after = after
    return table


# A data line: a time of day and a number beside it (`14-03-2025 21:10:00,55.100`)
_CLOCK_OF_DAY_RE = re.compile(r"\d\d?:\d\d:\d\d")
_OTHER_NUMBER_RE = re.compile(r"\d+[.,]\d+|\d{2,}")
_DIGITS_RE = re.compile(r"\d+")
OTHER_PART_LINES = 3  # consecutive unread data lines of one shape: a part in another format


def data_like(line: str) -> bool:
    """A line holding a time of day and a number beside it: a record of some log."""
    return (m := _CLOCK_OF_DAY_RE.search(line)) is not None and bool(
        _OTHER_NUMBER_RE.search(line[: m.start()] + " " + line[m.end() :])
    )


def line_shape(line: str) -> str:
    """A line with its digit runs as `0`: the records of one format share it."""
    return _DIGITS_RE.sub("0", line.strip())


def _other_run(run: list, table: Table, line: str) -> None:
    """Count ``line`` (not a row) into the current run of one-shaped data lines; the first run
    of OTHER_PART_LINES is the table's ``other_part``."""
    if not data_like(line):
        run[0] = None
        return
    shape = line_shape(line)
    if run[0] != shape:
        run[0], run[1], run[2] = shape, line.strip(), 0
    run[2] += 1
    run[3] = line.strip()
    if run[2] >= OTHER_PART_LINES and (table.other_part is None or table.other_part[0] == run[1]):
        table.other_part = (run[1], run[3], run[2])


def line_number(text: str, line: str) -> int:
    """The 1-based number of the first line of ``text`` that holds ``line``."""
    at = text.find(line)
    return text.count("\n", 0, at) + 1 if at >= 0 else 0


def _date_line(cells: list[str]) -> float | None:
    """The epoch of a line that is one date and time and nothing else (`date`'s output, an ISO
    stamp), else None: a loop script's `date` before and after its rows."""
    text = " ".join(c.strip() for c in cells).strip()
    if not text or len(text) > 64 or not any(ch.isdigit() for ch in text):
        return None
    st = parse_stamp(text)
    return st[0] if st is not None and st[1] else None


# Thousands separators: a comma, a dot, or a space of any kind: plain, no-break or narrow no-break
# (a French export, CLDR's `fr` locale), or an apostrophe (Swiss German).
_SPACE_SEPS = " \u00a0\u202f'"
_SEEN_CELLS = 1 << 14


def _digit_grouping(
    rows: Callable[[], Iterable[list[str]]], width: int, delim: str, decimal_comma: bool
) -> dict[int, str]:
    """{column: pattern of its thousands separator} for the columns whose numbers group their
    thousands (``600`` beside ``1,500`` MHz, ``1.234,5`` mW, ``1 500`` in a French export).

    Read as decimals, ``1,500`` beside ``600`` was 1.5 MHz (or, with more such cells, a GHz
    column whose ``600`` became 600 GHz); ``1 500`` made its row no data at all.  A comma or dot
    is a separator only in a column whose numbers are all grouped in threes or plain, some plain
    ones reaching 100 (where the mark is also the decimal mark, only whole numbers are plain): a
    decimal-comma column of temperatures (``45`` beside ``45,500``) never is.  A space cannot be
    a decimal mark, so grouped cells alone decide it.  Text cells (the header) do not count.

    ``rows()`` gives the full-width rows afresh on each call: the counts are taken in one pass
    row by row (no column held), and a second pass, only for a column with grouped cells, counts
    its numbers.
    """
    dec = "," if decimal_comma else "."
    spaces = "[" + re.escape("".join(ch for ch in _SPACE_SEPS if ch != delim)) + "]"
    pats = []
    for sep in (re.escape(","), re.escape("."), spaces):
        frac = "" if sep == re.escape(dec) else rf"(?:{re.escape(dec)}\d+)?"
        pats.append(
            (sep, re.compile(r"-?\d+" + frac), re.compile(rf"-?[1-9]\d{{0,2}}(?:{sep}\d{{3}})+{frac}"))
        )
    # per column and separator: plain cells, grouped cells, a grouped cell with two marks, a
    # plain cell reaching 100
    plain = [[0] * len(pats) for _ in range(width)]
    grouped = [[0] * len(pats) for _ in range(width)]
    multi = [[False] * len(pats) for _ in range(width)]
    big = [[False] * len(pats) for _ in range(width)]
    # per cell text: per separator (plain, reaches 100, grouped, two marks), the same tests as
    # below, made once for a text that repeats (temperatures, clocks); bounded, since a column of
    # stamps repeats nothing
    seen: dict[str, tuple[tuple[bool, bool, bool, bool], ...]] = {}
    ks = range(len(pats))
    for r in rows():
        for i in range(width):
            c = r[i].strip()
            if not c:
                continue
            digits = c[1:] if c[0] == "-" else c
            if digits.isdecimal():
                # a whole number (str.isdecimal is re's \d): plain for every separator, grouped
                # for none (a grouped number holds its separator)
                p = plain[i]
                for k in ks:
                    p[k] += 1
                if abs(float(c)) >= 100:
                    big[i] = [True] * len(pats)
                continue
            tests = seen.get(c)
            if tests is None:
                tests = tuple(
                    (
                        is_plain := plain_re.fullmatch(c) is not None,
                        is_plain and abs(float(c.replace(dec, "."))) >= 100,
                        is_grouped := grouped_re.fullmatch(c) is not None,
                        is_grouped and len(re.findall(sep, c)) > 1,
                    )
                    for sep, plain_re, grouped_re in pats
                )
                if len(seen) < _SEEN_CELLS:
                    seen[c] = tests
            for k, (is_plain, reaches, is_grouped, two_marks) in enumerate(tests):
                if is_plain:
                    plain[i][k] += 1
                    big[i][k] = big[i][k] or reaches
                if is_grouped:
                    grouped[i][k] += 1
                    multi[i][k] = multi[i][k] or two_marks
    wanted = [(i, k) for i in range(width) for k in range(len(pats)) if grouped[i][k]]
    numeric = dict.fromkeys(wanted, 0)
    if wanted:
        for r in rows():
            for i, k in wanted:
                c = r[i].strip()
                if c and (number(c, decimal_comma) is not None or pats[k][2].fullmatch(c)):
                    numeric[(i, k)] += 1
    out: dict[int, str] = {}
    for i in range(width):
        for k, (sep, _, _) in enumerate(pats):
            if not grouped[i][k] or grouped[i][k] + plain[i][k] != numeric[(i, k)]:
                continue
            # two separators in one number (`1,500,000`) are no decimal mark either
            if sep == spaces or multi[i][k] or big[i][k]:
                out[i] = sep
                break
    return out


def _ungrouped(cells: list[str], grouping: dict[int, str]) -> list[str]:
    """``cells`` with each grouped column's thousands separators removed from its numbers."""
    out = list(cells)
    for i, sep in grouping.items():
        if any(ch.isdigit() for ch in out[i]) and not any(ch.isalpha() for ch in out[i]):
            out[i] = re.sub(sep, "", out[i].strip())
    return out


def _refuse_split_decimals(t: Table, source: str) -> None:
    """LogFormatError when a header narrower than its rows stands just before them in a
    comma-separated file: decimal commas there (``0,44,5``) split each number in two, and the
    rows, read without their header by their values, made ``44,5`` a 44 °C temperature beside a
    5 % load."""
    head = t.last_preamble
    if t.header is not None or t.delimiter != "," or len(head) < 2 or not t.rows:
        return
    if any(_is_number(c, False) or not c.strip() for c in head) or len(head) >= len(t.rows[0]):
        return
    # each decimal comma splits a number into two digit-only cells: a row with fewer such
    # pairs than it has extra cells is no split header's row (a title line before a table)
    row = [c.strip() for c in t.rows[0]]
    pairs = sum(1 for a, b in itertools.pairwise(row) if re.fullmatch(r"-?\d+", a) and b.isdigit())
    if pairs < len(row) - len(head):
        return
    raise LogFormatError(
        f"{source}: the header {','.join(head)!r} names {len(head)} columns but the rows have "
        f"{len(t.rows[0])} (decimal commas in a comma-separated file split each number in two); "
        "export it with ';' between columns or with decimal points, or map the rows' columns by "
        "position with --columns"
    )


def _stamped_series(lines: Sequence[str]) -> Table | None:
    """``while :; do date; cat /sys/class/thermal/thermal_zone*/temp; sleep 5; done``: a date
    line, then one bare number per zone (m°C). Each date and its numbers become one row
    (``stamp, zone0, zone1, ...``); the columns are then identified by their values like any
    header-less table.  Only a text made of nothing but such lines qualifies (at most one line
    in ten of anything else), so no other table is taken for one."""
    groups: list[tuple[str, list[str]]] = []
    other = 0
    epochs = _epoch_stamp_lines(lines)
    for i, ln in enumerate(lines):
        cell = ln.strip()
        if i in epochs:
            groups.append((cell, []))
        elif _NUM_ONLY_RE.match(cell):
            if groups:
                groups[-1][1].append(cell)
            else:
                other += 1
        elif (st := parse_stamp(cell)) is not None and (st[1] or ":" in cell):
            groups.append((cell, []))
        else:
            other += 1
        if other * 10 > len(lines):
            return None  # no series (the test below, decided: `other` only grows)
    filled = [g for g in groups if g[1]]
    if len(filled) < 3 or other * 10 > len(lines):
        return None
    width = statistics.mode(len(vals) for _, vals in filled)
    rows = [[stamp, *vals] for stamp, vals in filled if len(vals) == width]
    if len(rows) * 10 < len(groups) * 9:
        return None
    table = Table(None, Cells.of(rows, width + 1), "", False)
    table.malformed = other + len(groups) - len(rows)
    table.notes.append(f"date lines, each followed by {width} bare value(s): one row per date")
    return table


# `date +%s` (epoch seconds, 2001-2033) or `date +%s.%N` / `+%s%3N`: a bare number that is a stamp
_EPOCH_LINE_RE = re.compile(r"^1\d{9}(?:\d{3})?(?:\.\d+)?$")
_MAX_STAMP_STEP_S = 86400.0  # a loop's stamps are seconds to minutes apart, never a day


def _epoch_stamp_lines(lines: Sequence[str]) -> set[int]:
    """Indices of the lines that are ``date +%s`` stamps of a loop such as
    ``while :; do date +%s; cat /sys/class/thermal/thermal_zone0/temp; sleep 5; done``.

    Such a stamp is a bare number, so it read as one more value of a one-column series: the
    epoch seconds became a 1.76 GHz clock and the m°C readings were dropped as clocks out of range.
    Epoch-sized numbers are stamps only where they run forward by less than a day each and every
    one of them is followed by a value that is not one (a series of Hz clocks, 1.5e9..1.8e9, is
    never taken for stamps: no other value follows them, nor do they run forward).
    """
    idx = [i for i, ln in enumerate(lines) if _EPOCH_LINE_RE.match(ln.strip())]
    if len(idx) < 3:
        return set()
    vals = [float(lines[i].strip()) for i in idx]
    if all(v >= 1e12 for v in vals):
        vals = [v / 1000.0 for v in vals]  # `+%s%3N`: milliseconds
    steps = [b - a for a, b in itertools.pairwise(vals)]
    if not all(0 < d <= _MAX_STAMP_STEP_S for d in steps):
        return set()
    followed = all(j + 1 < len(lines) and j + 1 not in idx for j in idx[:-1])
    return set(idx) if followed else set()


def _one_column(lines: Sequence[str]) -> Table | None:
    """A bare series, e.g. ``cat /sys/class/thermal/thermal_zone0/temp`` in a loop (m°C).

    At least three numeric lines after an optional one-word header; anything else is no table.
    """
    header = None
    body = lines
    if body and number(body[0], False) is None and len(body[0].split()) == 1:
        header, body = [body[0].strip()], body[1:]
    nums = [ln for ln in body if number(ln, False) is not None]
    if len(nums) < 3 or len(nums) * 10 < len(body) * 9:
        return None
    t = Table(header, Cells.of(([ln.strip()] for ln in nums), 1), "", False)
    t.malformed = len(body) - len(nums)
    return t


# rows a table needs to be detected without --format (fewer are refused, saying so)
MIN_DETECT_ROWS = 3


def detect(text: str) -> Table | None:
    """The table in ``text`` when it has at least three rows and two columns, most cells numbers
    or timestamps, else None.  What it found is handed to :func:`parse_text` (``table=``) by the
    caller: a big table is sniffed once, and no module state keeps it (session 28m; session 27m
    kept it in a module-level cache keyed by the text)."""
    t = sniff(text)
    return t if t is not None and len(t.rows) >= MIN_DETECT_ROWS else None


def looks_like(text: str) -> bool:
    """Whether :func:`detect` finds a table in ``text``."""
    return detect(text) is not None


# --- column identification -------------------------------------------------------------------


@dataclass
class _Col:
    index: int
    label: str  # header name or "#n"
    col: Column
    unit: Unit | None = None


def _values(rows: Sequence[list[str]], i: int, decimal_comma: bool) -> list[float | None]:
    return [number(c, decimal_comma) if c else None for c in iter_column(rows, i)]


def _numbers(rows: Sequence[list[str]], i: int, decimal_comma: bool) -> array:
    """A column's numbers as ``array('d')``, 8 B a row (:func:`_values` holds 32): NaN for an empty
    or unreadable cell as for a NaN one, so only for decisions on the finite values (session 28n)."""
    nan = math.nan
    return array(
        "d",
        (nan if (v := number(c, decimal_comma) if c else None) is None else v for c in iter_column(rows, i)),
    )


def _stamp_share(rows: Sequence[list[str]], i: int) -> float:
    cells = [r[i] for r in rows[:200] if r[i]]
    return sum(1 for c in cells if parse_stamp(c)) / len(cells) if cells else 0.0


def _monotonic_numeric(vals: Sequence[float | None]) -> bool:
    """A time axis: never (or almost never) backwards, and either an epoch (ties allowed: several
    rows per stamp) or a counter that rises on nearly every row -- a heating temperature that
    only climbs repeats its value on most rows and so is no counter.  Epoch seconds that stepped
    back (NTP) are judged once mended, as the axis will be; a small counter is not, since a
    sawtooth temperature (heating, then a drop when the load stops) would mend into one."""
    v = finite(vals)
    if v and statistics.median(v) >= 1e8:
        mended, stepped = mend_steps(v)
        v = [t for t in mended if t is not None] if stepped else v
    if len(v) < 2 or v[-1] <= v[0]:
        return False
    steps = [b - a for a, b in itertools.pairwise(v)]
    if sum(1 for s in steps if s >= 0) < 0.95 * len(steps):
        return False
    if statistics.median(v) >= 1e8:
        return True
    up = [s for s in steps if s > 0]
    if len(up) >= 0.9 * len(steps):
        return _even(up)
    # A counter with ties: a logger that wrote some records twice (one stamp, two rows) steps
    # by its interval or by 0, never back.  It was read as a 1..N "MHz" clock (session 30w); a
    # heating temperature that only climbs also never goes back, but it steps unevenly, and one
    # rising on half its rows by even steps would leave the temperature range within a few
    # hundred rows.
    never_back = all(s >= 0 for s in steps)
    return never_back and len(up) >= max(10, 0.5 * len(steps)) and _even(up)


def _even(steps: list[float]) -> bool:
    """Whether a counter's forward steps are its interval: four in five within a quarter of their
    median.  A sample index, elapsed seconds or an uptime step by the logger's interval (jitter
    and a pause or two aside); a temperature that rises on nearly every row while heating (a
    sawtooth: up, a drop when the load stops, up again) steps by whatever the heat gives, 0.1 to
    0.5 °C, and is no clock."""
    mid = statistics.median(steps)
    return sum(1 for s in steps if abs(s - mid) <= 0.25 * mid) >= 0.8 * len(steps)


def _touches_bounds(vals: Sequence[float | None]) -> bool:
    """A utilisation reaches 0 (idle) or 100 % (saturated); a board's temperature does neither."""
    v = finite(vals)
    return bool(v) and (min(v) <= 1.0 or max(v) >= 99.5)


def _temp_like(vals: Sequence[float | None]) -> bool:
    u = detect_unit("temp", vals)
    if u is None:
        return False
    med = statistics.median(finite(vals)) * u.factor
    return 5.0 <= med <= 150.0  # a running board is warmer than 5 °C


def _freq_like(vals: Sequence[float | None]) -> bool:
    u = detect_unit("freq", vals)
    if u is None or u in FREQ_UNITS[:1]:
        return False
    return statistics.median(finite(vals)) * u.factor >= 100e6  # no board here clocks below 100 MHz


_TEMP_CELL_RE = re.compile(r"^[-+]?\d+(?:[.,]\d+)?\s*(?:'|°|º)?C$")
_PCT_CELL_RE = re.compile(r"^\d+(?:[.,]\d+)?\s*%$")


def _marked_as(cells: list[str]) -> str | None:
    """``temp`` when nearly every cell carries a °C mark (``32'C``, ``45.5°C``), ``load`` when a %
    sign: a headerless column whose cells say their unit needs no guess between the two."""
    if not cells:
        return None
    for kind, pattern in (("temp", _TEMP_CELL_RE), ("load", _PCT_CELL_RE)):
        if sum(1 for x in cells if pattern.match(x.strip())) * 10 >= len(cells) * 9:
            return kind
    return None


def _by_values(cols: list[_Col], rows: Sequence[list[str]], dc: bool, notes: list[str]) -> None:
    """Identify headerless columns from their values; the note lists every decision."""
    said: list[str] = []
    pending = [c for c in cols if c.col.role == "?"]
    time_col = next((c for c in pending if _stamp_share(rows, c.index) >= 0.9), None)
    if time_col is None and len(pending) > 1:  # a lone column is the measurement, not a clock
        time_col = next((c for c in pending if _monotonic_numeric(_values(rows, c.index, dc))), None)
    if time_col is not None:
        time_col.col = Column("t", how="values")
        said.append(f"{time_col.label}=t")
    ambiguous: list[_Col] = []
    pct_columns = sum(
        1
        for c in pending
        if c is not time_col and _marked_as([x for x in column(rows, c.index) if x]) == "load"
    )
    for c in pending:
        if c is time_col:
            continue
        cells = [x for x in column(rows, c.index) if x]
        if cells and all(x.lower().startswith("0x") for x in cells):
            c.col = Column("throttled", how="values")
            said.append(f"{c.label}=throttled (hex flags)")
            continue
        vals = _values(rows, c.index, dc)
        temp, freq = _temp_like(vals), _freq_like(vals)
        load = detect_unit("load", vals) is not None
        marked = _marked_as(cells)
        if marked == "temp" and temp:  # "32'C": the cell says what it is
            name = "cpu" if not any(x.col.role == "temp" for x in cols) else f"temp{c.index + 1}"
            c.col = Column("temp", name, how="values")
            said.append(f"{c.label}=temp ({name}: cells in °C)")
            continue
        if marked == "load":  # a % cell is never a temperature
            if load and pct_columns == 1:
                c.col = Column("load", "cpu", how="values")
                said.append(f"{c.label}=load (cells in %)")
            else:  # several: %cpu %sys %usr ... are no one load
                c.col = Column("")
                said.append(f"{c.label}=? (one of {pct_columns} % columns: which is the CPU load?)")
            continue
        if temp and not load and not freq:  # m°C (48312): beyond any load, so a temperature
            name = "cpu" if not any(x.col.role == "temp" for x in cols) else f"temp{c.index + 1}"
            c.col = Column("temp", name, how="values")
            said.append(f"{c.label}=temp ({name}: values beyond a load)")
            continue
        if freq and not temp:  # a second clock column is some other domain: never max()ed into cpu's
            name = "cpu" if not any(x.col.role == "freq" for x in cols) else f"freq{c.index + 1}"
            c.col = Column("freq", name, how="values")
            said.append(f"{c.label}=freq (values {min(finite(vals)):g}..{max(finite(vals)):g})")
        elif temp or load:
            ambiguous.append(c)
        else:
            c.col = Column("")
    if any(c.col.role == "temp" for c in cols):  # a °C-marked column is the temperature
        for c in ambiguous:
            vals = _values(rows, c.index, dc)
            if detect_unit("load", vals) is not None and _touches_bounds(vals):
                c.col = Column("load", "cpu", how="values")
                said.append(f"{c.label}=load (reaches 0 or 100 %; the temperature is marked °C)")
            else:
                c.col = Column("")
                said.append(f"{c.label}=? (not marked °C like the temperature column)")
    else:
        _resolve_temp_or_load(ambiguous, rows, dc, said)
    if said:
        notes.append(
            "no header: columns identified by their values: " + ", ".join(said) + "; --columns overrides"
        )


def _resolve_temp_or_load(
    amb: list[_Col], rows: Sequence[list[str]], dc: bool, said: list[str], *, lone_is_temp: bool = True
) -> None:
    """0..100 columns: the one that reaches 0 or 100 is a load, one that never does a temperature.

    A lone temperature-like column is the temperature (every thermal log has one); two or more
    that both stay away from the bounds cannot be told apart and stay unidentified.
    """
    if not amb:
        return
    vals = {c.index: _values(rows, c.index, dc) for c in amb}
    temp_like = [c for c in amb if _temp_like(vals[c.index])]
    if len(amb) == 1 and temp_like and lone_is_temp:
        c = amb[0]
        c.col = Column("temp", c.col.name or "cpu", how="values")
        said.append(f"{c.label}=temp (the only temperature-like column)")
        return
    calm = [c for c in temp_like if not _touches_bounds(vals[c.index])]
    if len(calm) == 1:
        calm[0].col = Column("temp", calm[0].col.name or "cpu", how="values")
        said.append(f"{calm[0].label}=temp (never reaches 0 or 100)")
        for c in amb:
            if c is calm[0]:
                continue
            if detect_unit("load", vals[c.index]) is not None and _touches_bounds(vals[c.index]):
                c.col = Column("load", c.col.name or "cpu", how="values")
                said.append(f"{c.label}=load (reaches 0 or 100 %)")
            else:
                c.col = Column("")
        return
    for c in amb:
        c.col = Column("")
        said.append(f"{c.label}=? (temperature or load: cannot tell)")


def _columns_found(t: Table) -> str:
    if t.header:
        return ", ".join(repr(h) for h in t.header)
    first = t.rows[0]
    return ", ".join(f"{i + 1}={c!r}" for i, c in enumerate(first))


def _one_board_power(cols: list[_Col], rows: Sequence[list[str]], dc: bool, notes: list[str]) -> None:
    """Of several columns that each look like the board's power, the largest is the board's and
    the others are rails (the board's input feeds every rail, so it reads highest); before, the
    last column won whatever it measured."""
    powers = [c for c in cols if c.col.role == "power"]
    if len(powers) < 2:
        return

    def unit(c: _Col) -> Unit | None:
        vals = finite(_values(rows, c.index, dc))
        return unit_named("power", c.col.unit) if c.col.unit else detect_unit("power", vals)

    def watts(c: _Col) -> float:
        vals, u = finite(_values(rows, c.index, dc)), unit(c)
        return u.to_stored(statistics.median(vals)) if u is not None and vals else -math.inf

    board = max(powers, key=watts)
    for c in powers:
        if c is not board:
            u = unit(c)  # a rail's unit defaults to mW: keep the one its values gave as power
            c.col = Column("rail", c.label, c.col.unit or (u.name if u else None), c.col.how)
    notes.append(
        f"several power columns: {board.label!r} (the largest) is the board's power; "
        + ", ".join(repr(c.label) for c in powers if c is not board)
        + " kept as rail(s)"
    )


# The widest headerless table whose columns are told apart by their values.  Loggers without a
# header write a few fields (`epoch,temp,MHz`, psutil's 7, a stamp and a dozen thermal zones); a
# wide export whose header was lost holds memory in MB, rails in mV and mW beside the clocks and
# temperatures, and those read as m°C and MHz by value (a tegrastats power-GUI CSV without its
# first line gave 17 "temperatures" and 28 "clocks", session 30w).
MAX_HEADERLESS_COLUMNS = 16


def identify(t: Table, source: str, spec: str | None, notes: list[str]) -> list[_Col]:
    """Every column's role; LogFormatError (columns found + --columns) when nothing is usable."""
    width = len(t.rows[0])
    labels = t.header if t.header else [f"#{i + 1}" for i in range(width)]
    cols = [
        _Col(i, labels[i], from_header(labels[i]) if t.header else Column("?", how="values"))
        for i in range(width)
    ]
    if spec:
        mapping = parse_columns_option(spec)
        lower = [lb.lower() for lb in labels]
        for ref, (role, qual, unit) in mapping.items():
            if ref in lower:
                i = lower.index(ref)
            elif ref.isascii() and ref.isdigit() and len(ref) <= 6 and 1 <= int(ref) <= width:
                i = int(ref) - 1  # ASCII and short: int() of 5 000 digits raised ValueError (session 24)
            else:
                shown = ref if len(ref) <= 60 else ref[:60] + "..."
                raise LogFormatError(
                    f"{source}: --columns names column {shown!r}, which the file does not have; "
                    f"columns found: {_columns_found(t)}"
                )
            cols[i].col = Column(role, qual, unit, how="--columns")
        # A header column the map gives to another column's field is not read too: `temp=2` on a
        # `t,temp,temp` header read both into temp.cpu and kept column 3's (hostile round 25h).
        given = {(c.col.role, c.col.name) for c in cols if c.col.how == "--columns"}
        for c in cols:
            if c.col.role == "?" or (c.col.how != "--columns" and (c.col.role, c.col.name) in given):
                c.col = Column("")
        notes.append("columns mapped by --columns: " + spec)
    elif not t.header:
        if width > MAX_HEADERLESS_COLUMNS:
            first = ", ".join(f"{i + 1}={c!r}" for i, c in enumerate(t.rows[0][:8]))
            raise LogFormatError(
                f"{source}: a table of {width} columns without a header: too many to tell apart by "
                f"their values (first row: {first}, ...); map them with --columns, e.g. "
                "--columns t=1,temp=N,freq=N (positions 1,2,...), or restore the header line"
            )
        _by_values(cols, t.rows, t.decimal_comma, notes)
    else:
        grouped, group_notes = group_columns(labels, t.rows)
        for i, col in grouped.items():
            cols[i].col = col
        notes.extend(group_notes)
        _current_clock_only(cols, notes)
    ambiguous = [c for c in cols if c.col.role == "load?"]
    if ambiguous:
        said: list[str] = []
        has_temp = {c.col.name for c in cols if c.col.role == "temp"}
        undecided = []
        for c in ambiguous:
            if c.col.how == "letter":
                # `CPU f`, `cpu_c`: a letter no load carries; a clock in GHz (1.5) or °F (150)
                # fits its values as well as a load in %: not imported
                c.col = Column("")
                said.append(f"{c.label}=? (clock, °F or count: map it with --columns freq=COL or temp=COL:F)")
                continue
            cells = [r[c.index] for r in t.rows[:200] if r[c.index]]
            vals = _values(t.rows, c.index, t.decimal_comma)
            clock = detect_unit("freq", vals)
            beyond_load = detect_unit("load", vals) is None and not any("%" in x for x in cells)
            no_temp = detect_unit("temp", vals) is None
            if beyond_load and clock is not None and (c.col.name in has_temp or no_temp):
                # `Temp,CPU` with CPU = `vcgencmd measure_clock arm` (1500345728), or netdata's
                # cpufreq chart `cpu0..cpu3` in MHz: beyond any load and any temperature, only
                # a clock fits
                # `Temp,CPU` with CPU = `vcgencmd measure_clock arm` (1500345728): the domain's
                # temperature is named, and the values are beyond any load: its clock
                c.col = Column("freq", c.col.name)
                said.append(f"{c.label}=clock (values beyond a load, in {clock.name})")
                continue
            if any("%" in x for x in cells) or c.col.name in has_temp:
                c.col = Column("load", c.col.name)
                said.append(
                    f"{c.label}=load ({'% cells' if any('%' in x for x in cells) else 'a temperature column exists'})"
                )
            else:
                undecided.append(c)
        # a temperature is named already: the rule for a lone column does not apply
        _resolve_temp_or_load(undecided, t.rows, t.decimal_comma, said, lone_is_temp=not has_temp)
        notes.append("bare domain column(s) identified by their values: " + ", ".join(said))
    _no_running_averages(cols, notes)
    _one_board_power(cols, t.rows, t.decimal_comma, notes)
    if t.header and not spec:
        _no_twice_named(cols, source)
    used = {c.col.role for c in cols}
    if not used & {"temp", "freq", "load", "power", "rail"}:
        raise LogFormatError(
            f"{source}: cannot identify the columns (found: {_columns_found(t)}); map them with "
            "--columns, e.g. --columns t=NAME,temp=NAME,freq=NAME (positions 1,2,... for a headerless file)"
        )
    ignored = [c.label for c in cols if not c.col.role]
    if ignored and t.header:
        # a spreadsheet's trailing delimiters (`time,temp,freq,,`) give columns without a name
        unnamed = sum(1 for name in ignored if not name.strip())
        named = [name for name in ignored if name.strip()]
        if unnamed:
            named.append(f"{unnamed} unnamed")
        notes.append("column(s) not imported (no field for them): " + ", ".join(named))
    elif ignored:
        notes.append("column(s) " + ", ".join(ignored) + " not identified: not imported; --columns maps them")
    return cols


def _no_twice_named(cols: list[_Col], source: str) -> None:
    """Refuse a header naming one imported column twice (``t,temp,temp,freq``): both were read
    into one sensor and the last column's values kept without a word (hostile round 25h)."""
    seen: dict[str, _Col] = {}
    for c in cols:
        key = c.label.strip().casefold()
        if not c.col.role or not key:
            continue
        first = seen.setdefault(key, c)
        if first is not c:
            shown = c.label.strip() if len(c.label.strip()) <= 60 else c.label.strip()[:60] + "..."
            raise LogFormatError(
                f"{source}: the header names two columns {shown!r} (columns {first.index + 1} and "
                f"{c.index + 1}); rename one, or say which is which with --columns (1-based positions, "
                f"e.g. --columns {c.col.role}={first.index + 1})"
            )


_AVERAGE_WORDS = {"avg", "average", "mean"}
_INSTANT_WORDS = {"inst", "instant", "instantaneous", "cur", "current", "now"}


def _no_running_averages(cols: list[_Col], notes: list[str]) -> None:
    """A running average beside the reading it averages is not a reading: tegrastats prints
    ``cur/avg`` and home-made loggers keep both (``GPU inst power, GPU avg power, tot inst power,
    tot avg power``), and the larger of ``tot inst``/``tot avg`` was taken for the board."""

    def words(label: str) -> frozenset[str]:
        return frozenset(w for w in re.split(r"[^a-z0-9]+", label.lower()) if w)

    read = [c for c in cols if c.col.role in ("temp", "freq", "load", "power", "rail")]
    plain = {words(c.label) - _INSTANT_WORDS for c in read if not words(c.label) & _AVERAGE_WORDS}
    dropped = [
        c for c in read if words(c.label) & _AVERAGE_WORDS and words(c.label) - _AVERAGE_WORDS in plain
    ]
    for c in dropped:
        c.col = Column("")
    if dropped:
        notes.append(
            "running average(s) beside their reading not imported: " + ", ".join(c.label for c in dropped)
        )


def _current_clock_only(cols: list[_Col], notes: list[str]) -> None:
    """Of several clock columns of one domain, one named as the current reading (``cur``,
    ``current``, ``now``) is the clock; the others are limits (Glances' ``quicklook_cpu_hz`` is
    the maximum beside ``quicklook_cpu_hz_current``) and were max()ed into it."""
    by_domain: dict[str, list[_Col]] = {}
    for c in cols:
        if c.col.role == "freq":
            by_domain.setdefault(c.col.name, []).append(c)
    for group in by_domain.values():
        current = [c for c in group if set(re.split(r"[^a-z]+", c.label.lower())) & {"cur", "current", "now"}]
        if len(group) < 2 or len(current) != 1:
            continue
        others = [c for c in group if c is not current[0]]
        for c in others:
            c.col = Column("")
        notes.append(
            f"clock {current[0].label} is the current reading; {', '.join(c.label for c in others)} not imported (a limit)"
        )


# A header that says °F over values a running board only reads in °C: below 68 °F (20 °C, a
# room) as a median, a board would sit below room temperature for the whole log, while the same
# numbers (44..47) are an idle board's °C.  A header word is not a unit a tool wrote (`temp_f`
# may be a filtered or final temperature), so the header loses to the values here and the user
# says which: refused, naming both mappings.  Glances' own unit cells and --columns are trusted.
_COLD_FAHRENHEIT_MEDIAN = 68.0


def _refuse_cold_fahrenheit(label: str, vals: array, source: str) -> None:
    """LogFormatError when a header-stated °F column's values would put a running board below 20 °C."""
    med = median_finite(vals)
    if med >= _COLD_FAHRENHEIT_MEDIAN:
        return
    raise LogFormatError(
        f"{source}: column {label!r} is named °F but its values (median {med:g}) would put the board below "
        f"20 °C, and read as °C they are a running board's; say which with --columns temp={label}:C "
        f"(or temp={label}:F)"
    )


def _unit_for(c: _Col, rows: Sequence[list[str]], dc: bool, source: str, notes: list[str]) -> Unit | None:
    role = c.col.role
    if role in ("t", "date", "throttled", ""):
        return None
    quantity = "power" if role == "rail" else role
    vals = _numbers(rows, c.index, dc)  # only its finite values decide
    if not np.isfinite(as_floats(vals)).any():
        return None
    stated = unit_named(quantity, c.col.unit) if c.col.unit else None
    if stated is None and role == "rail":
        stated = unit_named("power", "mW")  # rails are logged in mW (tegrastats, INA3221 hwmon)
    detected = detect_unit(quantity, vals)
    if stated is not None:
        if c.col.how == "header" and stated is FAHRENHEIT and detected is not None:
            _refuse_cold_fahrenheit(c.label, vals, source)
        if detected is None or detected.name == stated.name or c.col.how == "--columns":
            return stated
        med = median_finite(vals)
        if stated.lo <= med <= stated.hi:
            return stated
        notes.append(
            f"{c.label}: named {stated.name} but the values ({med:g}) are {detected.name}: read as {detected.name}"
        )
        return detected
    if detected is None:
        raise unit_error(source, c.label, quantity, vals)
    return detected


# --- time axis --------------------------------------------------------------------------------


_TIME_WORDS = {"s": "seconds", "ms": "milliseconds", "µs": "microseconds", "ns": "nanoseconds"}


def _epoch_unit(median: float) -> Unit | None:
    """The unit of an unlabelled epoch column from its magnitude (an epoch in seconds is ~1.7e9
    today, so 1e11 and up is ms, 1e14 and up µs, 1e17 and up ns); None below 1e11 (seconds)."""
    for floor, name in ((1e17, "ns"), (1e14, "µs"), (1e11, "ms")):
        if median >= floor:
            return unit_named("time", name)
    return None


_SLASH_DATE_RE = re.compile(r"^\d\d?/\d\d?/\d")


def _ambiguous_slash_order(cells: Callable[[], Iterable[str]], notes: list[str], label: str) -> bool:
    """Day- or month-first for slash dates whose days never pass 12: the order under which the
    stamps run forward in the shorter span (a log rarely runs backwards, nor jumps months
    where a day passed); month-first when both agree (the log stays within one day).
    ``cells`` gives the column's cells afresh for each order (none held: session 28n)."""

    def span(first: bool) -> tuple[int, float]:
        back = 0
        prev = lo = hi = None
        for c in cells():
            st = parse_stamp(c, first)
            if st is None:
                continue
            v = st[0]
            if prev is not None and v < prev:
                back += 1
            prev = v
            lo = v if lo is None else min(lo, v)
            hi = v if hi is None else max(hi, v)
        return back, (hi - lo) if lo is not None and hi is not None else 0.0

    day, month = span(True), span(False)
    if day == month:
        notes.append(f"time column {label!r}: slash dates within one day (day/month order does not matter)")
        return False
    first = day < month
    notes.append(
        f"time column {label!r}: slash dates read {'day' if first else 'month'} first (no day past 12; "
        "the other order runs backwards or spans longer)"
    )
    return first


def _dates_with_times(rows: Sequence[list[str]], index: int) -> bool:
    """Whether most of a date column's first 50 filled cells are stamps with a time of day."""
    cells = [c for c in itertools.islice((c for c in iter_column(rows, index) if c), 50)]
    hits = sum(1 for c in cells if _CLOCK_OF_DAY_RE.search(c) and parse_stamp(c))
    return bool(cells) and hits * 2 > len(cells)


def _time_axis(t: Table, cols: list[_Col], notes: list[str], interval_s: float | None) -> array:
    """Each row's time as ``array('d')``, NaN where a row has none (session 28n: 8 B a row where a
    list of ``float | None`` held 32).  A stamp read as NaN is kept as +inf: garbled, as before,
    and still told apart from a row with no time (the two are counted in different notes)."""
    dc = t.decimal_comma
    tcol = next((c for c in cols if c.col.role == "t"), None)
    dcol = next((c for c in cols if c.col.role == "date"), None)
    n = len(t.rows)
    if tcol is None and dcol is not None and _dates_with_times(t.rows, dcol.index):
        # a `date` column holding date *and* time (`2026-01-01 00:00:00`) is the time axis
        # (session 28w: a `date,temp` log was read at an assumed 1 s a row)
        tcol, dcol = dcol, None
    if tcol is None:
        step = interval_s or DEFAULT_INTERVAL_S
        how = "given" if interval_s else "assumed; pass --interval"
        notes.append(f"no time column: one row per {step:g} s ({how})")
        return array("d", (i * step for i in range(n)))

    def stamp_cells() -> Iterator[str]:
        cells = iter_column(t.rows, tcol.index)
        if dcol:
            return (d + " " + c for d, c in zip(iter_column(t.rows, dcol.index), cells, strict=True))
        return cells

    # the numbers first, from the cells one at a time: a big table's stamps are not held as
    # strings beside the axis being built (the cells are cut again for stamps that are no numbers)
    nums = array("d")
    read = 0
    for c in stamp_cells():
        v = number(c, dc)
        if v is None:
            nums.append(math.nan)
            continue
        read += 1
        nums.append(math.inf if math.isnan(v) else v)
    if read * 2 > n:
        a = as_floats(nums)
        vals = a[np.isfinite(a)]
        med = median_of(vals) if len(vals) else 0.0
        del vals, a
        unit = unit_named("time", tcol.col.unit) if tcol.col.unit else None
        if unit is None:
            unit = _epoch_unit(med)
        kind = "epoch" if med * (unit.factor if unit else 1.0) >= 1e8 else "elapsed"
        if unit is not None:
            notes.append(f"time column {tcol.label!r}: {kind} {_TIME_WORDS[unit.name]}")
        elif kind == "epoch":
            notes.append(f"time column {tcol.label!r}: epoch seconds")
        else:
            f = _span_of_date_lines(t, tcol.label, nums, notes)
            if f is not None:
                _scale(nums, f)
                return nums
            if excel_days.serial_days(nums, tcol.label):  # 46000.50002: a sheet's date, not 46000 s (33w)
                notes.append(excel_days.note(tcol.label, nums))
                _scale(nums, excel_days.SECONDS_PER_DAY)
                return nums
            notes.append(
                f"time column {tcol.label!r} is not an epoch: taken as seconds (elapsed or loop counter)"
            )
        _scale(nums, unit.factor if unit else 1.0)  # inf: plausible_times drops it
        return nums
    del nums
    # the cells are cut afresh from the rows for each pass, and each stamp read into 9 B (its
    # seconds and its kind): a list of the cells and one of (seconds, kind) tuples held ~150 B a
    # row (session 28n)
    day_first = slash_day_first(stamp_cells())
    if day_first is None and any(_SLASH_DATE_RE.match(c.strip()) for c in stamp_cells()):
        day_first = _ambiguous_slash_order(stamp_cells, notes, tcol.label)
    elif day_first is not None:
        notes.append(f"time column {tcol.label!r}: dates read {'day' if day_first else 'month'} first")
    secs = array("d", [math.nan]) * n
    stamp_kind = bytearray(n)  # 0: no stamp, 1: a time of day, 2: a date and time
    for i, c in enumerate(stamp_cells()):
        st = parse_stamp(c, day_first)
        if st is not None:
            secs[i] = st[0]
            stamp_kind[i] = 2 if st[1] else 1
    kinds = {k == 2 for k in set(stamp_kind) if k}
    # Times of day listed newest first (a netdata export, a sorted sheet) step back at every row,
    # which DayClock cannot place; placed from the oldest row, they are an axis running backwards
    # that the caller turns round (newest_first), midnight included.
    reverse = kinds == {False} and _days_run_backwards(secs, stamp_kind)
    order = range(n - 1, -1, -1) if reverse else range(n)
    clock = DayClock(back=not reverse)  # read forward, a step back is a step (clocksteps), not unplaceable
    out = secs  # filled in place: row i is read before it is written
    for i in order:
        k = stamp_kind[i]
        if k:
            st0 = secs[i]
            v = st0 if k == 2 else clock.seconds(st0)
            # None: a time of day that cannot be placed (no time, as before)
            out[i] = math.nan if v is None else math.inf if math.isnan(v) else v
    if kinds == {False}:
        notes.append(f"time column {tcol.label!r}: time of day only (midnight wraps counted)")
    elif kinds == {True}:
        notes.append(f"time column {tcol.label!r}: date and time (log's local clock)")
    return out


def _scale(times: array, f: float) -> None:
    """Every time times ``f``, in place (NaN, no time, stays NaN; inf stays inf)."""
    if f != 1.0:
        a = as_floats(times)
        a *= f


# A counter whose steps the date lines make shorter than a millisecond or longer than an hour
# is no loop's counter of those dates: left as seconds.
_COUNTER_FACTORS = (1e-3, 3600.0)


def _span_of_date_lines(t: Table, label: str, nums: array, notes: list[str]) -> float | None:
    """Seconds per unit of a unitless, non-epoch time column, from the `date` lines a loop script
    wrote before its first row and after its last (``date; for i in ...; do echo $i,...; sleep 1;
    done; date``), when the column disagrees with them: a loop counter (0, 1, 2 ...) is no
    second when each pass takes longer than its sleep (720 rows over 759 s). None (the column is
    taken as seconds) when there are no such lines, the column does not run forward, or it agrees
    with them within 2 % or 2 s."""
    if t.date_before is None or t.date_after is None:
        return None
    span = t.date_after - t.date_before
    vals = [v for v in nums if math.isfinite(v)]  # a loop's counter: a short run of rows
    if span <= 0 or len(vals) < 2 or any(b < a for a, b in itertools.pairwise(vals)):
        return None
    steps = sorted(b - a for a, b in itertools.pairwise(vals) if b > a)
    if not steps:
        return None
    # the last row is printed one pass before the closing `date`: the dates hold one more step
    counted = vals[-1] - vals[0] + steps[len(steps) // 2]
    if abs(span - counted) <= max(2.0, 0.02 * counted):
        return None
    f = span / counted
    if not _COUNTER_FACTORS[0] <= f <= _COUNTER_FACTORS[1]:
        return None
    notes.append(
        f"time column {label!r} runs {vals[0]:g}..{vals[-1]:g} but the date lines before and after "
        f"the rows span {span:g} s: read as a loop counter, {f:.4g} s a unit (the dates' span "
        "spread over its steps)"
    )
    return f


def _days_run_backwards(secs: array, kind: bytearray) -> bool:
    """Whether times of day run newest first: each step taken as the shorter way round the
    clock (23:59:59 -> 00:00:00 is 1 s forward, 00:00:00 -> 23:59:59 is 1 s back).  ``secs``
    holds each row's stamp where ``kind`` is not 0 (no stamp)."""
    stamped = (t for t, k in zip(secs, kind, strict=True) if k)
    steps = ((b - a + 43200.0) % 86400.0 - 43200.0 for a, b in itertools.pairwise(stamped))
    return newest_first(array("d", itertools.accumulate(steps, initial=0.0)))


def _typical_step(times: Sequence[float]) -> float:
    """The median step forward (0.0 without one); only a tied last stamp needs it, so a big
    axis's steps are not held as floats for every log."""
    positive = [b - a for a, b in itertools.pairwise(times) if b > a]
    return statistics.median(positive) if positive else 0.0


@overload
def spread_ties(times: array, within_s: float | None = None) -> tuple[array, int]: ...
@overload
def spread_ties(times: list[float], within_s: float | None = None) -> tuple[list[float], int]: ...
def spread_ties(times: list[float] | array, within_s: float | None = None) -> tuple[list[float] | array, int]:
    """Rows sharing one stamp spread evenly towards the next stamp; (times, rows moved).

    A 1 s-resolution logger writing faster than once a second, or a script stamping a batch of
    readings at once, repeats the stamp; keeping them stacked would give zero time steps.
    ``within_s`` spreads them over that span instead (the stamp's resolution), for logs whose
    ties are two writers at one moment rather than a fast logger (sbc-bench's paired monitors).
    An ``array('d')`` with no tie is returned as itself (session 28n: a big axis is not copied).
    """
    if isinstance(times, array):
        a = as_floats(times)
        tie = len(a) > 1 and bool((a[1:] == a[:-1]).any())
        del a
        if not tie:
            return times, 0
    out: list[float] | array = array("d", times) if isinstance(times, array) else list(times)
    moved = 0
    i = 0
    while i < len(out):
        j = i
        while j + 1 < len(out) and times[j + 1] == times[i]:
            j += 1
        k = j - i + 1
        if k > 1:
            span = (
                within_s
                if within_s is not None
                else (times[j + 1] - times[i])
                if j + 1 < len(times)
                else _typical_step(times)  # the last stamp's rows span one step like every other's
            )
            if span > 0:
                for m in range(1, k):
                    out[i + m] = round(times[i] + span * m / k, 6)
                moved += k - 1
        i = j + 1
    return out, moved


# --- parse ------------------------------------------------------------------------------------


def _line_span(text: str, part: tuple[str, str, int]) -> tuple[int, int]:
    """(first, last) line numbers of another format's run of lines (``Table.other_part``); first is 0
    when its line is not found."""
    first, last, _ = part
    a = line_number(text, first)
    at = text.find(first)
    return a, (a + text.count("\n", at, text.find(last, at)) if a else 0)


def parse_text(
    text: str,
    source: str = "<text>",
    *,
    columns: str | None = None,
    interval_s: float | None = None,
    fmt: str = FMT,
    table: Table | None = None,
) -> ImportedLog:
    """Parse a delimited table log (see module doc)."""
    t = table if table is not None else sniff(text)
    # where another format's lines sit, in line numbers, before the text goes (refused below)
    other_lines = _line_span(text, t.other_part) if t is not None and t.other_part is not None else (0, 0)
    del text  # the rows are packed in `t`: a caller that handed the text over frees it (session 26m)
    if t is None:
        raise no_samples_error(source, "table of at least two columns")
    notes: list[str] = []
    delim_name = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe", " ": "whitespace"}.get(
        t.delimiter
    )
    if delim_name:
        notes.append(f"{delim_name}-separated table" + (", decimal commas" if t.decimal_comma else ""))
    elif t.notes:
        notes.extend(t.notes)
    else:
        notes.append("one value per line")
    if t.grouped:
        names = [t.header[i] if t.header and i < len(t.header) else f"#{i + 1}" for i in t.grouped]
        notes.append(f"thousands separators in {', '.join(names)} (1,500 / 1.234,5 / 1 500): removed")
    if t.preamble:
        notes.append(f"{t.preamble} line(s) before the table skipped (title/prose)")
    if t.repeated_headers:
        notes.append(f"header repeated {t.repeated_headers} time(s) in the file (logger restarted): ignored")
    if columns is None:
        _refuse_split_decimals(t, source)
        if t.header is None and t.delimiter == "," and t.preamble:
            refuse_split_field(t.last_preamble, t.rows[:20], source)  # an unquoted list field
    if t.other_part is not None:
        first, _, count = t.other_part
        a, b = other_lines
        span = f"lines {a}-{b}" if a and b > a else "the lines from"
        raise LogFormatError(
            f"{source}: the format changes within the file: {span} ({first[:60]!r}), {count} lines "
            f"in one shape, are no rows of the table's {t.rows.width} columns and would be "
            "dropped; split the file where the format changes "
            f"(e.g. sed -n '{a},{b}p' FILE > part.log, sed '{a},{b}d' FILE > rest.csv) "
            "and import each part"
            if a and b > a
            else f"{source}: the format changes within the file: from the line {first[:60]!r} on, "
            f"{count} lines in one shape are no rows of the table's {t.rows.width} columns and "
            "would be dropped; split the file where the format changes and import each part"
        )
    cols = identify(t, source, columns, notes)
    dc = t.decimal_comma
    if t.header is None and columns is None:  # a unit change with no header to name its column
        pieced = [c for c in cols if c.col.role in ("temp", "freq")]
        t.rows = rescale_pieces(
            t.rows,
            [(c.index, c.col.role, c.label) for c in pieced],
            [as_floats(_numbers(t.rows, c.index, dc)) for c in pieced],
            dc,
            notes,
        )
    for c in cols:
        c.unit = _unit_for(c, t.rows, dc, source, notes)
    stated = [f"{c.label}: {c.unit.name}" for c in cols if c.unit is not None]
    if stated:
        notes.append("units: " + ", ".join(stated))
    # the axis as array('d'), NaN for a row without a time, from here to the store (session 28n)
    raw_times = _time_axis(t, cols, notes, interval_s)
    times = plausible_times(raw_times)  # a garbled stamp must not make every later row "earlier"
    if newest_first(times):
        t.rows.reverse()
        raw_times.reverse()
        notes.append(NEWEST_FIRST_NOTE)
    del times
    raw_times, step_notes = mend_steps(raw_times)  # NTP steps, 1970 boots, restarts: shifted, said
    notes.extend(step_notes)
    times = plausible_times(raw_times)
    raw = as_floats(raw_times)
    unplaced = int(np.count_nonzero(np.isnan(raw)))
    garbled = int(np.count_nonzero(np.isnan(as_floats(times)))) - unplaced
    del raw
    if garbled:
        notes.append(
            f"{garbled} row(s) with a NaN, infinite or garbled time (over a year from the others) skipped"
        )
    if unplaced:
        # counted in skipped_lines only, they were dropped without a word
        notes.append(
            f"{unplaced} row(s) whose time could not be read or placed skipped "
            "(an unreadable stamp, or a time of day more than 12 h back)"
        )
    del raw_times  # only `times` is read from here on
    kept_t = array("d")
    # each kept row straight into columns (no dicts or sample per row held), its time kept only
    # in kept_t: the builder is given the final axis
    rows = ColumnBuilder(timed=False)
    power_notes: set[str] = set()
    skipped = t.malformed
    backwards = 0
    empty: dict[str, int] = {}
    throttled_rows = flagged = 0
    # the packed rows are freed chunk by chunk once a row is kept (only the refusal below, when
    # none is, reads them again): they no longer sit under the columns built (session 27m)
    for r, tm in zip(t.rows.drain(lambda: len(rows) > 0), times, strict=True):
        if tm != tm:  # NaN: no time, or a garbled one
            skipped += 1
            continue
        parsed = _row(r, cols, dc, empty)
        if parsed is None:
            skipped += 1
            continue
        (temps, freqs, loads, power, rails), thr = parsed
        if kept_t and tm < kept_t[-1]:
            backwards += 1
            skipped += 1
            continue
        if thr is not None:
            throttled_rows += 1
            flagged += 1 if thr & PI_THROTTLE_NOW else 0
        kept_t.append(tm)
        pw = power if power is not None else board_power(rails, power_notes)
        rows.append(0.0, (temps, freqs, loads, rails or _NO_VALUES, _NO_VALUES), pw)
    del times
    if not len(rows):
        raise _no_rows_error(source, cols, t.rows)
    if backwards:
        notes.append(f"{backwards} row(s) earlier than the previous row skipped (clock stepped back)")
    nonfinite = empty.pop("nan", 0)
    if nonfinite:
        notes.append(f"{nonfinite} NaN/inf value(s) not imported (bad data, not a measurement)")
    for key, k in sorted(empty.items()):
        label, what = key.split("\t")
        notes.append(f"{k} row(s) with an empty {label} field: no {what} for them")
    if throttled_rows:
        notes.append(
            f"throttled flags: {flagged} of {throttled_rows} row(s) capped/throttled now (bits 0x2/0x4/0x8); "
            "not stored as a field, the logged clock shows the effect"
        )
    kept_t, tied = spread_ties(kept_t)
    if tied:
        notes.append(
            f"{tied} row(s) shared a timestamp with the previous row: spread evenly up to the next stamp"
        )
    # the axis is final only now (ties spread, from 0): rebased straight into the store's array
    samples = rows.finish(rebased(kept_t))
    return ImportedLog(fmt, source, None, samples, skipped, tuple(notes + sorted(power_notes)))


def _no_rows_error(source: str, cols: list[_Col], rows: Sequence[list[str]]) -> LogFormatError:
    """Why no row was kept: the value columns that hold nothing (empty or an exporter's `null`)
    in every row are named, since the generic cause would hide that the log has no readings."""
    values = [c for c in cols if c.col.role not in ("", "t", "date")]
    blank = [
        c for c in values if rows and all(not x or x.lower() in _GAP_WORDS for x in column(rows, c.index))
    ]
    if not values or len(blank) < len(values):
        return no_samples_error(source, "usable table rows")
    named = ", ".join(repr(c.label) for c in blank)
    return LogFormatError(
        f"{source}: column(s) {named} empty or null in every row: the log holds no readings; "
        "export a time range with data, or map another column with --columns"
    )


def _what(col: Column) -> str:
    noun = {"temp": "temperature", "freq": "clock", "load": "load", "power": "power", "rail": "rail power"}
    return f"{col.name} {noun.get(col.role, col.role)}".strip()


def _row(
    r: list[str], cols: list[_Col], dc: bool, empty: dict[str, int]
) -> (
    tuple[
        tuple[dict[str, float], dict[str, int], dict[str, float], float | None, dict[str, float]], int | None
    ]
    | None
):
    temps: dict[str, float] = {}
    freqs: dict[str, int] = {}
    load_parts: dict[str, list[float]] = {}
    clocks: dict[str, list[float]] = {}
    rails: dict[str, float] = {}
    power: float | None = None
    thr: int | None = None
    for c in cols:
        role = c.col.role
        if role in ("", "t", "date"):
            continue
        cell = r[c.index]
        if not cell or cell.lower() in _GAP_WORDS:
            key = f"{c.label}\t{_what(c.col)}"
            empty[key] = empty.get(key, 0) + 1
            continue
        if role == "throttled":
            if kv := _KEYVAL_RE.match(cell):
                # `vcgencmd get_throttled` pasted whole (`throttled=0x50005`, the Tom's Hardware
                # benchmark script's `$(vcgencmd get_throttled)`): every row was taken as damaged
                cell = kv.group(1).strip()
            if cell.lower() in _FLAG_WORDS:  # a yes/no "throttled now" flag, not the bit mask
                thr = PI_THROTTLE_NOW if _FLAG_WORDS[cell.lower()] else 0
                continue
            if cell.strip() == "1":
                # a bare 1 is a yes flag (a script's `0x20002 -> 1`), not the mask 0x1: the firmware
                # sets a "has occurred" bit (16-19) with every "now" bit, so get_throttled never
                # reads exactly 1; taken as under-voltage, every throttled row was counted as not
                thr = PI_THROTTLE_NOW
                continue
            try:
                thr = int(cell, 0)
            except ValueError:
                return None
            continue
        if cell.upper() in ("OFF", "N/A", "NA", "-", "--"):
            continue  # jtop and friends print OFF for a power-gated engine
        v = number(cell, dc)
        if v is None:
            return None  # a non-number in a number column: the row is damaged
        if c.unit is None:
            continue
        v = c.unit.to_stored(v)
        if not math.isfinite(v):  # NaN/inf, or a finite 1e308 MHz that overflows once in Hz
            empty["nan"] = empty.get("nan", 0) + 1
            continue
        if role == "temp":
            temps[c.col.name or "cpu"] = round(v, 6)
        elif role == "freq":
            name = c.col.name or "cpu"
            freqs[name] = max(freqs.get(name, 0), round(v))
        elif role == "load":
            name = c.col.name or "cpu"
            load_parts.setdefault(name, []).append(v)
            tc = tegra_cell(cell)
            if tc is not None and tc[1] is not None:  # the clock after tegrastats' "@"
                clocks.setdefault(name, []).append(tc[1])
        elif role == "power":
            power = round(v, 6)
        elif role == "rail":
            rails[c.col.name] = round(v, 6)
    loads = {k: round(sum(v) / len(v), 9) for k, v in load_parts.items()}
    for name, mhz in clocks.items():
        freqs.setdefault(name, round(max(mhz) * 1e6))
    if not (temps or freqs or loads or power is not None or rails):
        return None
    return (temps, freqs, loads, power, rails), thr


__all__ = ["FMT", "Table", "detect", "identify", "looks_like", "number", "parse_text", "sniff", "spread_ties"]
