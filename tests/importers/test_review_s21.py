"""Session 21's round of log shapes (docs/importing.md, "Reviewed, session 21"): each case was a
wrong value, a stretched time axis or a readable log refused before.  Synthetic logs in each
tool's layout with this test's own numbers; every expected value is computed from them."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from thermogov.importers import parse_log

N = 12
EPOCH0 = 1_764_928_800  # 2025-12-05 10:00 UTC
CPU_C = [45.0 + 0.3 * k for k in range(N)]


def _write(tmp_path: Path, text: str, name: str = "log.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


# --- a log cut while its last line was written --------------------------------------------------


def _rows(k: int) -> str:
    return f"{k},{CPU_C[k]:.1f},1500"


@pytest.mark.parametrize(
    ("cut", "what"),
    [(f"{N},46.1,15", "a 15 MHz clock"), (f"{N},4", "a 4 °C board")],
)
def test_a_table_line_cut_at_the_end_is_dropped_and_said(tmp_path: Path, cut: str, what: str) -> None:
    """`tail -c` of a growing log, a killed logger: the last line had no line end and was read as
    ``what``."""
    text = "time,temp,freq\n" + "".join(_rows(k) + "\n" for k in range(N)) + cut
    log = parse_log(_write(tmp_path, text, "log.csv"))
    assert len(log.samples) == N
    assert min(s.freqs_hz["cpu"] for s in log.samples) == 1_500_000_000
    assert min(s.temps_c["cpu"] for s in log.samples) == CPU_C[0]
    assert any("cut while it was written" in n for n in log.notes)


def _jp6(k: int, sec: int | None = None) -> str:
    """A JetPack 6 line (Orin Nano, `--logfile` stamps) of reading ``k`` stamped at second ``sec``."""
    return (
        f"12-05-2026 10:00:{k if sec is None else sec:02d} RAM 2000/7620MB (lfb 2x4MB) SWAP 0/3810MB (cached 0MB) "
        f"CPU [{10 + k}%@1510,5%@1510,off,off,4%@1510,3%@1510] EMC_FREQ 0%@2133 GR3D_FREQ 0%@[305] "
        f"cpu@{CPU_C[k]:.1f}C soc2@44.1C tj@{CPU_C[k]:.1f}C VDD_IN 5000mW/5000mW VDD_SOC 1500mW/1500mW"
    )


def test_a_tegrastats_line_cut_at_the_end_gives_no_memory_clock(tmp_path: Path) -> None:
    """``EMC_FREQ 0%@21`` (of 2133) stored a 21 MHz memory clock in the last sample."""
    last = _jp6(N - 1)
    text = "\n".join(_jp6(k) for k in range(N - 1)) + "\n" + last[: last.index("@2133") + 3]
    log = parse_log(_write(tmp_path, text))
    assert len(log.samples) == N - 1
    assert {s.freqs_hz["emc"] for s in log.samples} == {2_133_000_000}


def test_a_complete_last_line_without_a_line_end_is_kept(tmp_path: Path) -> None:
    """sbc-bench reports and editors leave the last line without a line end: nothing was cut."""
    text = "time,temp,freq\n" + "\n".join(_rows(k) for k in range(N))
    log = parse_log(_write(tmp_path, text, "log.csv"))
    assert len(log.samples) == N
    assert not any("cut while" in n for n in log.notes)


# --- `date +%s` lines between bare readings ------------------------------------------------------


def test_date_epoch_lines_stamp_the_zone_readings_after_them(tmp_path: Path) -> None:
    """``while :; do date +%s; cat thermal_zone0/temp thermal_zone1/temp; sleep 5; done``: the
    stamps were one more value of a one-column series (a 1.76 GHz clock, the m°C dropped)."""
    lines = []
    for k in range(N):
        lines += [str(EPOCH0 + 5 * k), str(round(CPU_C[k] * 1000)), str(round((CPU_C[k] - 1) * 1000))]
    log = parse_log(_write(tmp_path, "\n".join(lines) + "\n"))
    assert len(log.samples) == N
    assert [s.t_s for s in log.samples] == [5.0 * k for k in range(N)]
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx(CPU_C)
    assert all(not s.freqs_hz for s in log.samples)


def test_epoch_lines_with_nanoseconds_are_stamps_too(tmp_path: Path) -> None:
    lines = []
    for k in range(N):
        lines += [f"{EPOCH0 + 2 * k}.{123456789 + k}", str(round(CPU_C[k] * 1000))]
    log = parse_log(_write(tmp_path, "\n".join(lines) + "\n"))
    assert log.duration_s == pytest.approx(2.0 * (N - 1), abs=1e-3)
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx(CPU_C)


def test_a_series_of_hz_clocks_is_no_series_of_stamps(tmp_path: Path) -> None:
    """Clock readings in Hz lie in the epoch range; they neither run forward nor stamp anything."""
    clocks = [1_800_000_000 if k % 2 else 1_500_000_000 for k in range(N)]
    log = parse_log(_write(tmp_path, "\n".join(map(str, clocks)) + "\n"))
    assert [s.freqs_hz["cpu"] for s in log.samples] == clocks


# --- jetson-stats CSVs --------------------------------------------------------------------------


def _dict_csv(keys: list[str], rows: list[dict[str, object]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=keys)
    writer.writeheader()
    for row in rows:
        writer.writerow(row)
    return out.getvalue()


def test_jtop_cpu_cells_written_with_a_percent_sign_are_loads(tmp_path: Path) -> None:
    """A logger writing ``f"{load}%"`` under jtop's keys: the CPU load was lost without a word."""
    keys = ["time", "CPU1", "CPU2", "GPU", "Temp cpu", "Temp gpu", "Power TOT"]
    rows: list[dict[str, object]] = [
        {
            "time": f"2026-12-05 10:00:{k:02d}.000000",
            "CPU1": f"{10 + k}%",
            "CPU2": f"{30 + k}%",
            "GPU": "5%",
            "Temp cpu": CPU_C[k],
            "Temp gpu": 44.0,
            "Power TOT": 5000,
        }
        for k in range(N)
    ]
    log = parse_log(_write(tmp_path, _dict_csv(keys, rows), "jtop.csv"))
    assert log.fmt == "jtop"
    assert [s.loads["cpu"] for s in log.samples] == pytest.approx([(20 + k) / 100 for k in range(N)])
    assert {s.loads["gpu"] for s in log.samples} == {0.05}


def _logdata_row(k: int, zones: dict[str, float], rails: dict[str, float]) -> list[object]:
    return [
        f"2020-05-01 10:00:{k:02d}.{k * 1000:06d}",
        k,
        12 + k,
        "OFF",
        5,
        3,
        *zones.values(),
        *rails.values(),
    ]


def test_jtop2_log_data_csv_reads_bare_zone_names_as_temperatures(tmp_path: Path) -> None:
    """jetson-stats 1.x/2.x `examples/log_data.py`: `time, GR3D, CPU1.., <zones>, <rails avg>`.
    As a generic table its `CPU` zone was a load and its `thermal` zone the cpu temperature."""
    header = ["time", "GR3D", "CPU1", "CPU2", "CPU3", "CPU4", "AO", "CPU", "GPU", "PLL", "PMIC", "thermal"]
    header += ["POM_5V_IN", "POM_5V_GPU", "POM_5V_CPU"]
    lines = [",".join(header)]
    for k in range(N):
        zones = {"AO": 40.5, "CPU": CPU_C[k], "GPU": 33.5, "PLL": 33.0, "PMIC": 100.0, "thermal": 34.25}
        rails = {"POM_5V_IN": 3000 + k, "POM_5V_GPU": 300, "POM_5V_CPU": 800}
        lines.append(",".join(map(str, _logdata_row(k, zones, rails))))
    log = parse_log(_write(tmp_path, "\n".join(lines) + "\n", "log.csv"))
    assert log.fmt == "jtop"
    assert [s.temps_c["cpu"] for s in log.samples] == CPU_C
    assert {s.temps_c["thermal"] for s in log.samples} == {34.25}
    assert all("pmic" not in s.temps_c for s in log.samples)  # tegrastats' fixed alarm level
    assert [s.loads["cpu"] for s in log.samples] == pytest.approx([(20 + k) / 300 for k in range(N)])
    assert [s.loads["gpu"] for s in log.samples] == pytest.approx([k / 100 for k in range(N)])
    # log_data.py writes each rail's running average since tegrastats started, not a reading
    assert all(s.power_w is None and not s.rails_w for s in log.samples)
    assert any("running averages" in n for n in log.notes)


def test_jtop2_xavier_names_printed_twice_are_not_read(tmp_path: Path) -> None:
    """Xavier's zones and rails share `CPU`/`GPU`: DictWriter wrote the rail's mW in both columns."""
    header = ["time", "GR3D", "CPU1", "CPU2", "CPU3", "CPU4", "AUX", "CPU", "GPU", "Tboard"]
    header += ["GPU", "CPU", "SOC", "SYS5V"]
    lines = [",".join(header)]
    for k in range(N):
        zones = {"AUX": CPU_C[k], "CPU": 311, "GPU": 0, "Tboard": 31.0}  # CPU, GPU: the rails' mW
        rails = {"GPU": 0, "CPU": 311, "SOC": 932, "SYS5V": 1812}
        lines.append(",".join(map(str, _logdata_row(k, zones, rails))))
    log = parse_log(_write(tmp_path, "\n".join(lines) + "\n", "log.csv"))
    assert [s.temps_c["aux"] for s in log.samples] == CPU_C
    assert all(set(s.temps_c) == {"aux", "board"} for s in log.samples)
    assert any("a zone and a rail of one name" in n for n in log.notes)


# --- time axes ----------------------------------------------------------------------------------


def test_the_last_second_of_a_fast_tegrastats_log_is_one_second_long(tmp_path: Path) -> None:
    """`tegrastats --interval 100 --logfile`: ten lines per 1 s stamp; the last stamp's ten lines
    were spread over 10 s (each a whole median step), adding 9 s that never were."""
    lines = [_jp6(k % N, sec=k // 10) for k in range(30)]
    log = parse_log(_write(tmp_path, "\n".join(lines) + "\n"))
    assert len(log.samples) == 30
    assert [s.t_s for s in log.samples] == pytest.approx([k / 10 for k in range(30)])


@pytest.mark.parametrize("year", ["2026", "26"])
def test_spreadsheet_dates_without_seconds_are_read(tmp_path: Path, year: str) -> None:
    """A German spreadsheet shows and exports `05.12.2026 10:00` (no seconds): refused before as
    "no usable table rows found", naming no column and no fix."""
    text = "Zeit;Temperatur;Takt\n" + "".join(
        f"05.12.{year} 10:{k:02d};{str(CPU_C[k]).replace('.', ',')};1500\n" for k in range(N)
    )
    log = parse_log(_write(tmp_path, text, "log.csv"))
    assert [s.t_s for s in log.samples] == [60.0 * k for k in range(N)]
    assert [s.temps_c["cpu"] for s in log.samples] == CPU_C


def test_trailing_delimiters_are_named_as_unnamed_columns(tmp_path: Path) -> None:
    """`time,temp,freq,,` (a spreadsheet's empty trailing columns): the note listed `, ` as names."""
    text = "time,temp,freq,,\n" + "".join(_rows(k) + ",,\n" for k in range(N))
    log = parse_log(_write(tmp_path, text, "log.csv"))
    assert "column(s) not imported (no field for them): 2 unnamed" in log.notes


# --- stamps at the start of a line -----------------------------------------------------------------


def test_a_date_prefix_is_a_stamp_not_a_year_column(tmp_path: Path) -> None:
    """``echo $(date) - $(cat scaling_cur_freq) Hz - ${t:0:2}.${t:2} °C``: split on spaces, the
    year (2026) was a 2026 MHz cpu clock and the kHz clock a second domain."""
    khz = [1_500_000 if k % 2 else 600_000 for k in range(N)]
    text = "".join(
        f"Sat Dec  6 10:00:{5 * k:02d} UTC 2026 - {khz[k]} Hz - {CPU_C[k]:.3f} °C\n" for k in range(N)
    )
    log = parse_log(_write(tmp_path, text))
    assert [s.t_s for s in log.samples] == [5.0 * k for k in range(N)]
    assert [s.freqs_hz for s in log.samples] == [{"cpu": f * 1000} for f in khz]
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx(CPU_C)


def test_lines_led_by_an_iso_stamp_are_labelled_readings(tmp_path: Path) -> None:
    """``echo "$NOW: CPU temperature 45.00°C"``: refused as "not a recognised log" before."""
    text = "".join(
        f"2026-12-05 10:00:{5 * k:02d}: CPU temperature {CPU_C[k]:.2f}°C\n"
        f"2026-12-05 10:00:{5 * k:02d}: CPU clock {600 + 100 * k} MHz\n"
        for k in range(N)
    )
    log = parse_log(_write(tmp_path, text))
    assert [s.t_s for s in log.samples] == [5.0 * k for k in range(N)]
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx(CPU_C)
    assert [s.freqs_hz["cpu"] for s in log.samples] == [(600 + 100 * k) * 1_000_000 for k in range(N)]
