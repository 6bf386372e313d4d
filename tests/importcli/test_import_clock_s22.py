"""Clocks that step, through the installed ``thermogov`` script (docs/importing.md, "Reviewed,
session 22"): exit 0 with every row kept and the step said, never a traceback."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from tests.cli.script import thermogov

EPOCH = 1_764_928_800


def test_an_rtcless_board_then_an_ntp_step_back_imports_every_row(tmp_path: Path) -> None:
    """Before: the 1970 stretch dropped as garbled and the rows after the step back dropped."""
    stamps = (
        [5 + k for k in range(10)]
        + [EPOCH + k for k in range(20)]
        + [EPOCH + 19 - 600 + k for k in range(1, 21)]
    )
    path = tmp_path / "boot.csv"
    path.write_text(
        "epoch,temp_c\n" + "".join(f"{t},{45 + k / 10:.1f}\n" for k, t in enumerate(stamps)), encoding="utf-8"
    )
    p = thermogov("import", str(path), "--out", str(tmp_path / "out"), "--json")
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    info = json.loads(p.stdout)
    assert info["summary"]["samples"] == 50 and info["summary"]["duration_s"] == 49.0
    assert sum("clock" in n and "shifted" in n for n in info["notes"]) == 2
    with open(Path(info["run_dir"]) / "trace.csv", encoding="utf-8") as f:
        fused = [float(r["fused_c"]) for r in csv.DictReader(f)]
    assert fused == [round(45 + k / 10, 3) for k in range(50)]  # file order, never reordered


def test_a_log_whose_every_stamp_is_one_time_is_refused_in_one_line(tmp_path: Path) -> None:
    """Guard: a clock that never advances is no clock step; exit 2 naming the file."""
    path = tmp_path / "frozen.csv"
    path.write_text(
        "epoch,temp_c\n" + "".join(f"{EPOCH},{45 + k / 10:.1f}\n" for k in range(10)), encoding="utf-8"
    )
    p = thermogov("import", str(path), "--out", str(tmp_path / "out"))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and str(path) in p.stderr
