"""The table reader's peak once its cells were packed (docs/importing.md, "Session 25m").

After session 24 a big CSV's peak was ``parse_text``'s: the ``ColumnBuilder`` doubled its
columns and copied each one again in ``finish``, and the time axis was held as several lists of
float objects at once.  These bound that peak per row, structurally (8 B a stored value, a float
object and a pointer or two per time), not by timing: each is a difference between two sizes or
a stage's growth, so fixed costs (a chunk of packed cells, imports) do not count.
"""

from __future__ import annotations

import tracemalloc

import pytest

from thermogov.importers import table
from thermogov.importers.samplestore import ColumnBuilder


def _csv(n: int) -> str:
    # the bench's synthetic CSV (bench/import_memory.py): an epoch and four value columns
    return "epoch,temp_c,freq_mhz,cpu_pct,power_w\n" + "".join(
        f"{1764928800 + k},{45 + (k % 200) / 10:.1f},1510,{k % 97},{5 + (k % 700) / 1000:.3f}\n"
        for k in range(n)
    )


def _parse_peak(n: int) -> int:
    """Bytes ``parse_text`` allocates at its peak above the sniffed table of ``n`` rows."""
    text = _csv(n)
    t = table.sniff(text)
    assert t is not None
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        log = table.parse_text(text, "bench.csv", table=t)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert len(log.samples) == n
    return peak


def test_parse_text_peak_per_row() -> None:
    small, big = 10_000, 30_000
    per_row = (_parse_peak(big) - _parse_peak(small)) / (big - small)
    # four float64 columns and an int32 shape id (36 B, a fifth more while growing), the axis as
    # float objects in one list and the kept rows' list: 76-102 B here (tracemalloc counts a
    # realloc that grows a column in place as a second block, so the figure depends on where the
    # heap puts them); 122-148 B with the columns doubled and copied at finish and the axis
    # rebased into one more list of floats
    assert per_row < 115, f"parse_text peaks {per_row:.0f} B a row above the table"


def test_finish_adds_no_copy_of_the_columns() -> None:
    n = 40_000
    b = ColumnBuilder()
    none: dict[str, float] = {}
    for k in range(n):
        temps = {"cpu": 45.0 + k % 7, "gpu": 44.5}
        b.append(0.0, (temps, {"cpu": 1_510_000_000}, {"cpu": 0.5}, none, none), 5.0 + k % 3)
    where = {k: c.data.ctypes.data for k, c in b._cols.items()}
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        store = b.finish(float(k) for k in range(n))
        grew = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert len(store) == n and store[n - 1].t_s == float(n - 1)
    assert store[7].temps_c == {"cpu": 45.0, "gpu": 44.5}
    assert store[3].freqs_hz == {"cpu": 1_510_000_000} and type(store[3].freqs_hz["cpu"]) is int
    # the store's columns are the builder's arrays, where they were grown
    assert {k: col.ctypes.data for k, col in store._cols.items()} == where
    # the axis's 8 B a row; a copy of the five columns alone would be 40 B a row more
    assert grew / n < 16, f"finish() allocated {grew / n:.0f} B a row"


def test_an_untimed_builder_needs_its_axis() -> None:
    b = ColumnBuilder(timed=False)
    b.append(1.0, ({"cpu": 45.0}, {}, {}, {}, {}), None)
    with pytest.raises(ValueError, match="needs the times"):
        b.finish()
    assert b.finish([2]).times.tolist() == [2.0] and b.finish([]).times.tolist() == []
