"""Session 26m: what ``parse_log`` holds at its peak, per row, beyond the rows themselves.

Before, a log's text was held two to three times while it was read (the decoded text, the
cleaned copy that ``clean_text`` joined from a list of every line, and that list while it lived),
and the format tests split the whole log into lines to look at its first few.  Now the cleaned
text is the decoded one when nothing needs undoing, the table reader frees it once its rows are
packed, and the format tests read the head only.  The bounds are per row, from two sizes, so the
interpreter's fixed costs cancel; tracemalloc counts Python's allocations, not the RSS.
"""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from thermogov.importers import parse_log
from thermogov.importers.cells import head_lines
from thermogov.importers.textclean import clean_text


def _csv_line(k: int) -> str:
    return f"{1764928800 + k},{45 + (k % 200) / 10:.1f},1510,{k % 97},{5 + (k % 700) / 1000:.3f}\n"


def _tegrastats_line(k: int) -> str:
    h, m, s = (k // 3600) % 24, (k // 60) % 60, k % 60
    return (
        f"12-05-2026 {h:02d}:{m:02d}:{s:02d} RAM 2000/7620MB (lfb 2x4MB) SWAP 0/3810MB (cached 0MB) "
        f"CPU [{k % 97}%@1510,5%@1510,off,off,4%@1510,3%@1510] EMC_FREQ 0%@2133 GR3D_FREQ {k % 89}%@[305] "
        f"cpu@{45 + (k % 200) / 10:.1f}C soc2@44.1C gpu@44.0C tj@{45 + (k % 200) / 10:.1f}C "
        f"VDD_IN {5000 + k % 700}mW/5000mW VDD_SOC 1500mW/1500mW\n"
    )


def _peak(path: Path, header: str, line: Callable[[int], str], rows: int) -> int:
    path.write_text(header + "".join(line(k) for k in range(rows)), encoding="utf-8")
    tracemalloc.start()
    try:
        log = parse_log(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(log.samples) == rows
    return peak


def _peak_per_row(tmp_path: Path, header: str, line: Callable[[int], str], small: int, big: int) -> float:
    # A first parse in the process pays one-time costs (compiled patterns, caches) inside the
    # small file's peak, which made the difference per row read up to 20 B low on a first run:
    # paid here first, so every run measures the same marginal cost.
    _peak(tmp_path / "warm.log", header, line, 200)
    a = _peak(tmp_path / "small.log", header, line, small)
    b = _peak(tmp_path / "big.log", header, line, big)
    return (b - a) / (big - small)


@pytest.fixture(scope="module")
def table_peak_per_row(tmp_path_factory: pytest.TempPathFactory) -> float:
    """``parse_log``'s peak per CSV row, 10 000 against 40 000 rows: measured once for the file.

    Two sessions' bounds judge the same measure (50 000 rows parsed under tracemalloc, the
    importer tests' costliest step), so it is taken once and each test asserts its own bound
    on it; a module fixture, so the tests still pass alone and in any order.
    """
    folder = tmp_path_factory.mktemp("table-peak")
    return _peak_per_row(folder, "epoch,temp_c,freq_mhz,cpu_pct,power_w\n", _csv_line, 10_000, 40_000)


# Measured warm (session 27m, 30-byte rows): 94-104 B a row on 3.11, 124-134 on 3.10, where the
# table reader cannot free the text it was handed (docs/importing.md, Session 26m); the packed
# rows are freed chunk by chunk while the columns are built.  131-142 on 3.11 and 159-170 on
# 3.10 at d2c2d7a (session 26: the rows held under the finished columns); 202 on 0f7aab0.
TABLE_BYTES_A_ROW = 120.0 if sys.version_info >= (3, 11) else 150.0


def test_a_table_import_peaks_under_the_bound_a_row(table_peak_per_row: float) -> None:
    per_row = table_peak_per_row
    assert per_row < TABLE_BYTES_A_ROW, f"parse_log of a CSV peaks {per_row:.0f} B a row"


# Session 28n's tighter bound on the same measure (moved here from test_axis_arrays_s28.py in
# session 32k, to share the measurement): 65-74 B a row on 3.11 (94-104 on main before session
# 28n), 3.10 below.
TABLE_BYTES_A_ROW_S29 = 85.0 if sys.version_info >= (3, 11) else 115.0


def test_a_table_import_peaks_under_the_session_29_bound_a_row(table_peak_per_row: float) -> None:
    per_row = table_peak_per_row
    assert per_row < TABLE_BYTES_A_ROW_S29, f"parse_log of a CSV peaks {per_row:.0f} B a row"


def test_a_tegrastats_import_peaks_under_two_and_a_half_lines_a_line(tmp_path: Path) -> None:
    # 242-byte lines: ~1.7 lines' bytes a line here, ~3.2 on main
    line_bytes = len(_tegrastats_line(1000).encode())
    per_line = _peak_per_row(tmp_path, "", _tegrastats_line, 2_000, 8_000)
    assert per_line < 2.5 * line_bytes, (
        f"parse_log of tegrastats peaks {per_line:.0f} B a {line_bytes}-byte line"
    )


def test_cleaning_a_plain_log_makes_no_copy_of_it() -> None:
    # the binary test's 64 KiB sample is all it allocates (~66 kB here; ~4 times the text on main)
    text = "".join(_csv_line(k) for k in range(40_000))
    tracemalloc.start()
    try:
        cleaned, notes = clean_text(text, "log.csv")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert cleaned == text and notes == []
    assert peak < len(text) / 10, f"clean_text allocated {peak} B for a {len(text)}-character text"


def test_cleaning_still_undoes_what_is_per_line() -> None:
    # the path that skips the line-by-line pass must not skip these
    text = "Script started on 2026-12-05\n1,45.0\r2,46.0\nscript done on x\n3,47.0\n"
    cleaned, notes = clean_text(text, "log.csv")
    assert cleaned == "2,46.0\n3,47.0\n"
    assert any("overwritten in place" in n for n in notes) and any("script(1)" in n for n in notes)


def test_head_lines_is_the_head_of_splitlines() -> None:
    text = "a\r\nb\rc\x0bd\x0ce\x1cf\x85g\u2028h\u2029i\n\nj"
    for n in range(12):
        assert head_lines(text, n) == text.splitlines()[:n]
