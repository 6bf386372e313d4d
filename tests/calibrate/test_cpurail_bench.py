"""``bench/cpurail.py``: a logged CPU rail regressed on the fit's own load proxy gives back ``C_dyn``.

A synthetic Jetson Nano tegrastats log whose ``POM_5V_CPU`` rail is built from a known idle power
and a known ``C_dyn`` (the profile's voltage at each logged clock): the bench must recover both, so
the figures docs/calibration.md quotes from the real logs are what the rail says under the same
reading as the fit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from thermogov.board import load_board

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "cpurail.py"

IDLE_W = 0.2
C_DYN = 430.0  # uW/MHz/V^2, unlike the profile's, so a bench that echoed the profile would fail


def _nano_log(path: Path) -> None:
    cpu = next(d for d in load_board("jetson-nano").domains if d.name == "cpu")
    rng = np.random.default_rng(7)
    lines = []
    for i in range(80):
        f = int(rng.choice([918, 1224, 1479]))
        loads = rng.integers(0, 101, size=4)
        v = cpu.volt_at(f * 1_000_000)
        rail_mw = 1e3 * (IDLE_W + C_DYN * 1e-6 * f * v * v * loads.sum() / 100)
        temp = 30.0 + 0.05 * i
        cores = ",".join(f"{u}%@{f}" for u in loads)
        lines.append(
            f"RAM 1762/3964MB (lfb 252x4MB) SWAP 0/4096MB (cached 0MB) IRAM 0/252kB(lfb 252kB) "
            f"CPU [{cores}] EMC_FREQ 7%@1600 GR3D_FREQ 0%@921 APE 25 PLL@{temp - 2:.1f}C "
            f"CPU@{temp:.1f}C PMIC@50C GPU@{temp - 1:.1f}C AO@{temp + 2:.1f}C thermal@{temp - 1:.1f}C "
            f"POM_5V_IN 2500/2500 POM_5V_GPU 300/300 POM_5V_CPU {rail_mw:.0f}/{rail_mw:.0f}"
        )
    path.write_text("\n".join(lines) + "\n")


def test_the_rail_gives_back_the_c_dyn_it_was_built_from(tmp_path: Path) -> None:
    _nano_log(tmp_path / "tegrastats_nano_synthetic.log")
    res = subprocess.run(
        [sys.executable, str(BENCH), "--data", str(tmp_path), "--block", "1", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)
    assert [(r["board"], r["rail"]) for r in rows] == [("jetson-nano", "POM_5V_CPU")]
    row = rows[0]
    assert row["shared"] is False
    assert abs(row["c_dyn"] - C_DYN) < 0.02 * C_DYN
    assert abs(row["intercept_w"] - IDLE_W) < 0.05
    assert row["r"] > 0.99


def test_a_missing_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    res = subprocess.run(
        [sys.executable, str(BENCH), "--data", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert res.returncode == 2
    assert "--data" in res.stderr and "Traceback" not in res.stderr
