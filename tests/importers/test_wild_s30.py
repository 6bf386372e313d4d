"""Session 30w: importers never misread a hostile copy of a log (issue 10).

Every real log (``$THERMOGOV_REAL_DATA``, skipped with the reason when absent) and a synthetic log
of each line and table format (written here, this file's own numbers) is damaged the ways copies
and loggers damage files (``tests/importers/hostile.py``: CRLF, UTF-16 with a BOM, cut mid-line,
a NUL block, records written twice, decimal commas, the header lost, temperatures in m°C, a unit
change halfway with no header).  Each variant is read to the clean file's values (within the
unit) or refused with one line; never read to other values.  Then the shapes session 29 left:
a unit change with no header written again, a counter with ties, a wide headerless table.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.importers.hostile import LOSSY, VARIANTS, misread, values
from tests.importers.test_wild_s29 import _cli
from tests.realdata import REAL_DATA, absent
from thermogov.importers import parse_log
from thermogov.interfaces import LogFormatError


def _stamp(i: int) -> str:
    return f"2026-03-01 {i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}"


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(ln + "\n" for ln in lines))
    return path


# --- clean synthetic logs, one per shape ------------------------------------------------------

N = 60


def _temp(i: int) -> float:
    return 45 + 0.1 * i + (0.4 if i % 7 == 3 else 0.0)


SYNTHETIC: dict[str, list[str]] = {
    "table": ["time,cpu_temp_c,cpu_mhz,cpu_load"]
    + [f"{_stamp(i)},{_temp(i):.1f},{1500 if i % 4 else 1800},{(i * 13) % 100}" for i in range(N)],
    "headerless": [f"{1764928800 + i},{_temp(i):.1f},{1500 if i % 4 else 1800}" for i in range(N)],
    "tegrastats": [
        f"03-01-2026 00:{i // 60:02d}:{i % 60:02d} RAM 3100/3983MB (lfb 40x4MB) CPU "
        f"[30%@1479,50%@1479,off,{(i * 13) % 100}%@1479] EMC_FREQ 12%@1600 GR3D_FREQ 40%@998 "
        f"CPU@{_temp(i):.1f}C GPU@44C POM_5V_IN {3000 + 10 * i}/3100"
        for i in range(N)
    ],
    "vcgencmd": [
        f"00:{i // 60:02d}:{i % 60:02d} temp={_temp(i):.1f}'C frequency(48)=1500000000" for i in range(N)
    ],
    "labelled": [f"{_stamp(i)} CPU Temp: {_temp(i):.1f} C" for i in range(N)],
}


def _check(clean_path: Path, tmp: Path, variant: str) -> str | None:
    """Why the variant of ``clean_path`` was misread (None: read right, refused in one line, or
    the variant leaves the file as it was)."""
    data = clean_path.read_bytes()
    damaged = VARIANTS[variant](data)
    if damaged == data:
        return None
    clean = values(parse_log(clean_path))
    path = tmp / f"{variant}--{clean_path.name}"
    path.write_bytes(damaged)
    try:
        log = parse_log(path)
    except LogFormatError as e:
        return None if "\n" not in str(e) and str(e).strip() else f"refused in more than one line: {e!r}"
    why = misread(clean, values(log), variant in LOSSY, skip_loads=variant == "duplicated")
    return None if why is None else f"{variant}: {why} (read as {log.fmt})"


@pytest.mark.parametrize("shape", sorted(SYNTHETIC))
def test_every_hostile_variant_of_a_synthetic_log_is_read_right_or_refused(
    tmp_path: Path, shape: str
) -> None:
    clean = _write(tmp_path / f"{shape}.log", SYNTHETIC[shape])
    wrong = [why for v in VARIANTS if (why := _check(clean, tmp_path, v)) is not None]
    assert not wrong, wrong


def _real_logs() -> list[str]:
    if not REAL_DATA.is_dir():
        return ["<none>"]
    return sorted(
        p.name for p in REAL_DATA.iterdir() if p.suffix != ".md" and not p.name.startswith("sysfs_")
    )


@pytest.mark.parametrize("name", _real_logs())
def test_every_hostile_variant_of_a_real_log_is_read_right_or_refused(tmp_path: Path, name: str) -> None:
    clean = REAL_DATA / name
    if not clean.is_file():
        pytest.skip(absent(clean))
    wrong = [why for v in VARIANTS if (why := _check(clean, tmp_path, v)) is not None]
    assert not wrong, wrong


# --- the shapes found by the variants, each alone ---------------------------------------------


def test_a_unit_change_with_no_header_is_split_scaled_and_said(tmp_path: Path) -> None:
    # a logger edited in place: °C rows, then m°C rows under the same (single) header
    rows = [f"{_stamp(i)},{_temp(i):.1f},1500" for i in range(40)]
    rows += [f"{_stamp(i)},{round(_temp(i) * 1000)},1500" for i in range(40, 60)]
    path = _write(tmp_path / "mc.csv", ["time,cpu_temp,cpu_mhz", *rows])
    log = parse_log(path)
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([_temp(i) for i in range(60)])
    said = [n for n in log.notes if n.startswith("lines 42-61: cpu_temp in m°C")]
    assert len(said) == 1 and "no header written again" in said[0] and "lines 1-41 are in °C" in said[0]


def test_a_clock_in_khz_after_mhz_with_no_header_is_read_in_its_own_unit(tmp_path: Path) -> None:
    rows = [f"{_stamp(i)},{_temp(i):.1f},{1500 if i % 3 else 600}" for i in range(30)]
    rows += [f"{_stamp(i)},{_temp(i):.1f},{1500000 if i % 3 else 600000}" for i in range(30, 60)]
    log = parse_log(_write(tmp_path / "khz.csv", ["time,cpu_temp,cpu_freq", *rows]))
    assert {s.freqs_hz["cpu"] for s in log.samples} == {1_500_000_000, 600_000_000}
    assert any(n.startswith("lines 32-61: cpu_freq in kHz") for n in log.notes)


def test_one_wild_value_is_no_unit_change(tmp_path: Path) -> None:
    # guard: a single m°C-sized glitch is the range check's, not a part in another unit
    rows = [f"{_stamp(i)},{_temp(i):.1f}" for i in range(30)]
    rows[15] = f"{_stamp(15)},46500"
    log = parse_log(_write(tmp_path / "glitch.csv", ["time,cpu_temp", *rows]))
    assert not any("by its values" in n for n in log.notes)
    assert 46.5 not in [s.temps_c["cpu"] for s in log.samples]


def test_a_headerless_counter_written_twice_is_the_time_not_a_clock(tmp_path: Path) -> None:
    # `n,load,temp` rows with every fifth row written twice: 1..N read as a "1..60 MHz" clock
    rows = []
    for i in range(1, 61):
        rows.append(f"{i},{(i * 13) % 100 / 10:.1f},{48 + i % 3}")
        if i % 5 == 0:
            rows.append(rows[-1])
    log = parse_log(_write(tmp_path / "dup.csv", rows))
    assert all(not s.freqs_hz for s in log.samples)
    assert any("#1=t" in n for n in log.notes)
    assert 59.0 <= log.samples[-1].t_s < 60.0  # the last record's copy spread after it


def test_a_wide_table_that_lost_its_header_is_refused_in_one_line(tmp_path: Path) -> None:
    # an export of 40 columns (MB, mV, mW beside clocks and temperatures): m°C and MHz by value
    # would be guesses; before, 17 "temperatures" and 28 "clocks" were read from such a file
    rows = [
        ",".join(
            [_stamp(i)[11:], f"{1500 + i}", f"{_temp(i) * 1000:.0f}", "38136", "19552", "5516"] + ["1"] * 34
        )
        for i in range(30)
    ]
    path = _write(tmp_path / "wide.csv", rows)
    with pytest.raises(LogFormatError, match=r"40 columns without a header.*--columns"):
        parse_log(path)
    r = _cli(path, tmp_path / "out")
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_a_stressberry_file_with_decimal_commas_is_read_not_split(tmp_path: Path) -> None:
    body = [
        "# This file was created by stressberry v0,1,1 on 2017-11-17 22:22:11,521681",
        "name: case",
        "temperature: [48,3, 47,8, 48,3,",
        "  49,1, 50,0]",
        "time: [0,1, 10,2, 20,3, 30,1, 40,0]",
        "cpu frequency:",
        *(f"- {f}" for f in ("600,5", "1200,0", "1200,0", "1200,0", "600,0")),
    ]
    log = parse_log(_write(tmp_path / "b.dat", body))
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([48.3, 47.8, 48.3, 49.1, 50.0])
    assert [s.t_s for s in log.samples] == pytest.approx([0.0, 10.1, 20.2, 30.0, 39.9])


def test_an_sbc_bench_report_with_a_blank_title_names_no_board_and_says_so(tmp_path: Path) -> None:
    monitor = [
        f"12:{i // 60:02d}:{i % 60:02d}: 1500MHz  1.00  25%   0%  25%   0%   0%   0%  {_temp(i):.1f}°C"
        for i in range(0, 60, 5)
    ]
    for title in ("", "sbc-bench v0.9.1  (Mon, 02 Mar 2026 12:00:00 +0100)"):
        text = [
            title,
            "",
            "System health while running tinymembench:",
            "",
            "Time        CPU    load %cpu %sys %usr %nice %io %irq   Temp",
            *monitor,
        ]
        log = parse_log(_write(tmp_path / "r.txt", text))
        assert log.fmt == "sbc-bench" and len(log.samples) == 12
        assert log.board_hint is None and not log.model
        assert any("title line names no board" in n for n in log.notes), log.notes
        r = _cli(tmp_path / "r.txt", tmp_path / f"out{len(title)}")
        assert r.returncode == 0, r.stderr


def test_the_cli_summary_of_a_unit_change_with_no_header_holds_degrees(tmp_path: Path) -> None:
    rows = [f"{_stamp(i)},{_temp(i):.1f}" for i in range(30)]
    rows += [f"{_stamp(i)},{round(_temp(i) * 1000)}" for i in range(30, 60)]
    r = _cli(_write(tmp_path / "mc.csv", ["time,cpu_temp", *rows]), tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["summary"]["max_sensor_c"]["cpu"] == pytest.approx(_temp(59))


# --- loads in a fraction in one part and in percent in another -----------------------------


def _load_parts(second: Callable[[int], str]) -> list[str]:
    lines = ["time,cpu_temp,cpu_load"] + [f"{_stamp(i)},{_temp(i):.1f},{(i * 13) % 100}" for i in range(30)]
    return (
        lines
        + ["time,cpu_temp,cpu_load"]
        + [f"{_stamp(i)},{_temp(i):.1f},{second(i)}" for i in range(30, 50)]
    )


def test_a_restart_that_writes_loads_as_a_fraction_is_read_as_one(tmp_path: Path) -> None:
    log = parse_log(_write(tmp_path / "ld.csv", _load_parts(lambda i: f"{(i * 13) % 100 / 100:.2f}")))
    assert [s.loads["cpu"] for s in log.samples] == pytest.approx([(i * 13) % 100 / 100 for i in range(50)])
    assert any(n.startswith("lines 32-52: cpu_load in fraction") for n in log.notes)


def test_a_part_of_loads_below_one_that_could_be_idle_percent_is_said_not_scaled(tmp_path: Path) -> None:
    log = parse_log(_write(tmp_path / "ld.csv", _load_parts(lambda i: f"{(i * 13) % 10 / 100:.2f}")))
    assert [s.loads["cpu"] for s in log.samples][30:] == pytest.approx(
        [(i * 13) % 10 / 1e4 for i in range(30, 50)]
    )
    assert any("lines 32-52 hold loads below 1 only" in n and "cannot be told" in n for n in log.notes)


# --- a time restart in logs of lines, named by its lines ------------------------------------


def _tegrastats_at(i: int, second: int) -> str:
    return (
        f"03-01-2026 00:{second // 60:02d}:{second % 60:02d} RAM 3100/3983MB (lfb 40x4MB) CPU "
        f"[30%@1479,50%@1479,off,70%@1479] EMC_FREQ 12%@1600 GR3D_FREQ 40%@998 CPU@{_temp(i):.1f}C GPU@44C"
    )


def test_a_tegrastats_clock_that_steps_back_names_the_lines_it_shifted(tmp_path: Path) -> None:
    lines = [_tegrastats_at(i, 100 + i) for i in range(30)] + [_tegrastats_at(i, i) for i in range(30, 60)]
    log = parse_log(_write(tmp_path / "tg.log", lines))
    assert [s.t_s for s in log.samples] == pytest.approx(list(range(60)))
    assert any(n.startswith("lines 31-60: clock stepped back") for n in log.notes), log.notes


def test_a_vcgencmd_loop_whose_date_lines_restart_names_the_lines_it_shifted(tmp_path: Path) -> None:
    recs: list[str] = []
    for i in range(40):
        j = i + 300 if i < 20 else i
        recs += [f"Tue Mar  5 14:{j // 60:02d}:{j % 60:02d} CET 2024", f"temp={_temp(i):.1f}'C"]
    log = parse_log(_write(tmp_path / "vc.log", recs))
    assert [s.t_s for s in log.samples] == pytest.approx(list(range(40)))
    assert any(n.startswith("lines 41-79: clock stepped back") for n in log.notes), log.notes


# --- rows without a header inside a log of lines ----------------------------------------------


@pytest.mark.parametrize("shape", ["vcgencmd", "labelled", "tegrastats"])
def test_rows_without_a_header_in_a_log_of_lines_are_named_not_counted(tmp_path: Path, shape: str) -> None:
    rows = [f"{1764928800 + i},{50 + 0.1 * i:.1f},1500" for i in range(15)]
    log = parse_log(_write(tmp_path / "mix.log", SYNTHETIC[shape][:30] + rows))
    assert len(log.samples) == 30 and log.skipped_lines == 0
    said = [n for n in log.notes if n.startswith("lines 31-45 (a table of 15 row(s) without a header)")]
    assert len(said) == 1 and "sed -n '31,45p'" in said[0]
