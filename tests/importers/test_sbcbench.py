"""sbc-bench importer: BSD-3 excerpts in tests/data/logs (run everywhere), the full reports
from $THERMOGOV_REAL_DATA when present, and synthetic monitor lines written for this test."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from thermogov.importers import detect_format, parse_log, sbcbench

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "data" / "logs"


# --- excerpts (whole upstream lines, BSD-3-Clause, see tests/data/logs/SOURCES.md) ----------


def test_rpi5_excerpt_with_pmic_power() -> None:
    path = LOGS / "sbcbench_rpi5_8-NK_excerpt.txt"
    assert detect_format(path) == "sbc-bench"
    log = parse_log(path)
    assert (log.fmt, log.board_hint, log.skipped_lines, len(log.samples)) == ("sbc-bench", "rpi5", 0, 17)
    first, last = log.samples[0], log.samples[-1]
    assert first.temps_c == {"cpu": 49.6} and first.loads == {}  # since boot: dropped
    assert first.freqs_hz == {"cpu": 2_400_000_000, "cpu_cpufreq": 2_400_000_000}
    # the PMIC's own rails are not what the board draws: a rail, not the board's power
    assert first.power_w is None and first.rails_w == {"PMIC": 5.6}
    assert log.samples[1].t_s == 13.0  # 02:10:05 -> 02:10:18
    assert log.samples[9].t_s == 106.0  # first cpuminer line, 02:11:51: sections share one axis
    assert (last.t_s, last.temps_c, last.rails_w, last.loads) == (
        397.0,
        {"cpu": 57.3},
        {"PMIC": 5.8},
        {"cpu": 1.0},
    )
    assert all(s.power_w is None for s in log.samples)
    assert "2 monitor sections concatenated: 7-zip multi core benchmark, cpuminer" in log.notes
    assert "column(s) DC(V) not imported (no field for voltages)" in log.notes  # the board's input
    assert first.volts_v == {"cpu": 0.8768} and all(0.87 < s.volts_v["cpu"] < 0.89 for s in log.samples)
    assert "temperature from thermal zone 'cpu-thermal'" in log.notes


def test_a_section_start_marks_where_its_benchmark_began(tmp_path: Path) -> None:
    """sbc-bench starts each section's monitor with its benchmark: the line without a load is
    where the next line's load began, and the run folder keeps that for the calibration."""
    from thermogov.importers.runfolder import write_run_folder
    from thermogov.sim.calibration.data import load_log_data

    log = parse_log(LOGS / "sbcbench_rpi5_8-NK_excerpt.txt")
    assert log.load_starts_at_gaps
    assert [i for i, s in enumerate(log.samples) if not s.loads] == [0, 9]  # the two sections' first lines
    data = load_log_data(write_run_folder(log, tmp_path).run_dir)
    assert data.load_starts_at_gaps and np.isnan(data.load["cpu"][9])
    other = next(p for p in sorted(LOGS.iterdir()) if p.name.startswith("tegrastats"))
    assert not parse_log(other).load_starts_at_gaps  # a tegrastats line's load is its own interval's


def test_rock5b_excerpt_big_little_clocks() -> None:
    log = parse_log(LOGS / "sbcbench_rock5b_4qJG_excerpt.txt")
    assert (log.board_hint, log.skipped_lines, len(log.samples)) == ("rock5b", 0, 7)
    assert [s.t_s for s in log.samples] == [0.0, 45.0, 90.0, 134.0, 179.0, 224.0, 268.0]
    assert log.samples[0].temps_c == {"soc": 72.1} and log.samples[0].loads == {}  # since boot: dropped
    throttled = log.samples[4]  # 18:19:22: big cluster drops 2208 -> 1008 MHz under cpuminer
    assert throttled.freqs_hz == {"cpu": 1_800_000_000, "cpu_big": 1_008_000_000, "cpu_little": 1_800_000_000}
    assert log.samples[0].freqs_hz["cpu"] == 2_208_000_000
    assert all(s.power_w is None and s.rails_w == {} for s in log.samples)


def test_xavier_nx_excerpt_without_temperature() -> None:
    log = parse_log(LOGS / "sbcbench_xavier-nx_3YWp_excerpt.txt")
    assert (log.board_hint, log.skipped_lines, len(log.samples)) == ("jetson-xavier-nx", 0, 7)
    assert all(s.temps_c == {} for s in log.samples)  # "--": no thermal source on that version
    assert [s.freqs_hz["cpu"] for s in log.samples][:2] == [1_906_000_000, 1_907_000_000]
    assert log.samples[-1].t_s == 18.0
    assert "1 'System health now' line(s) not imported (repeat the last monitor line)" in log.notes
    assert "no temperature in the monitor (sbc-bench found no usable thermal source)" in log.notes


# --- full reports ---------------------------------------------------------------------------

# file, board_hint, samples, sensor, min T, max T, last t_s, min/max cpu MHz, PMIC W range
REPORTS = [
    ("sbcbench_agx-orin_4ax9.txt", "jetson-agx-orin", 68, "soc2", 71.3, 83.9, 1877.0, 2145, 2345, None),
    ("sbcbench_agx-xavier_4ebH.txt", "jetson-agx-xavier", 52, "cpu", 34.0, 43.5, 1100.0, 2261, 2263, None),
    ("sbcbench_jetson-nano_4rLX.txt", "jetson-nano", 53, "cpu", 33.0, 44.5, 542.0, 1479, 1479, None),
    ("sbcbench_orangepi-zero2w_4MLz.txt", "orangepi-zero2w", 58, "cpu", 61.0, 91.5, 910.0, 1200, 1512, None),
    ("sbcbench_orin-nano_4vgu.txt", "jetson-orin-nano", 61, "soc2", 47.2, 51.3, 716.0, 1510, 1510, None),
    ("sbcbench_rock5b_4qJG.txt", "rock5b", 63, "soc", 41.6, 74.8, 943.0, 1800, 2208, None),
    ("sbcbench_rpi-cm5_Xh2H.txt", "rpi-cm5", 47, "cpu", 55.1, 66.1, 585.0, 2400, 2400, (2.9, 5.9)),
    ("sbcbench_rpi400_2Cyi.txt", "rpi400", 27, "cpu", 41.4, 51.6, 971.0, 1800, 1800, None),
    ("sbcbench_rpi4b_1MFf.txt", "rpi4", 26, "cpu", 66.7, 81.8, 872.0, 1500, 1500, None),
    ("sbcbench_rpi4b_3Llk.txt", "rpi4", 25, "cpu", 58.9, 72.5, 1002.0, 2148, 2148, None),
    ("sbcbench_rpi5_4I1w.txt", "rpi5", 43, "cpu", 51.2, 70.0, 347.0, 3000, 3000, None),
    ("sbcbench_rpi5_8-NK.txt", "rpi5", 47, "cpu", 46.3, 59.5, 577.0, 2400, 2400, (2.7, 6.1)),
    ("sbcbench_xavier-nx_3YWp.txt", "jetson-xavier-nx", 43, None, None, None, 934.0, 1899, 1907, None),
]


@pytest.mark.parametrize(
    ("name", "board", "n", "sensor", "t_min", "t_max", "end_s", "f_min", "f_max", "pmic"), REPORTS
)
def test_full_reports(
    real: Path,
    name: str,
    board: str,
    n: int,
    sensor: str | None,
    t_min: float | None,
    t_max: float | None,
    end_s: float,
    f_min: int,
    f_max: int,
    pmic: tuple[float, float] | None,
) -> None:
    path = real / name
    assert detect_format(path) == "sbc-bench"
    log = parse_log(path)
    assert (log.board_hint, log.skipped_lines, len(log.samples)) == (board, 0, n)
    assert log.samples[0].t_s == 0.0 and log.samples[-1].t_s == end_s
    ts = [s.t_s for s in log.samples]
    assert all(b >= a for a, b in itertools.pairwise(ts))
    temps = [v for s in log.samples for v in s.temps_c.values()]
    if sensor is None:
        assert temps == []
    else:
        assert {k for s in log.samples for k in s.temps_c} == {sensor}
        assert (min(temps), max(temps)) == (t_min, t_max)
    clocks = [s.freqs_hz["cpu"] for s in log.samples]
    assert (min(clocks), max(clocks)) == (f_min * 1_000_000, f_max * 1_000_000)
    powers = [s.rails_w["PMIC"] for s in log.samples if "PMIC" in s.rails_w]
    assert ((min(powers), max(powers)) if powers else None) == pmic
    assert all(s.power_w is None for s in log.samples if "PMIC" in s.rails_w)  # a rail, not the board's power


def test_rpi5_real_clock_is_the_firmware_one(real: Path) -> None:
    s = parse_log(real / "sbcbench_rpi5_4I1w.txt").samples[0]  # "3100/3000MHz": cpufreq lies
    assert s.freqs_hz == {"cpu": 3_000_000_000, "cpu_cpufreq": 3_100_000_000}


def test_orangepi_throttling_visible(real: Path) -> None:
    log = parse_log(real / "sbcbench_orangepi-zero2w_4MLz.txt")
    hot = [s for s in log.samples if s.temps_c["cpu"] >= 86.0 and s.loads.get("cpu") == 1.0]  # cpuminer
    assert len(hot) == 6 and {s.freqs_hz["cpu"] for s in hot} == {1_416_000_000, 1_320_000_000, 1_200_000_000}


# --- synthetic monitor lines, written for this test following the documented layout ---------

HEADER = "Time        CPU    load %cpu %sys %usr %nice %io %irq   Temp"


def report(*rows: str) -> str:
    return "\n".join(
        [
            "sbc-bench v0.9.99 Raspberry Pi 3 Model B Rev 1.2 (Mon, 01 Jan 2024 23:50:00 +0000)",
            "",
            "System health while running tinymembench:",
            "",
            HEADER,
            *rows,
            "",
            "##########################################################################",
        ]
    )


def test_synthetic_midnight_wrap_and_broken_lines() -> None:
    text = report(
        "23:59:50: 1200MHz  1.00  25%   0%  25%   0%   0%   0%  60.0°C",
        "23:59:55: 1200MHz  1.00  25%   0%  25%   0%   0%   0%  60.5°C",
        "23:59:57: 1200MHz  1.00  abc   0%  25%   0%   0%   0%  60.5°C",  # garbled
        "00:00:05: 1200MHz  1.00  50%   0%  50%   0%   0%   0%  61.0°C",
        "23:59:59: 1200MHz  1.00  50%   0%  50%   0%   0%   0%  61.0°C",  # out of order
        "00:00:15: 1.2GHz   1.00  50%   0%  50%   0%   0%   0%  61.5°C",  # bad clock unit
        "00:00:25:  600MHz  1.00 100%   0%  99%   0%   0%   0%  80.0°C",
    )
    log = sbcbench.parse_text(text, "wrap.txt")
    assert log.board_hint == "rpi3" and log.skipped_lines == 3
    assert [s.t_s for s in log.samples] == [0.0, 5.0, 15.0, 35.0]
    assert [s.temps_c["cpu"] for s in log.samples] == [60.0, 60.5, 61.0, 80.0]
    assert log.samples[-1].freqs_hz == {"cpu": 600_000_000} and log.samples[-1].loads == {"cpu": 1.0}


def test_board_from_dt_compat_beats_title() -> None:
    assert (
        sbcbench.board_from_report("NVIDIA Orin Jetson-Small Developer Kit", "nvidia,p3737-0000+p3701-0000")
        == "jetson-agx-orin"
    )
    assert sbcbench.board_from_report("Jetson-AGX", "nvidia,galen") == "jetson-agx-xavier"
    assert sbcbench.board_from_report("Raspberry Pi 4 Model B Rev 1.4", None) == "rpi4"
    assert sbcbench.board_from_report("jetson-nano", None) == "jetson-nano"  # L4T 32.1 DT model
    assert sbcbench.board_from_report("NVIDIA Orin Nano Developer Kit", None) == "jetson-orin-nano"
    assert sbcbench.board_from_report("Some Unknown Board", "vendor,thing") is None


# --- the Uptime line's reading, before the first monitor line -------------------------------

UPTIME = "Uptime: 23:49:00 up 10:50,  4 users,  load average: 0.62, 0.18, 0.06,  44.6°C,  55517606"
IOSTAT = "Linux 6.6.69-v8-16k+ (pi5) \t01/09/25 \t_aarch64_\t(4 CPU)"
FIRST = "23:50:00: 1200MHz  1.30   5%   0%   5%   0%   0%   0%  46.3°C"


def with_preamble(*preamble: str) -> str:
    head, *rest = report(FIRST, "23:50:10: 1200MHz  1.30  25%   0%  25%   0%   0%   0%  49.0°C").split("\n")
    return "\n".join([head, "", *preamble, "", *rest])


def test_uptime_temperature_is_kept_beside_the_samples() -> None:
    """The Uptime line's temperature and its lead on the first monitor line; the load up to that line
    is the one the two lines' 1-minute load averages imply (0.62 -> 1.30 over 60 s on 4 CPUs)."""
    log = sbcbench.parse_text(with_preamble(UPTIME, IOSTAT), "up.txt")
    assert log.before_run_reading is not None
    lead_s, temp_c, load = log.before_run_reading
    assert (lead_s, temp_c) == (60.0, 44.6)
    decay = np.exp(-1.0)
    assert load == pytest.approx((1.30 - 0.62 * decay) / (1 - decay) / 4)
    assert [s.t_s for s in log.samples] == [0.0, 10.0]  # not a sample: the fit's rows are the monitor's
    assert any(
        n.startswith("the Uptime line reads 44.6 °C 60 s before the first monitor line") for n in log.notes
    )


def test_uptime_reading_rules() -> None:
    """No CPU count: the load until the first line is unknown; no temperature on the line, or a line
    further back than sbc-bench's preparation takes (or after the first line): no reading."""
    no_cpus = sbcbench.parse_text(with_preamble(UPTIME), "x.txt").before_run_reading
    assert no_cpus == (60.0, 44.6, None)
    no_temp = UPTIME.replace(",  44.6°C,  55517606", "")
    assert sbcbench.parse_text(with_preamble(no_temp, IOSTAT), "x.txt").before_run_reading is None
    long_before = UPTIME.replace("23:49:00", "23:30:00")
    assert sbcbench.parse_text(with_preamble(long_before, IOSTAT), "x.txt").before_run_reading is None
    after = UPTIME.replace("23:49:00", "23:51:00")
    assert sbcbench.parse_text(with_preamble(after, IOSTAT), "x.txt").before_run_reading is None


def test_uptime_reading_across_midnight() -> None:
    text = with_preamble(UPTIME.replace("23:49:00", "23:59:30"), IOSTAT).replace("23:50:00", "00:00:20")
    reading = sbcbench.parse_text(text.replace("23:50:10", "00:00:30"), "x.txt").before_run_reading
    assert reading is not None and reading[0] == 50.0


def test_load_between_clips_to_the_cpus() -> None:
    assert sbcbench.load_between(0.0, 10.0, 60.0, 4) == 1.0
    assert sbcbench.load_between(2.0, 0.5, 60.0, 4) == 0.0
    assert sbcbench.load_between(1.0, 1.0, 30.0, 4) == pytest.approx(0.25)


def test_real_reports_keep_their_uptime_reading(real: Path) -> None:
    """8-NK's Uptime line: 44.6 °C at 02:06:18, the first monitor line 02:07:05, load average 0.62 -> 1.08."""
    reading = parse_log(real / "sbcbench_rpi5_8-NK.txt").before_run_reading
    assert reading is not None and reading[:2] == (47.0, 44.6)
    assert reading[2] == pytest.approx(sbcbench.load_between(0.62, 1.08, 47.0, 4))
    assert (
        parse_log(real / "sbcbench_rpi4b_1MFf.txt").before_run_reading is None
    )  # no temperature on its line
