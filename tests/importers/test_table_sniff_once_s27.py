"""Session 27m: a big table is sniffed once, and its lines are not copied to sniff it.

Detection (``table.looks_like``) sniffed the whole table and ``parse_text`` sniffed it again: half
of a big CSV's import time.  The sniff also held a packed copy of every candidate line beside the
text (~1 B a character and 4 B a line).  Counted structurally (calls, tracemalloc bytes), not timed.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from thermogov.importers import detect_format, parse_log, table
from thermogov.importers.cells import split_lines
from thermogov.interfaces import LogFormatError


def _csv(n: int) -> str:
    return "epoch,temp_c,freq_mhz,cpu_pct,power_w\n" + "".join(
        f"{1764928800 + k},{45 + (k % 200) / 10:.1f},1510,{k % 97},{5 + (k % 700) / 1000:.3f}\n"
        for k in range(n)
    )


def _counting_sniff(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = table.sniff

    def sniff(text: str) -> table.Table | None:
        calls.append(len(text))
        return real(text)

    monkeypatch.setattr(table, "sniff", sniff)
    return calls


def test_a_detected_table_is_sniffed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "log.csv"
    path.write_text(_csv(500), encoding="utf-8")
    want = parse_log(path)
    calls = _counting_sniff(monkeypatch)
    got = parse_log(path)
    assert len(calls) == 1, f"the table was sniffed {len(calls)} times"
    assert (got.samples, got.notes, got.skipped_lines) == (want.samples, want.notes, want.skipped_lines)
    assert len(got.samples) == 500


def test_a_sniff_is_handed_only_to_its_own_text() -> None:
    # looks_like on one text, then parse_text on another: the other is read, not the first's table
    a = _csv(50)
    b = "time,temp\n" + "".join(f"{k},{40 + k % 5}\n" for k in range(30))
    assert table.looks_like(a)
    log = table.parse_text(b, "b.csv")
    assert len(log.samples) == 30 and log.samples[3].temps_c == {"cpu": 43.0}


def test_a_detection_alone_hands_nothing_over(monkeypatch: pytest.MonkeyPatch) -> None:
    # session 28m: no cache between looks_like and parse_text; the table is handed over by value
    a = _csv(50)
    calls = _counting_sniff(monkeypatch)
    assert table.looks_like(a)
    assert len(table.parse_text(a, "a.csv").samples) == 50
    assert len(calls) == 2
    found = table.detect(a)
    assert found is not None and len(table.parse_text(a, "a.csv", table=found).samples) == 50
    assert len(calls) == 3


def test_detect_format_keeps_no_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "log.csv"
    path.write_text(_csv(100), encoding="utf-8")
    assert detect_format(path) == "csv"
    assert not hasattr(table, "_sniffed")  # no module state keeps a table alive (session 28m)
    calls = _counting_sniff(monkeypatch)
    text = path.read_text(encoding="utf-8")
    assert len(table.parse_text(text, "log.csv").samples) == 100 and len(calls) == 1


def test_the_sniff_holds_offsets_not_a_copy_of_the_lines() -> None:
    text = _csv(40_000)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        lines = table._candidate_lines(text)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(lines) == 40_001
    # 8 B a line of ~32 characters (a quarter of the text); a packed copy was over 1.1 times it
    assert held < len(text) / 2, f"the sniff's lines hold {held} B for a {len(text)}-character text"


def test_text_lines_are_the_kept_lines_of_the_split() -> None:
    from thermogov.importers.cells import TextLines

    text = "a,1\n\n  # note\r\n b,2 \n\t\nc,3\r\n%x\n\u00e9,4\n\U0001f600,5"

    def keep(ln: str) -> bool:
        return bool(ln.strip()) and not ln.lstrip().startswith(("#", "%"))

    want = [ln for ln in split_lines(text) if keep(ln)]
    got = TextLines(text, keep)
    assert list(got) == want and len(got) == len(want)
    assert [got[k] for k in range(-len(want), len(want))] == want + want
    assert got[1:3] == want[1:3] and got[::-1] == want[::-1]
    with pytest.raises(IndexError):
        got[len(want)]


def test_drained_rows_are_the_rows_and_freed_only_when_released() -> None:
    from thermogov.importers.cells import Cells

    rows = [[str(k), f"{k % 7}.5", ""] for k in range(10_000)]  # two packed chunks and an open one
    kept = Cells.of(rows, 3)
    assert list(kept.drain(lambda: False)) == rows
    assert kept[9_999] == rows[9_999] and kept.column(0)[:3] == ["0", "1", "2"]
    freed = Cells.of(rows, 3)
    assert list(freed.drain(lambda: True)) == rows
    with pytest.raises(ValueError, match="freed"):
        freed[0]
    with pytest.raises(ValueError, match="freed"):
        freed.column(1)
    back = Cells.of(rows, 3)
    back.reverse()
    assert list(back.drain(lambda: True)) == rows[::-1] and back[0] == rows[-1]


def test_a_table_with_no_kept_row_is_still_refused_naming_its_empty_columns() -> None:
    # the rows are read again for the refusal: none may have been freed while none was kept
    text = "time,temp_c\n" + "".join(f"{k},null\n" for k in range(10_000))
    with pytest.raises(LogFormatError, match="'temp_c' empty or null in every row"):
        table.parse_text(text, "x.csv")
