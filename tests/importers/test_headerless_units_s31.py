"""Session 31w: a unit change midway in a table without a header (issue 10).

Session 30w cut a headed table's temperature or clock column where its magnitude jumps and
stays, and read each piece in its own unit; a headerless table's column was decided on its
median, so a logger edited in place (m°C after °C, kHz after MHz) with no header line stored
half its log as 0.045 °C or 1.5 MHz without a word.  The logs are this file's own numbers; the
real logs get the same damage from ``hostile.py``'s ``millidegrees-midway-headerless`` variant,
run on each of them by ``test_wild_s30``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from thermogov.importers import parse_log


def _temp(i: int) -> float:
    return 45 + 0.1 * i + (0.4 if i % 7 == 3 else 0.0)


def _write(path: Path, rows: list[str]) -> Path:
    path.write_text("".join(r + "\n" for r in rows))
    return path


def _clock(i: int) -> int:
    return 1500 if i % 4 else 1800


def test_millidegrees_after_degrees_without_a_header_are_read_in_their_own_unit(tmp_path: Path) -> None:
    rows = [f"{1764928800 + i},{_temp(i):.1f},{_clock(i)}" for i in range(30)]
    rows += [f"{1764928800 + i},{round(_temp(i) * 1000)},{_clock(i)}" for i in range(30, 60)]
    log = parse_log(_write(tmp_path / "mc.csv", rows))
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([_temp(i) for i in range(60)])
    said = [n for n in log.notes if n.startswith("rows 31-60: #2 in m°C by its values")]
    assert len(said) == 1 and "rows 1-30 are in °C" in said[0] and "without a header" in said[0]


def test_khz_after_mhz_without_a_header_is_read_in_its_own_unit(tmp_path: Path) -> None:
    rows = [f"{1764928800 + i};{_temp(i):.1f};{_clock(i)}" for i in range(20)]
    rows += [f"{1764928800 + i};{_temp(i):.1f};{_clock(i) * 1000}" for i in range(20, 60)]
    log = parse_log(_write(tmp_path / "khz.csv", rows))
    assert [s.freqs_hz["cpu"] for s in log.samples] == [_clock(i) * 1_000_000 for i in range(60)]
    assert any(n.startswith("rows 1-20: #3 in MHz by its values") for n in log.notes), log.notes


def test_a_headerless_table_in_one_unit_is_left_alone(tmp_path: Path) -> None:
    # guard: clocks at two levels (600 and 2400 MHz) and one wild temperature are no unit change
    rows = [f"{1764928800 + i},{_temp(i):.1f},{600 if i < 30 else 2400}" for i in range(60)]
    rows[40] = f"{1764928800 + 40},46500,2400"
    log = parse_log(_write(tmp_path / "one.csv", rows))
    assert not any("by its values" in n for n in log.notes)
    assert {s.freqs_hz["cpu"] for s in log.samples} == {600_000_000, 2_400_000_000}
