"""A workload's activity factor is not a load change the log shows (checks.load_changes_in_training).

sbc-bench names its benchmarks, and a profile may weigh a busy core's power per benchmark
(``workload_activity``; tinymembench's stall part is the case that matters, docs/calibration.md
*Session 33f*).  When such a factor steps inside the training part while the logged utilisation
and clock stay put, the log holds no load step to learn a time constant or a gain from.  On the
base commit that step still turned a levels-only fit into a gains fit, which read the small step
as a fast time constant (Session 30f, lead 1: 3F9C 1.18 -> 8.70 °C at factor 0.8)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from thermogov.board import BoardProfile, load_board
from thermogov.sim.calibration.calibrate import calibrate, load_log_data
from thermogov.sim.calibration.inputs import derive_inputs

LEVELS_ONLY = "no load change in the training part"


def _rows(start_s: int, pct: list[int], temps: list[float]) -> str:
    out = []
    for i, (p, c) in enumerate(zip(pct, temps, strict=True)):
        s = start_s + 20 * i
        out.append(
            f"20:{s // 60:02d}:{s % 60:02d}: 1800/1800MHz  1.00  {p}%   0%  {p}%   0%   0%   0%  {c:.1f}°C"
        )
    return "\n".join(out)


def _report(tmp_path: Path, single_pct: int = 25) -> Path:
    """One core busy through two named sections (OpenSSL, then 7-zip single core, both in the
    first 40 %), then all four cores (7-zip multi) after the split."""
    head = "Time        fake/real   load %cpu %sys %usr %nice %io %irq   Temp"
    text = "\n".join(
        [
            "sbc-bench v0.9.8 Raspberry Pi 4 Model B Rev 1.4 (Fri, 07 Jan 2022 20:00:00 +1000)",
            "",
            "System health while running OpenSSL benchmark:",
            "",
            head,
            _rows(0, [25] * 6, [50.1, 51.0, 51.5, 51.9, 52.4, 52.4]),
            "",
            "System health while running 7-zip single core benchmark:",
            "",
            head,
            _rows(120, [single_pct] * 6, [52.9, 52.9, 53.4, 53.4, 53.8, 53.8]),
            "",
            "System health while running 7-zip multi core benchmark:",
            "",
            head,
            _rows(240, [97] * 18, [58 + 0.5 * i for i in range(18)]),
            "",
        ]
    )
    p = tmp_path / "sbcbench_pi4_s33.txt"
    p.write_text(text, encoding="utf-8")
    return p


def _weighed(factor: float | None) -> BoardProfile:
    board = load_board("rpi4")
    activity = () if factor is None else (("openssl", factor),)
    return dataclasses.replace(
        board, domains=tuple(dataclasses.replace(d, workload_activity=activity) for d in board.domains)
    )


def test_the_logged_proxy_leaves_out_the_activity_factor(tmp_path: Path) -> None:
    data = load_log_data(_report(tmp_path))
    inp = derive_inputs(data, _weighed(0.6))
    plain = derive_inputs(data, _weighed(None))
    assert not np.allclose(inp.load["cpu"], plain.load["cpu"])  # the factor weighs the model's load
    unit = plain.load["cpu"] * plain.volt_v["cpu"] ** 2 * plain.freq_hz["cpu"]
    assert np.allclose(inp.logged_proxy("cpu"), unit)  # ... not what the log shows
    assert np.allclose(plain.logged_proxy("cpu"), unit)


def test_a_factor_step_at_constant_logged_load_keeps_the_fit_levels_only(tmp_path: Path) -> None:
    data = load_log_data(_report(tmp_path))
    weighed = calibrate(data, _weighed(0.6), holdout=0.6)
    plain = calibrate(data, _weighed(None), holdout=0.6)
    assert any(LEVELS_ONLY in n for n in plain.notes)
    assert any(LEVELS_ONLY in n for n in weighed.notes)  # base: a gains fit from the factor's step


def test_a_logged_load_step_in_training_still_makes_a_gains_fit(tmp_path: Path) -> None:
    data = load_log_data(_report(tmp_path, single_pct=50))
    r = calibrate(data, _weighed(0.6), holdout=0.6)
    assert not any(LEVELS_ONLY in n for n in r.notes)
