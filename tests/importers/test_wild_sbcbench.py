"""sbc-bench monitor layouts found in reports from the wild (session 12, docs/importing.md
"Formats from the wild"), each read to the values on the line.

The lines are synthetic: the layout follows sbc-bench.sh's `MonitorBoard` printf formats and
the reports named in docs/importing.md, the numbers are this test's own."""

from __future__ import annotations

from pathlib import Path

from thermogov.importers import parse_log, sbcbench


def report(header: str, *rows: str, thermal: str = "") -> str:
    lines = ["sbc-bench v0.9.68 Some Board (Mon, 01 Jan 2024 10:00:00 +0000)", ""]
    if thermal:
        lines += [f"Thermal source: /sys/class/hwmon/hwmon0/ ({thermal})", ""]
    return "\n".join(
        [*lines, "System health while running 7-zip multi core benchmark:", "", header, *rows, ""]
    )


TRIPLE = "Time       cpu0/cpu4/cpu6    load %cpu %sys %usr %nice %io %irq   Temp   DC(V)      mW"


def test_triple_cluster_clocks_are_read_per_cluster_and_the_meter_as_power() -> None:
    """RK3588-style reports print one padded clock per cluster; every row was refused before."""
    log = sbcbench.parse_text(
        report(
            TRIPLE,
            "10:00:00: 1416/ 600/ 600MHz  0.10   2%   0%   1%   0%   0%   0%  33.1°C   5.21    2210",
            "10:00:05: 1800/2208/2208MHz  3.90  98%   1%  97%   0%   0%   0%  41.7°C   5.14    8930",
            "10:00:10: 1800/1992/2016MHz  4.00  99%   1%  98%   0%   0%   0%  47.2°C   5.12    9120",
            thermal="soc_thermal",
        ),
        "tri.txt",
    )
    assert log.skipped_lines == 0 and [s.t_s for s in log.samples] == [0.0, 5.0, 10.0]
    assert [s.temps_c for s in log.samples] == [{"soc": 33.1}, {"soc": 41.7}, {"soc": 47.2}]
    last = log.samples[-1]
    assert last.freqs_hz == {
        "cpu": 2_016_000_000,  # the fastest cluster
        "cpu_policy0": 1_800_000_000,
        "cpu_policy4": 1_992_000_000,
        "cpu_policy6": 2_016_000_000,
    }
    assert last.loads == {"cpu": 0.99} and last.power_w == 9.12  # mW meter column, not DC(V)


def test_no_cpufreq_monitor_keeps_temperature_and_load() -> None:
    """`CPU n/a` header (two words) and `---` / `n/aMHz` clocks: rows were all refused."""
    header = "Time      CPU n/a    load %cpu %sys %usr %nice %io %irq   Temp"
    for clock in ("  ---   ", "n/aMHz  "):
        log = sbcbench.parse_text(
            report(
                header,
                f"10:00:00: {clock}   0.90  35%   2%  31%   0%   2%   0%  44.0°C",
                f"10:00:13: {clock}   1.10 100%   0%  99%   0%   0%   0%  46.5°C",
            ),
            "na.txt",
        )
        assert log.skipped_lines == 0
        assert [(s.t_s, s.temps_c, s.freqs_hz) for s in log.samples] == [
            (0.0, {"cpu": 44.0}, {}),
            (13.0, {"cpu": 46.5}, {}),
        ]
        assert log.samples[1].loads == {"cpu": 1.0}
        assert any("empty clock column" in n for n in log.notes)


def test_no_thermal_source_reads_loads_without_a_temperature() -> None:
    log = sbcbench.parse_text(
        report(
            "Time        CPU    load %cpu %sys %usr %nice %io %irq   Temp",
            "10:00:00:  987MHz  0.90  35%   2%  31%   0%   2%   0%   n/a°C",
            "10:00:13:  987MHz  1.10 100%   0%  99%   0%   0%   0%   n/a°C",
        ),
        "notemp.txt",
    )
    assert [s.temps_c for s in log.samples] == [{}, {}]
    assert log.samples[1].loads == {"cpu": 1.0} and log.samples[1].freqs_hz == {"cpu": 987_000_000}
    assert any("no temperature in the monitor" in n for n in log.notes)


def test_two_monitors_in_one_section_never_share_an_instant(tmp_path) -> None:
    """0.7.x sometimes ran two monitors: the header twice, lines in pairs with one stamp."""
    header = "Time        fake/real   load %cpu %sys %usr %nice %io %irq   Temp   VCore"
    path = tmp_path / "dup.txt"
    path.write_text(
        report(
            header,
            header,
            "10:00:00:  700/ 700MHz  1.50  80%   2%  77%   0%   0%   0%  50.1°C  1.2V",
            "10:00:00:  700/ 700MHz  1.50  80%   2%  77%   0%   0%   0%  49.6°C  1.2V",
            "10:00:40:  700/ 700MHz  1.70 100%   2%  97%   0%   0%   0%  50.6°C  1.2V",
            "10:00:40:  700/ 700MHz  1.80 100%   3%  96%   0%   0%   0%  51.1°C  1.2V",
            "10:01:20:  700/ 700MHz  1.80 100%   2%  97%   0%   0%   0%  51.6°C  1.2V",
        ),
        encoding="utf-8",
    )
    log = parse_log(path)
    times = [s.t_s for s in log.samples]
    assert times == [0.0, 0.5, 40.0, 40.5, 80.0]  # within the stamp's second, not 20 s later
    assert [s.temps_c["cpu"] for s in log.samples] == [50.1, 49.6, 50.6, 51.1, 51.6]
    assert any("shared their second" in n for n in log.notes)


def test_bare_sbc_bench_monitor_capture_is_not_a_generic_table(tmp_path) -> None:
    """`sbc-bench -m > log` has no report around it: read as a generic table, its load was the
    mean of %cpu %sys %usr %nice %io %irq and its 5 s rows were placed 1 s apart."""
    path = tmp_path / "m.log"
    path.write_text(
        "root@pi:~# sbc-bench -m\n"
        "Time        fake/real   load %cpu %sys %usr %nice %io %irq   Temp    VCore\n"
        "09:00:00: 1800/1800MHz  0.20   3%   1%   2%   0%   0%   0%  50.1°C  0.9200V\n"
        "09:00:05: 1800/1800MHz  0.90  96%   2%  94%   0%   0%   0%  55.3°C  0.9200V\n"
        "09:00:10: 1800/1500MHz  1.60  97%   1%  96%   0%   0%   0%  80.4°C  0.9200V\n",
        encoding="utf-8",
    )
    log = parse_log(path)
    assert log.fmt == "sbc-bench"
    assert [(s.t_s, s.temps_c["cpu"], s.freqs_hz["cpu"]) for s in log.samples] == [
        (0.0, 50.1, 1_800_000_000),
        (5.0, 55.3, 1_800_000_000),
        (10.0, 80.4, 1_500_000_000),
    ]
    assert [s.loads for s in log.samples] == [{}, {"cpu": 0.96}, {"cpu": 0.97}]


def test_armbianmonitor_capture_with_repeated_headers(tmp_path) -> None:
    """`armbianmonitor -m`: temperature under a second "CPU" label, a C.St. column, the header
    repeated after a blank line; refused before."""
    header = "Time        CPU    load %cpu %sys %usr %nice %io %irq   CPU  C.St."
    path = tmp_path / "armbian.log"
    path.write_text(
        "Stop monitoring using [ctrl]-[c]\n"
        f"{header}\n\n"
        "11:59:50: 1008MHz  0.30   4%   1%   2%   0%   0%   0%  41.2°C  0/3\n"
        "11:59:55: 1512MHz  0.80  99%   0%  98%   0%   0%   0%  46.9°C  0/3\n"
        f"\n{header}\n\n"
        "12:00:00: 1512MHz  1.20 100%   0%  99%   0%   0%   0%  51.0°C  1/3\n",
        encoding="utf-8",
    )
    log = parse_log(path)
    assert [(s.t_s, s.temps_c, s.freqs_hz, s.loads) for s in log.samples] == [
        (0.0, {"cpu": 41.2}, {"cpu": 1_008_000_000}, {}),
        (5.0, {"cpu": 46.9}, {"cpu": 1_512_000_000}, {"cpu": 0.99}),
        (10.0, {"cpu": 51.0}, {"cpu": 1_512_000_000}, {"cpu": 1.0}),  # the monitor went on
    ]


PI5_METERED = (
    "Time        fake/real   load %cpu %sys %usr %nice %io %irq   Temp    VCore    PMIC   DC(V)      mW"
)


def test_a_pmic_and_a_meter_column_are_each_kept_under_their_own_name() -> None:
    """Pi 5 reports with an external meter print both; the meter's value once overwrote the PMIC's."""
    log = sbcbench.parse_text(
        report(
            PI5_METERED,
            "11:22:38: 2400/2400MHz  0.70  24%   0%  24%   0%   0%   0%  41.4°C  0.8733V   2.6W   5.13V       0",
            "11:22:48: 2400/2400MHz  0.59   1%   0%   0%   0%   0%   0%  42.5°C  0.8738V   4.3W   5.14V    3790",
        ),
        "pi5.txt",
    )
    first, second = log.samples
    assert first.rails_w == {"PMIC": 2.6}  # "0" mW: the meter had no reading yet
    assert second.rails_w == {"PMIC": 4.3, "meter": 3.79}
    # the meter lags the PMIC by about a minute where both are printed: not the board's instantaneous power
    assert first.power_w is None and second.power_w is None
    assert any("lags the PMIC" in n for n in log.notes)


def test_section_starts_name_each_benchmark_on_the_imported_time_axis(tmp_path: Path) -> None:
    """Which benchmark ran when: each section's name and the time of its first imported row."""
    row = "10:00:{:02d}: 1800/1800MHz  1.00  {:>3d}%   0%  24%   0%   0%   0%  50.0°C  0.8900V"
    header = "Time        fake/real   load %cpu %sys %usr %nice %io %irq   Temp    VCore"

    def section(name: str, *rows: str) -> list[str]:
        return [f"System health while running {name}:", "", header, *rows, ""]

    text = "\n".join(
        [
            "sbc-bench v0.9.9 Raspberry Pi 4 Model B Rev 1.4 (Mon, 01 Jan 2024 10:00:00 +0000)",
            "",
            *section("OpenSSL benchmark", row.format(5, 25), row.format(15, 25)),
            *section("7-zip multi core benchmark", row.format(25, 30), row.format(35, 97)),
        ]
    )
    path = tmp_path / "r.txt"
    path.write_text(text, encoding="utf-8")
    assert sbcbench.section_starts(path) == (("OpenSSL benchmark", 0.0), ("7-zip multi core benchmark", 20.0))
    assert [s.t_s for s in parse_log(path).samples] == [0.0, 10.0, 20.0, 30.0]
