"""Logs of tools not read before session 13 (docs/importing.md, "Formats and hostile files,
session 13"): Fahrenheit columns, Glances' CSV export, netdata's CSV export, psensor's sensor
log.  Synthetic rows in each tool's layout (the sources are named in the doc); the numbers are
this test's own, and every expected value is computed from the numbers written."""

from __future__ import annotations

from pathlib import Path

import pytest

from thermogov.importers import detect_text, parse_log
from thermogov.interfaces import LogFormatError

CELSIUS = [44.0 + 0.5 * k for k in range(8)]


def _f(c: float) -> float:
    return round(c * 9 / 5 + 32, 1)


def _log(tmp_path: Path, text: str, name: str = "log.csv", **kw):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    return parse_log(path, **kw)


def _temps(log, sensor: str = "cpu") -> list[float]:
    return [round(s.temps_c[sensor], 2) for s in log.samples if sensor in s.temps_c]


@pytest.mark.parametrize(
    "header", ["CPU Temp (°F)", "temp_f", "Temperature Fahrenheit", "cpu temp °F", "Temp [degF]"]
)
def test_a_fahrenheit_header_is_converted(tmp_path: Path, header: str) -> None:
    rows = "".join(f"{k},{_f(c)}\n" for k, c in enumerate(CELSIUS))
    log = _log(tmp_path, f"time,{header}\n{rows}")
    assert _temps(log) == [round((_f(c) - 32) * 5 / 9, 2) for c in CELSIUS]


def test_fahrenheit_by_columns_option_and_a_value_only_guess_refused(tmp_path: Path) -> None:
    """170..180 fits no °C and no m°C: refused naming `temp=COL:F`, read when it is said."""
    hot = [76.0 + k for k in range(8)]
    text = "time,temp\n" + "".join(f"{k},{_f(c)}\n" for k, c in enumerate(hot))
    with pytest.raises(LogFormatError, match=r"--columns temp=temp:F if °F"):
        _log(tmp_path, text)
    log = _log(tmp_path, text, columns="t=time,temp=temp:F")
    assert _temps(log) == [round((_f(c) - 32) * 5 / 9, 2) for c in hot]


def test_comma_decimals_with_semicolons_and_a_fahrenheit_unit(tmp_path: Path) -> None:
    text = "Zeit;Temperatur (°F);Takt (MHz)\n" + "".join(
        f"10:00:{k:02d};{str(_f(c)).replace('.', ',')};1500\n" for k, c in enumerate(CELSIUS)
    )
    log = _log(tmp_path, text)
    assert _temps(log) == [round((_f(c) - 32) * 5 / 9, 2) for c in CELSIUS]
    assert {s.freqs_hz["cpu"] for s in log.samples} == {1_500_000_000}


def _glances3(unit: str) -> str:
    """Glances 3.x `--export csv`: `plugin_item` and `plugin_<label>_item` columns (glances_csv.py)."""
    header = (
        "timestamp,cpu_total,cpu_user,cpu_idle,load_min1,load_cpucore,mem_percent,fs_/_percent,"
        "processcount_total,quicklook_cpu_hz_current,quicklook_cpu_hz,"
        "sensors_cpu_thermal 1_label,sensors_cpu_thermal 1_value,sensors_cpu_thermal 1_warning,"
        "sensors_cpu_thermal 1_critical,sensors_cpu_thermal 1_unit,sensors_cpu_thermal 1_type,"
        "sensors_pwmfan 1_label,sensors_pwmfan 1_value,sensors_pwmfan 1_unit,sensors_pwmfan 1_type"
    )
    rows = []
    for k, c in enumerate(CELSIUS):
        temp = c if unit == "C" else _f(c)
        rows.append(
            f"2026-12-04 10:00:{2 * k:02d},{30 + k}.0,25.0,70.0,{0.5 + k},4,40.2,29.0,180,"
            f"{1800000000 - 100000000 * k}.0,2400000000.0,cpu_thermal 1,{temp},,,{unit},temperature_core,"
            f"pwmfan 1,{3000 + 100 * k},R,fan_speed"
        )
    return header + "\n" + "\n".join(rows) + "\n"


@pytest.mark.parametrize("unit", ["C", "F"])
def test_glances_csv_reads_its_sensor_records_by_their_unit_cells(tmp_path: Path, unit: str) -> None:
    """Before: every row was 'damaged' (the label, unit and type cells were read as temperatures)."""
    log = _log(tmp_path, _glances3(unit))
    assert _temps(log) == [round(c if unit == "C" else (_f(c) - 32) * 5 / 9, 2) for c in CELSIUS]
    assert all(set(s.temps_c) == {"cpu"} for s in log.samples)  # the fan's rpm is no temperature
    assert [s.loads for s in log.samples] == [{"cpu": (30 + k) / 100} for k in range(len(CELSIUS))]
    # the current clock, not the maximum beside it; no power from `cpu_total`/`processcount_total`
    assert [s.freqs_hz["cpu"] for s in log.samples] == [1_800_000_000 - 100_000_000 * k for k in range(8)]
    assert all(s.power_w is None for s in log.samples)
    assert [s.t_s for s in log.samples] == [2.0 * k for k in range(8)]


def test_glances_4_dotted_records(tmp_path: Path) -> None:
    header = "timestamp,CPU-therm.value,CPU-therm.unit,CPU-therm.label,GPU-therm.value,GPU-therm.unit,GPU-therm.label"
    rows = "".join(
        f"2026-12-04 10:00:{k:02d},{c},C,CPU-therm,{c - 2},C,GPU-therm\n" for k, c in enumerate(CELSIUS)
    )
    log = _log(tmp_path, header + "\n" + rows)
    assert [s.temps_c for s in log.samples] == [{"cpu": c, "gpu": c - 2} for c in CELSIUS]


def _netdata(rows: list[tuple[str, str]], header: str) -> str:
    """netdata /api/v1/data?format=csv: a header of dimension names, CRLF, newest row first."""
    return header + "\r\n" + "".join(f"{t},{v}\r\n" for t, v in reversed(rows))


def test_netdata_rows_newest_first_are_read_in_reverse(tmp_path: Path) -> None:
    """Before: 1 of N rows imported, every other dropped as 'clock stepped back'."""
    stamps = [f"2026-12-04 10:00:{k:02d}" for k in range(len(CELSIUS))]
    cells = ["null" if k == 3 else str(c) for k, c in enumerate(CELSIUS)]
    log = _log(tmp_path, _netdata(list(zip(stamps, cells, strict=True)), "time,temp1"))
    # one dimension beside the time: the Pi wall-clock layout, whose one temperature is the cpu's
    assert [(s.t_s, s.temps_c) for s in log.samples] == [
        (float(k), {"cpu": c}) for k, c in enumerate(CELSIUS) if k != 3
    ]
    assert any("newest first" in n for n in log.notes)


def test_netdata_sensor_dimensions_with_null_gaps(tmp_path: Path) -> None:
    stamps = [f"2026-12-04 10:00:{k:02d}" for k in range(len(CELSIUS))]
    cells = [f"{'null' if k == 3 else c},{c - 5}" for k, c in enumerate(CELSIUS)]
    log = _log(tmp_path, _netdata(list(zip(stamps, cells, strict=True)), "time,temp1,temp2"))
    assert _temps(log, "temp1") == [c for k, c in enumerate(CELSIUS) if k != 3]
    assert _temps(log, "temp2") == [c - 5 for c in CELSIUS]


def test_netdata_cpufreq_dimensions_are_clocks(tmp_path: Path) -> None:
    stamps = [str(1764842400 + k) for k in range(8)]
    clocks = [f"{1500 - 100 * (k % 3)},1500,600,null" for k in range(8)]
    log = _log(tmp_path, _netdata(list(zip(stamps, clocks, strict=True)), "time,cpu0,cpu1,cpu2,cpu3"))
    assert [s.freqs_hz["cpu"] for s in log.samples] == [1_500_000_000] * 8  # the fastest core


def test_a_log_with_a_few_steps_back_is_not_taken_for_newest_first(tmp_path: Path) -> None:
    times = [0, 1, 2, 3, 1, 2, 5, 6, 7, 8]  # an NTP step back mid-log
    log = _log(tmp_path, "t,temp\n" + "".join(f"{t},{40 + k}\n" for k, t in enumerate(times)))
    assert [s.t_s for s in log.samples] == [0.0, 1.0, 2.0, 3.0, 5.0, 6.0, 7.0, 8.0]


def _psensor() -> str:
    """~/.psensor/sensors.log: session line, sensor declarations, rows with run-length cells."""
    lines = [
        "I,1764842400,1.2.1",
        "S,lmsensor cpu_thermal-virtual-0 temp1,8101",
        "S,lmsensor pwmfan-isa-0000 fan1,20102",
        "S,gtop2 cpu usage,8004",
    ]
    prev: list[str] = []
    for k, c in enumerate(CELSIUS):
        cells = [f"{c:.1f}", f"{3000.0 if k > 3 else 0.0:.1f}", f"{20.0 + 10 * (k % 2):.1f}"]
        shown = [x if not prev or x != p else "" for x, p in zip(cells, prev or cells, strict=True)]
        prev = cells
        lines.append(f"{2 * k}," + ",".join(shown))
    return "\n".join(lines) + "\n"


def test_psensor_log_repeats_unchanged_values_and_names_the_chip(tmp_path: Path) -> None:
    text = _psensor()
    assert detect_text(text) == "psensor"
    log = _log(tmp_path, text, name="sensors.log")
    assert [(s.t_s, s.temps_c) for s in log.samples] == [(2.0 * k, {"cpu": c}) for k, c in enumerate(CELSIUS)]
    assert [s.loads for s in log.samples] == [{"cpu": (20.0 + 10 * (k % 2)) / 100} for k in range(8)]


def test_psensor_sessions_append_on_one_axis(tmp_path: Path) -> None:
    second = "I,1764842500,1.2.1\nS,lmsensor cpu_thermal-virtual-0 temp1,8101\n0,51.0\n2,\n"
    log = _log(tmp_path, _psensor() + second, name="sensors.log")
    assert [(s.t_s, s.temps_c["cpu"]) for s in log.samples[-2:]] == [(100.0, 51.0), (102.0, 51.0)]


def test_running_averages_beside_their_readings_are_not_imported(tmp_path: Path) -> None:
    """A jtop-to-CSV script (`timestamp, RAM%, GPU%, GPU inst power, GPU avg power, ...`): the
    larger of `tot inst power` and `tot avg power` was the board's power, the averages rails."""
    header = "timestamp, RAM%, GPU%, GPU inst power, GPU avg power, CPU%, CPU inst power, CPU avg power, tot inst power, tot avg power"
    inst = [4000 + 300 * k for k in range(8)]
    rows = "".join(
        f"2026-12-04 10:00:0{k}.250000, 45.1, {10 * k}, {1000 + 100 * k}, 1500, 30.5, 900, 950, {w}, 9000\n"
        for k, w in enumerate(inst)
    )
    log = _log(tmp_path, header + "\n" + rows)
    assert [s.power_w for s in log.samples] == [w / 1000 for w in inst]
    assert [s.rails_w for s in log.samples] == [
        {"GPU inst power": (1000 + 100 * k) / 1000, "CPU inst power": 0.9} for k in range(8)
    ]


def test_single_value_tegrastats_rails_are_read_and_bare_numbers_are_not() -> None:
    from thermogov.importers import tegrastats

    line = (
        "RAM 2000/7620MB (lfb 10x4MB) CPU [10%@1510,5%@1510,off,off] EMC_FREQ 3%@2133 GR3D_FREQ 20%@612 "
        "VIC_FREQ 729 APE 25 cpu@45.5C tj@46.0C VDD_IN 5765mW VDD_CPU_GPU_CV 600mW VDD_SOC 1400mW"
    )
    s = tegrastats.parse_text(f"{line}\n{line}\n", "t.log").samples[0]
    assert (s.power_w, s.rails_w) == (5.765, {"VDD_IN": 5.765, "VDD_CPU_GPU_CV": 0.6, "VDD_SOC": 1.4})
