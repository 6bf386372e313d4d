"""Session 21's round of log shapes through the installed ``thermogov`` script (exit status, the
run folder's values, and ``calibrate`` of what was imported; docs/importing.md, "Reviewed,
session 21")."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

from tests.cli.script import thermogov

N = 40


def _import(path: Path, out: Path, *extra: str) -> dict:
    p = thermogov("import", str(path), "--out", str(out), "--json", *extra)
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    return json.loads(p.stdout)


def _trace(info: dict) -> list[dict[str, str]]:
    with open(Path(info["run_dir"]) / "trace.csv", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_a_spreadsheet_export_with_minute_stamps_imports(tmp_path: Path) -> None:
    """`05.12.2026 10:00` (a German spreadsheet's default date format): exit 2 before, with
    "no usable table rows found", which names neither the columns nor --columns."""
    path = tmp_path / "export.csv"
    decimal_comma = [f"{45 + k / 10:.1f}".replace(".", ",") for k in range(N)]
    rows = "".join(f"05.12.2026 10:{k:02d};{c};1500\n" for k, c in enumerate(decimal_comma))
    path.write_text("Zeit;Temperatur;Takt\n" + rows, encoding="utf-8")
    info = _import(path, tmp_path / "out")
    assert info["summary"]["duration_s"] == 60.0 * (N - 1)
    assert info["summary"]["max_fused_c"] == round(45 + (N - 1) / 10, 4)


def test_a_log_cut_mid_line_stores_no_cut_value(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    path.write_text(
        "time,temp,freq\n" + "".join(f"{k},{45 + k / 10:.1f},1500\n" for k in range(N)) + f"{N},46.1,15",
        encoding="utf-8",
    )
    info = _import(path, tmp_path / "out")
    rows = _trace(info)
    assert len(rows) == N
    assert {float(r["cpu_freq_hz"]) for r in rows} == {1.5e9}
    assert any("cut while it was written" in n for n in info["notes"])


def test_a_jtop_csv_with_percent_cells_calibrates(tmp_path: Path) -> None:
    """CPU loads written as `90%` were lost, so `calibrate` refused the run ("no load change")."""
    keys = ["time", "CPU1", "CPU2", "GPU", "Temp cpu", "Temp gpu", "Power TOT"]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=keys)
    writer.writeheader()
    for k in range(300):
        load = 10 if k < 100 else 90
        temp = 40 + (0 if k < 100 else 20 * (1 - math.exp(-(k - 100) / 80)))
        stamp = f"2026-12-05 10:{k // 60:02d}:{k % 60:02d}.000000"
        row = {"time": stamp, "CPU1": f"{load}%", "CPU2": f"{load}%", "GPU": "0%"}
        writer.writerow(
            {**row, "Temp cpu": round(temp, 2), "Temp gpu": round(temp - 1, 2), "Power TOT": 4000 + 50 * load}
        )
    path = tmp_path / "jtop.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    info = _import(path, tmp_path / "out")
    assert {round(float(r["cpu_load"]), 3) for r in _trace(info)} == {0.1, 0.9}
    p = thermogov("calibrate", info["run_dir"], "--board", "jetson-orin-nano", "--out", str(tmp_path / "cal"))
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "cal" / "jetson-orin-nano-calibrated.toml").is_file()


def _vcgencmd_loop(tmp_path: Path, mhz: int) -> Path:
    path = tmp_path / "vc.log"
    path.write_text(
        "".join(f"temp={50 + k / 10:.1f}'C\nfrequency(0)={mhz * 1_000_000 + 345_728}\n" for k in range(N)),
        encoding="utf-8",
    )
    return path


def test_a_clock_above_the_boards_table_is_said(tmp_path: Path) -> None:
    """A Pi 5 loop (2400 MHz) imported with `--board rpi4` (top 1500 MHz): taken without a word."""
    info = _import(_vcgencmd_loop(tmp_path, 2400), tmp_path / "out", "--board", "rpi4")
    said = [n for n in info["notes"] if n.startswith("cpu clock reaches 2400 MHz")]
    assert said and "above rpi4's highest (1500 MHz)" in said[0] and "--board" in said[0]
    assert {float(r["cpu_freq_hz"]) for r in _trace(info)} == {2_400_345_728.0}  # kept as logged


def test_a_clock_within_the_boards_table_says_nothing(tmp_path: Path) -> None:
    info = _import(_vcgencmd_loop(tmp_path, 1500), tmp_path / "out", "--board", "rpi4")
    assert not [n for n in info["notes"] if "clock reaches" in n]


def test_temperatures_no_board_runs_at_are_said(tmp_path: Path) -> None:
    """A bare `temp` column of 131..139 (°F of a warm board, no unit stated) passed the -40..150 °C
    range check and was stored as °C without a word."""
    path = tmp_path / "log.csv"
    path.write_text("time,temp\n" + "".join(f"{k},{131 + k / 5:.1f}\n" for k in range(N)), encoding="utf-8")
    info = _import(path, tmp_path / "out")
    said = [n for n in info["notes"] if n.startswith("cpu: ")]
    assert said and "above 125 °C" in said[0] and "temp=COL:F" in said[0]
