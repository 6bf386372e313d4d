"""Session 30f: a held-out error split into level, drift and the rest (``tailparts``).

The three parts are orthogonal, so their squares add up to the held-out RMSE squared; a pure
offset is all level, a steady divergence all drift, a missed step mostly rest.  ``bench/fidelity.py``
carries them per row in ``--json`` and names them for every log over the RMSE target.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.calibrate.fidelityjson import bench_row
from tests.realdata import REAL_DATA, absent
from thermogov.sim.calibration.tailparts import tail_parts

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import fidelity  # noqa: E402

T = np.arange(100.0) * 5.0
TRAIN = np.arange(100) < 40
OBS = 50.0 + 10.0 * (1.0 - np.exp(-T / 200.0))


def test_an_offset_is_all_level() -> None:
    parts = tail_parts(T, OBS + 1.3, OBS, TRAIN)
    assert parts is not None
    assert parts.level_c == pytest.approx(1.3)
    assert parts.drift_c == pytest.approx(0.0, abs=1e-12)
    assert parts.rest_c == pytest.approx(0.0, abs=1e-12)


def test_a_steady_divergence_is_all_drift_signed_by_its_slope() -> None:
    tail_t = T[~TRAIN]
    ramp = (tail_t - tail_t.mean()) * 0.01  # zero mean over the tail, rising
    err = np.zeros_like(T)
    err[~TRAIN] = ramp
    warm = tail_parts(T, OBS + err, OBS, TRAIN)
    cool = tail_parts(T, OBS - err, OBS, TRAIN)
    assert warm is not None and cool is not None
    assert warm.level_c == pytest.approx(0.0, abs=1e-12)
    assert warm.drift_c == pytest.approx(float(np.sqrt(np.mean(ramp**2))))
    assert warm.rest_c == pytest.approx(0.0, abs=1e-9)
    assert cool.drift_c == pytest.approx(-warm.drift_c)


def test_a_missed_step_is_mostly_rest_and_the_squares_add_up() -> None:
    err = np.where(~TRAIN & (np.arange(100) % 20 < 10), 2.0, -0.5)
    forecast = OBS + err
    parts = tail_parts(T, forecast, OBS, TRAIN)
    assert parts is not None
    rmse = float(np.sqrt(np.mean(err[~TRAIN] ** 2)))
    assert parts.rmse_c == pytest.approx(rmse)
    assert parts.rest_c > abs(parts.drift_c)
    assert parts.level_c**2 + parts.drift_c**2 + parts.rest_c**2 == pytest.approx(rmse**2)


def test_it_reads_the_held_out_part_only_and_skips_gaps() -> None:
    forecast = OBS + 1.0
    forecast[TRAIN] += 50.0  # training errors must not count
    obs = OBS.copy()
    obs[60:70] = np.nan
    parts = tail_parts(T, forecast, obs, TRAIN)
    assert parts is not None
    assert parts.level_c == pytest.approx(1.0)
    assert math.isfinite(parts.rest_c)


def test_none_without_enough_held_out_readings_or_time() -> None:
    train = np.arange(100) < 98
    assert tail_parts(T, OBS + 1.0, OBS, train) is None  # two readings
    same_t = np.full(100, 7.0)
    assert tail_parts(same_t, OBS + 1.0, OBS, TRAIN) is None  # every reading at one time


def test_the_miss_line_names_the_three_parts_and_only_for_misses() -> None:
    miss = fidelity.Row(
        "miss.txt", "rpi4", rmse_c=2.03, tail_level_c=1.61, tail_drift_c=-0.71, tail_rest_c=1.02
    )
    hit = fidelity.Row("hit.txt", "rpi4", rmse_c=0.5, tail_level_c=0.1, tail_drift_c=0.1, tail_rest_c=0.4)
    (line,) = fidelity.miss_lines([miss, hit])
    assert "miss.txt" in line
    assert "level +1.61, drift -0.71, rest 1.02" in line


def test_the_bench_json_carries_them_and_they_add_up() -> None:
    row = bench_row("3Lpf")
    parts = (row["tail_level_c"], row["tail_drift_c"], row["tail_rest_c"])
    assert all(p is not None for p in parts)
    assert row["rmse_c"] ** 2 == pytest.approx(sum(p * p for p in parts))
    assert row["tail_level_c"] == pytest.approx(row["model_offset_c"])


def test_on_a_real_report_the_parts_add_up_to_its_held_out_rmse() -> None:
    path = REAL_DATA / "sbcbench_rpi4b_3Llk.txt"
    if not path.is_file():
        pytest.skip(absent(path))
    row = fidelity.measure(path, 0.6)
    assert row is not None and row.rmse_c is not None
    parts = (row.tail_level_c, row.tail_drift_c, row.tail_rest_c)
    assert all(p is not None for p in parts)
    assert row.rmse_c**2 == pytest.approx(sum(p * p for p in parts if p is not None))
