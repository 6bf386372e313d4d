"""bcmstat monitor output and multi-line ``Label: value`` records (issue 10's unsupported formats).

Every input is synthetic, written here in the layout each tool prints (bcmstat's header and row
format from its README; a home-made shell logger in Italian, one reading per line): the public
logs in these formats carry no licence and stay out of the repository.  The exit codes are
checked through the installed script in a subprocess.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from thermogov.importers import bcmstat, detect_text, labelled, parse_log

SCRIPT = Path(sys.executable).with_name("thermogov")

BANNER = (
    '  Config: v0.5.5, args "", priority lowest (+19)\n'
    "   Board: 4 x ARMv7 cores available, ondemand governor ({model}, BCM2838 SoC with 4GB RAM)\n"
    "   Other: temp_limit=85\n\n"
)
HEADER = "Time         ARM    Core    H264 Core Temp (Max)  IRQ/s      RX B/s      TX B/s"
WIDE = HEADER + "  %user  %nice   %sys  %idle  %iowt   %irq %s/irq %total GPUMem Free Memory Free/Used"
RULE = "======== ======= ======= ======= =============== ====== ========== =========="


def bcm_row(t: str, mhz: int, temp: float, total: float | None = None) -> str:
    row = f"{t} {mhz:4d}Mhz  500Mhz    0Mhz {temp:5.2f}C ({temp + 0.5:5.2f}C)  2,666      1,099      6,159"
    if total is not None:
        row += f"  {total * 0.9:5.2f}   0.00   0.37 {100 - total:6.2f}   0.00   0.00   0.02 {total:6.2f}"
        row += " 242M ( 80%) 588,264 kB/14.8%"
    return row


def test_bcmstat_reads_clock_temperature_and_load_by_header() -> None:
    rows = [
        bcm_row(f"10:00:{2 * i:02d}", 600 if i < 3 else 1500, 40.0 + i, 3.0 if i < 3 else 100.0)
        for i in range(6)
    ]
    text = BANNER.format(model="Pi4 Model B rev 1.1") + WIDE + "\n" + RULE + "\n" + "\n".join(rows)
    assert detect_text(text) == "bcmstat"
    log = bcmstat.parse_text(text, "b.txt")
    assert log.board_hint == "rpi4"
    assert [s.t_s for s in log.samples] == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    assert [s.temps_c["cpu"] for s in log.samples] == [40.0 + i for i in range(6)]  # current, not the max
    assert [s.freqs_hz["cpu"] for s in log.samples] == [600_000_000] * 3 + [1_500_000_000] * 3
    assert [s.loads["cpu"] for s in log.samples] == [0.03] * 3 + [1.0] * 3


def test_bcmstat_repeated_headers_midnight_and_colours(tmp_path: Path) -> None:
    red = "\x1b[0;31m"
    rows = [bcm_row("23:59:58", 1500, 60.0), "", HEADER, RULE, bcm_row("00:00:00", 1500, 61.0)]
    rows.append(bcm_row("00:00:02", 1500, 62.0).replace("62.00C", f"{red}62.00C\x1b[0m"))
    text = BANNER.format(model="Pi3 rev 1.2") + HEADER + "\n" + "\n".join(rows) + "\n"
    path = tmp_path / "log.txt"
    path.write_text(text)
    log = parse_log(path)  # through the shared cleaning (colour codes) and range checks
    assert log.fmt == "bcmstat" and log.board_hint == "rpi3"
    assert [s.t_s for s in log.samples] == [0.0, 2.0, 4.0]
    assert [s.temps_c["cpu"] for s in log.samples] == [60.0, 61.0, 62.0]
    assert log.samples[0].loads == {}  # no %total column: no load invented


def test_bcmstat_header_names_keep_multi_word_columns() -> None:
    assert bcmstat.header_columns(HEADER) == [
        "Time",
        "ARM",
        "Core",
        "H264",
        "Core Temp (Max)",
        "IRQ/s",
        "RX B/s",
        "TX B/s",
    ]


LABELLED = (
    "-----------------------------\n"
    "Timestamp: {stamp}\n"
    "Temperatura: {temp}'C\n"
    "Frequenza CPU: {mhz} MHz\n"
    "Throttled: {thr}\n"
    "-----------------------------\n"
)


def labelled_log(n: int = 6, start_s: int = 30) -> str:
    out = ["Inizio stress test: Wed 11 Dec 13:23:00 CET 2024", "Stress test avviato con PID 6109"]
    for i in range(n):
        sec = start_s + 5 * i
        stamp = f"Wed 11 Dec 13:{23 + sec // 60:02d}:{sec % 60:02d} CET 2024"
        out.append(
            LABELLED.format(stamp=stamp, temp=44.0 + i, mhz=1500, thr="0x0" if i < n - 1 else "0x20002")
        )
    out.append("Stress test completato: Wed 11 Dec 13:30:00 CET 2024")
    return "\n".join(out)


def test_labelled_records_are_read_by_their_values_not_their_words() -> None:
    text = labelled_log()
    assert detect_text(text) == "labelled"
    log = labelled.parse_text(text, "stress_test.log")
    assert [s.t_s for s in log.samples] == [0.0, 5.0, 10.0, 15.0, 20.0, 25.0]  # banners are not sample times
    assert [s.temps_c for s in log.samples][:2] == [{"cpu": 44.0}, {"cpu": 45.0}]
    assert all(s.freqs_hz == {"cpu": 1_500_000_000} for s in log.samples)
    assert any("'Temperatura' taken as the SoC sensor" in n for n in log.notes)
    assert any("1 of 6 record(s) capped/throttled now" in n for n in log.notes)


def test_labelled_readings_after_their_stamp_line_and_without_stamps() -> None:
    after = "\n".join(
        f"CPU temp = {50 + i},5 °C\nCPU usage: {10 * i} %\nbattery: 80 %\ndate: 12:00:0{i}" for i in range(4)
    )
    log = labelled.parse_text(after, "x.log")
    assert [s.t_s for s in log.samples] == [0.0, 1.0, 2.0, 3.0]
    assert [s.temps_c["cpu"] for s in log.samples] == [50.5, 51.5, 52.5, 53.5]  # decimal comma
    assert [s.loads for s in log.samples][1] == {"cpu": 0.1}  # the battery percentage is not a load
    bare = "\n".join(f"soc: {40 + i}.0 C\ngpu: {38 + i}.0 C" for i in range(3))
    log = labelled.parse_text(bare, "y.log", interval_s=2.0)
    assert [s.t_s for s in log.samples] == [0.0, 2.0, 4.0]
    assert log.samples[2].temps_c == {"soc": 42.0, "gpu": 40.0}
    assert any("no timestamps: one record per 2 s (given)" in n for n in log.notes)


def test_labelled_pause_between_runs_is_said() -> None:
    first = labelled_log(4)
    second = labelled_log(4).replace("13:2", "16:2").replace("Wed 11 Dec 13:30", "Wed 11 Dec 16:30")
    log = labelled.parse_text(first + "\n" + second, "two.log")
    assert len(log.samples) == 8
    assert any("pause(s) longer than" in n and "separate runs" in n for n in log.notes)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=120, check=False)


def test_installed_import_of_both_formats_and_refusals(tmp_path: Path) -> None:
    bcm = tmp_path / "rpi_bcmstat.txt"
    rows = [bcm_row(f"10:00:{2 * i:02d}", 1500, 45.0 + i, 100.0) for i in range(5)]
    bcm.write_text(
        BANNER.format(model="Pi4 Model B rev 1.4") + WIDE + "\n" + RULE + "\n" + "\n".join(rows) + "\n"
    )
    res = run("import", str(bcm), "--out", str(tmp_path / "runs"), "--json")
    assert res.returncode == 0, res.stderr
    info = json.loads(res.stdout)
    assert info["summary"]["max_fused_c"] == 49.0 and info["board"] == "rpi4"
    lab = tmp_path / "stress_test.log"
    lab.write_text(labelled_log())
    res = run("import", str(lab), "--out", str(tmp_path / "runs"), "--json", "--board", "rpi4")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["summary"]["samples"] == 6
    # readings that are not numbers (nan, inf) are no readings: refused, exit 2, one line, nothing written
    bad = tmp_path / "nan.log"
    bad.write_text(labelled_log().replace("'C", "").replace("Temperatura: 4", "Temperatura: nan'C 4"))
    res = run("import", str(bad), "--format", "labelled", "--out", str(tmp_path / "bad"))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "no 'Label: value' records" in res.stderr
    assert not (tmp_path / "bad").exists()
    hot = tmp_path / "hot.txt"  # a misread column never reaches the run as a temperature
    hot.write_text(
        HEADER + "\n" + "\n".join(bcm_row(f"10:00:0{i}", 1500, 2000.0 + i) for i in range(4)) + "\n"
    )
    res = run("import", str(hot), "--out", str(tmp_path / "hot"), "--json")
    assert res.returncode == 0, res.stderr
    info = json.loads(res.stdout)
    assert info["summary"]["max_fused_c"] is None
    assert any("outside -40..150 °C" in n for n in info["notes"])


def sensors_loop(n: int) -> str:
    """``while :; do date; sensors; sleep 1; done`` in the layout lm-sensors prints (sensors(1))."""
    out = []
    for i in range(n):
        out.append(f"Thu Dec  3 23:59:5{7 + i} UTC 2026" if i < 3 else f"Fri Dec  4 00:00:0{i - 3} UTC 2026")
        out += ["cpu_thermal-virtual-0", "Adapter: Virtual device", f"temp1:        +{45 + i:.1f}°C", ""]
        out += ["gpu_thermal-virtual-0", "Adapter: Virtual device", f"temp1:        +{40 + i:.1f}°C", ""]
        out += ["coretemp-isa-0000", "Adapter: ISA adapter"]
        out += [f"Package id 0:  +{50 + i:.1f}°C  (high = +80.0°C, crit = +100.0°C)"]
        out += [f"Core 0:        +{49 + i:.1f}°C  (high = +80.0°C, crit = +100.0°C)", ""]
    return "\n".join(out)


def test_lm_sensors_loop_keeps_each_chips_temp1_apart() -> None:
    """Every chip has a ``temp1``: read as one label they would interleave into one sensor."""
    text = sensors_loop(5)
    assert detect_text(text) == "labelled"
    log = labelled.parse_text(text, "sensors.log")
    assert [s.t_s for s in log.samples] == [0.0, 1.0, 2.0, 3.0, 4.0]  # date lines, across midnight
    assert log.samples[4].temps_c == {
        "cpu": 49.0,
        "gpu": 44.0,
        "coretemp_package_id_0": 54.0,
        "coretemp_core_0": 53.0,
    }
