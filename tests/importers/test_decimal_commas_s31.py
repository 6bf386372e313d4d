"""Session 31w: decimal commas in tegrastats, sbc-bench and `;` tables (issue 10).

A board whose locale writes decimal commas (`CPU@48,3C`, `51,2°C`, `1,85`) was refused in
tegrastats and sbc-bench logs.  A comma between digits inside a cell that blanks delimit (or
inside `NAME@...C`) is a decimal mark and is read; where the comma may also be the separator of
a list or a thousands group (a tegrastats CPU list that commas separate, an sbc-bench clock in
MHz or a meter in mW) the file is refused in one line naming the line and the fix.  A Pi
logger's wall-clock rows re-saved with `;` and decimal commas are read in their layout.  Each log
here is this file's own numbers; the real logs (``$THERMOGOV_REAL_DATA``) are damaged by
``tests/importers/hostile.py``'s decimal-comma variant and must read to the clean values.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.importers.hostile import VARIANTS, misread, values
from tests.importers.test_wild_s29 import _cli
from tests.realdata import REAL_DATA, absent
from thermogov.importers import parse_log
from thermogov.interfaces import LogFormatError

N = 12


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(ln + "\n" for ln in lines))
    return path


def _tegra(i: int, cpu_list: str, temp: str) -> str:
    return (
        f"03-01-2026 00:00:{i:02d} RAM 3100/3983MB (lfb 40x4MB) CPU [{cpu_list}] "
        f"EMC_FREQ 12%@1600 GR3D_FREQ 40%@998 CPU@{temp}C GPU@44,5C POM_5V_IN 3000/3100"
    )


def test_tegrastats_temperatures_with_decimal_commas_are_read(tmp_path: Path) -> None:
    # the CPU list keeps its comma separators (integers), the zones write `48,3C`
    lines = [_tegra(i, "30%@1479,50%@1479,off,10%@1479", f"48,{i % 10}") for i in range(N)]
    log = parse_log(_write(tmp_path / "t.log", lines))
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([48 + (i % 10) / 10 for i in range(N)])
    assert {s.temps_c["gpu"] for s in log.samples} == {44.5}
    assert [s.loads["cpu"] for s in log.samples] == pytest.approx([0.3] * N)


def test_tegrastats_with_semicolon_separators_reads_decimal_loads(tmp_path: Path) -> None:
    lines = [_tegra(i, "30,5%@1479;49,5%@1479;off;10%@1479", "48,3") for i in range(N)]
    log = parse_log(_write(tmp_path / "t.log", lines))
    assert len(log.samples) == N
    assert log.samples[0].loads["cpu"] == pytest.approx((30.5 + 49.5 + 10) / 300)
    assert log.samples[0].freqs_hz["cpu"] == 1_479_000_000


def test_tegrastats_decimal_loads_in_a_comma_list_are_refused_in_one_line(tmp_path: Path) -> None:
    # `[30,5%@1479,49,5%@1479]`: the comma is both separator and decimal mark: never split
    lines = [_tegra(i, "30,5%@1479,49,5%@1479,off", "48,3") for i in range(N)]
    path = _write(tmp_path / "t.log", lines)
    with pytest.raises(LogFormatError, match=r"line 1: the CPU list .* decimal commas .*LC_ALL=C"):
        parse_log(path)
    r = _cli(path, tmp_path / "out")
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def _sbc(clock: str = "1500MHz", meter: str = "") -> list[str]:
    head = "Time        CPU    load %cpu %sys %usr %nice %io %irq   Temp    VCore" + ("  mW" if meter else "")
    return [
        "sbc-bench v0.9.47 Raspberry Pi 4 Model B Rev 1.4 (Mon, 02 Mar 2026 12:00:00 +0100)",
        "",
        "System health while running tinymembench:",
        "",
        head,
        *(
            f"12:00:{i * 5:02d}: {clock}  1,{85 + i}  25%   0%  25%   0%   0%   0%  5{i % 10},{i % 7}°C  0,8835V"
            + (f"  {meter}" if meter else "")
            for i in range(N)
        ),
    ]


def test_sbc_bench_monitor_cells_with_decimal_commas_are_read(tmp_path: Path) -> None:
    log = parse_log(_write(tmp_path / "r.txt", _sbc()))
    assert log.fmt == "sbc-bench" and len(log.samples) == N
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx(
        [50 + i % 10 + (i % 7) / 10 for i in range(N)]
    )
    assert {s.freqs_hz["cpu"] for s in log.samples} == {1_500_000_000}


@pytest.mark.parametrize(
    ("clock", "meter", "what"), [("1,500MHz", "", "clock"), ("1500MHz", "3,250", "meter")]
)
def test_sbc_bench_whole_number_cells_with_a_comma_are_refused_in_one_line(
    tmp_path: Path, clock: str, meter: str, what: str
) -> None:
    # `1,500MHz` is 1500 MHz in a locale that groups thousands and 1.5 MHz in one with decimal
    # commas: the value cannot be told, so the file is refused, never read either way
    path = _write(tmp_path / "r.txt", _sbc(clock, meter))
    with pytest.raises(LogFormatError, match=rf"line 6: the {what} .* thousands group or a decimal comma"):
        parse_log(path)
    if what == "clock":  # one subprocess: the exit status and the one line through the script
        r = _cli(path, tmp_path / "out")
        assert r.returncode == 2, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


@pytest.mark.parametrize("stamp", ["2021-04-11 10:41:{:02d}", "16181376{:02d}"])
def test_a_semicolon_table_of_two_columns_with_decimal_commas_is_read(tmp_path: Path, stamp: str) -> None:
    # `2021-04-11 10:41:16;68,653`: the comma split gives two columns too, and took each
    # temperature for two cells (the file was refused as no recognised log)
    rows = [f"{stamp.format(i)};6{i % 10},{i:03d}" for i in range(N)]
    log = parse_log(_write(tmp_path / "t.csv", rows))
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx(
        [60 + i % 10 + i / 1000 for i in range(N)]
    )
    # the dated rows are the psutil logger's wall-clock layout (rpi-csv), the epoch ones a table
    assert any("decimal commas" in n for n in log.notes), log.notes


def test_a_comma_table_of_whole_numbers_is_still_split_at_its_commas(tmp_path: Path) -> None:
    # guard: `10:00:05,48,1500` is three cells; no `;` anywhere, so the comma stays the delimiter
    rows = ["time,temp,mhz", *(f"10:00:{i:02d},{48 + i % 3},1500" for i in range(N))]
    log = parse_log(_write(tmp_path / "c.csv", rows))
    assert {s.freqs_hz["cpu"] for s in log.samples} == {1_500_000_000}
    assert {s.temps_c["cpu"] for s in log.samples} == {48.0, 49.0, 50.0}


def _comma_logs() -> list[str]:
    if not REAL_DATA.is_dir():
        return ["<none>"]
    return sorted(
        p.name
        for p in REAL_DATA.iterdir()
        if (p.name.startswith(("tegrastats_", "sbcbench_")) and p.suffix != ".csv")
        or p.name == "rpi_4b_longterm_cputemp.csv"  # `;` and decimal commas, 2- and 7-field rows
    )


@pytest.mark.parametrize("name", _comma_logs())
def test_a_real_log_with_decimal_commas_reads_to_its_clean_values(tmp_path: Path, name: str) -> None:
    clean = REAL_DATA / name
    if not clean.is_file():
        pytest.skip(absent(clean))
    path = tmp_path / name
    path.write_bytes(VARIANTS["decimal-comma"](clean.read_bytes()))
    want, got = parse_log(clean), parse_log(path)  # refused before session 31w
    assert misread(values(want), values(got), lossy=False) is None
    assert got.board_hint == want.board_hint and len(got.samples) == len(want.samples)
