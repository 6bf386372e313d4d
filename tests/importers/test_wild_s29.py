"""Session 29w: files that mix a log of lines with a table part, and parts in another unit (issue 10).

Synthetic logs of the shapes in the wild (a CSV logger's output appended to a tegrastats capture,
a vcgencmd loop or a `Label: value` logger; a logger restarted into the same file with its
values in m°C, MHz or mW where the first run wrote °C, kHz or W); the numbers are this file's own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import pytest

from tests.runtimedir import child_env
from thermogov.importers import parse_log


def _stamp(i: int) -> str:
    return f"2026-03-01 {i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}"


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(ln + "\n" for ln in lines))
    return path


def _table(n: int, start: int = 100) -> list[str]:
    return ["time,cpu_temp_c,cpu_mhz"] + [f"{_stamp(start + i)},{55 + 0.1 * i:.1f},1800" for i in range(n)]


def _tegrastats(n: int) -> list[str]:
    return [
        f"03-01-2026 00:00:{i:02d} RAM 3100/3983MB (lfb 40x4MB) CPU [30%@1479,50%@1479,off,70%@1479] "
        f"EMC_FREQ 12%@1600 GR3D_FREQ 40%@998 CPU@{45 + 0.1 * i:.1f}C GPU@44C"
        for i in range(n)
    ]


def _vcgencmd(n: int) -> list[str]:
    return [
        f"00:{i // 60:02d}:{i % 60:02d} temp={45 + 0.1 * i:.1f}'C frequency(48)=1500000000" for i in range(n)
    ]


def _labelled(n: int) -> list[str]:
    return [f"{_stamp(i)} CPU Temp: {45 + 0.1 * i:.1f} C" for i in range(n)]


def _cli(path: Path, out: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "thermogov"
    return subprocess.run(
        [str(exe), "import", str(path), "--out", str(out), "--json"],
        capture_output=True,
        text=True,
        check=False,
        env=child_env(),  # never the real /run/thermogov (tests/runtimedir.py)
    )


# --- (1) a log of lines holding a table part ---------------------------------------------------


@pytest.mark.parametrize(
    ("name", "lines", "fmt"),
    [
        ("tegrastats", _tegrastats, "tegrastats"),
        ("vcgencmd", _vcgencmd, "vcgencmd"),
        ("labelled", _labelled, "labelled"),
    ],
)
def test_a_table_appended_to_a_log_of_lines_is_named_with_its_lines(
    tmp_path: Path, name: str, lines: Callable[[int], list[str]], fmt: str
) -> None:
    # 30 records of the line format, then a CSV logger's 15 rows appended (lines 31-46)
    path = _write(tmp_path / f"{name}.log", lines(30) + _table(15))
    r = _cli(path, tmp_path / "out")
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["format"] == fmt
    assert info["summary"]["samples"] == 30
    assert info["skipped_lines"] == 0  # said as a part, not counted as malformed lines
    said = [n for n in info["notes"] if n.startswith("lines 31-46 (a table of 15 row(s)")]
    assert len(said) == 1 and "sed -n '31,46p' FILE" in said[0] and "not read" in said[0]


@pytest.mark.parametrize(("name", "lines"), [("tegrastats", _tegrastats), ("labelled", _labelled)])
def test_a_table_larger_than_the_lines_before_it_is_read_and_the_lines_named(
    tmp_path: Path, name: str, lines: Callable[[int], list[str]]
) -> None:
    # 5 records of another tool, then a table of 40 rows: the larger part governs (was refused)
    path = _write(tmp_path / f"{name}.log", lines(5) + _table(40))
    r = _cli(path, tmp_path / "out")
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["summary"]["samples"] == 40
    said = [n for n in info["notes"] if n.startswith(f"lines 1-5 (5 {name} line(s)")]
    assert len(said) == 1 and "sed -n '1,5p' FILE" in said[0]
    log = parse_log(path)
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([55 + 0.1 * i for i in range(40)])


def test_multi_line_vcgencmd_records_before_a_table_are_named_not_called_prose(tmp_path: Path) -> None:
    # `date; vcgencmd measure_temp; vcgencmd measure_clock arm` records (3 lines each) before a
    # table: they were counted as "title/prose" lines, unnamed
    recs: list[str] = []
    for i in range(4):
        recs += [f"Tue Mar  5 14:00:0{i} CET 2024", f"temp={45 + i}.0'C", "frequency(48)=1500000000"]
    log = parse_log(_write(tmp_path / "mix.log", recs + _table(40)))
    assert len(log.samples) == 40
    assert any(n.startswith("lines 1-12 (12 vcgencmd line(s)") and "sed -n '1,12p'" in n for n in log.notes)


def test_a_plain_table_gets_no_part_note(tmp_path: Path) -> None:
    # guard: one table and nothing else is read as before, no part named
    log = parse_log(_write(tmp_path / "plain.csv", _table(40)))
    assert len(log.samples) == 40
    assert not any("another format" in n for n in log.notes)


# --- (2) parts in another unit ----------------------------------------------------------------


def test_a_restart_in_millidegrees_after_degrees_is_read_in_its_own_unit(tmp_path: Path) -> None:
    lines = ["time,cpu_temp"] + [f"{_stamp(i)},{45 + 0.1 * i:.1f}" for i in range(30)]
    lines += ["time,cpu_temp"] + [f"{_stamp(i)},{round((45 + 0.1 * i) * 1000)}" for i in range(30, 50)]
    path = _write(tmp_path / "mc.csv", lines)
    log = parse_log(path)
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([45 + 0.1 * i for i in range(50)])
    said = [n for n in log.notes if n.startswith("lines 32-52: cpu_temp in m°C")]
    assert len(said) == 1 and "lines 1-31 are in °C" in said[0]
    r = _cli(path, tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["summary"]["max_sensor_c"]["cpu"] == pytest.approx(49.9)


def test_a_restart_in_mhz_after_khz_under_the_same_header_is_not_read_as_khz(tmp_path: Path) -> None:
    # cpufreq's kHz (scaling_cur_freq) first, then a logger that divides by 1000: 1500 "kHz" is 1.5 MHz
    lines = ["time,cpu_temp,cpu_freq"] + [f"{_stamp(i)},{50 + 0.1 * i:.1f},1500000" for i in range(30)]
    lines += ["time,cpu_temp,cpu_freq"] + [f"{_stamp(i)},{50 + 0.1 * i:.1f},1500" for i in range(30, 50)]
    log = parse_log(_write(tmp_path / "khz.csv", lines))
    assert [s.freqs_hz["cpu"] for s in log.samples] == pytest.approx([1.5e9] * 50)
    assert any(n.startswith("lines 32-52: cpu_freq in MHz") and "in kHz" in n for n in log.notes)


def test_a_joined_part_in_another_unit_follows_the_larger_part(tmp_path: Path) -> None:
    # the first (smaller) run logs board power in mW; the restart adds a clock and logs W
    lines = ["time,power"] + [f"{_stamp(i)},{5000 + 10 * i}" for i in range(10)]
    lines += ["time,power,cpu_mhz"] + [f"{_stamp(i)},{5.1 + 0.01 * (i - 10):.2f},1500" for i in range(10, 40)]
    log = parse_log(_write(tmp_path / "mw.csv", lines))
    assert [s.power_w for s in log.samples] == pytest.approx(
        [5 + 0.01 * i for i in range(10)] + [5.1 + 0.01 * k for k in range(30)]
    )
    assert any(n.startswith("lines 1-11: power in mW") and "lines 12-42 are in W" in n for n in log.notes)


def test_parts_in_one_unit_at_other_levels_are_not_rescaled(tmp_path: Path) -> None:
    # guard: an idle run at 600 MHz and a loaded one at 2400 MHz are both MHz; 38 °C and 85 °C °C
    lines = ["time,cpu_temp,cpu_mhz"] + [f"{_stamp(i)},38.0,600" for i in range(20)]
    lines += ["time,cpu_temp,cpu_mhz"] + [f"{_stamp(i)},85.0,2400" for i in range(20, 40)]
    log = parse_log(_write(tmp_path / "levels.csv", lines))
    assert [s.freqs_hz["cpu"] for s in log.samples] == [6e8] * 20 + [2.4e9] * 20
    assert [s.temps_c["cpu"] for s in log.samples] == [38.0] * 20 + [85.0] * 20
    assert not any("by its values" in n for n in log.notes)


# --- (3) a restart whose time axis starts again ----------------------------------------------


@pytest.mark.parametrize(("col", "step", "joined"), [("sec", 5, False), ("elapsed_ms", 1000, True)])
def test_a_restart_whose_time_starts_at_zero_is_named_and_never_overlaps(
    tmp_path: Path, col: str, step: int, joined: bool
) -> None:
    # relative seconds (or ms) from the logger's start: the restart counts from 0 again
    lines = [f"{col},cpu_temp"] + [f"{step * i},{45 + 0.1 * i:.1f}" for i in range(30)]
    lines += [f"{col},cpu_temp" + (",cpu_mhz" if joined else "")]
    lines += [f"{step * i},{50 + 0.1 * i:.1f}" + (",1500" if joined else "") for i in range(20)]
    path = _write(tmp_path / "restart.csv", lines)
    r = _cli(path, tmp_path / "out")
    assert r.returncode == 0, r.stderr
    log = parse_log(path)
    times = [s.t_s for s in log.samples]
    assert len(times) == 50 and all(b > a for a, b in pairwise(times))
    said = [n for n in log.notes if n.startswith(f"lines 32-52: its time ({col}) restarts at 0")]
    assert len(said) == 1 and f"before the {29 * step} where lines 1-31 end" in said[0]


def test_a_restart_after_midnight_on_a_time_of_day_axis_is_not_called_a_restart(tmp_path: Path) -> None:
    # guard: times of day run back at midnight; that is the next day, not a restart
    lines = ["time,cpu_temp"] + [f"23:59:{30 + i:02d},{45 + 0.1 * i:.1f}" for i in range(30)]
    lines += ["time,cpu_temp"] + [f"00:00:{i:02d},{48 + 0.1 * i:.1f}" for i in range(20)]
    log = parse_log(_write(tmp_path / "midnight.csv", lines))
    assert len(log.samples) == 50
    assert not any("restarts at" in n for n in log.notes)
