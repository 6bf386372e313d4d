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


def test_comma_and_space_separated_headerless_log(tmp_path: Path) -> None:
    """`echo "$(date -u +%FT%TZ), $(temp), $(scaling_cur_freq)"`: the whitespace split won
    with "," cells and every row was refused."""
    log = _log(
        tmp_path,
        "".join(f"2021-07-01T08:00:0{i}Z, {41.0 + i}, {1800000 if i < 3 else 1500000}\n" for i in range(5)),
    )
    assert [(s.t_s, s.temps_c["cpu"], s.freqs_hz["cpu"]) for s in log.samples] == [
        (0.0, 41.0, 1_800_000_000),
        (1.0, 42.0, 1_800_000_000),
        (2.0, 43.0, 1_800_000_000),
        (3.0, 44.0, 1_500_000_000),
        (4.0, 45.0, 1_500_000_000),
    ]


def test_raspberry_pi_blog_logger_with_a_true_false_throttle_flag(tmp_path: Path) -> None:
    """`Elapsed Time (s),Temperature (°C),Clock Speed (MHz),Throttled` with True/False: every
    row was refused, and the clock would have gone to a domain named 'speed'."""
    log = _log(
        tmp_path,
        "Elapsed Time (s),Temperature (°C),Clock Speed (MHz),Throttled\n"
        "0,51,2400,False\n1,63,2400,False\n2,85,1500,True\n",
    )
    assert [(s.t_s, s.temps_c, s.freqs_hz) for s in log.samples] == [
        (0.0, {"cpu": 51.0}, {"cpu": 2_400_000_000}),
        (1.0, {"cpu": 63.0}, {"cpu": 2_400_000_000}),
        (2.0, {"cpu": 85.0}, {"cpu": 1_500_000_000}),
    ]
    assert any("1 of 3 row(s) capped/throttled now" in n for n in log.notes)


def test_headerless_cells_that_carry_their_unit(tmp_path: Path) -> None:
    """`32'C @ 750MHz - 31'C @ 250MHz - <ISO stamp>`: two °C columns could not be told from a
    load and were dropped; the second clock (the GPU's) was max()ed into the CPU's."""
    rows = [("47", "1500", "46", "500"), ("55", "1500", "54", "500"), ("58", "600", "57", "800")]
    text = "Sat Aug  1 20:20:28 UTC 2020 @ host\n-----\n    CPU    -    GPU    -   TIME\n" + "".join(
        f"{a}'C @ {b}MHz   -   {c}'C @ {d}MHz   -   2020-08-01T20:20:{10 * i:02d}+0000\n"
        for i, (a, b, c, d) in enumerate(rows)
    )
    log = _log(tmp_path, text)
    assert [s.t_s for s in log.samples] == [0.0, 10.0, 20.0]
    assert [s.temps_c["cpu"] for s in log.samples] == [47.0, 55.0, 58.0]
    assert [s.freqs_hz["cpu"] for s in log.samples] == [1_500_000_000, 1_500_000_000, 600_000_000]
    assert all(len(s.freqs_hz) == 2 and len(s.temps_c) == 2 for s in log.samples)


def test_wall_clock_rows_of_another_width_are_a_table(tmp_path: Path) -> None:
    """`date,temp,volts,clock x4,°F,...`: taken for the psutil 2/7-field layout and refused."""
    log = _log(
        tmp_path,
        "".join(
            f"2022-02-02 10:00:{5 * i:02d},{t},1.2000V,{f},{f},{f},{f},{t * 1.8 + 32:.2f},ondemand\n"
            for i, (t, f) in enumerate([(44.0, 1500000), (49.5, 1500000), (53.0, 1200000)])
        ),
    )
    assert [(s.t_s, s.temps_c["cpu"], s.freqs_hz["cpu"]) for s in log.samples] == [
        (0.0, 44.0, 1_500_000_000),
        (5.0, 49.5, 1_500_000_000),
        (10.0, 53.0, 1_200_000_000),
    ]
    assert all(set(s.temps_c) == {"cpu"} for s in log.samples)  # the °F column is no temperature here


def test_indonesian_header_and_misspelt_celsius(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        "Tanggal,Waktu,Suhu_CPU_Celcius\n2024-05-01,12:00:00,45.5\n2024-05-01,12:00:10,47.0\n2024-05-01,12:00:20,49.5\n",
    )
    assert [(s.t_s, s.temps_c["cpu"]) for s in log.samples] == [(0.0, 45.5), (10.0, 47.0), (20.0, 49.5)]


def test_percent_cells_are_never_a_temperature(tmp_path: Path) -> None:
    """Headerless `time 45% 3% 48.2'C`: the first % column 'never reached 0 or 100' and was
    taken as a temperature beside the marked one; one % column is the load, several are not
    told apart."""
    one = _log(tmp_path, "10:00:00 45% 48.5'C\n10:00:05 97% 52.0'C\n10:00:10 99% 55.5'C\n")
    assert [(s.temps_c, s.loads) for s in one.samples] == [
        ({"cpu": 48.5}, {"cpu": 0.45}),
        ({"cpu": 52.0}, {"cpu": 0.97}),
        ({"cpu": 55.5}, {"cpu": 0.99}),
    ]
    two = _log(tmp_path, "10:00:00 45% 3% 48.5'C\n10:00:05 97% 2% 52.0'C\n10:00:10 99% 1% 55.5'C\n")
    assert [(s.temps_c, s.loads) for s in two.samples] == [
        ({"cpu": 48.5}, {}),
        ({"cpu": 52.0}, {}),
        ({"cpu": 55.5}, {}),
    ]


def test_s_tui_csv_with_an_underscore_between_date_and_time(tmp_path: Path) -> None:
    """s-tui's `--csv` log (`Time` = `%Y-%m-%d_%H:%M:%S`, `Source:Sensor` columns): refused."""
    log = _log(
        tmp_path,
        'Time,Frequency:Avg,Frequency:Core 0,Frequency:Core 1,Util:Avg,Util:Core 0,Util:Core 1,"Temp:Cpu_Thermal,0"\n'
        "2024-05-01_12:00:00,1000.0,1000.0,1000.0,4.0,5.0,3.0,44.3\n"
        "2024-05-01_12:00:02,1800.0,1800.0,1800.0,100.0,100.0,100.0,51.9\n"
        "2024-05-01_12:00:04,1800.0,1800.0,1800.0,100.0,100.0,100.0,57.4\n",
    )
    assert [(s.t_s, s.temps_c, s.freqs_hz, s.loads) for s in log.samples] == [
        (0.0, {"cpu": 44.3}, {"cpu": 1_000_000_000}, {"cpu": 0.04}),
        (2.0, {"cpu": 51.9}, {"cpu": 1_800_000_000}, {"cpu": 1.0}),
        (4.0, {"cpu": 57.4}, {"cpu": 1_800_000_000}, {"cpu": 1.0}),
    ]


def test_date_then_sysfs_zone_values_loop(tmp_path: Path) -> None:
    """`while :; do date; cat /sys/class/thermal/thermal_zone*/temp; sleep 5; done`: refused."""
    one = _log(
        tmp_path,
        "".join(f"Mon Jan  8 10:00:{5 * i:02d} UTC 2024\n{v}\n" for i, v in enumerate([47250, 50875, 53500])),
    )
    assert [(s.t_s, s.temps_c) for s in one.samples] == [
        (0.0, {"cpu": 47.25}),
        (5.0, {"cpu": 50.875}),
        (10.0, {"cpu": 53.5}),
    ]
    two = _log(
        tmp_path,
        "".join(
            f"Mon Jan  8 10:00:{5 * i:02d} UTC 2024\n{a}\n{b}\n"
            for i, (a, b) in enumerate([(47250, 45100), (50875, 47000), (53500, 48900)])
        ),
    )
    assert [s.temps_c for s in two.samples] == [
        {"cpu": 47.25, "temp3": 45.1},  # the first column is taken as cpu, and the note says so
        {"cpu": 50.875, "temp3": 47.0},
        {"cpu": 53.5, "temp3": 48.9},
    ]


@pytest.mark.parametrize("header", ["USB Power (W)", "meter_w", "Pi power (W)", "Input Power (W)"])
def test_a_supply_side_meter_column_is_the_boards_power(tmp_path: Path, header: str) -> None:
    """A column named for the supply or the board is the board's power, not a rail."""
    log = _log(tmp_path, f"time,temp,{header}\n0,45.0,3.1\n1,46.0,6.4\n2,47.0,6.6\n")
    assert [(s.power_w, s.rails_w) for s in log.samples] == [(3.1, {}), (6.4, {}), (6.6, {})]
