"""jtop, vcgencmd loops, script captures, localised dates, new sbc-bench/tegrastats dialects.

Every input here is synthetic, written for this test in the layout the tool prints; the real
jtop log is read from $THERMOGOV_REAL_DATA only (tests/realdata.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from thermogov.importers import detect_text, jtop, parse_log, sbcbench, tegrastats, vcgencmd
from thermogov.importers.stamps import parse_stamp
from thermogov.importers.textclean import clean_text
from thermogov.interfaces import LogFormatError

JTOP3 = (
    "{'jetson_clocks': 'OFF', 'nvp model': 'MAXN', 'CPU1': 8, 'CPU2': 16, 'CPU3': 'OFF', 'CPU4': 10, "
    "'GPU': 50, 'RAM': 2845208, 'EMC': 2845208, 'fan': 0.0, 'Temp AO': 47.5, 'Temp CPU': {cpu}, "
    "'Temp GPU': 39.0, 'Temp PLL': 38.5, 'Temp thermal': 39.75, 'power cur': 2604, 'power avg': 2580}"
)


def test_jtop_dict_lines() -> None:
    text = "\n".join(JTOP3.replace("{cpu}", str(c)) for c in (41.5, 42.0, 42.5)) + "\n{broken\n"
    assert detect_text(text) == "jtop"
    log = jtop.parse_text(text, "stats.log", interval_s=30.0)
    assert [s.t_s for s in log.samples] == [0.0, 30.0, 60.0]
    s = log.samples[0]
    assert s.temps_c["cpu"] == 41.5 and s.temps_c["thermal"] == 39.75
    assert s.loads == {"cpu": pytest.approx(0.113333333), "gpu": 0.5}  # OFF core left out, EMC=RAM dropped
    assert s.power_w == 2.604
    assert log.skipped_lines == 1 and log.board_hint == "jetson-nano"
    assert any("EMC values are not percentages" in n for n in log.notes)


def test_jtop4_datetime_repr_and_csv() -> None:
    line = (
        "{{'time': datetime.datetime(2024, 5, 1, 12, 0, {s}, 500000), 'uptime': datetime.timedelta(seconds=9), "
        "'CPU1': 100, 'CPU2': 0, 'GPU': 0, 'EMC': 12, 'Temp cpu': 50.1, 'Temp tj': 51.0, "
        "'Power VDD_IN': 5120, 'Power TOT': 6100}}"
    )
    log = jtop.parse_text("\n".join(line.format(s=s) for s in (0, 1, 3)), "x.log")
    assert [s.t_s for s in log.samples] == [0.0, 1.0, 3.0]
    assert log.samples[0].power_w == 6.1 and log.samples[0].rails_w == {"VDD_IN": 5.12}
    assert log.samples[0].loads["emc"] == 0.12
    csv_text = "time,CPU1,CPU2,GPU,Temp cpu,Temp gpu,Power TOT,jetson_clocks\n" + "\n".join(
        f"2024-05-01 12:00:0{i}.000000,50,{i * 10},20,{50 + i},{48 + i},{6000 + i},OFF" for i in range(3)
    )
    assert detect_text(csv_text) == "jtop"
    log = jtop.parse_text(csv_text, "jtop.csv")
    assert [s.temps_c["cpu"] for s in log.samples] == [50.0, 51.0, 52.0]
    assert log.samples[2].loads["cpu"] == 0.35 and log.samples[1].power_w == 6.001


def test_real_jtop_log_imports(real: Path) -> None:
    log = parse_log(real / "jtop_nano_inference_30s.log", interval_s=30.0)
    assert log.fmt == "jtop" and len(log.samples) == 123 and log.duration_s == 122 * 30.0
    cpu = [s.temps_c["cpu"] for s in log.samples]
    assert (min(cpu), max(cpu)) == (37.5, 48.0)  # SOURCES.md: 37.5 -> 48 °C


def test_vcgencmd_loop_with_localised_date_lines_and_one_stamp_for_many() -> None:
    text = "\n".join(
        [
            "Do 3. Dez 08:23:31 CET 2026",
            "temp=48.3'C",
            "frequency(48)=1500345728",
            "throttled=0x0",
            "Do 3. Dez 08:23:33 CET 2026",
            "temp=49.0'C",
            "temp=49.2'C",  # two readings, one stamp: spread
            "Do 3. Dez 08:23:35 CET 2026",
            "temp=49.9'C",
            "frequency(48)=1000212864",
            "throttled=0x20006",
        ]
    )
    assert detect_text(text) == "vcgencmd"
    log = vcgencmd.parse_text(text, "loop.log")
    assert [s.t_s for s in log.samples] == [0.0, 2.0, 3.0, 4.0]
    assert [s.temps_c["cpu"] for s in log.samples] == [48.3, 49.0, 49.2, 49.9]
    assert log.samples[-1].freqs_hz == {"cpu": 1_000_212_864}
    assert "throttled flags: 1 of 2 reading(s) capped/throttled now (bits 0x2/0x4/0x8)" in log.notes
    assert any("spread evenly" in n for n in log.notes)


def test_vcgencmd_inline_stamps_and_none() -> None:
    log = vcgencmd.parse_text("1700000000 temp=48.3'C\n1700000005 temp=48.8'C\n", "x")
    assert [s.t_s for s in log.samples] == [0.0, 5.0]
    log = vcgencmd.parse_text("temp=48.3'C\ntemp=48.8'C\ntemp=49.1'C\n", "x", interval_s=2.0)
    assert [s.t_s for s in log.samples] == [0.0, 2.0, 4.0]
    assert "no timestamps: one reading per 2 s (given)" in log.notes


@pytest.mark.parametrize(
    "line",
    [
        "Thu Dec  3 08:23:31 UTC 2026",
        "Do 3. Dez 08:23:31 CET 2026",
        "jeu. 03 déc. 2026 08:23:31 CET",
        "mar. 03 déc. 2026 08:23:31 CET",  # the weekday 'mar.' is no month
        "jue 03 dic 2026 08:23:31 CET",
        "gio 3 dic 2026, 08:23:31, CET",
        "2026-12-03T08:23:31Z",
        "03.12.2026 08:23:31",
        "12-03-2026 08:23:31",
    ],
)
def test_stamps_in_many_locales_agree(line: str) -> None:
    assert parse_stamp(line) == (1796286211.0, True)


def test_script_capture_with_cr_ansi_and_header() -> None:
    raw = (
        'Script started on 2026-12-03 08:00:00+00:00 [COMMAND="sh loop.sh"]\r\n'
        "temp=48.3'C\r\n\x1b[32mtemp=48.8'C\x1b[0m\r\nwaiting...\rtemp=49.1'C\r\n"
        "Script done on 2026-12-03 08:01:00+00:00\r\n"
    )
    text, notes = clean_text(raw, "typescript")
    assert text.split("\n")[:3] == ["temp=48.3'C", "temp=48.8'C", "temp=49.1'C"]
    assert "script(1) capture: its 'Script started/done' lines removed" in notes
    assert any("terminal control" in n for n in notes) and any("overwritten" in n for n in notes)


def test_bom_crlf_and_binary(tmp_path: Path) -> None:
    p = tmp_path / "bom.csv"
    p.write_bytes(b"\xef\xbb\xbftime,temp\r\n1,45\r\n2,46\r\n3,47\r\n")
    log = parse_log(p)
    assert [s.temps_c["cpu"] for s in log.samples] == [45.0, 46.0, 47.0]
    b = tmp_path / "blob.bin"
    b.write_bytes(bytes(range(256)) * 20)
    with pytest.raises(LogFormatError, match="binary file"):
        parse_log(b)


SBC_HEAD = "sbc-bench v0.9.8 Raspberry Pi 4 Model B Rev 1.4\n\nSystem health while running 7-zip multi core benchmark:\n\n"


def test_sbcbench_space_padded_clock_rows_are_the_throttled_ones() -> None:
    text = SBC_HEAD + "\n".join(
        [
            "Time       fake/real   load %cpu %sys %usr %nice %io %irq   Temp",
            "10:00:00: 1500/1500MHz  3.95 100%   0%  99%   0%   0%   0%  79.0°C",
            "10:00:10: 1500/ 980MHz  3.96 100%   0%  99%   0%   0%   0%  81.2°C",
            "10:00:20: 1500/1000MHz  3.97 100%   0%  99%   0%   0%   0%  80.8°C",
        ]
    )
    log = sbcbench.parse_text(text, "r.txt")
    assert log.skipped_lines == 0
    assert [s.freqs_hz["cpu"] for s in log.samples] == [1_500_000_000, 980_000_000, 1_000_000_000]


def test_sbcbench_empty_clock_column_and_meter_column() -> None:
    text = SBC_HEAD + "\n".join(
        [
            "Time        CPU    load %cpu %sys %usr %nice %io %irq   Temp",
            "10:00:00:          3.95 100%   0%  99%   0%   0%   0%  59.0°C",
            "10:00:10:          3.96 100%   0%  99%   0%   0%   0%  60.2°C",
        ]
    )
    log = sbcbench.parse_text(text, "old.txt")
    assert [s.temps_c["cpu"] for s in log.samples] == [59.0, 60.2] and log.samples[0].freqs_hz == {}
    assert any("empty clock column" in n for n in log.notes)
    text = SBC_HEAD + "\n".join(  # sbc-bench 0.6.7 on a Jetson Nano: the unit without a number
        [
            "Time        CPU    load %cpu %sys %usr %nice %io %irq   Temp",
            "16:56:21:     MHz  3.02  19%   1%  18%   0%   0%   0%  45.2°C",
            "16:56:42:     MHz  3.30 100%   0%  99%   0%   0%   0%  47.0°C",
        ]
    )
    log = sbcbench.parse_text(text, "unit-only.txt")
    assert log.skipped_lines == 0 and [s.temps_c["cpu"] for s in log.samples] == [45.2, 47.0]
    # the first line's %cpu is the average since boot (see test_sbcbench_first_line_utilisation_is_since_boot)
    assert [s.loads.get("cpu") for s in log.samples] == [None, 1.0] and log.samples[1].freqs_hz == {}
    text = SBC_HEAD + "\n".join(
        [
            "Time        CPU    load %cpu %sys %usr %nice %io %irq   Temp     mW",
            "10:00:00: 2400MHz  3.95 100%   0%  99%   0%   0%   0%  59.0°C  6120",
            "10:00:10: 2400MHz  3.96 100%   0%  99%   0%   0%   0%  60.2°C  6340",
        ]
    )
    log = sbcbench.parse_text(text, "new.txt")
    assert [s.power_w for s in log.samples] == [6.12, 6.34]


def test_tegrastats_driveos_style_second_gpu_no_rails() -> None:
    line = (
        "RAM 2953/28884MB (lfb 6414x4MB) CPU [0%@1971,2%@1971,off,off] EMC_FREQ 3% GR3D_FREQ 12% "
        "GR3D2_FREQ 40% CPU@45.5C SOC2@43.1C CV0@-256C tj@45.5C"
    )
    log = tegrastats.parse_text(f"{line}\n{line}\n", "igx.log")
    s = log.samples[0]
    assert s.loads["gpu"] == 0.4 and s.temps_c == {"cpu": 45.5, "soc2": 43.1, "tj": 45.5}
    assert s.power_w is None and s.rails_w == {}


def test_tegrastats_repeated_stamps_are_spread() -> None:
    body = "RAM 1000/3964MB CPU [10%@1479,5%@1479,off,off] CPU@40C GPU@39C"
    text = "\n".join(f"01-02-2024 10:00:0{s} {body}" for s in (0, 0, 1, 1, 2))
    log = tegrastats.parse_text(text, "t.log")
    assert [s.t_s for s in log.samples] == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert any("shared a timestamp" in n for n in log.notes)


def test_home_made_tegrastats_to_csv_keeps_tegrastats_notation() -> None:
    from thermogov.importers import table

    rows = [
        '2024-01-01 10:00:00,2000/3964MB,"[12%@1479,3%@1479,off,6%@1479]",45%@921,40.5,39.0,5120mW/4980mW',
        '2024-01-01 10:00:01,2000/3964MB,"[50%@1479,30%@1479,off,20%@1479]",99%@921,41.0,39.5,6120mW/5000mW',
        '2024-01-01 10:00:02,2000/3964MB,"[60%@1224,40%@1224,off,20%@1224]",99%@921,41.5,40.0,6220mW/5100mW',
    ]
    text = "timestamp,RAM,CPU,GR3D_FREQ,CPU_temp,GPU_temp,VDD_IN\n" + "\n".join(rows)
    assert detect_text(text) == "csv"
    log = table.parse_text(text, "jetson.csv")
    s = log.samples[2]
    assert s.temps_c == {"cpu": 41.5, "gpu": 40.0}
    assert s.loads == {"cpu": 0.4, "gpu": 0.99} and s.freqs_hz == {"cpu": 1_224_000_000, "gpu": 921_000_000}
    assert s.power_w == 6.22 and log.samples[0].loads["cpu"] == 0.07


def test_sbcbench_first_line_utilisation_is_since_boot() -> None:
    """Each section's monitor starts its /proc/stat deltas from zero: its first %cpu is no load step."""
    section = [
        "Time        CPU    load %cpu %sys %usr %nice %io %irq   Temp",
        "10:00:00: 1500MHz  1.15  70%   8%  27%  33%   0%   0%  59.4°C",
        "10:00:20: 1500MHz  1.11  26%   0%  25%   0%   0%   0%  61.8°C",
        "10:00:40: 1500MHz  1.08  25%   0%  25%   0%   0%   0%  60.9°C",
    ]
    second = [ln.replace("10:00:", "10:01:") for ln in section]
    text = "sbc-bench v0.9.8 Raspberry Pi 4 Model B Rev 1.4\n\n" + "\n".join(
        [
            "System health while running tinymembench:",
            "",
            *section,
            "",
            "System health while running 7-zip:",
            "",
            *second,
        ]
    )
    log = sbcbench.parse_text(text, "two.txt")
    assert [s.loads.get("cpu") for s in log.samples] == [None, 0.26, 0.25, None, 0.26, 0.25]
    assert [s.temps_c["cpu"] for s in log.samples] == [59.4, 61.8, 60.9] * 2  # only the load is dropped
    assert any("average since boot" in n and "2 monitor section" in n for n in log.notes)
