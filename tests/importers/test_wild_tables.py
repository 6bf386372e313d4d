"""Home-made Pi logger tables as people write them (session 12, docs/importing.md "Formats from
the wild"): spreadsheet slash dates, 12-hour clocks, a Date and a Time column, vcgencmd output
pasted into cells, headers in the author's language.  Synthetic rows in those shapes; the
numbers are this test's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from thermogov.importers import parse_log
from thermogov.importers.stamps import parse_stamp, slash_day_first


def _log(tmp_path: Path, text: str):
    path = tmp_path / "pi.csv"
    path.write_text(text, encoding="utf-8")
    return parse_log(path)


def test_date_and_time_columns_with_slash_dates_were_refused(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        "Date,Time,Temperature\n14/03/2021,23:59:40,51.5\n14/03/2021,23:59:55,52.0\n15/03/2021,00:00:10,52.6\n",
    )
    assert [(s.t_s, s.temps_c["cpu"]) for s in log.samples] == [(0.0, 51.5), (15.0, 52.0), (30.0, 52.6)]
    assert any("day first" in n for n in log.notes)


def test_month_first_with_a_12_hour_clock_across_midnight(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        "Date/Time,CPU Temp (C),CPU Freq (MHz),Load (%)\n"
        "03/14/2021 11:59:50 PM,61.0,1800,100\n"
        "03/15/2021 12:00:05 AM,61.4,1800,100\n"
        "03/15/2021 12:00:20 AM,57.3,600,4\n",
    )
    assert [s.t_s for s in log.samples] == [0.0, 15.0, 30.0]
    last = log.samples[-1]
    assert (last.temps_c, last.freqs_hz, last.loads) == ({"cpu": 57.3}, {"cpu": 600_000_000}, {"cpu": 0.04})


def test_ambiguous_slash_dates_take_the_order_that_runs_forward(tmp_path: Path) -> None:
    """Days never past 12: 11/03 -> 12/03 -> 01/04 runs forward only read day-first."""
    log = _log(
        tmp_path,
        "timestamp,temp\n11/03/2021 10:00:00,40.0\n12/03/2021 10:00:00,41.0\n01/04/2021 10:00:00,42.0\n",
    )
    assert [s.t_s / 86400 for s in log.samples] == [0.0, 1.0, 21.0]
    assert any("read day first" in n for n in log.notes)


def test_one_order_for_the_whole_column() -> None:
    cells = ["12/05/2021 10:00:00", "13/05/2021 10:00:00"]
    assert slash_day_first(cells) is True
    a, b = (parse_stamp(c, True) for c in cells)
    assert a is not None and b is not None and b[0] - a[0] == 86400.0  # not 5 Dec -> 13 May
    assert slash_day_first(["05/13/2021 10:00", "05/14/2021 10:00"]) is False
    assert slash_day_first(["05/06/2021 10:00"]) is None
    assert parse_stamp("13:00:00 PM") is None  # no 13 o'clock on a 12-hour clock


def test_vcgencmd_output_pasted_into_cells(tmp_path: Path) -> None:
    """`echo "$(date -Is),$(vcgencmd measure_temp),$(vcgencmd measure_clock arm)"`: refused."""
    log = _log(
        tmp_path,
        "Time,Temp,Freq\n"
        "2021-03-14T10:00:00,temp=44.5'C,frequency(48)=1500345728\n"
        "2021-03-14T10:00:05,temp=49.0'C,frequency(48)=1500345728\n"
        "2021-03-14T10:00:10,temp=53.1'C,frequency(48)=1200126000\n",
    )
    assert [(s.t_s, s.temps_c["cpu"], s.freqs_hz["cpu"]) for s in log.samples] == [
        (0.0, 44.5, 1500345728),
        (5.0, 49.0, 1500345728),
        (10.0, 53.1, 1200126000),
    ]


@pytest.mark.parametrize(
    "header",
    [
        "Datum;Uhrzeit;CPU-Temperatur;Taktfrequenz (MHz);Auslastung (%)",
        "Fecha;Hora;Temperatura CPU;Frecuencia (MHz);Carga (%)",
        "Date;Heure;Température CPU (°C);Fréquence (MHz);Utilisation (%)",
    ],
)
def test_headers_in_the_authors_language(tmp_path: Path, header: str) -> None:
    """German, Spanish and French headers were refused (columns not identified)."""
    log = _log(
        tmp_path,
        f"{header}\n02.01.2022;08:00:00;47,5;1500;12\n02.01.2022;08:00:30;55,0;1500;100\n"
        "02.01.2022;08:01:00;58,5;1200;100\n",
    )
    assert [s.t_s for s in log.samples] == [0.0, 30.0, 60.0]
    assert [s.temps_c["cpu"] for s in log.samples] == [47.5, 55.0, 58.5]
    assert log.samples[-1].freqs_hz == {"cpu": 1_200_000_000} and log.samples[-1].loads == {"cpu": 1.0}


def test_tegrastats_to_csv_rails_are_not_the_boards_power(tmp_path: Path) -> None:
    """`vdd_in_mw,cpu_gpu_mw,soc_mw`: the last power-like column (the SoC rail, 1.5 W) was
    the board's power; the input rail is, the others are rails."""
    log = _log(
        tmp_path,
        "timestamp_ms,vdd_in_mw,cpu_gpu_mw,soc_mw,gpu_pct,temp_cpu_c\n"
        "1717000000000,4875,640,1480,0,46.0\n"
        "1717000000500,9120,3950,1710,93,47.5\n"
        "1717000001000,9260,4010,1730,95,48.1\n",
    )
    assert [(s.t_s, s.power_w, s.rails_w) for s in log.samples] == [
        (0.0, 4.875, {"cpu_gpu_mw": 0.64, "soc_mw": 1.48}),
        (0.5, 9.12, {"cpu_gpu_mw": 3.95, "soc_mw": 1.71}),
        (1.0, 9.26, {"cpu_gpu_mw": 4.01, "soc_mw": 1.73}),
    ]


def test_of_several_unnamed_power_columns_the_largest_is_the_boards(tmp_path: Path) -> None:
    log = _log(tmp_path, "time,temp,power,pwr\n0,45.0,0.7,5.3\n1,46.0,4.1,9.2\n2,47.0,4.4,9.6\n")
    assert [(s.power_w, s.rails_w) for s in log.samples] == [
        (5.3, {"power": 0.7}),
        (9.2, {"power": 4.1}),
        (9.6, {"power": 4.4}),
    ]
    assert any("'pwr' (the largest) is the board's power" in n for n in log.notes)


def test_power_header_with_only_a_unit_is_the_boards_power(tmp_path: Path) -> None:
    """`Power (mW)` became a rail with an empty name (power_w then the 'sum' of that rail)."""
    log = _log(tmp_path, "time,temp,Power (mW),Leistung CPU (W)\n0,45.0,5120,0.9\n1,46.0,9430,4.4\n")
    assert [(s.power_w, s.rails_w) for s in log.samples] == [
        (5.12, {"Leistung CPU": 0.9}),
        (9.43, {"Leistung CPU": 4.4}),
    ]
