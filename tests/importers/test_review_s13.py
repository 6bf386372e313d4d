"""Misreads found by the session-13 review of the new readers (docs/importing.md, "Reviewed,
session 13"): each log was imported with exit 0 and wrong values before.  Synthetic rows in each
shape with this test's own numbers; every expected value is computed from the numbers written."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from thermogov.importers import parse_log
from thermogov.importers.columns import from_header
from thermogov.interfaces import LogFormatError

CELSIUS = [44.0 + 0.5 * k for k in range(8)]


def _write(tmp_path: Path, data: str | bytes, name: str = "log.csv") -> Path:
    path = tmp_path / name
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8", newline="")
    else:
        path.write_bytes(data)
    return path


def _f(c: float) -> float:
    return round(c * 9 / 5 + 32, 1)


def test_glances_unit_cells_are_read_in_every_row(tmp_path: Path) -> None:
    """Glances restarted with --fahrenheit appends °F rows: only the first 200 unit cells were
    read, so the °F rows after them were stored as °C (114 °C).  Mixed units are not imported."""
    header = "timestamp,cpu_total,sensors_cpu_thermal 1_value,sensors_cpu_thermal 1_unit"
    units = ["C"] * 210 + ["F"] * 30
    rows = "".join(
        f"2026-12-04 10:{k // 60:02d}:{k % 60:02d},30.0,{45.0 if u == 'C' else _f(45.0)},{u}\n"
        for k, u in enumerate(units)
    )
    log = parse_log(_write(tmp_path, header + "\n" + rows))
    assert not any(s.temps_c for s in log.samples)
    assert any("not in °C/°F" in n and "c/f" in n for n in log.notes)


def test_cpu_total_is_a_percentage_even_when_idle(tmp_path: Path) -> None:
    """0.2..0.9 % was taken for a fraction: a 20..90 % load."""
    pct = [0.2 + 0.1 * k for k in range(8)]
    text = "timestamp,cpu_total,cpu_temp\n" + "".join(
        f"{1764842400 + k},{p:.1f},{c}\n" for k, (p, c) in enumerate(zip(pct, CELSIUS, strict=True))
    )
    log = parse_log(_write(tmp_path, text))
    assert [s.loads["cpu"] for s in log.samples] == pytest.approx([p / 100 for p in pct])


def test_times_of_day_newest_first_across_midnight(tmp_path: Path) -> None:
    """Newest first, 00:00:03 .. 23:59:56: every step back was unplaceable, 1 row of 8 kept."""
    stamps = [f"23:59:{56 + k}" for k in range(4)] + [f"00:00:0{k}" for k in range(4)]
    text = "time,cpu_temp\n" + "".join(
        f"{t},{c}\n" for t, c in reversed(list(zip(stamps, CELSIUS, strict=True)))
    )
    log = parse_log(_write(tmp_path, text))
    assert [(s.t_s, s.temps_c["cpu"]) for s in log.samples] == [(float(k), c) for k, c in enumerate(CELSIUS)]


@pytest.mark.parametrize(("sep", "delim"), [(",", ";"), (".", ";"), (",", ",")])
def test_thousands_separators_beside_plain_numbers(tmp_path: Path, sep: str, delim: str) -> None:
    """`1,500` beside `600` MHz was 1.5 MHz (or 600 became 600 GHz)."""
    mhz = [600, 600, 1500, 1800, 600, 1500, 1800, 600]

    def cell(v: int) -> str:
        text = f"{v // 1000}{sep}{v % 1000:03d}" if v >= 1000 else str(v)
        return f'"{text}"' if delim == "," else text

    temp = (lambda c: str(c).replace(".", ",")) if delim == ";" else str
    text = f"time{delim}temp{delim}freq (MHz)\n" + "".join(
        f"{k}{delim}{temp(c)}{delim}{cell(v)}\n" for k, (c, v) in enumerate(zip(CELSIUS, mhz, strict=True))
    )
    log = parse_log(_write(tmp_path, text))
    assert [s.freqs_hz["cpu"] for s in log.samples] == [v * 1_000_000 for v in mhz]
    assert [s.temps_c["cpu"] for s in log.samples] == CELSIUS


@pytest.mark.parametrize("sep", [" ", "\u00a0", "\u202f"])
def test_space_grouped_thousands_in_a_french_export(tmp_path: Path, sep: str) -> None:
    """`1 500` made its row no data: 5 rows of 8 silently skipped."""
    mhz = [600, 1500, 1800, 600, 1500, 1800, 600, 1500]
    text = "Heure;Température;Fréquence (MHz)\n" + "".join(
        f"10:00:{k:02d};{str(c).replace('.', ',')};{str(v) if v < 1000 else f'{v // 1000}{sep}{v % 1000:03d}'}\n"
        for k, (c, v) in enumerate(zip(CELSIUS, mhz, strict=True))
    )
    log = parse_log(_write(tmp_path, text))
    assert [s.freqs_hz["cpu"] for s in log.samples] == [v * 1_000_000 for v in mhz]


@pytest.mark.parametrize(
    ("delim", "cells"), [(";", ["950,5", "1.234,5", "4.100,0"]), (",", ['"950.5"', '"1,234.5"', '"4,100.0"'])]
)
def test_grouped_thousands_with_decimals(tmp_path: Path, delim: str, cells: list[str]) -> None:
    mw = [950.5, 1234.5, 4100.0]
    temp = (lambda c: str(c).replace(".", ",")) if delim == ";" else str
    text = f"time{delim}temp{delim}power (mW)\n" + "".join(
        f"{k}{delim}{temp(CELSIUS[k])}{delim}{cells[k % 3]}\n" for k in range(6)
    )
    log = parse_log(_write(tmp_path, text))
    assert [s.power_w for s in log.samples] == pytest.approx([mw[k % 3] / 1000 for k in range(6)])


def test_decimal_commas_keep_their_meaning_without_plain_hundreds(tmp_path: Path) -> None:
    """A decimal-comma column never taken for thousands: `45` beside `45,500` stays 45.5."""
    vals = ["45", "45,500", "46", "46,250"]
    text = "Zeit;Temperatur\n" + "".join(f"10:00:0{k};{v}\n" for k, v in enumerate(vals))
    log = parse_log(_write(tmp_path, text))
    assert [s.temps_c["cpu"] for s in log.samples] == [45.0, 45.5, 46.0, 46.25]


def test_decimal_commas_in_a_comma_separated_file_are_refused(tmp_path: Path) -> None:
    """`0,44,5,1500` under `time,temp,freq` was read header-less: 44 °C beside a 5 % load."""
    text = "time,temp,freq\n" + "".join(
        f"{k},{str(c).replace('.', ',')},1500\n" for k, c in enumerate(CELSIUS)
    )
    with pytest.raises(LogFormatError, match=r"names 3 columns but the rows have 4.*';'"):
        parse_log(_write(tmp_path, text))


def test_a_title_line_before_a_headerless_table_is_no_split_header(tmp_path: Path) -> None:
    text = "Pi monitor, v1.2\n" + "".join(f"{k},{c},1500\n" for k, c in enumerate(CELSIUS))
    log = parse_log(_write(tmp_path, text))
    assert [s.temps_c["cpu"] for s in log.samples] == CELSIUS


def test_a_line_cut_by_nuls_is_not_glued_to_the_next(tmp_path: Path) -> None:
    """`4` + NULs + `300,40.0`: the row t = 4300 s, and every later row dropped as earlier."""
    after = [(300 + k, 40.0 + k / 10) for k in range(6)]
    text = (
        "t,temp\n"
        + "".join(f"{k},{c}\n" for k, c in enumerate(CELSIUS[:4]))
        + "4"
        + "\x00" * 4096
        + "".join(f"{t},{v}\n" for t, v in after)
    )
    log = parse_log(_write(tmp_path, text))
    assert [(s.t_s, s.temps_c["cpu"]) for s in log.samples] == [
        *((float(k), c) for k, c in enumerate(CELSIUS[:4])),
        *((float(t), v) for t, v in after),
    ]
    assert any("cut off by a run of NULs" in n for n in log.notes)


def test_a_few_nuls_inside_a_line_are_only_removed(tmp_path: Path) -> None:
    text = "t,temp\n" + "".join(f"{k},{c}\n" for k, c in enumerate(CELSIUS))
    text = text.replace("2,45.0", "2,4\x00\x005.0")
    log = parse_log(_write(tmp_path, text))
    assert [s.temps_c["cpu"] for s in log.samples] == CELSIUS


def test_a_gzip_inside_a_gzip_is_read(tmp_path: Path) -> None:
    """It was refused as 'a binary file', a cause that names no fix."""
    text = "t,temp\n" + "".join(f"{k},{c}\n" for k, c in enumerate(CELSIUS))
    log = parse_log(_write(tmp_path, gzip.compress(gzip.compress(text.encode())), "log.csv.gz.gz"))
    assert [s.temps_c["cpu"] for s in log.samples] == CELSIUS
    assert any("gzip inside gzip" in n for n in log.notes)


def test_four_nested_gzips_are_refused(tmp_path: Path) -> None:
    data = b"t,temp\n0,45.0\n1,45.5\n"
    for _ in range(4):
        data = gzip.compress(data)
    with pytest.raises(LogFormatError, match="inside each other"):
        parse_log(_write(tmp_path, data, "log.gz"))


@pytest.mark.parametrize("name", ["freq (F)", "cpu_freq (°C)", "CPU load (°F)"])
def test_a_temperature_unit_on_another_quantity_is_not_imported(name: str) -> None:
    """`freq (F)` holding 150..157 MHz was a second sensor at 66..69 °C."""
    assert from_header(name).role == ""


def test_a_bare_domain_with_a_unit_letter_is_never_a_load(tmp_path: Path) -> None:
    """`CPU f` holding 1.5 (GHz) was a 1.5 % load beside the cpu temperature."""
    text = "time,cpu temp,CPU f\n" + "".join(f"{k},{c},1.5\n" for k, c in enumerate(CELSIUS))
    log = parse_log(_write(tmp_path, text))
    assert [s.temps_c for s in log.samples] == [{"cpu": c} for c in CELSIUS]
    assert not any(s.loads or s.freqs_hz for s in log.samples)
    assert any("CPU f=?" in n and "--columns" in n for n in log.notes)


@pytest.mark.parametrize(
    ("header", "cells", "expect"),
    [
        (
            "timestamp,cpu_load",
            [f"{30 + k}.0" for k in range(8)],
            ("loads", [(30 + k) / 100 for k in range(8)]),
        ),
        ("timestamp,temp_f", [str(_f(c)) for c in CELSIUS], ("temps", CELSIUS)),
        ("time,power_w", [f"{5 + k / 10}" for k in range(8)], ("power", [5 + k / 10 for k in range(8)])),
    ],
)
def test_a_named_two_column_wall_clock_table_is_read_by_name(
    tmp_path: Path, header: str, cells: list[str], expect: tuple[str, list[float]]
) -> None:
    """The psutil layout's header-less `YYYY-MM-DD HH:MM:SS,temp` rows are read by position; a
    named table of the same shape stored its load, °F or watts as the cpu temperature in °C."""
    text = header + "\n" + "".join(f"2026-12-04 10:00:{k:02d},{v}\n" for k, v in enumerate(cells))
    log = parse_log(_write(tmp_path, text))
    kind, values = expect
    if kind == "loads":
        got = [s.loads["cpu"] for s in log.samples]
    elif kind == "temps":
        got = [s.temps_c["cpu"] for s in log.samples]
    else:
        got = [s.power_w for s in log.samples]
    assert got == pytest.approx(values)
    if kind != "temps":
        assert not any(s.temps_c for s in log.samples)


def test_millions_grouped_twice_need_no_plain_number(tmp_path: Path) -> None:
    """`"1,500,000"` kHz beside `"600,000"`: two separators are no decimal mark, but with no
    plain number to compare, 5 rows of 8 were dropped without a note (and 600,000 read as 600.0)."""
    khz = [600_000, 1_500_000, 1_800_000] * 2
    text = "epoch,temp,freq_khz\n" + "".join(
        f'{1764842400 + k},{CELSIUS[k]},"{v:,}"\n' for k, v in enumerate(khz)
    )
    log = parse_log(_write(tmp_path, text))
    assert [s.freqs_hz["cpu"] for s in log.samples] == [v * 1000 for v in khz]


def test_rows_whose_time_cannot_be_placed_are_said(tmp_path: Path) -> None:
    stamps = ["10:00:00", "10:00:01", "23:00:00", "10:00:03"]  # 13 h on: no place on the axis
    text = "time,cpu_temp\n" + "".join(f"{t},{c}\n" for t, c in zip(stamps, CELSIUS, strict=False))
    log = parse_log(_write(tmp_path, text))
    assert [s.t_s for s in log.samples] == [0.0, 1.0, 3.0]
    assert any(n.startswith("1 row(s) whose time could not be read or placed") for n in log.notes)
