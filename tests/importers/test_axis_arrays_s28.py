"""Session 28n: a table's time axis and its unit decisions held as ``array('d')``.

The table reader held each row's time as a list of ``float | None`` (a pointer and a float
object, 32 B a row) and each value column it decided a unit for the same way, beside the packed
rows.  Now the axis is an ``array('d')`` with NaN for a row without a time (8 B a row), and the
functions that take an axis (``plausible_times``, ``newest_first``, ``mend_steps``,
``spread_ties``, ``rebased``) and ``detect_unit`` take one too, with the list's results: checked
here against the list forms on drawn axes with every kind of damage, and on the memory they hold.
"""

from __future__ import annotations

import math
import random
import statistics
import tracemalloc
from array import array
from pathlib import Path

import pytest

from thermogov.importers import parse_log, table
from thermogov.importers.clocksteps import mend_steps
from thermogov.importers.common import newest_first, plausible_times, rebased
from thermogov.importers.quantities import detect_unit
from thermogov.importers.table import spread_ties


def _axis(rng: random.Random) -> list[float | None]:
    """A drawn axis: epoch or elapsed, some rows without a time, NaN/inf/garbled stamps, clock
    steps back and forward, a 1970 stretch, ties, and sometimes newest first."""
    n = rng.randint(0, 60)
    t = rng.choice([0.0, 1_764_928_800.0, 86_400.0 * 3])
    step = rng.choice([0.5, 1.0, 2.0, 60.0])
    out: list[float | None] = []
    for _ in range(n):
        r = rng.random()
        if r < 0.05:
            out.append(None)
        elif r < 0.08:
            out.append(rng.choice([math.nan, math.inf, -math.inf, -1e300, 1e300]))
        else:
            out.append(t)
        r = rng.random()
        if r < 0.04:
            t -= rng.choice([step, 3600.0, 40 * step])  # NTP step back, a reordered line
        elif r < 0.06:
            t = rng.choice([0.0, 1_000.0])  # a restart, a 1970 boot
        elif r < 0.07:
            t += 2 * 366 * 86400.0  # the network sets the clock
        elif r > 0.9:
            pass  # a tie
        else:
            t += step
    if rng.random() < 0.2:
        out.reverse()
    return out


def _arr(times: list[float | None]) -> array:
    return array("d", (math.nan if t is None else t for t in times))


def _as_list(times: array) -> list[float | None]:
    return [None if math.isnan(t) else t for t in times]


def _same(a: list[float | None], b: list[float | None]) -> bool:
    # NaN is only ever a rebased axis's "no time": equal to itself here
    return repr(a) == repr(b)


AXES = [_axis(random.Random(seed)) for seed in range(400)]


def test_an_array_axis_is_read_as_the_list_was() -> None:
    for times in AXES:
        arr = _arr(times)
        p = plausible_times(arr)
        assert isinstance(p, array), "an array axis gives an array axis"
        assert _same(_as_list(p), plausible_times(times)), times
        assert newest_first(arr) == newest_first(times), times
        mended, notes = mend_steps(arr)
        assert isinstance(mended, array)
        want, want_notes = mend_steps(times)
        # a NaN stamp stays NaN in the list; in the array it is the row without a time it reads as
        want = [None if t is None or math.isnan(t) else t for t in want]
        assert notes == want_notes and _same(_as_list(mended), want), times
        assert _same(list(rebased(arr)), list(rebased([t for t in times]))), times


def test_an_array_axis_has_its_ties_spread_as_the_list_had() -> None:
    for times in AXES:
        kept = [t for t in plausible_times(times) if t is not None]
        for within in (None, 1.0):
            spread, moved = spread_ties(array("d", kept), within)
            assert isinstance(spread, array)
            assert (list(spread), moved) == spread_ties(kept, within), kept


def test_an_array_axis_that_never_steps_or_ties_is_not_copied() -> None:
    arr = array("d", (1_764_928_800.0 + k for k in range(1000)))
    assert mend_steps(arr)[0] is arr
    assert spread_ties(arr) == (arr, 0) and spread_ties(arr)[0] is arr


@pytest.mark.parametrize("quantity", ["temp", "freq", "load", "power"])
def test_an_array_column_gets_the_unit_the_list_got(quantity: str) -> None:
    rng = random.Random(quantity)
    for _ in range(300):
        scale = rng.choice([1.0, 1e-3, 1e3, 1e6, 0.01, 100.0])
        vals: list[float | None] = [
            None
            if rng.random() < 0.1
            else rng.choice([math.nan, math.inf])
            if rng.random() < 0.05
            else round(rng.uniform(0, 100) * scale, rng.choice([0, 1, 3]))
            for _ in range(rng.randint(0, 12))
        ]
        assert detect_unit(quantity, _arr(vals)) == detect_unit(quantity, vals), vals


def test_the_medians_are_statistics_medians() -> None:
    from thermogov.importers.common import median_low_of, median_of

    np = pytest.importorskip("numpy")
    rng = random.Random(7)
    for n in range(1, 40):
        vals = [rng.choice([rng.uniform(-1e9, 1e9), 0.1, 0.2, 1e308, -0.0]) for _ in range(n)]
        assert median_of(np.array(vals)) == statistics.median(vals)
        assert median_low_of(np.array(vals)) == statistics.median_low(vals)


def test_a_nan_stamp_is_still_garbled_and_an_unreadable_one_still_unplaced(tmp_path: Path) -> None:
    # NaN marks a row without a time, so a stamp read as NaN is kept as inf: both notes still say
    # which rows went for which reason
    rows = [f"{1764928800 + k},{45 + k % 7}.5" for k in range(20)]
    rows[5] = "nan,45.0"
    rows[9] = "inf,45.0"
    rows[12] = ",45.0"
    p = tmp_path / "t.csv"
    p.write_text("epoch,temp_c\n" + "\n".join(rows) + "\n", encoding="utf-8")
    log = parse_log(p)
    assert len(log.samples) == 17
    assert any(n.startswith("2 row(s) with a NaN, infinite or garbled time") for n in log.notes), log.notes
    assert any(n.startswith("1 row(s) whose time could not be read") for n in log.notes), log.notes


def _csv(n: int) -> str:
    return "epoch,temp_c,freq_mhz,cpu_pct,power_w\n" + "".join(
        f"{1764928800 + k},{45 + (k % 200) / 10:.1f},1510,{k % 97},{5 + (k % 700) / 1000:.3f}\n"
        for k in range(n)
    )


def _axis_and_units(n: int) -> tuple[int, int, int]:
    """(bytes the time axis holds, its peak, the unit decisions' peak) for an n-row table."""
    t = table.sniff(_csv(n))
    assert t is not None
    notes: list[str] = []
    cols = table.identify(t, "t.csv", None, notes)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        axis = table._time_axis(t, cols, notes, None)
        held, peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        for c in cols:
            table._unit_for(c, t.rows, t.decimal_comma, "t.csv", notes)
        units_peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert len(axis) == n
    return held - base, peak - base, units_peak


def test_the_time_axis_holds_eight_bytes_a_row_and_the_unit_decisions_no_float_objects() -> None:
    # measured (3.11, 30-byte rows): the axis holds 8.2 B a row (32.7 on main, a list of floats),
    # its peak and the unit decisions' peak ~12 B a row each (~39 on main: a list of float
    # objects, its finite copy and the median's sorted copy)
    _axis_and_units(2_000)  # one-time costs (numpy's first calls) paid outside the measure
    small, big = 10_000, 40_000
    a, b = _axis_and_units(small), _axis_and_units(big)
    held = b[0] / big
    axis_peak, units_peak = ((y - x) / (big - small) for x, y in zip(a[1:], b[1:], strict=True))
    assert held < 12.0, f"the time axis holds {held:.1f} B a row"
    assert axis_peak < 24.0, f"the time axis peaks at {axis_peak:.1f} B a row"
    assert units_peak < 24.0, f"the unit decisions peak at {units_peak:.1f} B a row"


# parse_log's table import per row against session 28n's bound (85 B on 3.11, 115 on 3.10) is
# test_import_peak_s26.py's test_a_table_import_peaks_under_the_session_29_bound_a_row: moved
# there in session 32k, where one measurement serves both sessions' bounds.


def _stamp(kind: str, k: int) -> str:
    h, m, s = (k // 3600) % 24, (k // 60) % 60, k % 60
    if kind == "iso":
        return f"2026-12-{5 + k // 86400:02d} {h:02d}:{m:02d}:{s:02d}"
    if kind == "slash":
        return f"{1 + k // 86400:02d}/12/2026 {h:02d}:{m:02d}:{s:02d}"
    return f"{h:02d}:{m:02d}:{s:02d}"


def _stamped_axis_peak(kind: str, n: int) -> tuple[int, int]:
    text = "time,temp_c,freq_mhz\n" + "".join(f"{_stamp(kind, k)},{45 + k % 9}.5,1510\n" for k in range(n))
    t = table.sniff(text)
    assert t is not None
    notes: list[str] = []
    cols = table.identify(t, "t.csv", None, notes)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        axis = table._time_axis(t, cols, notes, None)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(axis) == n and not any(math.isnan(v) for v in axis), notes
    return held - base, peak - base


@pytest.mark.parametrize("kind", ["iso", "slash", "time of day"])
def test_a_stamped_time_column_is_read_without_holding_its_cells(kind: str) -> None:
    # measured (3.11): 8 B a row held and 12-13 B a row at the peak; on main 35 held and
    # 171 (dates) to 271 (times of day) at the peak: the cells as a list of strings and the
    # stamps as a list of (seconds, kind) tuples, beside the axis
    _stamped_axis_peak(kind, 500)
    small, big = 10_000, 40_000
    a, b = _stamped_axis_peak(kind, small), _stamped_axis_peak(kind, big)
    held, peak = b[0] / big, (b[1] - a[1]) / (big - small)
    assert held < 12.0, f"a {kind} time axis holds {held:.1f} B a row"
    assert peak < 40.0, f"reading a {kind} time column peaks at {peak:.1f} B a row"
