"""Session 28w: logs whose layout changes midway, read part by part and said (issue 10).

Synthetic logs of the shapes in the wild (a logger edited and restarted into the same file, a
header written again with its columns in another order, another tool's lines among the rows);
the numbers are this file's own.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from thermogov.importers import parse_log


def _stamp(i: int) -> str:
    return f"2026-03-01 {i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}"


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(ln + "\n" for ln in lines))
    return path


def test_columns_added_midway_under_a_new_header_are_joined_by_name(tmp_path: Path) -> None:
    # 40 rows of `time,cpu_temp_c`, then the logger gains five columns (its header written again)
    lines = ["time,cpu_temp_c"] + [f"{_stamp(i)},{45 + 0.1 * i:.1f}" for i in range(40)]
    lines += ["time,cpu_temp_c,gpu_temp_c,cpu_mhz,gpu_mhz,cpu_load,power_w"]
    lines += [f"{_stamp(i)},{52 + 0.1 * (i - 40):.1f},49.5,1500,900,80,5.5" for i in range(40, 52)]
    log = parse_log(_write(tmp_path / "grew.csv", lines))
    assert len(log.samples) == 52
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx(
        [45 + 0.1 * i for i in range(40)] + [52 + 0.1 * k for k in range(12)]
    )
    assert [s.temps_c.get("gpu") for s in log.samples] == [None] * 40 + [49.5] * 12
    assert [s.freqs_hz.get("cpu") for s in log.samples] == [None] * 40 + [1.5e9] * 12
    assert [s.power_w for s in log.samples] == [None] * 40 + [5.5] * 12
    assert [s.t_s for s in log.samples] == pytest.approx(list(range(52)))
    assert any(
        n.startswith("lines 42-54: the header changes to") and "joined to lines 1-41" in n for n in log.notes
    )


def test_a_restart_that_reorders_the_columns_is_not_read_under_the_old_header(tmp_path: Path) -> None:
    # the 2nd header swaps temp and clock: read under the 1st header, 1400 was a temperature
    lines = ["time,cpu_temp_c,cpu_mhz"] + [f"{_stamp(i)},{46 + 0.5 * (i % 4)},1500" for i in range(20)]
    lines += ["time,cpu_mhz,cpu_temp_c"] + [f"{_stamp(i)},1400,{50 + 0.5 * (i % 4)}" for i in range(20, 30)]
    log = parse_log(_write(tmp_path / "reordered.csv", lines))
    assert len(log.samples) == 30
    assert [s.temps_c["cpu"] for s in log.samples] == [46 + 0.5 * (i % 4) for i in range(20)] + [
        50 + 0.5 * (i % 4) for i in range(20, 30)
    ]
    assert [s.freqs_hz["cpu"] for s in log.samples] == [1.5e9] * 20 + [1.4e9] * 10
    assert any("lines 22-32: the header changes to 'time,cpu_mhz,cpu_temp_c'" in n for n in log.notes)


def test_synonym_headers_join_as_one_quantity(tmp_path: Path) -> None:
    # `cpu_temp` then `CPU Temperature (°C)`: one quantity by name, not by spelling
    lines = ["time,cpu_temp"] + [f"{_stamp(i)},{44 + i % 3}" for i in range(10)]
    lines += ["Time,CPU Temperature (°C),CPU Clock (MHz)"] + [
        f"{_stamp(i)},{47 + i % 3},1800" for i in range(10, 15)
    ]
    log = parse_log(_write(tmp_path / "synonyms.csv", lines))
    assert [s.temps_c["cpu"] for s in log.samples] == [44 + i % 3 for i in range(10)] + [
        47 + i % 3 for i in range(10, 15)
    ]
    assert sum(1 for s in log.samples if "cpu" in s.freqs_hz) == 5


def test_a_part_whose_columns_name_other_quantities_is_left_out_and_said(tmp_path: Path) -> None:
    # a battery logger's rows appended to a temperature log: nothing to join; the longer part read
    lines = ["time,cpu_temp_c"] + [f"{_stamp(i)},{45 + i % 5}" for i in range(30)]
    lines += ["time,battery_pct,charging"] + [f"{_stamp(i)},{90 - i % 3},yes" for i in range(30, 36)]
    log = parse_log(_write(tmp_path / "other.csv", lines))
    assert len(log.samples) == 30
    note = next(n for n in log.notes if n.startswith("lines 32-38"))
    assert "6 rows of 3 columns" in note and "not read" in note and "sed -n '32,38p'" in note


def test_headerless_rows_of_another_width_after_a_header_are_said_not_dropped_silently(
    tmp_path: Path,
) -> None:
    lines = ["time,cpu_temp_c"] + [f"{_stamp(i)},{45 + i % 5}" for i in range(30)]
    lines += [f"{_stamp(i)},{50 + i % 5},48.5,1500,900,80,5.1" for i in range(30, 40)]
    log = parse_log(_write(tmp_path / "wider.csv", lines))
    assert len(log.samples) == 30
    assert any(n.startswith("lines 32-41 (10 rows of 7 columns, no header)") for n in log.notes)


def test_another_tools_lines_inside_a_table_are_named_by_line(tmp_path: Path) -> None:
    tegra = (
        "RAM 2048/7846MB (lfb 1x4MB) CPU [12%@1420,5%@1420,3%@1420,8%@1420] EMC_FREQ 0% "
        "GR3D_FREQ 0% CPU@44C GPU@40C"
    )
    lines = ["time,cpu_temp_c"] + [f"{_stamp(i)},{45 + i % 5}" for i in range(30)]
    lines += [f"03-01-2026 00:01:{k:02d} {tegra}" for k in range(5)]
    lines += [f"{_stamp(i)},{45 + i % 5}" for i in range(35, 45)]
    log = parse_log(_write(tmp_path / "mixed.csv", lines))
    assert len(log.samples) == 40
    note = next(n for n in log.notes if n.startswith("lines 32-36 (5 lines like"))
    assert "another format" in note and "sed -n '32,36p'" in note


def test_a_longer_part_in_another_format_is_not_left_out_for_a_short_table(tmp_path: Path) -> None:
    # the longest run is read: 3 table rows never win over 20 labelled lines dropped
    table = [f"09-04-2025 18:10:{k:02d},{52.25 + 0.5 * k:.3f}" for k in range(3)]
    labelled = [f"Date: 09-04-2025 18:30:{k:02d} Temp: {61.5 - 0.5 * k:.1f}°C" for k in range(20)]
    path = _write(tmp_path / "short_table.csv", table + labelled)
    # session 30w: the 20 labelled lines are read and the 3 rows named (was refused whole)
    log = parse_log(path)
    assert len(log.samples) == 20
    assert any(n.startswith("lines 1-3 (a table of 3 row(s) without a header)") for n in log.notes)


def test_tegrastats_names_the_lines_of_another_tool(tmp_path: Path) -> None:
    body = (
        "RAM 2048/7846MB (lfb 1x4MB) SWAP 0/3923MB (cached 0MB) CPU [12%@1420,5%@1420,3%@1420,8%@1420] "
        "EMC_FREQ 0% GR3D_FREQ 0% PLL@41C CPU@{t}C GPU@40C AO@48.5C thermal@41.25C POM_5V_IN 2500/2500"
    )
    lines = [body.format(t=42 + k % 4) for k in range(20)]
    lines[10:10] = ["temp=48.3'C", "frequency(48)=1500000000", "throttled=0x0"]
    log = parse_log(_write(tmp_path / "tegra.log", lines))
    assert len(log.samples) == 20 and log.skipped_lines == 3
    assert any(n.startswith('lines 11-13 (3 line(s) like "temp=48.3\'C")') for n in log.notes)


def test_many_odd_lines_are_named_up_to_a_bound(tmp_path: Path) -> None:
    body = "RAM 2048/7846MB (lfb 1x4MB) CPU [12%@1420,5%@1420] EMC_FREQ 0% GR3D_FREQ 0% CPU@{t}C GPU@40C"
    lines: list[str] = []
    for k in range(40):
        lines.append(body.format(t=42 + k % 4))
        if k % 4 == 0:
            lines.append(f"stray {k}")
    log = parse_log(_write(tmp_path / "tegra.log", lines))
    named = [n for n in log.notes if "no tegrastats line, skipped" in n]
    assert len(named) == 5
    assert any(n.startswith("5 more unreadable line(s)") for n in log.notes)


def test_a_date_column_with_times_is_the_time_axis(tmp_path: Path) -> None:
    # `date,temp,freq`: the stamps were set aside and the rows read at an assumed 1 s
    lines = ["date,temp,freq"] + [f"2026-03-01 10:{k:02d}:00,{45 + k % 3},1500" for k in range(6)]
    log = parse_log(_write(tmp_path / "dated.csv", lines))
    assert [s.t_s for s in log.samples] == pytest.approx([60.0 * k for k in range(6)])


def test_one_layout_is_handed_on_unchanged(tmp_path: Path) -> None:
    # a header repeated as it was (a restart): no part said, the table reader's note as before
    lines = ["time,cpu_temp_c"] + [f"{_stamp(i)},{45 + i % 5}" for i in range(10)]
    lines += ["time,cpu_temp_c"] + [f"{_stamp(i)},{45 + i % 5}" for i in range(10, 20)]
    log = parse_log(_write(tmp_path / "same.csv", lines))
    assert len(log.samples) == 20
    assert not any(n.startswith("lines ") for n in log.notes)


def test_the_cli_says_the_joined_part(tmp_path: Path) -> None:
    lines = ["time,temp,freq"] + [f"{_stamp(i)},{48 + i % 3},1400" for i in range(8)]
    lines += ["time,temp,load,freq"] + [f"{_stamp(i)},{52 + i % 3},88,1800" for i in range(8, 23)]
    path = _write(tmp_path / "log.csv", lines)
    exe = Path(sys.executable).with_name("thermogov")
    done = subprocess.run(
        [str(exe), "import", str(path), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "lines 10-25: the header changes to 'time,temp,load,freq'" in done.stdout
    assert "Traceback" not in done.stderr
