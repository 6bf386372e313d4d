"""Whether a skill <= 0 is a loss or a tie: the tail offsets, the tie band and the scatter (Session 29p).

``sim/calibration/baseline.py`` splits a held-out RMSE into a forecast's mean error over the
tail and the spread about it.  Persistence's mean error sizes the band a constant forecast must
fall in to beat it; the tail's sample-to-sample scatter is what white noise alone reads as.
``bench/fidelity.py`` carries all four per row and prints them beside every skill <= 0.
Fails on main, which has none of these functions, fields or words.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tests.calibrate.fidelityjson import bench_row
from thermogov.sim.calibration.baseline import (
    hindsight_flat_rmse,
    persistence_offset,
    sample_scatter,
    tail_offset,
    tie_band,
)
from thermogov.sim.calibration.fit import persistence_rmse

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import fidelity  # noqa: E402


def _settled_log(seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """A settled board read with 0.2 °C noise on a 0.1 °C grid: 40 training readings, 60 held out."""
    rng = np.random.default_rng(seed)
    obs = np.round((68.0 + rng.normal(0.0, 0.2, 100)) * 10.0) / 10.0
    return obs, np.arange(100) < 40


def test_a_constant_beats_persistence_exactly_inside_the_band() -> None:
    obs, train = _settled_log()
    tail = obs[~train]
    band, off = tie_band(obs, train), persistence_offset(obs, train)
    assert band is not None and off is not None and band == abs(off)
    assert off == pytest.approx(obs[39] - tail.mean())
    persist, floor = persistence_rmse(obs, train), hindsight_flat_rmse(obs, train)
    assert persist is not None and floor is not None
    assert persist**2 == pytest.approx(floor**2 + off**2)
    for frac in (0.0, 0.5, 0.9, 1.1, 2.0):  # inside the band beats persistence, outside loses
        c = tail.mean() + frac * band
        rmse = float(np.sqrt(np.mean((tail - c) ** 2)))
        assert (rmse < persist) == (frac < 1.0)


def test_the_tail_offset_reads_the_held_out_part_only_and_skips_gaps() -> None:
    obs, train = _settled_log()
    forecast = obs + 0.3
    forecast[:40] = 0.0  # the fit's part is not the forecast's error
    forecast[50] = np.nan
    assert tail_offset(forecast, obs, train) == pytest.approx(0.3)
    persistence = np.where(train, obs, obs[39])
    assert tail_offset(persistence, obs, train) == pytest.approx(persistence_offset(obs, train))
    assert tail_offset(forecast, obs, np.ones(100, dtype=bool)) is None
    assert persistence_offset(obs, np.zeros(100, dtype=bool)) is None
    assert tie_band(obs, np.ones(100, dtype=bool)) is None


def test_the_scatter_is_the_noise_of_a_flat_tail_and_grows_with_steps() -> None:
    rng = np.random.default_rng(11)
    train = np.arange(4000) < 1000
    noisy = 50.0 + rng.normal(0.0, 0.3, 4000)
    got = sample_scatter(noisy, train)
    assert got == pytest.approx(0.3, rel=0.05)
    flat = np.full(4000, 50.0)
    assert sample_scatter(flat, train) == 0.0
    alternating = 50.0 + np.resize([0.0, 1.0], 4000)  # every step 1 K: RMS 1 over sqrt 2
    assert sample_scatter(alternating, train) == pytest.approx(1.0 / np.sqrt(2.0))
    gappy = noisy.copy()
    gappy[2000:2100] = np.nan
    assert sample_scatter(gappy, train) == pytest.approx(got, rel=0.05)
    assert sample_scatter(noisy, np.arange(4000) < 3998) is None  # two held-out readings


def test_the_luck_line_names_the_offsets_the_band_and_the_scatter() -> None:
    tie = fidelity.Row(
        "tie.csv",
        "jetson-agx-orin",
        rmse_c=0.2376,
        persistence_c=0.2362,
        skill=1 - 0.2376 / 0.2362,
        model_offset_c=0.034,
        persistence_offset_c=0.023,
        tie_band_c=0.023,
        scatter_c=0.202,
    )
    won = fidelity.Row("won.csv", "rpi4", rmse_c=0.5, persistence_c=1.0, skill=0.5, tie_band_c=0.8)
    (line,) = fidelity.luck_lines([tie, won])
    assert "tie.csv" in line
    assert "model +0.034, persistence +0.023" in line
    assert "only within 0.023 of the tail's mean" in line
    assert "scatter 0.20" in line


def test_the_bench_json_carries_them_and_they_add_up() -> None:
    row = bench_row("3Lpf")
    assert row["tie_band_c"] == abs(row["persistence_offset_c"])
    assert row["persistence_c"] ** 2 == pytest.approx(
        row["flat_floor_c"] ** 2 + row["persistence_offset_c"] ** 2
    )
    assert abs(row["model_offset_c"]) <= row["rmse_c"] + 1e-12  # RMSE^2 = offset^2 + spread^2
    assert row["scatter_c"] is not None and row["scatter_c"] >= 0.0
