"""A table log whose layout changes midway, read part by part and said (session 28w).

Loggers get edited and restarted into the same file: the first 10 000 rows are `date,temp`
and the last 300 gain five columns under a new header; a restart writes its header again with
the columns in another order; another tool's lines land between the rows. The table reader
takes one width and one header for the whole file, so such a file was misread (the reordered
columns read under the first header: a clock stored as a temperature) or its other part
dropped as "malformed" lines with no line named.

The rule, decided on the whole file before the table is read:

* the file is cut into *segments*: a header line followed by rows of its width, or a run of at
  least ``MIN_SEGMENT_ROWS`` rows of one width that differs from the rows before it;
* segments whose headers name one same quantity (a temperature, clock, load or power column
  by :func:`~thermogov.importers.columns.from_header`: ``cpu_temp`` and ``CPU Temperature (°C)``
  are one) are joined into one table under the union of their columns, each row's cells moved
  under its own column's name; a column one part lacks is empty there (the table reader says
  how many rows have it empty);
* of the groups that do not join, the one with the most rows is read; every other segment is
  left out, said in one note per part with its line numbers and the `sed` that cuts it out;
* a run of at least ``MIN_SEGMENT_ROWS`` lines of another shape after the table's first row
  (records with a time of day and a number: another tool's output) is left out and said the
  same way, instead of counted as malformed lines (or refusing the file, session 27w).

A file with one segment and no such run is handed on unchanged (the same text object).
"""

from __future__ import annotations

import itertools
import math
import re
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from thermogov.importers.cells import lines_of
from thermogov.importers.columns import from_header
from thermogov.importers.quantities import Unit, detect_unit

MIN_SEGMENT_ROWS = 3  # rows of one new width (or lines of another shape) that make a part
_MAX_RUNS = 20_000  # a file that changes shape more often is left to the table reader
_VALUE_ROLES = ("temp", "freq", "load", "power", "rail")
_LETTER_RE = re.compile(r"[A-Za-z]")
_COMMENT = ("#", "//", "%")


@dataclass
class _Segment:
    header: list[str] | None
    width: int
    first: int  # line number of its header (or first row)
    last: int = 0
    rows: int = 0
    header_lines: list[int] = field(default_factory=list)


def _delimiter(text: str) -> str | None:
    probe = [ln for ln in _head(text, 400)]
    if not probe:
        return None
    for d in (",", ";", "\t"):
        if sum(1 for ln in probe if d in ln) * 2 > len(probe):
            return d
    return None


def _head(text: str, n: int) -> list[str]:
    out: list[str] = []
    for ln in lines_of(text):
        s = ln.strip()
        if s and not s.startswith(_COMMENT):
            out.append(s)
            if len(out) >= n:
                break
    return out


def _key(name: str) -> tuple[str, ...]:
    """What a column holds: (role, name) when its header names a quantity (`cpu_temp` and
    `CPU Temperature (°C)` are one), else its name."""
    col = from_header(name)
    if col.role:
        return (col.role, col.name or "")
    return ("", name.strip().lower())


def _unit(name: str) -> str:
    return from_header(name).unit or ""


def _match(names: list[str], header: list[str]) -> list[int | None]:
    """For each column of ``header``, the index in ``names`` of the column that holds the same
    quantity (same key, and the same stated unit where both state one; the exact name first),
    each taken once; None where none does."""
    taken: set[int] = set()
    out: list[int | None] = []
    for n in header:
        k, u = _key(n), _unit(n)
        exact = [i for i, m in enumerate(names) if i not in taken and m.strip().lower() == n.strip().lower()]
        same = [
            i
            for i, m in enumerate(names)
            if i not in taken and _key(m) == k and (not u or not _unit(m) or _unit(m) == u)
        ]
        hit = next(iter(exact or same), None)
        if hit is not None:
            taken.add(hit)
        out.append(hit)
    return out


def _joinable(a: list[str], b: list[str]) -> bool:
    """Two headers name one same quantity (a temperature, clock, load or power column matched
    by :func:`_match`)."""
    return any(i is not None and _key(n)[0] in _VALUE_ROLES for n, i in zip(b, _match(a, b), strict=True))


def join_layouts(text: str, source: str = "<text>") -> tuple[str, list[str]]:
    """(text to read, notes): ``text`` itself when the file has one layout (see module doc)."""
    from thermogov.importers import table  # the table reader imports nothing from here
    from thermogov.importers.table import line_shape

    delim = _delimiter(text)
    if delim is None:
        return text, []
    # one pass: runs of (kind, width, header) with their first/last line numbers
    runs: list[list] = []  # [kind, width, header or None, first, last, count, first text, its shape]
    for no, raw in enumerate(lines_of(text), 1):
        ln = raw.strip()
        if not ln or ln.startswith(_COMMENT):
            continue
        prev = runs[-1] if runs else None
        if (
            prev is not None
            and prev[0] == "row"
            and ln[:1].isdigit()
            and '"' not in ln
            and ln.count(delim) == prev[1] - 1
            and line_shape(ln) == prev[7]
        ):
            # the same shape as the row run before it (digits as 0): a row of that run, without
            # the cell tests (most lines of a table; the pass cost 16 % of a read)
            prev[4] = no
            prev[5] += 1
            continue
        cells = table._split(ln, delim)
        w = len(cells)
        if w >= 2 and table._is_data(cells, False):
            kind, hdr = "row", None
        elif w >= 2 and all(_LETTER_RE.search(c) for c in cells):
            kind, hdr = "head", tuple(cells)
        else:
            kind, hdr, w = ("data" if table.data_like(ln) else "text"), None, 0
        if runs and runs[-1][0] == kind and runs[-1][1] == w and runs[-1][2] == hdr and kind != "head":
            runs[-1][4] = no
            runs[-1][5] += 1
            continue
        if kind == "data" and runs and runs[-1][0] == "data":  # another tool's records: one run
            runs[-1][4] = no
            runs[-1][5] += 1
            continue
        runs.append([kind, w, hdr, no, no, 1, ln, line_shape(ln)])
        if len(runs) > _MAX_RUNS:
            return text, []
    segs: list[_Segment] = []
    others: list[tuple[int, int, int, str]] = []  # another shape's lines after the first row
    cur: _Segment | None = None
    for i, (kind, w, hdr, first, last, count, *_) in enumerate(runs):
        nxt = runs[i + 1] if i + 1 < len(runs) else None
        if kind == "head":
            if nxt is not None and nxt[0] == "row" and nxt[1] == w:
                if cur is not None and cur.header is not None and list(hdr) == cur.header:
                    cur.header_lines.append(first)  # a restart's same header: one segment
                    continue
                cur = _Segment(list(hdr), w, first, first, header_lines=[first])
                segs.append(cur)
            continue
        if kind == "row":
            if cur is not None and w == cur.width:
                cur.last, cur.rows = last, cur.rows + count
            elif cur is None or count >= MIN_SEGMENT_ROWS:
                cur = _Segment(None, w, first, last, count)
                segs.append(cur)
            continue
        if kind == "data" and count >= MIN_SEGMENT_ROWS and cur is not None:
            others.append((first, last, count, runs[i][6]))
    headless = not any(s.header is not None for s in segs)
    restarted = any(len(s.header_lines) > 1 for s in segs)
    one_headed = len(segs) == 1 and segs[0].header is not None
    if (len(segs) < 2 or headless) and not others and not restarted and not one_headed:
        # rows of several widths and no header: the readers decide by value as before (the
        # psutil logger's 2- and 7-field rows are one layout, rpi_csv)
        return text, []
    # groups: segments that share a value quantity, in file order
    group = [0] * len(segs) if headless else list(range(len(segs)))
    for a in range(len(segs)):
        for b in range(a):
            ha, hb = segs[a].header, segs[b].header
            if ha is not None and hb is not None and _joinable(ha, hb):
                ga, gb = group[a], group[b]
                group = [gb if g == ga else g for g in group]
    sizes: dict[int, int] = {}
    for s, g in zip(segs, group, strict=True):
        sizes[g] = sizes.get(g, 0) + s.rows
    chosen = max(sizes, key=lambda g: (sizes[g], -g))
    kept = [s for s, g in zip(segs, group, strict=True) if g == chosen]
    read_span = f"lines {kept[0].first}-{kept[-1].last}"
    notes: list[str] = []
    dropped: list[tuple[int, int]] = []
    for s, g in zip(segs, group, strict=True):
        if g == chosen:
            continue
        what = f"header {delim.join(s.header)[:60]!r}" if s.header else "no header"
        notes.append(
            f"lines {s.first}-{s.last} ({s.rows} rows of {s.width} columns, {what}): another layout "
            f"whose columns name none of the quantities read ({read_span}): not read; import them "
            f"alone (e.g. sed -n '{s.first},{s.last}p' FILE > part.csv)"
        )
        dropped.append((s.first, s.last))
    kept_rows = sum(s.rows for s in kept)
    for first, last, count, line in others:
        if any(a <= first <= b for a, b in dropped) or count >= kept_rows:
            # the longest run is read: a part in another format as long as the table is not
            # left out for it (the table reader refuses the file naming both, session 26w)
            continue
        notes.append(
            f"lines {first}-{last} ({count} lines like {line[:50]!r}): another format inside the table, "
            f"not read; import them alone (e.g. sed -n '{first},{last}p' FILE > part.log)"
        )
        dropped.append((first, last))
    union: list[str] = []
    maps: dict[int, list[int] | None] = {}
    headed = [s for s in kept if s.header is not None]
    for s in headed:
        hits = _match(union, s.header or [])
        for j, (name, hit) in enumerate(zip(s.header or [], hits, strict=True)):
            if hit is None:
                hits[j] = len(union)
                union.append(name)
        maps[s.first] = [h for h in hits if h is not None]
    for s in kept:
        if s.header is None:
            maps[s.first] = None
    if len(headed) > 1:
        base = headed[0]
        for s in headed[1:]:
            had = set(maps[s.first] or [])
            missing = [n for i, n in enumerate(union) if i not in had]
            how = "columns matched by name"
            if missing:
                how += f"; {', '.join(missing)} empty in its rows"
            notes.append(
                f"lines {s.first}-{s.last}: the header changes to {delim.join(s.header or [])[:60]!r} "
                f"({s.width} columns; logger edited or restarted): joined to lines "
                f"{base.first}-{base.last} ({how})"
            )
        had = set(maps[base.first] or [])
        extra = [n for i, n in enumerate(union) if i not in had]
        if extra:
            notes.append(
                f"lines {base.first}-{base.last}: no {', '.join(extra)} column: those fields empty there"
            )
    scales = _part_units(text, delim, kept, maps, union, notes)
    if not dropped and len(kept) == 1 and len(headed) <= 1 and not scales:
        return text, notes
    out: list[str] = []
    starts = {s.first: s for s in kept}
    seg: _Segment | None = None
    wrote_header = False
    stop = max(s.last for s in kept)
    for no, raw in enumerate(lines_of(text), 1):
        if no in starts:
            seg = starts[no]
        if any(a <= no <= b for a, b in dropped):
            continue
        if seg is None or no > stop or not raw.strip():
            if seg is None or no > stop:
                out.append(raw)
            continue
        if no > seg.last and not any(s.first <= no <= s.last for s in kept):
            out.append(raw)  # a stray line between parts: the table reader counts it
            continue
        if no in seg.header_lines:
            if not wrote_header and union:
                out.append(delim.join(union))
                wrote_header = True
            continue
        m = maps.get(seg.first)
        scale = _scale_at(scales, no)
        cells = table._split(raw.strip(), delim)
        if m is None or len(cells) != seg.width or (m == list(range(len(union))) and not scale):
            out.append(raw)
            continue
        row = [""] * len(union)
        for j, c in enumerate(cells):
            row[m[j]] = _quoted(c, delim)
        for j, factor in scale.items():
            row[j] = _scaled(row[j], factor)
        out.append(delim.join(row))
    del source
    return "\n".join(out) + "\n", notes


_QUANTITY = {"temp": "temp", "freq": "freq", "power": "power", "rail": "power"}


@dataclass
class _Part:
    """Rows between two writes of a header (a logger's restart) in a kept segment, or a piece of
    such rows cut where a temperature or clock changes unit with no header (session 30w)."""

    first: int
    last: int
    seg: int  # first line of its segment (the key of ``maps``)
    values: dict[int, array] = field(default_factory=dict)  # union column -> its numbers
    times: tuple[float, float] | None = None  # its first and last time (numbers or stamps' seconds)
    whole: int = 0  # first line of the part between headers it is a piece of


def _parts(kept: list[_Segment]) -> list[_Part]:
    out: list[_Part] = []
    for s in kept:
        starts = sorted({s.first, *s.header_lines})
        for k, a in enumerate(starts):
            b = starts[k + 1] - 1 if k + 1 < len(starts) else s.last
            if b >= a:
                out.append(_Part(a, b, s.first, whole=a))
    return out


def _rows(
    text: str, delim: str, kept: list[_Segment], maps: dict[int, list[int] | None], parts: list[_Part]
) -> Iterator[tuple[int, _Part, list[str], list[int]]]:
    """(line number, its part, its cells, their union columns) for every row of the kept parts."""
    by_start = {p.first: p for p in parts}
    widths = {s.first: s.width for s in kept}
    heads = {h for s in kept for h in s.header_lines}
    end = parts[-1].last
    cur: _Part | None = None
    for no, raw in enumerate(lines_of(text), 1):
        cur = by_start.get(no, cur)
        if no > end:
            return
        if cur is None or no > cur.last:
            continue
        ln = raw.strip()
        if not ln or ln.startswith(_COMMENT) or no in heads:
            continue
        cells = ln.split(delim) if '"' not in ln else _split_cells(ln, delim)
        if len(cells) != widths[cur.seg]:
            continue
        yield no, cur, cells, maps.get(cur.seg) or list(range(len(cells)))


def _number_of(cell: str) -> float | None:
    try:
        v = float(cell)
    except ValueError:
        return None
    return v if v == v and abs(v) != float("inf") else None


def _part_units(
    text: str,
    delim: str,
    kept: list[_Segment],
    maps: dict[int, list[int] | None],
    union: list[str],
    notes: list[str],
) -> list[tuple[int, int, dict[int, float]]]:
    """Each value column's unit told by its values in each part (a restart, a joined segment, a
    run after a jump of magnitude) of the read table; where a part's unit differs from the one of
    the part with most values (the column's governing unit: m°C after °C, MHz after kHz), its cells
    are read in their own unit, scaled to the governing one and said with their lines (session
    29w; a change with no header, session 30w). Returns ``(first, last, {union column: factor})``
    for each part whose cells are scaled."""
    parts = _parts(kept)
    if not parts or not union:
        return []
    cols = {j: _QUANTITY[_key(n)[0]] for j, n in enumerate(union) if _key(n)[0] in _QUANTITY}
    t_col = next((j for j, n in enumerate(union) if _key(n)[0] == "t"), None)
    if not cols and t_col is None:
        return []
    if len(parts) > 1:  # a load is compared part to part, never split inside one (session 30w)
        cols.update((j, "load") for j, n in enumerate(union) if _key(n)[0] == "load")
    jumpy = {j for j, q in cols.items() if q in _SPLIT_BY_MAGNITUDE}
    cuts = _magnitude_cuts(_rows(text, delim, kept, maps, parts), jumpy) if jumpy else []
    if len(parts) < 2 and not cuts:
        return []  # one part, one unit: no values held (a plain table pays one scan only)
    parts = _cut(parts, cuts)
    for _no, cur, cells, m in _rows(text, delim, kept, maps, parts):
        for j, c in enumerate(cells):
            u = m[j] if j < len(m) else None
            if u is None:
                continue
            if u == t_col and (t := _seconds(c)) is not None:
                cur.times = (cur.times or (t, t))[0], t
            if u in cols and (v := _number_of(c)) is not None:
                if u not in cur.values:
                    cur.values[u] = array("d")
                cur.values[u].append(v)
    scales: dict[int, dict[int, float]] = {}
    for j, quantity in cols.items():
        found: list[tuple[_Part, Unit]] = []
        for p in parts:
            if (unit := detect_unit(quantity, p.values.get(j, array("d")))) is not None:
                found.append((p, unit))
        if len(found) < 2:
            continue
        gov_part, gov = max(found, key=lambda pu: (len(pu[0].values.get(j, ())), -pu[0].first))
        if quantity == "load" and not _loads_decided(found, j, gov, gov_part, union[j], notes):
            continue
        for p, unit in found:
            if unit.name == gov.name:
                continue
            scales.setdefault(p.first, {})[j] = unit.factor / gov.factor
            vals = sorted(p.values[j])
            why = (
                "a logger restarted with another unit"
                if p.first == p.whole
                else "the unit changes with no header written again"
            )
            notes.append(
                f"lines {p.first}-{p.last}: {union[j]} in {unit.name} by its values (median "
                f"{vals[len(vals) // 2]:g}) where lines {gov_part.first}-{gov_part.last} are in "
                f"{gov.name} ({why}): read in its own unit"
            )
    # a restart's time is judged on the parts between headers, a cut's pieces joined again
    spans: dict[int, list] = {}
    for p in parts:
        if p.times is None:
            continue
        if p.whole in spans:
            spans[p.whole][2] = p.last
            spans[p.whole][1] = (spans[p.whole][1][0], p.times[1])
        else:
            spans[p.whole] = [p.first, p.times, p.last]
    before: list | None = None
    for first, times, last in spans.values():
        if before is not None and times[0] < before[1][1]:
            notes.append(
                f"lines {first}-{last}: its time ({union[t_col or 0]}) restarts at "
                f"{times[0]:.15g}, before the {before[1][1]:.15g} where lines {before[0]}-"
                f"{before[2]} end (a logger restarted into the same file)"
            )
        before = [first, times, last]
    return [(p.first, p.last, scales[p.first]) for p in parts if p.first in scales]


# A part of loads in 0..1 is a fraction only if it reaches this: an idle board's percentages
# (0.3 %) read like a fraction too, and a logger's own load is never that low across a part.
_FRACTION_LEAST_MAX = 0.2


def _loads_decided(
    found: list[tuple[_Part, Unit]], j: int, gov: Unit, gov_part: _Part, name: str, notes: list[str]
) -> bool:
    """Whether the parts of a load column whose units differ (a fraction in one, percent in
    another) can be told apart: every fraction part reaches ``_FRACTION_LEAST_MAX`` and every
    percent part exceeds 1.  When not, nothing is scaled and the parts are said (session 30w)."""
    if len({u.name for _, u in found}) < 2:
        return False
    sure = all(
        max(p.values[j]) >= _FRACTION_LEAST_MAX if u.name == "fraction" else max(p.values[j]) > 1.0
        for p, u in found
    )
    if not sure:
        small = [p for p, u in found if u.name == "fraction"]
        notes.append(
            f"{name}: lines {', '.join(f'{p.first}-{p.last}' for p in small)} hold loads below 1 only "
            f"where lines {gov_part.first}-{gov_part.last} are in {gov.name}: an idle percentage or a "
            "fraction cannot be told; read as the whole column's unit (map with --columns load=NAME:%)"
        )
    return sure


# Quantities whose unit can change inside a part with no header written again (a logger edited
# in place: m°C rows after °C rows, kHz after MHz) and be told by a jump in magnitude: their
# units are a factor 1000 apart and no reading moves by more than ``_JUMP`` between two rows
# (a rail or a load can: a GPU rail from 5 mW idle to 3000 mW, so power is left out).
_SPLIT_BY_MAGNITUDE = ("temp", "freq")
_JUMP_DECADES = 2.5  # log10 of the jump: above a physical step (~10x: a GPU clock 76 -> 1300 MHz), below 1000


def _magnitude_cuts(rows: Iterator[tuple[int, _Part, list[str], list[int]]], jumpy: set[int]) -> list[int]:
    """Line numbers where a temperature or clock column jumps by more than ``_JUMP_DECADES`` and
    stays at the new level (within a decade) for at least ``MIN_SEGMENT_ROWS`` values, after at
    least as many at the old one: a single wild value is left to the range check.  Streams: only
    the cuts are held."""
    cuts: set[int] = set()
    # per column: [last level, values since the last cut, pending cut (line, level, count) or None]
    state: dict[int, list] = {}
    part: _Part | None = None
    for no, cur, cells, m in rows:
        if cur is not part:  # a header starts each part: its unit is compared part to part
            part = cur
            state.clear()
        for j, c in enumerate(cells):
            u = m[j] if j < len(m) else None
            if u not in jumpy or (v := _number_of(c)) is None or v == 0:
                continue
            level = math.log10(abs(v))
            st = state.setdefault(u, [level, 0, None])
            pending = st[2]
            if pending is not None:
                if abs(level - pending[1]) <= 1:
                    pending[2] += 1
                    if pending[2] >= MIN_SEGMENT_ROWS:
                        cuts.add(pending[0])
                        st[1], st[2] = pending[2], None
                    st[0] = level
                    continue
                st[2] = None  # a spike, not a new level
            if abs(level - st[0]) > _JUMP_DECADES and st[1] >= MIN_SEGMENT_ROWS:
                st[2] = [no, level, 1]
            elif abs(level - st[0]) <= _JUMP_DECADES:
                st[1] += 1
                st[0] = level
    return sorted(cuts)


def column_cuts(values: Iterable[float]) -> list[int]:
    """Indices where one column's values jump in magnitude and stay (the rule of
    :func:`_magnitude_cuts`, for a column that no header names: session 31w); NaN is no value."""
    part = _Part(0, 0, 0)
    rows = ((i, part, [repr(v) if v == v else ""], [0]) for i, v in enumerate(values))
    return _magnitude_cuts(rows, {0})


def _cut(parts: list[_Part], cuts: list[int]) -> list[_Part]:
    """``parts`` split at the ``cuts`` inside them; each piece remembers its whole part."""
    if not cuts:
        return parts
    out: list[_Part] = []
    for p in parts:
        bounds = [p.first, *(c for c in cuts if p.first < c <= p.last), p.last + 1]
        for a, b in itertools.pairwise(bounds):
            out.append(_Part(a, b - 1, p.seg, whole=p.whole))
    return out


def _seconds(cell: str) -> float | None:
    """A time cell's number, or a dated stamp's seconds (None for neither, and for a time of day,
    which runs back at midnight)."""
    from thermogov.importers.stamps import parse_stamp

    try:
        v = float(cell)
    except ValueError:
        st = parse_stamp(cell)
        return st[0] if st is not None and st[1] else None
    return v if v == v and abs(v) != float("inf") else None


def _split_cells(line: str, delim: str) -> list[str]:
    from thermogov.importers import table

    return table._split(line, delim)


def _scale_at(scales: list[tuple[int, int, dict[int, float]]], no: int) -> dict[int, float]:
    for a, b, f in scales:
        if a <= no <= b:
            return f
    return {}


def _scaled(cell: str, factor: float) -> str:
    try:
        v = float(cell)
    except ValueError:
        return cell
    return format(v * factor, ".12g")


LINE_FORMATS = ("tegrastats", "vcgencmd", "labelled")  # logs of lines a table part can hide in
_DELIMS = (",", ";", "\t")


def _header_of(ln: str) -> tuple[str, int] | None:
    """(delimiter, width) when ``ln`` can head a table: two or more cells, each with a letter."""
    from thermogov.importers import table

    if ln.startswith(_COMMENT):
        return None
    for d in _DELIMS:
        if d in ln:
            head = table._split(ln, d)
            if len(head) >= 2 and all(_LETTER_RE.search(c) for c in head):
                return d, len(head)
    return None


def _table_blocks(text: str, bare: bool = False) -> list[tuple[int, int, int, str]]:
    """``(first, last, rows, header)`` of each table part, in one pass over the lines: a header
    line (two or more cells, each with a letter) and at least ``MIN_SEGMENT_ROWS`` rows of its
    width that hold numbers or stamps (blank lines and the same header written again inside it
    are its own)."""
    from thermogov.importers import table
    from thermogov.importers.table import line_shape

    out: list[tuple[int, int, int, str]] = []
    cur: list | None = None  # [first, last, rows, header, delimiter, width, last row's shape]
    headed: set[tuple[str, int]] = set()  # (delimiter, width) of every header seen
    for no, raw in enumerate(lines_of(text), 1):
        ln = raw.strip()
        if cur is not None:
            if not ln or ln == cur[3]:
                continue
            d, w = cur[4], cur[5]
            if '"' not in ln and ln.count(d) == w - 1 and line_shape(ln) == cur[6]:
                cur[1], cur[2] = no, cur[2] + 1  # the last row's shape: a row, without the cell tests
                continue
            if d in ln and len(cells := table._split(ln, d)) == w and table._is_data(cells, False):
                cur[1], cur[2], cur[6] = no, cur[2] + 1, line_shape(ln)
                continue
            if cur[2] >= MIN_SEGMENT_ROWS:
                out.append((cur[0], cur[1], cur[2], cur[3]))
            cur = None
        if ln and (head := _header_of(ln)) is not None:
            cur = [no, no, 0, ln, head[0], head[1], None]
            headed.add(head)
        elif bare and ln and (row := _bare_row(ln)) is not None and row not in headed:
            # rows without a header (`epoch,temp,MHz` appended to a vcgencmd loop): a part too,
            # said by its lines, never counted as malformed lines (session 30w); rows of a
            # header's width after a broken row are that table's, left to its reader
            cur = [no, no, 1, "", row[0], row[1], line_shape(ln)]
    if cur is not None and cur[2] >= MIN_SEGMENT_ROWS:
        out.append((cur[0], cur[1], cur[2], cur[3]))
    return out


def _bare_row(ln: str) -> tuple[str, int] | None:
    """(delimiter, width) when ``ln`` is a table row: two or more cells of numbers or stamps."""
    from thermogov.importers import table

    if ln.startswith(_COMMENT) or not (ln[:1].isdigit() or ln[:1] in "+-."):
        return None
    for d in _DELIMS:
        if d in ln and len(cells := table._split(ln, d)) >= 2 and table._is_data(cells, False):
            return d, len(cells)
    return None


def _runs(text: str, blocks: list[tuple[int, int, int, str]]) -> list[tuple[int, int, int, str]]:
    """``(first, last, count, first text)`` of each run of non-blank lines outside ``blocks``
    (a run ends where a block starts; blank lines inside a run are its own)."""
    out: list[list] = []
    starts = {a for a, _b, _r, _h in blocks}
    k, broke = 0, True
    for no, raw in enumerate(lines_of(text), 1):
        while k < len(blocks) and blocks[k][1] < no:
            k += 1
        if no in starts or (k < len(blocks) and blocks[k][0] <= no):
            broke = True
            continue
        ln = raw.strip()
        if not ln:
            continue
        if out and not broke:
            out[-1][1], out[-1][2] = no, out[-1][2] + 1
        else:
            out.append([no, no, 1, ln])
        broke = False
    return [(a, b, c, t) for a, b, c, t in out]


def _blanked(text: str, keep: Callable[[int], bool]) -> str:
    """``text`` with every line ``keep`` refuses made blank (line numbers stay the file's)."""
    return "\n".join(ln if keep(no) else "" for no, ln in enumerate(lines_of(text), 1)) + "\n"


def split_formats(
    text: str, detect: Callable[[str, tuple[str, ...] | None], str | None], *, bare: bool = False
) -> tuple[str, str, list[str], bool] | None:
    """A log of lines (tegrastats, a vcgencmd loop, ``Label: value`` records) that also holds a
    table part (a CSV logger's output appended, ``script`` captures of two tools): ``(text to
    read, its format, notes)``, or None when the file holds no such mix (session 29w).

    The rule: the part with more records governs. A table part is a header and at least
    ``MIN_SEGMENT_ROWS`` rows of its width; the rest is the file's other lines, in a format
    ``detect(text, formats)`` recognises among the line formats (``formats`` None: any). The governing part is read with every other
    line blanked (line numbers stay the file's), and each part left out is named with its lines
    and the ``sed -n`` that cuts it out, never dropped unsaid.  ``bare`` (the file was detected as
    a log of lines): rows without a header are a table part too (session 30w); in a file detected
    as a table they are the table's own, left to its reader and :func:`join_layouts`.  The last
    item says whether every table part found is such rows (the caller reads the file whole, as
    before, when the part read is then refused)."""
    if not any(d in text for d in _DELIMS):
        return None
    blocks = _table_blocks(text, bare)
    if not blocks:
        return None

    def in_table(no: int) -> bool:
        return any(a <= no <= b for a, b, _r, _h in blocks)

    runs = _runs(text, blocks)
    if not runs:  # a table and nothing else
        return None
    rest = _blanked(text, lambda no: not in_table(no))
    rest_fmt = detect(rest, LINE_FORMATS)
    if rest_fmt not in LINE_FORMATS:
        return None
    rest_lines = sum(k for _a, _b, k, _t in runs)
    table_rows = sum(r for _a, _b, r, _h in blocks)
    notes: list[str] = []
    if table_rows > rest_lines:
        del rest
        text_out = _blanked(text, in_table)
        fmt = detect(text_out, None) or "csv"
        read = f"lines {blocks[0][0]}-{blocks[-1][1]}"
        left = [(a, b, f"{k} {rest_fmt} line(s) like {t[:50]!r}") for a, b, k, t in runs]
        kind, ext = f"the {fmt} table read ({read}) has more rows", "log"
    else:
        text_out, fmt = rest, rest_fmt
        read = f"lines {runs[0][0]}-{runs[-1][1]}" if runs else "no line"
        left = [
            (
                a,
                b,
                f"a table of {r} row(s) under {h[:50]!r}" if h else f"a table of {r} row(s) without a header",
            )
            for a, b, r, h in blocks
        ]
        kind, ext = f"the {rest_fmt} lines read ({read}) are more", "csv"
    for a, b, what in left[:MAX_PARTS_NAMED]:
        notes.append(
            f"lines {a}-{b} ({what}): another format in this file, not read ({kind}); import them "
            f"alone (e.g. sed -n '{a},{b}p' FILE > part.{ext})"
        )
    if len(left) > MAX_PARTS_NAMED:
        more = left[MAX_PARTS_NAMED:]
        notes.append(
            f"{len(more)} more part(s) in another format, lines {more[0][0]}-{more[-1][1]}: not read"
        )
    return text_out, fmt, notes, not any(h for _a, _b, _r, h in blocks)


MAX_PARTS_NAMED = 5  # skipped parts named one by one; the rest counted in one more note


class SkippedLines:
    """Lines a line-format reader (tegrastats) could not read, kept as runs of line numbers so
    that each part is said with where it is, not only counted (session 28w)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.runs: list[list] = []  # [first, last, count, first text] of the parts named
        self.more = 0  # lines in parts past the named ones

    def add(self, no: int, line: str) -> None:
        if self.runs and self.runs[-1][1] == no - 1 and not self.more:
            self.runs[-1][1] = no
            self.runs[-1][2] += 1
        elif len(self.runs) < MAX_PARTS_NAMED:
            self.runs.append([no, no, 1, line.strip()])
        else:
            self.more += 1

    def notes(self) -> list[str]:
        out = []
        for a, b, k, line in self.runs:
            span = f"line {a}" if a == b else f"lines {a}-{b}"
            out.append(f"{span} ({k} line(s) like {line[:50]!r}): no {self.what}, skipped")
        if self.more:
            out.append(f"{self.more} more unreadable line(s) after line {self.runs[-1][1]}: skipped")
        return out


def _quoted(cell: str, delim: str) -> str:
    if delim in cell or '"' in cell:
        return '"' + cell.replace('"', '""') + '"'
    return cell


__all__ = ["LINE_FORMATS", "MIN_SEGMENT_ROWS", "SkippedLines", "join_layouts", "split_formats"]
