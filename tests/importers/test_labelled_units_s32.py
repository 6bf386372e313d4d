"""Session 32w: ``Label: value`` logs whose readings lose their unit midway (issue 10).

A logger edited in place prints ``Temperature: 48.3'C`` and later ``Temperature: 48300`` (a raw
thermal zone read, m°C) or ``CPU freq: 1500 MHz`` and later ``CPU freq: 1500000`` (cpufreq's kHz).
Such a run was refused as a change of format, or, broken by the records' date lines, dropped
without a word.  Each run is now read in the unit its own values fit, beside the label's stated
readings, and said; a run no unit puts there is not read and is said.  This file's own numbers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from thermogov.importers import parse_log

N = 60


def _stamp(i: int) -> str:
    return f"2026-03-01 00:{i // 60:02d}:{i % 60:02d}"


def _temp(i: int) -> float:
    return 45 + 0.1 * i


def _clock(i: int) -> int:
    return 1500 if i % 4 else 600


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(ln + "\n" for ln in lines))
    return path


def _record(i: int, temp: str, clock: str) -> list[str]:
    return [f"Timestamp: {_stamp(i)}", f"Temperature: {temp}", f"CPU freq: {clock}"]


def test_a_stamped_line_log_whose_temperatures_lose_their_unit_is_read_in_m_degrees(tmp_path: Path) -> None:
    lines = [f"{_stamp(i)} CPU Temp: {_temp(i):.1f} C" for i in range(30)]
    lines += [f"{_stamp(i)} CPU Temp: {round(_temp(i) * 1000)}" for i in range(30, N)]
    log = parse_log(_write(tmp_path / "t.log", lines))  # refused as a change of format before
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([_temp(i) for i in range(N)])
    said = [n for n in log.notes if n.startswith("lines 31-60: 'CPU Temp' without a unit, in m°C")]
    assert len(said) == 1 and "read in its own unit" in said[0]


def test_records_whose_temperature_and_clock_lose_their_units_keep_every_record(tmp_path: Path) -> None:
    lines: list[str] = []
    for i in range(N):
        if i < 30:
            lines += _record(i, f"{_temp(i):.1f}'C", f"{_clock(i)} MHz")
        else:  # a raw sysfs read: m°C and kHz, no unit
            lines += _record(i, f"{round(_temp(i) * 1000)}", f"{_clock(i) * 1000}")
    log = parse_log(_write(tmp_path / "r.log", lines))  # half the records dropped without a word before
    assert len(log.samples) == N
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([_temp(i) for i in range(N)])
    assert [s.freqs_hz["cpu"] for s in log.samples] == [_clock(i) * 1_000_000 for i in range(N)]
    assert any("'CPU freq' without a unit, in kHz" in n for n in log.notes)
    assert any("'Temperature' without a unit, in m°C" in n for n in log.notes)


def test_a_temperature_written_with_its_millidegree_unit_is_read_as_stated(tmp_path: Path) -> None:
    lines = [f"{_stamp(i)} CPU Temp: {_temp(i):.1f} C" for i in range(30)]
    lines += [f"{_stamp(i)} CPU Temp: {round(_temp(i) * 1000)} m°C" for i in range(30, N)]
    log = parse_log(_write(tmp_path / "m.log", lines))
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([_temp(i) for i in range(N)])
    assert any("m°C (their unit written out)" in n for n in log.notes)


def test_bare_numbers_no_unit_puts_beside_the_stated_ones_are_said_not_read(tmp_path: Path) -> None:
    # guard: `CPU freq: 3` fits only GHz, which no logger prints bare; one bare value is no run
    lines: list[str] = []
    for i in range(N):
        clock = "3" if 30 <= i < 40 else ("1500000" if i == 50 else f"{_clock(i)} MHz")
        lines += _record(i, f"{_temp(i):.1f}'C", clock)
    log = parse_log(_write(tmp_path / "g.log", lines))
    clocks = [s.freqs_hz.get("cpu") for s in log.samples]
    assert len(log.samples) == N and set(clocks) == {None, 600_000_000, 1_500_000_000}
    assert sum(c is None for c in clocks) == 11
    assert sum("bare number(s) under 'CPU freq'" in n and "not read" in n for n in log.notes) == 2
