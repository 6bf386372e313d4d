"""Logs other people wrote, read in session 25 (docs/importing.md "Session 25w"): each test is a
synthetic text in the shape of one real log that was misread or refused on the previous main;
the numbers are this test's own.

* a CSV whose third cell holds spaces (``/proc/loadavg``) was split on whitespace with decimal
  commas: the temperature was dropped and the last PID taken for a clock in MHz;
* stamps written ``%H: %M: %S`` (a space after each colon) made the whole log refused;
* day-first dashed dates (``20-02-2026 23:30:38``) were refused (read as month 20);
* ``Date: 20-02-2026 23:59:38 Temp: 71.6°C`` lines were refused;
* ``date``'s en_US default (``Tue 23 Jun 2020 04:41:00 PM EDT``) in a table was split into seven
  columns and refused, and its PM ignored: a ``date; vcgencmd measure_temp`` loop going from
  12:59 PM to 01:00 PM stepped back twelve hours and lost every later reading without a note;
* a throttle column of 0/1 flags was read as get_throttled masks (1 = under-voltage): the note
  said no row was throttled; ``throttled=0x0`` cells (get_throttled pasted whole) made every row
  damaged and the log refused.
"""

from __future__ import annotations

from pathlib import Path

from thermogov.importers import parse_log
from thermogov.importers.stamps import parse_date_line, parse_stamp
from thermogov.importers.table import sniff


def _log(tmp_path: Path, text: str, name: str = "pi.log"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return parse_log(path)


def test_a_csv_whose_text_cell_holds_spaces_is_comma_separated(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        "2024-03-01 10:00:00,41.5°C,0.12 0.20 0.18 1/90 600\n"
        "2024-03-01 10:00:05,42.0°C,0.31 0.22 0.19 2/91 611\n"
        "2024-03-01 10:00:10,43.5°C,0.55 0.27 0.20 1/90 624\n"
        "2024-03-01 10:00:15,44.0°C,0.80 0.33 0.22 3/92 639\n",
    )
    assert [(s.t_s, s.temps_c) for s in log.samples] == [
        (0.0, {"cpu": 41.5}),
        (5.0, {"cpu": 42.0}),
        (10.0, {"cpu": 43.5}),
        (15.0, {"cpu": 44.0}),
    ]
    assert all(not s.freqs_hz for s in log.samples)  # the PIDs 600..639 are no clock
    assert not any("decimal commas" in n for n in log.notes)
    # the rule looks only at commas beside a non-digit: `45,5` in a whitespace table is a decimal
    t = sniff("10:00:00 45,5 1500\n10:00:01 46,0 1500\n10:00:02 46,5 1800\n")
    assert t is not None and t.delimiter == " " and t.decimal_comma


def test_stamps_with_a_space_after_each_colon(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        "2024-03-01 10: 00: 00,47.2\n"
        "2024-03-01 10: 00: 05,47.8\n"
        "2024-03-01 10: 00: 10,48.3\n"
        "2024-03-01 10:00:20,48.9\n"
        "2024-03-01 10:00:21,49.4\n",
        "temps.csv",
    )
    assert [(s.t_s, s.temps_c["cpu"]) for s in log.samples] == [
        (0.0, 47.2),
        (5.0, 47.8),
        (10.0, 48.3),
        (20.0, 48.9),
        (21.0, 49.4),
    ]


def test_dashed_dates_day_first_across_midnight(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        "21-03-2024 23:59:58,55.1\n21-03-2024 23:59:59,55.6\n22-03-2024 00:00:00,56.0\n22-03-2024 00:00:01,56.2\n",
        "temps.csv",
    )
    assert [(s.t_s, s.temps_c["cpu"]) for s in log.samples] == [
        (0.0, 55.1),
        (1.0, 55.6),
        (2.0, 56.0),
        (3.0, 56.2),
    ]
    # a stamp whose first number passes 12 is day-first; tegrastats' MM-DD-YYYY is unchanged
    a, b = parse_stamp("13-01-2024 10:00:00"), parse_stamp("01-13-2024 10:00:00")
    assert a is not None and b is not None and a == b


def test_labelled_day_first_stamp_before_a_reading(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        "Date: 21-03-2024 23:59:58 Temp: 61.5°C\n"
        "Date: 21-03-2024 23:59:59 Temp: 61.0°C\n"
        "Date: 22-03-2024 00:00:04 Temp: 60.5°C\n"
        "Date: 22-03-2024 00:00:05 Temp: 60.5°C\n",
    )
    assert [(s.t_s, s.temps_c["cpu"]) for s in log.samples] == [
        (0.0, 61.5),
        (1.0, 61.0),
        (6.0, 60.5),
        (7.0, 60.5),
    ]


def test_a_12_hour_date_line_counts_its_pm() -> None:
    noon = parse_date_line("Tue 23 Jun 2020 12:59:59 PM EDT")
    one = parse_date_line("Tue 23 Jun 2020 01:00:00 PM EDT")
    midnight = parse_date_line("Tue 23 Jun 2020 12:00:00 AM EDT")
    assert noon is not None and one is not None and midnight is not None
    assert one[0] - noon[0] == 1.0
    assert noon[0] - midnight[0] == 12 * 3600 + 59 * 60 + 59


def test_en_us_date_cells_in_a_tab_separated_table(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        "Tue 23 Jun 2020 12:59:58 PM EDT\t62.3\n"
        "Tue 23 Jun 2020 12:59:59 PM EDT\t62.8\n"
        "Tue 23 Jun 2020 01:00:00 PM EDT\t63.1\n"
        "Tue 23 Jun 2020 01:00:01 PM EDT\t63.4\n",
    )
    assert [(s.t_s, s.temps_c["cpu"]) for s in log.samples] == [
        (0.0, 62.3),
        (1.0, 62.8),
        (2.0, 63.1),
        (3.0, 63.4),
    ]


def test_a_vcgencmd_loop_past_one_pm_keeps_its_readings(tmp_path: Path) -> None:
    lines = []
    for stamp, temp in (("12:59:58", 62.3), ("12:59:59", 62.8), ("01:00:00", 63.1), ("01:00:01", 63.4)):
        lines += [f"Tue 23 Jun 2020 {stamp} PM EDT", f"temp={temp}'C"]
    log = _log(tmp_path, "\n".join(lines) + "\n")
    assert [(s.t_s, s.temps_c["cpu"]) for s in log.samples] == [
        (0.0, 62.3),
        (1.0, 62.8),
        (2.0, 63.1),
        (3.0, 63.4),
    ]


def test_a_throttle_column_of_0_and_1_is_a_flag(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        "Mon 01 Apr 2024 10:00:00 AM CEST\nsec,tmp,clk,thr\n0,80,2000,0\n1,82,1333,1\n2,81,2000,0\n3,82,1333,1\n",
        "htl.csv",
    )
    assert [s.freqs_hz["cpu"] for s in log.samples] == [
        2_000_000_000,
        1_333_000_000,
        2_000_000_000,
        1_333_000_000,
    ]
    assert any(n.startswith("throttled flags: 2 of 4 row(s)") for n in log.notes)


def test_get_throttled_pasted_whole_in_a_cell(tmp_path: Path) -> None:
    """The Tom's Hardware benchmark script writes ``$(vcgencmd get_throttled)`` into its CSV:
    ``throttled=0x0``; every row was taken as damaged and the log refused."""
    log = _log(
        tmp_path,
        "Timestamp,CPU Temperature (°C),CPU Clock Speed (MHz),CPU Throttled\n"
        "2024-05-01 10:00:00,45.2,1500,throttled=0x0\n"
        "2024-05-01 10:00:01,45.7,1500,throttled=0x0\n"
        "2024-05-01 10:00:02,52.1,1800,throttled=0x0\n"
        "2024-05-01 10:00:03,81.3,1500,throttled=0xe0002\n",
        "benchmark.csv",
    )
    assert [(s.t_s, s.temps_c["cpu"], s.freqs_hz["cpu"]) for s in log.samples] == [
        (0.0, 45.2, 1_500_000_000),
        (1.0, 45.7, 1_500_000_000),
        (2.0, 52.1, 1_800_000_000),
        (3.0, 81.3, 1_500_000_000),
    ]
    assert any(n.startswith("throttled flags: 1 of 4 row(s)") for n in log.notes)


def test_a_python_logger_line_with_two_unitless_temperatures(tmp_path: Path) -> None:
    """``logging``'s ``%(asctime)s %(message)s`` with ``Current CPU temperature: 58.533, GPU
    temperature: 58.0``: two pairs on a line, no unit; refused before. The label says
    temperature, so a bare value in the °C range is °C (as a table's `temp` column)."""
    log = _log(
        tmp_path,
        "2024-09-30 13:50:54,224 Temperature monitor module has been started\n"
        "2024-09-30 13:50:54,305 Current CPU temperature: 58.533, GPU temperature: 58.0\n"
        "2024-09-30 13:51:54,305 Current CPU temperature: 59.072, GPU temperature: 59.0\n"
        "2024-09-30 13:52:54,305 Current CPU temperature: 60.148, GPU temperature: 60.0\n"
        "2024-09-30 13:53:54,305 Current CPU temperature: 59.610, GPU temperature: 59.0\n",
    )
    assert [(s.t_s, s.temps_c) for s in log.samples] == [
        (0.0, {"cpu": 58.533, "gpu": 58.0}),
        (60.0, {"cpu": 59.072, "gpu": 59.0}),
        (120.0, {"cpu": 60.148, "gpu": 60.0}),
        (180.0, {"cpu": 59.61, "gpu": 59.0}),
    ]


def test_a_temperature_setting_is_no_reading() -> None:
    from thermogov.importers.labelled import classify

    assert classify("CPU temperature", "58.5") == ("temp", 58.5)
    assert classify("Temperature threshold", "75") is None
    assert classify("max temp", "85") is None
    assert classify("CPU temperature", "58500") is None  # m°C: out of range, not guessed
