"""A board profile whose leakage outgrows its cooling: refused when no clock can hold it, and a
run that heats into runaway ends there, never reporting the 10^22 °C the plant would reach.

Found by the fuzz campaign (docs/importing.md, "Adversarial inputs"): the Pi 5 profile with
``leak_ref_c = 0`` simulated to 3.3e22 °C and exited 0.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.script import one_line_error, thermogov
from thermogov.steadystate import RUNAWAY_C

RPI5 = Path(__file__).resolve().parents[2] / "thermogov" / "boards" / "rpi5.toml"


def _profile(tmp: Path, **leak: float) -> Path:
    """The Pi 5 profile with its CPU domain's leakage keys (the first of each) replaced."""
    text = RPI5.read_text(encoding="utf-8")
    for key, value in leak.items():
        line = next(ln for ln in text.splitlines() if ln.startswith(f"{key} = "))
        text = text.replace(line, f"{key} = {value}", 1)
    path = tmp / "runaway.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_profile_no_clock_can_hold_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    board = _profile(tmp_path, leak_ref_c=0.0)
    p = thermogov("sim", "--board", str(board), "--duration", "60", "--out", str(tmp_path / "out"))
    line = one_line_error(p, "no steady state")
    assert "leak_ref_c" in line
    assert not (tmp_path / "out").exists()


def test_a_run_heating_into_runaway_ends_there_with_the_reason(tmp_path: Path) -> None:
    # Holds idle at the lowest clocks (so it is accepted) but not at the top clocks.
    board = _profile(tmp_path, leak_ref_c=60.0, leak_beta_per_k=0.08)
    p = thermogov(
        "sim", "--board", str(board), "--policy", "performance", "--duration", "600", "--json",
        "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert s["ended"].startswith("thermal runaway")
    assert s["duration_s"] < 600
    assert s["max_fused_c"] <= RUNAWAY_C
    assert all(v <= RUNAWAY_C for v in s["max_sensor_c"].values())
