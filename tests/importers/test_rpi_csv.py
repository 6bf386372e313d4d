"""Raspberry Pi CSV importer: the three real logs (no licence: read from $THERMOGOV_REAL_DATA,
never copied) and synthetic rows, written for this test, for every variant and breakage."""

from __future__ import annotations

import itertools
from pathlib import Path

from thermogov.importers import detect_format, parse_log, rpi_csv
from thermogov.importers.common import ImportedLog

ROOT = Path(__file__).resolve().parents[2]


def temps(log: ImportedLog) -> list[float]:
    return [s.temps_c["cpu"] for s in log.samples]


def test_unit_a_counter_log_without_header(real: Path) -> None:
    path = real / "rpi_4b_stress_cpu4_unitA.csv"
    assert detect_format(path) == "rpi-csv"
    log = parse_log(path)
    assert (log.fmt, log.board_hint, log.skipped_lines, len(log.samples)) == ("rpi-csv", None, 0, 659)
    assert {round(b.t_s - a.t_s, 6) for a, b in zip(log.samples, log.samples[1:], strict=False)} == {1.0}
    first, last = log.samples[0], log.samples[-1]
    assert (first.t_s, first.temps_c, first.loads) == (0.0, {"cpu": 48.0}, {"cpu": 0.027})
    assert (last.t_s, last.temps_c, last.loads) == (658.0, {"cpu": 55.0}, {"cpu": 0.014})
    assert (min(temps(log)), max(temps(log))) == (48.0, 65.0)
    assert log.samples[56].loads == {} and log.samples[56].temps_c == {"cpu": 56.0}  # "57,,56"
    assert "8 row(s) with an empty #2 field: no cpu load for them" in log.notes
    assert all(s.freqs_hz == {} and s.power_w is None for s in log.samples)


def test_unit_b_counter_log_with_header_and_clock(real: Path) -> None:
    log = parse_log(real / "rpi_4b_stress_cpu4_unitB.csv")
    assert (log.skipped_lines, len(log.samples)) == (0, 20986)
    assert log.duration_s == 20985.0
    assert {s.freqs_hz["cpu"] for s in log.samples} == {2_000_000_000}
    assert (temps(log)[0], max(temps(log)), temps(log)[-1]) == (42.0, 72.0, 44.0)
    assert sum(1 for s in log.samples if not s.loads) == 111
    assert log.samples[308].loads == {}  # upstream "309,,53,2000"


def test_longterm_wall_clock_log(real: Path) -> None:
    log = parse_log(real / "rpi_4b_longterm_cputemp.csv")
    # 6 rows stamped before their predecessor (reboots without RTC) + 2 concatenated records
    assert (len(log.samples), log.skipped_lines) == (10682, 8)
    assert "6 row(s) earlier than the previous row skipped (clock stepped back)" in log.notes
    assert "304 row(s) share the previous row's timestamp (sub-second logging)" in log.notes
    ts = [s.t_s for s in log.samples]
    assert all(b >= a for a, b in itertools.pairwise(ts))
    assert log.duration_s == 3416118.0  # 2021-04-11 10:41:16 -> 2021-05-20 23:36:34
    assert log.samples[0].temps_c == {"cpu": 68.653} and log.samples[0].loads == {}
    assert log.samples[1].t_s == 1.0
    assert log.samples[-1].temps_c == {"cpu": 69.14} and log.samples[-1].loads == {"cpu": 0.101}
    # SOURCES.md says 48-82 °C; five upstream rows are colder (28.719 °C on 2021-04-19 12:36:35)
    assert (min(temps(log)), max(temps(log))) == (28.719, 82.289)


def test_synthetic_counter_rows_with_header_and_breakage() -> None:
    text = "\n".join(
        [  # written for this test, following temp_test.sh's column order
            "time,usage,temperature,frequency",
            "1,12.5,50,1500",
            "2,,51,1500",  # empty usage: kept, no load
            "3,abc,52,1500",  # garbage usage: skipped
            "4,25.0,52",  # frequency missing: kept, no clock
            "5,50.0,53,1500,99",  # too many fields: skipped
            "2,10.0,49,1500",  # counter went back: skipped
            "6,100.0,54,1800",
        ]
    )
    log = rpi_csv.parse_text(text, "bench.csv")
    assert log.skipped_lines == 3
    assert [s.t_s for s in log.samples] == [0.0, 1.0, 3.0, 5.0]
    assert [s.loads.get("cpu") for s in log.samples] == [0.125, None, 0.25, 1.0]
    assert [s.freqs_hz.get("cpu") for s in log.samples] == [1_500_000_000, 1_500_000_000, None, 1_800_000_000]
    assert "1 row(s) earlier than the previous row skipped (clock stepped back)" in log.notes


def test_synthetic_wall_clock_rows_two_and_seven_fields() -> None:
    text = "\n".join(
        [  # written for this test, following the psutil logger's two layouts
            "2021-05-20 23:59:58,60.5",
            "2021-05-20 23:59:59,61.0,0,12.5,temp (deg C),fan speed (rpm),cpu load 0.5 sec (%)",
            "2021-05-21 00:00:00,61.5,1,40.0,temp (deg C),fan speed (rpm),cpu load 0.5 sec (%)"
            "2021-05-21 00:00:00,61.5",  # two records run together on one line
            "",
            "2021-05-21 00:00:01,62.0,1,50.0,temp (deg C),fan speed (rpm),cpu load 0.5 sec (%)",
            "2021-13-40 00:00:02,62.0",
        ]
    )
    log = rpi_csv.parse_text(text, "cpu_temp.csv")
    assert log.skipped_lines == 2  # concatenated records, impossible date; blank line ignored
    assert [s.t_s for s in log.samples] == [0.0, 1.0, 3.0]
    assert [s.temps_c["cpu"] for s in log.samples] == [60.5, 61.0, 62.0]
    assert [s.loads for s in log.samples] == [{}, {"cpu": 0.125}, {"cpu": 0.5}]
    assert "7-field rows: fan on/off column not imported (no field for it)" in log.notes


def test_detection_does_not_claim_other_csvs() -> None:
    assert rpi_csv.looks_like("1,2.7,48\n2,0.0,48\n3,1.4,49\n")
    assert not rpi_csv.looks_like("a,b,c\nx,y,z\n")
    assert not rpi_csv.looks_like("System-Time,CPU0-STATE\n01:00:00,True\n")
