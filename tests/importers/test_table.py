"""Named-column tables (table.py): synthetic files written by these tests, one per layout."""

from __future__ import annotations

import pytest

from thermogov.importers import table
from thermogov.importers.columns import from_header, parse_columns_option
from thermogov.interfaces import ConfigError, LogFormatError


def temps(log: object) -> list[float]:
    return [s.temps_c["cpu"] for s in log.samples]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("name", "role", "qual"),
    [
        ("CPU Temperature (°C)", "temp", "cpu"),
        ("tmp", "temp", "cpu"),
        ("TEMP", "temp", "cpu"),
        ("cpu_temp", "temp", "cpu"),
        ("gpu-temp", "temp", "gpu"),
        ("clk", "freq", "cpu"),
        ("arm_freq", "freq", "cpu"),
        ("Frequency [MHz]", "freq", "cpu"),
        ("thr", "throttled", ""),
        ("throttled", "throttled", ""),
        ("sec", "t", ""),
        ("Timestamp", "t", ""),
        ("usage", "load", "cpu"),
        ("gpu_util", "load", "gpu"),
        ("GR3D_FREQ", "load", "gpu"),  # tegrastats: a utilisation in %
        ("VDD_IN", "power", "VDD_IN"),
        ("VDD_CPU_GPU_CV", "rail", "VDD_CPU_GPU_CV"),
        ("load average", "", ""),
        ("ram_used", "", ""),
        ("batt_pct", "", ""),  # battery charge in %, not a utilisation
        ("Battery (%)", "", ""),
        ("humidity_pct", "", ""),
    ],
)
def test_header_synonyms(name: str, role: str, qual: str) -> None:
    col = from_header(name)
    assert (col.role, col.name) == (role, qual)


def test_free_form_pi_logger_with_title_units_ties_and_nan() -> None:
    text = "\n".join(
        [
            "Raspberry Pi temperature log",
            "",
            "Timestamp, CPU Temperature (°C), CPU Clock (MHz), Throttled",
            "2024-03-01 10:00:00, 45.2, 1500, 0x0",
            "2024-03-01 10:00:00, 45.6, 1500, 0x0",
            "2024-03-01 10:00:01, 46.0, 1200, 0x20002",
            "2024-03-01 10:00:02, nan, 1000, 0x20006",
            "2024-03-01 10:00:03, 46.4, 1500, 0x0",
        ]
    )
    log = table.parse_text(text, "pi.csv")
    assert [s.t_s for s in log.samples] == [0.0, 0.5, 1.0, 2.0, 3.0]  # the tie spread to the next stamp
    assert [s.temps_c.get("cpu") for s in log.samples] == [45.2, 45.6, 46.0, None, 46.4]
    assert [s.freqs_hz["cpu"] for s in log.samples][2:4] == [1_200_000_000, 1_000_000_000]
    assert "1 line(s) before the table skipped (title/prose)" in log.notes
    assert "1 NaN/inf value(s) not imported (bad data, not a measurement)" in log.notes
    assert any(n.startswith("throttled flags: 2 of 5 row(s)") for n in log.notes)
    assert (
        "1 row(s) shared a timestamp with the previous row: spread evenly up to the next stamp" in log.notes
    )


def test_semicolons_decimal_commas_and_millidegrees() -> None:
    log = table.parse_text(
        "time;temp_mC;freq\n0;48300;1500000\n1;48800;1500000\n2;49100,5;1200000\n", "x.csv"
    )
    assert temps(log) == [48.3, 48.8, 49.1005]
    assert [s.freqs_hz["cpu"] for s in log.samples] == [1_500_000_000, 1_500_000_000, 1_200_000_000]
    assert log.notes[0] == "semicolon-separated table, decimal commas"


def test_whitespace_columns_with_time_of_day() -> None:
    text = "Time      Temp(C)  Freq(MHz)\n23:59:59  50.0  1500\n00:00:00  50.5  1500\n00:00:01  51.0  1400\n"
    log = table.parse_text(text, "w.txt")
    assert [s.t_s for s in log.samples] == [0.0, 1.0, 2.0]  # across midnight
    assert temps(log) == [50.0, 50.5, 51.0]


def test_headerless_epoch_temp_mhz_identified_by_value() -> None:
    log = table.parse_text("1700000000,48.3,1500\n1700000001,49.0,1500\n1700000002,49.5,1400\n", "b.csv")
    assert temps(log) == [48.3, 49.0, 49.5]
    assert [s.freqs_hz["cpu"] for s in log.samples] == [1_500_000_000, 1_500_000_000, 1_400_000_000]
    said = next(n for n in log.notes if n.startswith("no header"))
    assert "#1=t" in said and "#2=temp" in said and "#3=freq" in said


def test_headerless_load_and_temperature_told_apart_by_bounds() -> None:
    rows = [
        f"{i},{u},{t}" for i, (u, t) in enumerate([(2.7, 48), (0.0, 48), (100.0, 49), (100.0, 51), (1.4, 50)])
    ]
    log = table.parse_text("\n".join(rows), "a.csv")
    assert temps(log) == [48.0, 48.0, 49.0, 51.0, 50.0]
    assert [s.loads["cpu"] for s in log.samples] == [0.027, 0.0, 1.0, 1.0, 0.014]


def test_two_ambiguous_columns_are_refused_not_guessed() -> None:
    text = "1,40,50\n2,41,52\n3,42,53\n4,43,55\n"
    with pytest.raises(LogFormatError, match=r"cannot identify the columns .*--columns"):
        table.parse_text(text, "amb.csv")


def test_unknown_names_are_refused_with_the_columns_found() -> None:
    with pytest.raises(LogFormatError) as exc:
        table.parse_text("a,b,c\n1,700,3\n2,800,4\n3,900,5\n", "u.csv")
    msg = str(exc.value)
    assert "found: 'a', 'b', 'c'" in msg and "--columns t=" in msg and "\n" not in msg


def test_columns_option_maps_names_positions_and_units() -> None:
    log = table.parse_text("a,b,c\n1,48300,3\n2,48800,4\n3,49000,5\n", "u.csv", columns="t=a,temp=b:mC")
    assert temps(log) == [48.3, 48.8, 49.0]
    log = table.parse_text("1,40,50\n2,41,52\n3,42,53\n", "amb.csv", columns="t=1,temp=3,load=2")
    assert temps(log) == [50.0, 52.0, 53.0] and log.samples[0].loads == {"cpu": 0.4}
    with pytest.raises(LogFormatError, match="does not have; columns found"):
        table.parse_text("a,b\n1,2\n2,3\n", "u.csv", columns="temp=zz")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("temp", "not ROLE=COLUMN"),
        ("heat=a", "unknown role"),
        ("temp=a:kHz", "not a unit of temp"),
        ("", "empty"),
    ],
)
def test_bad_columns_option(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_columns_option(spec)


def test_clock_column_named_as_temperature_is_refused() -> None:
    with pytest.raises(
        LogFormatError, match=r"'tmp' read as temp has values 600..2000, which fit no temp unit"
    ):
        table.parse_text("t,tmp\n1,600\n2,1500\n3,2000\n", "x.csv")


def test_backwards_rows_and_damaged_cells_are_counted() -> None:
    log = table.parse_text("t,temp\n1,45\n2,abc\n0,46\n3,47\n4,48,99\n", "x.csv")
    assert temps(log) == [45.0, 47.0]
    assert log.skipped_lines == 3


def test_one_value_per_line_sysfs_loop_in_millidegrees() -> None:
    log = table.parse_text("48300\n48800\n49300\n50100\n", "zone0.log", interval_s=2.0)
    assert temps(log) == [48.3, 48.8, 49.3, 50.1] and log.duration_s == 6.0
    assert "units: #1: m°C" in log.notes


def test_quoted_decimal_commas_in_a_comma_separated_export() -> None:
    log = table.parse_text('"t","temp"\n1,"48,3"\n2,"48,9"\n3,"49,0"\n', "excel.csv")
    assert temps(log) == [48.3, 48.9, 49.0]


def test_a_temperature_that_only_climbs_is_not_taken_for_the_clock() -> None:
    rows = "\n".join(f"{1500 - 100 * (i > 5)},{45 + i // 3}" for i in range(12))
    log = table.parse_text(rows, "x.csv")
    assert temps(log)[0] == 45.0 and "no time column" in " ".join(log.notes)


def test_bare_domain_column_beyond_any_load_beside_a_temperature_is_the_clock() -> None:
    # lucyhattersley/measure-temp-cpu: `Temp,CPU` rows of vcgencmd measure_temp / measure_clock arm
    text = "Temp,CPU\n60.0,1500345728\n55.0,1500398464\n53.0,600169920\n52.0,600117184\n"
    log = table.parse_text(text, "temps.csv")
    assert temps(log) == [60.0, 55.0, 53.0, 52.0]
    assert [s.freqs_hz["cpu"] for s in log.samples] == [1500345728, 1500398464, 600169920, 600117184]
    assert not any(s.loads for s in log.samples)
    text = "Temp,CPU\n60.0,97\n55.0,12\n53.0,3\n"  # the same names with a load in %: still a load
    assert [s.loads["cpu"] for s in table.parse_text(text, "load.csv").samples] == [0.97, 0.12, 0.03]


@pytest.mark.parametrize(
    ("name", "role", "unit"),
    [
        ("temp_f", "temp", "°F"),  # a word names the quantity: the letter gives its unit
        ("cpu temp c", "temp", "°C"),
        ("CPU (F)", "temp", "°F"),  # bracketed: the header states the unit on purpose
        ("CPU f", "load?", None),  # a bare letter alone: as likely a clock as °F, decided by value
        ("cpu_f", "load?", None),
    ],
)
def test_a_bare_one_letter_unit_never_names_the_quantity(name: str, role: str, unit: str | None) -> None:
    col = from_header(name)
    assert (col.role, col.unit) == (role, unit)
