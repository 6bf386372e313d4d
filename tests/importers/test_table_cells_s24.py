"""The table reader's split cells packed (docs/importing.md, "Session 24").

Once a table's samples went into columns (session 23), the rest of a big CSV's peak was the
reader's list of split rows: a list and one string object per cell, ~400 B for a 30-byte row.
These check that the rows come back as the same strings, column-wise and row-wise, reversed and
across chunks, and that a sniffed table holds its rows in a few bytes a cell.  The byte bound is
structural (the cells' characters and a 4-byte offset each, against a list and five strings), not
a timing.
"""

from __future__ import annotations

import tracemalloc

import pytest

from thermogov.importers import table
from thermogov.importers.cells import Cells, column


def _rows(n: int) -> list[list[str]]:
    return [[str(1764928800 + k), f"{45 + k % 7}.5", "", "x" * (k % 3), "é°C"] for k in range(n)]


def test_rows_and_columns_read_back_across_chunks() -> None:
    rows = _rows(10_000)  # past two sealed chunks, the last one open
    cells = Cells.of(rows, 5)
    assert len(cells) == 10_000 and list(cells) == rows
    assert cells[0] == rows[0] and cells[-1] == rows[-1] and cells[4096] == rows[4096]
    assert cells[4094:4098] == rows[4094:4098] and cells[:3] == rows[:3]
    for i in range(5):
        assert cells.column(i) == [r[i] for r in rows] == column(cells, i)
    assert column(rows, 1) == [r[1] for r in rows]  # a plain list is cut row by row
    with pytest.raises(IndexError):
        cells[10_000]
    with pytest.raises(ValueError, match="3 cells"):
        cells.append(["a", "b", "c"])


def test_reverse_reads_newest_first() -> None:
    rows = _rows(5000)
    cells = Cells.of(rows, 5)
    cells.reverse()
    back = rows[::-1]
    assert list(cells) == back and cells[0] == back[0] and cells[-1] == back[-1]
    assert cells.column(0) == [r[0] for r in back] and cells[10:12] == back[10:12]


def test_a_sniffed_table_holds_its_rows_packed() -> None:
    n = 20_000
    text = "epoch,temp_c,freq_mhz,cpu_pct,power_w\n" + "".join(
        f"{1764928800 + k},{45 + (k % 200) / 10:.1f},1510,{k % 97},{5 + (k % 700) / 1000:.3f}\n"
        for k in range(n)
    )
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        t = table.sniff(text)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert t is not None and len(t.rows) == n and t.rows[5] == text.splitlines()[6].split(",")
    # ~50 B a row packed (30 characters and five 4-byte offsets); ~390 as lists of strings
    assert held / n < 120, f"{held / n:.0f} B a row held by the sniffed table"
