"""A comma-separated log whose one field holds a comma-separated list, written unquoted.

A tegrastats logger that cuts fields out of each line and joins them with commas::

    time,RAM_usage,SWAP_usage,CPU_usage,EMC_FREQ,GR3D_FREQ,GPU_temp,CPU_temp
    2025-03-16 09:00:00,2100/3964MB,0/1982MB,3%@1479,1%@1479,2%@1479,4%@1479,0%,5%,48.2C,49.1C

puts the per-core ``CPU [...]`` list (``3%@1479,1%@1479,...``) in one field without quotes, so
each row has more cells than the header has names.  The table reader then took the header for a
title, identified the columns by their values and named the first temperature it found (the GPU's)
``cpu``: a misread with no word of it.  Here such a file is refused, naming the cells that hold
the list and the columns after it by position, so ``--columns`` can map them.

Only when the header (the line just before the rows) names at least MIN_NAMES columns, every row
checked has the same width, and exactly one run of cells, as long as the extra cells plus one,
has one shape (digits aside) with a sign other than digits and a point in it (``%@``, ``/``) in
every row checked: a title line before a table is no such header, and plain numbers side by side
(three thermal zones) are no list.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from thermogov.interfaces import LogFormatError

MIN_NAMES = 3
_ROWS_CHECKED = 20
_DIGITS_RE = re.compile(r"\d+")
_LIST_SIGN_RE = re.compile(r"[^\d.\s-]")
_NAME_RE = re.compile(r"[^\W\d_]")
_TIME_NAME_RE = re.compile(r"time|date|stamp", re.IGNORECASE)
_TEMP_NAME_RE = re.compile(r"[_ .-]?temp(?:erature)?[_ .-]?", re.IGNORECASE)


def _shape(cell: str) -> str:
    return _DIGITS_RE.sub("0", cell.strip())


def list_run(head: Sequence[str], rows: Sequence[Sequence[str]]) -> int | None:
    """The 0-based first cell of the one run of list cells that makes the rows wider than
    ``head``, or None when there is no such run or more than one."""
    names = [c.strip() for c in head]
    if len(names) < MIN_NAMES or not all(n and len(n) <= 40 and _NAME_RE.search(n) for n in names):
        return None
    checked = rows[:_ROWS_CHECKED]
    if not checked:
        return None
    width = len(checked[0])
    extra = width - len(names)
    if extra < 1 or any(len(r) != width for r in checked):
        return None
    found: list[int] = []
    for i in range(len(names)):
        cells = [[_shape(c) for c in r[i : i + extra + 1]] for r in checked]
        if all(len(set(s)) == 1 and _DIGITS_RE.search(s[0]) and _LIST_SIGN_RE.search(s[0]) for s in cells):
            found.append(i)
    return found[0] if len(found) == 1 else None


def refuse_split_field(head: Sequence[str], rows: Sequence[Sequence[str]], source: str) -> None:
    """LogFormatError when one field of ``head`` holds an unquoted list (module doc)."""
    i = list_run(head, rows)
    if i is None:
        return
    names = [c.strip() for c in head]
    width = len(rows[0])
    extra = width - len(names)
    hint: list[str] = []
    for j, name in enumerate(names):
        if j == i:
            continue
        pos = j + 1 if j < i else j + extra + 1
        if _TIME_NAME_RE.search(name) and not hint:
            hint.append(f"t={pos}")
        elif _TEMP_NAME_RE.search(name):
            sensor = _TEMP_NAME_RE.sub("", name).strip().lower().replace(" ", "_") or "cpu"
            hint.append(f"temp.{sensor}={pos}")
    example = f" (here --columns {','.join(hint)})" if hint else ""
    first = ",".join(c.strip() for c in rows[0][i : i + extra + 1])
    raise LogFormatError(
        f"{source}: the header names {len(names)} columns but each row has {width}: cells "
        f"#{i + 1}-#{i + extra + 1} ({first[:60]!r}) are one column's list, {names[i]!r}, written "
        "without quotes, so the columns after it cannot be told by their names; quote that field "
        f"when logging, or map the columns by position with --columns{example}"
    )
